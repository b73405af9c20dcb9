// SPDX-License-Identifier: GPL-2.0
/*
 * http.h for the static tdbpf (make static, make ARCH=...): without
 * libmicrohttpd. Debian's libmicrohttpd.a needs GnuTLS, and GnuTLS needs
 * p11-kit and libunistring, of which Debian ships no static library, so
 * a static binary cannot have --listen. It says so in one line when asked
 * for it; everything else works the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include "exporter/http.h"
#include "support/error.h"

int http_listen(struct listen_addr *a, char *err, size_t len)
{
	(void)a;
	error_set(err, len,
		 "--listen: this static tdbpf is built without libmicrohttpd (Debian has no static GnuTLS dependencies); use the packaged tdbpf for /metrics");
	return -1;
}

/* Unreachable: no socket is ever listened on, so no server starts. */
struct http_server *http_start(int fd, http_scrape_fn scrape,
			       http_release_fn release, void *ctx, char *err,
			       size_t len)
{
	(void)fd, (void)scrape, (void)release, (void)ctx;
	error_set(err, len, "--listen: built without libmicrohttpd");
	return NULL;
}

int http_poll_fd(const struct http_server *h)
{
	(void)h;
	return -1;
}

int http_timeout_ms(struct http_server *h)
{
	(void)h;
	return -1;
}

void http_run(struct http_server *h)
{
	(void)h;
}

void http_stop(struct http_server *h)
{
	(void)h;
}
