// SPDX-License-Identifier: GPL-2.0
/* Flow halves: a growable table and the address spelling (flows.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "sums/flows.h"
#include "support/array.h"

void flows_init(struct flow_table *t)
{
	memset(t, 0, sizeof(*t));
}

void flows_reset(struct flow_table *t)
{
	t->nr = 0;
}

void flows_free(struct flow_table *t)
{
	free(t->v);
	flows_init(t);
}

int flows_add(struct flow_table *t, const struct sock_flow *f)
{
	if (array_grow(&t->v, &t->cap, t->nr, sizeof(*t->v), 16))
		return -ENOMEM;
	t->v[t->nr++] = *f;
	return 0;
}

int flows_copy(struct flow_table *dst, const struct flow_table *src)
{
	size_t i;
	int err = 0;

	flows_reset(dst);
	for (i = 0; i < src->nr && !err; i++)
		err = flows_add(dst, &src->v[i]);
	return err;
}

static const __u8 v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* An IPv4-mapped IPv6 end as the IPv4 end it is. */
static struct flow_end canon(const struct flow_end *e)
{
	struct flow_end c = *e;

	if (e->family == AF_INET6 && !memcmp(e->addr, v4mapped, 12)) {
		memset(&c, 0, sizeof(c));
		c.family = AF_INET;
		memcpy(c.addr, e->addr + 12, 4);
		c.port = e->port;
	}
	return c;
}

void flow_end_str(const struct flow_end *e, char *buf, size_t len)
{
	struct flow_end c = canon(e);
	char a[INET6_ADDRSTRLEN], p[8];

	if (c.any_port)
		snprintf(p, sizeof(p), "*");
	else
		snprintf(p, sizeof(p), "%u", c.port);
	if (c.family == AF_INET && inet_ntop(AF_INET, c.addr, a, sizeof(a)))
		snprintf(buf, len, "%s:%s", a, p);
	else if (c.family == AF_INET6 &&
		 inet_ntop(AF_INET6, c.addr, a, sizeof(a)))
		snprintf(buf, len, "[%s]:%s", a, p);
	else
		snprintf(buf, len, "?");
}

bool flow_end_parse(const char *s, struct flow_end *e)
{
	char a[INET6_ADDRSTRLEN + 2], *colon, *end;
	unsigned long port;
	size_t n;

	memset(e, 0, sizeof(*e));
	colon = strrchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(a))
		return false;
	n = (size_t)(colon - s);
	memcpy(a, s, n);
	a[n] = 0;
	if (!strcmp(colon + 1, "*")) {
		e->any_port = 1;
	} else {
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (errno || *end || end == colon + 1 || port > 65535)
			return false;
		e->port = (__u16)port;
	}
	if (a[0] == '[' && n > 2 && a[n - 1] == ']') {
		a[n - 1] = 0;
		if (inet_pton(AF_INET6, a + 1, e->addr) != 1)
			return false;
		e->family = AF_INET6;
		*e = canon(e);
		return true;
	}
	if (inet_pton(AF_INET, a, e->addr) != 1)
		return false;
	e->family = AF_INET;
	return true;
}

bool flow_addr_eq(const struct flow_end *a, const struct flow_end *b)
{
	struct flow_end x = canon(a), y = canon(b);

	return x.family && x.family == y.family &&
	       !memcmp(x.addr, y.addr, x.family == AF_INET ? 4 : 16);
}

bool flow_end_eq(const struct flow_end *a, const struct flow_end *b)
{
	return flow_addr_eq(a, b) && a->port == b->port &&
	       a->any_port == b->any_port;
}

/* Does some socket of @t listen on @e's port (on its address or any)? */
static bool listened(const struct flow_table *t, const struct flow_end *e)
{
	static const __u8 zero[16];
	size_t i;

	for (i = 0; i < t->nr; i++) {
		const struct flow_end *l = &t->v[i].local;

		if (t->v[i].state == FLOW_LISTEN && l->port == e->port &&
		    (flow_addr_eq(l, e) || !memcmp(l->addr, zero, 16)))
			return true;
	}
	return false;
}

void flow_fold_ports(const struct flow_table *t, const struct sock_flow *f,
		     struct sock_flow *out)
{
	*out = *f;
	if (strcmp(f->proto, "tcp") || f->state == FLOW_LISTEN)
		return;
	if (listened(t, &f->local)) {
		out->remote.port = 0;
		out->remote.any_port = 1;
	} else {
		out->local.port = 0;
		out->local.any_port = 1;
	}
}

static const char *const state_name[] = {
	[FLOW_ESTABLISHED] = "established",
	[FLOW_LISTEN] = "listen",
	[FLOW_OTHER] = "other",
};

const char *flow_state_str(enum flow_state s)
{
	return s <= FLOW_OTHER ? state_name[s] : "other";
}

enum flow_state flow_state_parse(const char *s)
{
	int i;

	for (i = 0; i < FLOW_OTHER; i++)
		if (!strcmp(s, state_name[i]))
			return (enum flow_state)i;
	return FLOW_OTHER;
}
