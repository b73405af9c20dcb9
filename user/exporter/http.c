// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics server: libmicrohttpd (Debian's libmicrohttpd), in
 * external-polling mode with epoll, so no thread runs beside tdbpf's
 * loop: the loop polls MHD's epoll fd and calls MHD_run(), and a scrape
 * is answered in the loop's thread. That costs nothing when nobody
 * scrapes, and a scrape can never race a report or the BPF maps.
 *
 * Only GET (and HEAD) of /metrics and / are served; anything else gets
 * 404 or 405. HTTP_MEMORY_LIMIT bytes of request per connection (a larger
 * header gets MHD's 431 and the connection is closed). Every socket is
 * non-blocking and a client is served as far as its bytes allow, then
 * the loop moves on.
 *
 * Slow clients (a byte a second) must neither delay a scrape nor stay:
 * - each request has HTTP_REQUEST_S (10 s, Prometheus's default scrape
 *   timeout: a scraper has given up by then) from its connection, or
 *   its connection's previous answer, to be answered, whatever bytes it
 *   sends: MHD's own timeout counts only idleness, which a byte a second
 *   resets forever;
 * - slots are shared: HTTP_MAX_CONNECTIONS in all (64: cheap, an fd and
 *   at most HTTP_MEMORY_LIMIT each, and more than a few stuck clients
 *   fill) and HTTP_MAX_PER_IP (16) per client address. A connection over
 *   its address's share takes the slot of that address's oldest slow
 *   request (not being answered, nothing of it waiting to be read);
 *   over the total, that of the address holding most. So slow clients
 *   elsewhere never keep a scraper out, and its own address's only when
 *   they are more than 16. With no slow request to take (a burst: 50
 *   scrapes at once from one address, each request sent), the newcomer
 *   is answered 503 with Retry-After, at once, and closed: it was
 *   closed unanswered (518 of 1,000). MHD's limits only refuse (8 slow
 *   clients of the scraper's address kept every scrape of it out; 16
 *   filled the server and every scrape hung in the backlog), so its
 *   total is ours twice over, the second half for the 503s, and it has
 *   no per address limit;
 * - the listen backlog (HTTP_BACKLOG) holds more than the slots: a SYN
 *   dropped for a full backlog costs a second (TCP's retransmission);
 * - each answer's body stays until its client has read it: clients that
 *   ask and never read would each hold one (60 of them held 4.6 MB
 *   each, 300 MB). Past HTTP_UNREAD_MAX bytes unread a scrape gets 503
 *   with Retry-After, which a scraper acts on; one body is always let
 *   out, however large;
 * - at its limit MHD takes its listening socket off its epoll set and
 *   puts it back only at the start of a run, and nothing would wake
 *   one: a run in which a connection ended is followed by another at
 *   once (200 half-open connections from as many addresses held every
 *   scrape for a slow client's whole time).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/types.h>
#include <microhttpd.h>
#include "exporter/http.h"
#include "support/limits.h"
#include "support/error.h"

/* as many again for connections turned away with a 503, one lingering */
#define HTTP_SLOTS (2 * HTTP_MAX_CONNECTIONS + 2)

/* A connection, while MHD has it: for the limits above. */
struct conn {
	bool used;
	bool closing;		/* shut down by us, MHD has yet to see it */
	bool answering;		/* its request is in: the answer is queued */
	bool refuse;		/* no room: its request gets 503, then close */
	int fd;
	unsigned char addr[16];	/* the client's address, IPv4 or IPv6 */
	__u64 since_ns;		/* its request's start: accepted or last answer */
};

struct http_server {
	struct MHD_Daemon *d;
	/* one more than MHD's limit: a closing one may linger a run */
	struct conn conns[HTTP_SLOTS];
	int epoll_fd;
	bool closed;		/* a connection ended in the last run */
	size_t unread;		/* bytes of bodies queued, not yet sent */
	http_scrape_fn scrape;
	http_release_fn release;
	void *ctx;
};

/* A body on its way out, and where it goes back to. */
struct sent_body {
	struct http_server *h;
	char *body;
	size_t len;
};

static void body_sent(void *cls)
{
	struct sent_body *sb = cls;

	sb->h->unread -= sb->len;
	if (sb->h->release)
		sb->h->release(sb->h->ctx, sb->body);
	else
		free(sb->body);
	free(sb);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

/* Close @k: MHD sees the socket end at its next run and lets it go. */
static void evict(struct conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->closing = true;
}

/*
 * Bytes of @k's request wait in its socket: it is in line, not slow (a
 * burst of scrapers, each with its request sent, none read yet).
 */
static bool request_waiting(const struct conn *k)
{
	int n = 0;

	return !ioctl(k->fd, FIONREAD, &n) && n > 0;
}

/*
 * The oldest slow request (not closing, not being answered, nothing of
 * it waiting to be read) of @addr (NULL: of any address), @except aside;
 * NULL if none.
 */
static struct conn *oldest(struct http_server *h, const unsigned char *addr,
			   const struct conn *except)
{
	struct conn *k, *best = NULL;

	for (k = h->conns; k < h->conns + HTTP_SLOTS; k++)
		if (k->used && !k->closing && !k->answering && !k->refuse &&
		    k != except && !request_waiting(k) &&
		    (!addr || !memcmp(k->addr, addr, sizeof(k->addr))) &&
		    (!best || k->since_ns < best->since_ns))
			best = k;
	return best;
}

/* Connections of @addr (NULL: all) served: not closing, not refused. */
static int holding(const struct http_server *h, const unsigned char *addr)
{
	const struct conn *k;
	int n = 0;

	for (k = h->conns; k < h->conns + HTTP_SLOTS; k++)
		n += k->used && !k->closing && !k->refuse &&
		     (!addr || !memcmp(k->addr, addr, sizeof(k->addr)));
	return n;
}

/*
 * @new came in: over a share, someone's oldest slow request makes room;
 * with none slow (a burst), @new is answered 503, which a scraper acts
 * on, rather than closed unanswered.
 */
static void make_room(struct http_server *h, struct conn *new)
{
	struct conn *k, *most = NULL, *victim;
	int n, top = 0;

	if (holding(h, new->addr) > HTTP_MAX_PER_IP) {
		victim = oldest(h, new->addr, new);
		if (!victim) {
			new->refuse = true;
			return;
		}
		evict(victim);
	}
	if (holding(h, NULL) <= HTTP_MAX_CONNECTIONS)
		return;
	/* the address holding most gives its oldest */
	for (k = h->conns; k < h->conns + HTTP_SLOTS; k++) {
		if (!k->used || k->closing || k == new)
			continue;
		n = holding(h, k->addr);
		if (n > top && oldest(h, k->addr, new)) {
			top = n;
			most = k;
		}
	}
	victim = most ? oldest(h, most->addr, new) : NULL;
	if (victim)
		evict(victim);
	else
		new->refuse = true;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **sock,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *h = cls;
	const union MHD_ConnectionInfo *fd, *ad;
	struct conn *k = *sock;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (k)
			memset(k, 0, sizeof(*k));
		*sock = NULL;
		/* MHD may have taken its listening socket off epoll: run again */
		h->closed = true;
		return;
	}
	for (k = h->conns; k < h->conns + HTTP_SLOTS && k->used; k++)
		;
	fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	ad = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!fd)
		return;
	if (k == h->conns + HTTP_SLOTS) {
		/* MHD holds one more than it should: turn this one away */
		shutdown(fd->connect_fd, SHUT_RDWR);
		return;
	}
	memset(k, 0, sizeof(*k));
	k->used = true;
	k->fd = fd->connect_fd;
	k->since_ns = now_ns();
	if (ad && ad->client_addr->sa_family == AF_INET)
		memcpy(k->addr,
		       &((struct sockaddr_in *)ad->client_addr)->sin_addr, 4);
	else if (ad && ad->client_addr->sa_family == AF_INET6)
		memcpy(k->addr,
		       &((struct sockaddr_in6 *)ad->client_addr)->sin6_addr, 16);
	*sock = k;
	make_room(h, k);
}

/* A request answered (or failed): the next one's time starts now. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req,
			 enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = i ? i->socket_context : NULL;

	(void)cls;
	(void)req;
	(void)toe;
	if (k) {
		k->since_ns = now_ns();
		k->answering = false;
	}
}

/*
 * Its request is in: an answer is queued, it is no slow client. True
 * if it came in with no room: its answer is a 503.
 */
static bool answering(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = i ? i->socket_context : NULL;

	if (k)
		k->answering = true;
	return k && k->refuse;
}

/* Requests past their whole time are closed; ms to the next deadline. */
static int expire(struct http_server *h)
{
	const __u64 limit = (__u64)HTTP_REQUEST_S * 1000000000ULL;
	__u64 now = now_ns(), next = UINT64_MAX;
	struct conn *k;

	for (k = h->conns; k < h->conns + HTTP_SLOTS; k++) {
		if (!k->used || k->closing)
			continue;
		if (now - k->since_ns >= limit)
			evict(k);
		else if (k->since_ns + limit < next)
			next = k->since_ns + limit;
	}
	if (next == UINT64_MAX)
		return -1;
	return (int)((next - now + 999999) / 1000000);
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
		error_set(err, len, "cannot create a socket for --listen %s: %s",
			 a->text, strerror(errno));
		return -1;
	}
	/* a restarted tdbpf gets its port back at once (TIME_WAIT) */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* [::]:PORT means IPv6 only: ask for 0.0.0.0 separately */
	if (a->ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a->ss, a->len) ||
	    listen(fd, HTTP_BACKLOG)) {
		int e = errno;

		error_set(err, len, "cannot listen on %s: %s; %s", a->text,
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
	if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
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
		if (h->release)
			h->release(h->ctx, body);
		else
			free(body);
		return MHD_NO;
	}
	sb->h = h;
	sb->body = body;
	sb->len = n;
	h->unread += n;
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
	/* at once, with the headers: MHD closes the connection after it */
	if (answering(c))
		return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "every connection slot is taken by requests in line; retry in a second\n");
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
	if (h->unread >= HTTP_UNREAD_MAX)
		return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				  "too many answers not yet read by their clients; retry in a second\n");
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
		error_set(err, len, "out of memory");
		return NULL;
	}
	h->scrape = scrape;
	h->release = release;
	h->ctx = ctx;
	h->d = MHD_start_daemon(
		MHD_USE_EPOLL, 0, NULL, NULL, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, fd,
		/* ours are below (make_room()); MHD's only refuse */
		MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)HTTP_SLOTS - 1,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_REQUEST_S,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_LIMIT,
		MHD_OPTION_STRICT_FOR_CLIENT, 1,
		/* tdbpf ignores SIGPIPE: a closed pipe is an error return */
		MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1,
		MHD_OPTION_END);
	if (!h->d) {
		const char *limit = limits_nofile_hint();

		close(fd);
		free(h);
		/* its epoll fd and pipe: a limit is the likely cause */
		if (limit || (limit = limits_memory_hint()))
			error_set(err, len,
				 "cannot start the HTTP server (libmicrohttpd): %s",
				 limit);
		else
			error_set(err, len,
				 "cannot start the HTTP server (libmicrohttpd); run with -v and report it");
		return NULL;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	h->epoll_fd = info ? info->epoll_fd : -1;
	if (h->epoll_fd < 0) {
		MHD_stop_daemon(h->d);
		free(h);
		error_set(err, len,
			 "libmicrohttpd was built without epoll; tdbpf needs it for --listen");
		return NULL;
	}
	return h;
}

int http_poll_fd(const struct http_server *h)
{
	return h ? h->epoll_fd : -1;
}

int http_timeout_ms(struct http_server *h)
{
	MHD_UNSIGNED_LONG_LONG t;
	int ms = h ? expire(h) : -1;

	/* MHD puts its listening socket back only at its next run */
	if (h && h->closed)
		return 0;
	if (h && MHD_get_timeout(h->d, &t) == MHD_YES &&
	    (ms < 0 || t < (MHD_UNSIGNED_LONG_LONG)ms))
		ms = t > 60000 ? 60000 : (int)t;
	return ms;
}

void http_run(struct http_server *h)
{
	if (!h)
		return;
	expire(h);
	h->closed = false;
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
