// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics server: libmicrohttpd (Debian's libmicrohttpd), in
 * external-polling mode with epoll, so no thread runs beside tdbpf's
 * loop: the loop polls MHD's epoll fd and calls MHD_run(), and a scrape
 * is answered in the loop's thread. That costs nothing when nobody
 * scrapes, and a scrape can never race a report or the BPF maps.
 *
 * Only GET (and HEAD) of /metrics and / are served; anything else gets
 * 404 or 405. Limits: HTTP_MAX_CONNECTIONS connections (8 per client
 * address), HTTP_MEMORY_LIMIT bytes of request per connection (a larger
 * header gets MHD's 431 and the connection is closed) and HTTP_TIMEOUT_S
 * of inactivity, so a slow or stuck client is dropped and never holds a
 * scrape: every socket is non-blocking and a client is served as far as
 * its bytes allow, then the loop moves on.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>
#include "outputs/http.h"

struct http_server {
	struct MHD_Daemon *d;
	int epoll_fd;
	http_scrape_fn scrape;
	http_release_fn release;
	void *ctx;
};

/* A body on its way out, and where it goes back to. */
struct sent_body {
	struct http_server *h;
	char *body;
};

static void body_sent(void *cls)
{
	struct sent_body *sb = cls;

	if (sb->h->release)
		sb->h->release(sb->h->ctx, sb->body);
	else
		free(sb->body);
	free(sb);
}

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>tdbpf</title></head><body>\n"
	"<h1>tdbpf</h1>\n"
	"<p>Per-task TopDown and scheduling breakdown, attributed at "
	"sched_switch.</p>\n"
	"<p><a href=\"/metrics\">/metrics</a></p>\n"
	"</body></html>\n";

int http_listen(struct listen_addr *a, char *err, size_t len)
{
	int fd, one = 1;

	fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0) {
		snprintf(err, len, "cannot create a socket for --listen %s: %s",
			 a->text, strerror(errno));
		return -1;
	}
	/* a restarted tdbpf gets its port back at once (TIME_WAIT) */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* [::]:PORT means IPv6 only: ask for 0.0.0.0 separately */
	if (a->ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a->ss, a->len) ||
	    listen(fd, HTTP_MAX_CONNECTIONS)) {
		int e = errno;

		snprintf(err, len, "cannot listen on %s: %s; %s", a->text,
			 strerror(e),
			 e == EADDRINUSE ?
				 "another program uses that port: pick another with --listen" :
			 e == EADDRNOTAVAIL ?
				 "that address is not on this machine: give one of its addresses, or 127.0.0.1" :
			 e == EACCES ?
				 "ports below 1024 need root or CAP_NET_BIND_SERVICE" :
				 "check the address and port");
		close(fd);
		return -1;
	}
	a->len = sizeof(a->ss);
	if (!getsockname(fd, (struct sockaddr *)&a->ss, &a->len))
		listen_addr_text(a);
	return fd;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, void *body, size_t n,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(n, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* 200 with a scrape's @body, handed back to the caller once sent */
static enum MHD_Result reply_body(struct MHD_Connection *c,
				  struct http_server *h, const char *type,
				  char *body, size_t n)
{
	struct sent_body *sb = malloc(sizeof(*sb));
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!sb) {
		free(body);
		return MHD_NO;
	}
	sb->h = h;
	sb->body = body;
	r = MHD_create_response_from_buffer_with_free_callback_cls(
		n, body, body_sent, sb);
	if (!r) {
		body_sent(sb);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c,
				  unsigned int status, const char *msg)
{
	return reply(c, status, "text/plain; charset=utf-8", (void *)msg,
		     strlen(msg), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **req)
{
	struct http_server *h = cls;
	const char *accept, *type = "text/plain";
	char *body = NULL;
	size_t n = 0;

	(void)version;
	(void)upload;
	/*
	 * Another method is answered at the first call, when the headers
	 * are in: its body is never read, and MHD closes the connection
	 * after the answer instead.
	 */
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "only GET is served here\n");
	/*
	 * GET: answered at the next call, once the request is complete, so
	 * that the connection can stay open for the next scrape (a body
	 * sent with a GET is read and dropped).
	 */
	if (!*req || *upload_len) {
		*req = (void *)1;
		*upload_len = 0;
		return MHD_YES;
	}
	if (!strcmp(url, "/"))
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8",
			     (void *)index_page, sizeof(index_page) - 1,
			     MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply_text(c, MHD_HTTP_NOT_FOUND,
				  "not found; the metrics are at /metrics\n");
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	if (h->scrape(h->ctx, accept, &body, &n, &type)) {
		if (body && h->release)
			h->release(h->ctx, body);
		else
			free(body);
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "reading the task sums failed; see tdbpf's stderr\n");
	}
	return reply_body(c, h, type, body, n);
}

struct http_server *http_start(int fd, http_scrape_fn scrape,
			       http_release_fn release, void *ctx, char *err,
			       size_t len)
{
	struct http_server *h = calloc(1, sizeof(*h));
	const union MHD_DaemonInfo *info;

	if (!h) {
		close(fd);
		snprintf(err, len, "out of memory");
		return NULL;
	}
	h->scrape = scrape;
	h->release = release;
	h->ctx = ctx;
	h->d = MHD_start_daemon(
		MHD_USE_EPOLL, 0, NULL, NULL, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
		MHD_OPTION_STRICT_FOR_CLIENT, 1,
		/* tdbpf ignores SIGPIPE: a closed pipe is an error return */
		MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1,
		MHD_OPTION_END);
	if (!h->d) {
		close(fd);
		free(h);
		snprintf(err, len,
			 "cannot start the HTTP server (libmicrohttpd); run with -v and report it");
		return NULL;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	h->epoll_fd = info ? info->epoll_fd : -1;
	if (h->epoll_fd < 0) {
		MHD_stop_daemon(h->d);
		free(h);
		snprintf(err, len,
			 "libmicrohttpd was built without epoll; tdbpf needs it for --listen");
		return NULL;
	}
	return h;
}

int http_poll_fd(const struct http_server *h)
{
	return h ? h->epoll_fd : -1;
}

int http_timeout_ms(const struct http_server *h)
{
	MHD_UNSIGNED_LONG_LONG t;

	if (!h || MHD_get_timeout(h->d, &t) != MHD_YES)
		return -1;
	return t > 60000 ? 60000 : (int)t;
}

void http_run(struct http_server *h)
{
	if (h)
		MHD_run(h->d);
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	/* closes the listening socket and every connection */
	MHD_stop_daemon(h->d);
	free(h);
}
