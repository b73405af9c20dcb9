/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP side of --listen: libmicrohttpd without a thread of its own.
 * Its epoll fd is one more source of tdbpf's event loop, and a scrape
 * runs in the loop's thread, like a report.
 */
#ifndef TDBPF_HTTP_H
#define TDBPF_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include "exporter/listen_opts.h"

/* Limits of the server (see http.c for why these values). */
#define HTTP_MAX_CONNECTIONS	64
#define HTTP_MAX_PER_IP		16
#define HTTP_REQUEST_S		10	/* a request's whole time */
#define HTTP_BACKLOG		512
#define HTTP_MEMORY_LIMIT	(16 * 1024)	/* per connection: the request */
/* bodies answered and not yet read by their clients, at most (http.c) */
#define HTTP_UNREAD_MAX		(32 * 1024 * 1024)

/*
 * Bind and listen on @a (before privileges are dropped: a port below 1024
 * needs CAP_NET_BIND_SERVICE). Returns the socket, or -1 with @err. With
 * port 0 the kernel picks one: @a->text is updated to the bound address.
 */
int http_listen(struct listen_addr *a, char *err, size_t len);

/*
 * A scrape: @body (malloc'ed, handed over), its @len and Content-Type
 * @type, in the format the request's Accept header (@accept, NULL when
 * absent) asks for. Non-zero: the collect failed; 500 is returned.
 */
typedef int (*http_scrape_fn)(void *ctx, const char *accept, char **body,
			      size_t *len, const char **type);

/* A body of http_scrape_fn that has been sent (or dropped): @body back. */
typedef void (*http_release_fn)(void *ctx, char *body);

struct http_server;

/*
 * Serve on the listening socket @fd (taken over); NULL with @err. Bodies
 * go back to @release once sent (NULL: free()), so a caller can reuse
 * one large buffer instead of faulting in fresh pages at every scrape.
 */
struct http_server *http_start(int fd, http_scrape_fn scrape,
			       http_release_fn release, void *ctx, char *err,
			       size_t len);
/* The fd to poll for input; then call http_run(). */
int http_poll_fd(const struct http_server *h);
/* Milliseconds until http_run() must run even without input, -1 none. */
int http_timeout_ms(struct http_server *h);
/* Accept, read, answer, time out: whatever is ready, without blocking. */
void http_run(struct http_server *h);
void http_stop(struct http_server *h);

#endif /* TDBPF_HTTP_H */
