// SPDX-License-Identifier: GPL-2.0
/* --listen ADDR:PORT and --listen-labels, parsed without side effects. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/listen_opts.h"
#include "support/text.h"
#include "support/error.h"

static int parse_port(const char *s, unsigned int *port)
{
	char *end;
	long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 65535)
		return -1;
	*port = (unsigned int)v;
	return 0;
}

void listen_addr_text(struct listen_addr *a)
{
	char host[INET6_ADDRSTRLEN];

	if (a->ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
		snprintf(a->text, sizeof(a->text), "[%s]:%u", host,
			 ntohs(s6->sin6_port));
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;

		inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
		snprintf(a->text, sizeof(a->text), "%s:%u", host,
			 ntohs(s4->sin_port));
	}
}

int listen_parse_addr(const char *spec, struct listen_addr *a, char *err,
		    size_t len)
{
	char host[64] = "";
	const char *port_s, *colon;
	unsigned int port;

	memset(a, 0, sizeof(*a));
	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':' || (size_t)(rb - spec - 1) >= sizeof(host))
			goto bad;
		memcpy(host, spec + 1, (size_t)(rb - spec - 1));
		host[rb - spec - 1] = '\0';
		port_s = rb + 2;
	} else if ((colon = strrchr(spec, ':'))) {
		if (strchr(spec, ':') != colon) {
			error_set(err, len,
				 "invalid --listen '%s'; write an IPv6 address in brackets, e.g. --listen [::1]:9100",
				 spec);
			/* it quotes the argument: keep it one printable line */
	text_printable(err, len, err, NULL, 0);
			return -1;
		}
		if ((size_t)(colon - spec) >= sizeof(host))
			goto bad;
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		port_s = colon + 1;
	} else {
		port_s = spec;
	}
	if (parse_port(port_s, &port))
		goto bad;
	if (!host[0] || !strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (spec[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->ss;

		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			goto bad;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)port);
		a->len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&a->ss;

		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			goto bad;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)port);
		a->len = sizeof(*s4);
	}
	listen_addr_text(a);
	return 0;
bad:
	error_set(err, len,
		 "invalid --listen '%s'; give [ADDR:]PORT with a numeric address, e.g. --listen 9100, 127.0.0.1:9100 or [::1]:9100",
		 spec);
	/* it quotes the argument: keep it one printable line */
	text_printable(err, len, err, NULL, 0);
	return -1;
}

int listen_parse_labels(const char *s, unsigned int *labels)
{
	char buf[64], *tok, *save = NULL;

	*labels = 0;
	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	if (!strcmp(buf, "none"))
		return 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "pid"))
			*labels |= LISTEN_LABEL_PID;
		else if (!strcmp(tok, "tid"))
			*labels |= LISTEN_LABEL_TID | LISTEN_LABEL_PID;
		else
			return -1;
	}
	return *labels ? 0 : -1;
}
