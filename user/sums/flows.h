/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced processes' sockets, each one half of a flow: its local and
 * remote address and port as this host (its network namespace) sees
 * them. The other host sees the same flow reversed, which is how
 * `tdbpf graph` joins two hosts' reports (docs/graph.md, "Across
 * hosts"). A flow is state, not a sum: a snapshot holds the sockets open
 * when it was read, and intervals never subtract them.
 */
#ifndef TDBPF_FLOWS_H
#define TDBPF_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "tdbpf.h"

/* "255.255.255.255:65535", "[ffff:...:ffff]:65535" */
#define FLOW_END_STR	48

struct flow_end {
	__u8 family;		/* AF_INET, AF_INET6; 0: none */
	__u8 any_port;		/* an ephemeral port folded: "ADDR:*" */
	__u8 addr[16];		/* network order; IPv4 in the first 4 */
	__u16 port;		/* host order; 0 when any_port */
};

enum flow_state { FLOW_ESTABLISHED, FLOW_LISTEN, FLOW_OTHER };

struct sock_flow {
	__u32 pid;			/* the process holding the socket */
	char comm[TDBPF_COMM_LEN + 2];	/* its name */
	char proto[4];			/* "tcp", "udp" */
	enum flow_state state;
	struct flow_end local, remote;
};

struct flow_table {
	struct sock_flow *v;
	size_t nr, cap;
};

void flows_init(struct flow_table *t);
void flows_reset(struct flow_table *t);
void flows_free(struct flow_table *t);
/* A copy of @f at the end of @t; -ENOMEM. */
int flows_add(struct flow_table *t, const struct sock_flow *f);
/* @dst = @src. 0 or -ENOMEM. */
int flows_copy(struct flow_table *dst, const struct flow_table *src);

/*
 * "10.0.0.1:5000" or "[fd00::1]:5000" (an IPv4-mapped IPv6 address as
 * IPv4, so that both sides of a dual-stack flow spell it alike).
 */
void flow_end_str(const struct flow_end *e, char *buf, size_t len);
/*
 * The reverse of flow_end_str() ("ADDR:*" too); false if @s is not such
 * a string.
 */
bool flow_end_parse(const char *s, struct flow_end *e);
bool flow_end_eq(const struct flow_end *a, const struct flow_end *b);
/* The same address, any port. */
bool flow_addr_eq(const struct flow_end *a, const struct flow_end *b);
const char *flow_state_str(enum flow_state s);
/* The state named by flow_state_str(); FLOW_OTHER for any other word. */
enum flow_state flow_state_parse(const char *s);

/*
 * @f with its ephemeral port folded, as /metrics labels it (bounded
 * series, docs/prometheus.md): a local port some socket of @t listens
 * on is a service's and stays, any other local port is a client's and
 * becomes "*"; the remote port stays where the local one was folded (a
 * client sees the service's port) and is folded where it stayed (a
 * service sees clients' ports). Both sides of a flow fold alike, so
 * they still mirror each other. UDP has no listeners: ports stay.
 */
void flow_fold_ports(const struct flow_table *t, const struct sock_flow *f,
		     struct sock_flow *out);

#endif /* TDBPF_FLOWS_H */
