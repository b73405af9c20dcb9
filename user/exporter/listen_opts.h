/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The --listen options, parsed without side effects (options.c calls
 * these; the fuzzer and the unit tests too): the address to serve on and
 * which labels the series carry.
 */
#ifndef TDBPF_LISTEN_OPTS_H
#define TDBPF_LISTEN_OPTS_H

#include <stddef.h>
#include <sys/socket.h>

struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char text[80];		/* "127.0.0.1:9100", "[::1]:9100" */
};

/* --listen-labels: which identity labels a series carries */
enum listen_labels {
	LISTEN_LABEL_PID = 1,	/* one series per process and thread name */
	LISTEN_LABEL_TID = 2,	/* one per thread, its own name (implies pid) */
};

#define LISTEN_DEFAULT_MAX_SERIES	500
#define LISTEN_MAX_SERIES_LIMIT		1000000

/*
 * "PORT", ":PORT", "HOST:PORT" or "[IPV6]:PORT"; HOST a numeric address
 * or "localhost". No host means 127.0.0.1: nothing is exposed beyond the
 * machine unless asked. Returns 0, or -1 with @err (no "tdbpf: " prefix).
 */
int listen_parse_addr(const char *spec, struct listen_addr *a, char *err,
		      size_t len);
/* @a->text from @a->ss */
void listen_addr_text(struct listen_addr *a);

/* "pid", "tid", "pid,tid" or "none" -> enum listen_labels bits; -1 if bad */
int listen_parse_labels(const char *s, unsigned int *labels);

#endif /* TDBPF_LISTEN_OPTS_H */
