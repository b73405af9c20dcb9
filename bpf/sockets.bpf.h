/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which socket ended a wait, and who is at its other end (--wakeups).
 *
 * Over TCP and UDP a reader is woken from a softirq (on loopback, the
 * sender's own, run at its local_bh_enable()), so the waker's context
 * names "softirq", not the task that sent. The kernel says which socket:
 *  - data: sock:sk_data_ready, traced as a socket's data-ready callback
 *    begins, marks this CPU "the wakeups now are for socket R" until
 *    this softirq ends or the CPU switches;
 *  - buffer space (back-pressure): tcp:tcp_sendmsg_locked runs before a
 *    TCP send waits for space, so a tracked writer woken while inside
 *    one is woken for that socket (sk_stream_write_space, untraced); a
 *    writer that polls for space instead and is woken by a network
 *    softirq (softirq_entry says which) is taken as woken for the socket
 *    it last sent on.
 * Each resolves through a registry of every receiving end's last writer
 * and last reader, fed by sock:sock_send_length and sock_recv_length (the
 * end of each send and receive, any family). Before these tracepoints
 * (6.3; tcp_sendmsg_locked 6.12) the same handlers run from the kernel
 * functions they sit in, through fentry/fexit or kprobes, whichever the
 * kernel takes (user/sources/sock_hooks.c); with none, the rest falls
 * back to the waker's context.
 *
 * The registry is keyed by the receiving end: its network namespace and
 * 4-tuple for TCP (the sender's tuple reversed), its namespace and port
 * for UDP (unconnected receivers have no remote), its socket for Unix
 * (the sender's peer). A data wake of R resolves to R's last writer, if
 * the wakee is R's last reader or R has none yet (a mark another wake in
 * the same softirq left behind is not taken); a space wake of S to the
 * last reader of S's peer. No task in this namespace: a remote endpoint
 * (the peer's address as this side sees it) unless it is on loopback.
 *
 * This header: the maps (defined once in shared.bpf.c, as all maps) and
 * what the waking program (wakeups.bpf.c) and the switch (switch.bpf.c)
 * need; sockets.bpf.c: the programs that feed them.
 */
#ifndef TDBPF_SOCKETS_BPF_H
#define TDBPF_SOCKETS_BPF_H

#include "task.bpf.h"
#include <bpf/bpf_endian.h>

/* socket wakes resolved to their peer: the hooks are loaded */
SHARED const volatile bool track_sockets;

#define AF_UNIX		1
#define AF_INET		2
#define AF_INET6	10
#define IPPROTO_TCP	6
#define IPPROTO_UDP	17
#define SOCK_PROTO_UNIX	0xffff	/* the key's proto for Unix sockets */

/* include/linux/interrupt.h */
#define NET_TX_SOFTIRQ	2
#define NET_RX_SOFTIRQ	3
#define TASKLET_SOFTIRQ	6	/* TCP small queues' tasklet frees sends */

/* The receiving end of a flow: see the top of this file. */
struct sock_key {
	__u32 laddr[4];		/* Unix: the receiving socket's address */
	__u32 raddr[4];
	__u32 netns;
	__u16 proto;
	__u16 lport;		/* host order */
	__u16 rport;
	__u16 pad[3];
};

/*
 * The socket whose data-ready callback runs on this CPU: set as it
 * begins, cleared when the softirq ends (softirq_exit) or the CPU
 * switches. No exit tracepoint: a mark can outlive its callback inside
 * one softirq, hence the wakee check in sock_waker().
 */
struct sock_mark {
	__u64 sk;
	__u32 vec;	/* softirq running on this CPU, + 1; 0: none */
	/*
	 * @key holds the socket's receiving end: built as the callback
	 * begins, by direct loads through its pointer, where the waking
	 * program could only read the number kept with probe reads, one
	 * helper call per field. Only for an end a tracked task marked
	 * (sock_bit): no other has an entry to find.
	 */
	__u32 keyed;
	__u64 soft_at;	/* its start, when a tracked task is current */
	struct sock_key key;
};

SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sock_mark);
} sock_marks SEC(".maps");

/*
 * A pointer's value as a number: the verifier allows no arithmetic on a
 * kernel pointer, not even its halves, but copies its bytes.
 */
static __always_inline __u64 ptr_val(const void *p)
{
	__u64 v = 0, tmp = (__u64)p;

	bpf_probe_read_kernel(&v, sizeof(v), &tmp);
	return v;
}

struct sock_end {
	__u32 tid, tgid;
	__u64 at_jiffies;	/* jiffies: no clock read per send */
	__u64 bytes;
};

struct sock_ends {
	struct sock_end writer, reader;
};

/*
 * Bounded: least recently used entries go first. Set from --sock-max
 * before load; entries made are counted (TDBPF_STAT_SOCK_NEW) so that
 * user space can say how many were pushed out.
 */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TDBPF_SOCK_MAX_DEFAULT);
	__type(key, struct sock_key);
	__type(value, struct sock_ends);
} sock_ends SEC(".maps");

/*
 * The early exit for sockets no tracked task uses: one bit per receiving
 * port (TCP, UDP) or per hash of the receiving socket (Unix), set by
 * tracked tasks. An untracked task's send to an unmarked port costs a
 * load, no hash lookup. Collisions only cost a lookup that misses.
 */
SHARED __u64 sock_ports[65536 / 64];

static __always_inline __u32 sock_bit(const struct sock_key *k)
{
	if (k->proto == SOCK_PROTO_UNIX)
		return (k->laddr[0] >> 6) & 0xffff;
	return k->lport;
}

static __always_inline bool sock_bit_test(__u32 b)
{
	__u32 i = (b & 0xffff) / 64;

	asm volatile("" : "+r"(i));
	if (i >= 65536 / 64)
		return false;
	return sock_ports[i] & (1ULL << (b % 64));
}

static __always_inline void sock_bit_set(__u32 b)
{
	__u32 i = (b & 0xffff) / 64;

	asm volatile("" : "+r"(i));
	if (i >= 65536 / 64)
		return;
	if (!(sock_ports[i] & (1ULL << (b % 64))))
		__sync_fetch_and_or(&sock_ports[i], 1ULL << (b % 64));
}

/* ::ffff:a.b.c.d: an IPv4 peer of an IPv6 socket, keyed as IPv4 */
static __always_inline bool v4mapped(const __u32 *a)
{
	return !a[0] && !a[1] && a[2] == bpf_htonl(0xffff);
}

/*
 * The key of @sk's own receiving end (@local true: what arrives at it) or
 * of its peer's (@local false: what @sk sends arrives there). False for a
 * socket the registry does not follow (not TCP, UDP or Unix). Two builds
 * of one body: with direct loads where @sk is the kernel's own pointer
 * (the send and receive hooks, run at every packet), with probe reads
 * where it is a number kept since (the waking program; bpf_rdonly_cast
 * would allow direct loads there too, but Debian 12's libbpf cannot link
 * a kfunc across objects).
 */
#define RD_DIRECT(s, f)	((s)->f)
#define RD_PROBE(s, f)	BPF_CORE_READ(s, f)
#define NETNS_DIRECT(s)	((s)->__sk_common.skc_net.net->ns.inum)
#define NETNS_PROBE(s)	BPF_CORE_READ(s, __sk_common.skc_net.net, ns.inum)

#define SOCK_KEY_OF(name, RD, NETNS)					\
static __always_inline bool name(struct sock *sk, bool local,		\
				 struct sock_key *k)			\
{									\
	__u16 family = RD(sk, __sk_common.skc_family);			\
	__u16 proto, dport, num;					\
	__u32 d[4], s[4];						\
	int i;								\
									\
	__builtin_memset(k, 0, sizeof(*k));				\
	if (family == AF_UNIX) {					\
		__u64 p = local ? ptr_val(sk) :				\
			  (__u64)BPF_CORE_READ((struct unix_sock *)sk,	\
					       peer);			\
									\
		if (!p)							\
			return false;					\
		k->proto = SOCK_PROTO_UNIX;				\
		k->laddr[0] = (__u32)p;					\
		k->laddr[1] = (__u32)(p >> 32);				\
		return true;						\
	}								\
	if (family != AF_INET && family != AF_INET6)			\
		return false;						\
	proto = RD(sk, sk_protocol);					\
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)		\
		return false;						\
	k->netns = NETNS(sk);						\
	k->proto = proto;						\
	num = RD(sk, __sk_common.skc_num);				\
	dport = bpf_ntohs(RD(sk, __sk_common.skc_dport));		\
	/* UDP receivers are often unconnected: the port alone */	\
	k->lport = local ? num : dport;					\
	if (proto == IPPROTO_UDP)					\
		return k->lport != 0;					\
	k->rport = local ? dport : num;					\
	if (family == AF_INET6) {					\
		/* whole: a field read at a variable index is not CO-RE */ \
		struct in6_addr d6 = RD(sk, __sk_common.skc_v6_daddr);	\
		struct in6_addr s6 = RD(sk, __sk_common.skc_v6_rcv_saddr); \
									\
		for (i = 0; i < 4; i++) {				\
			d[i] = d6.in6_u.u6_addr32[i];			\
			s[i] = s6.in6_u.u6_addr32[i];			\
		}							\
		if (!v4mapped(d)) {					\
			for (i = 0; i < 4; i++) {			\
				k->laddr[i] = local ? s[i] : d[i];	\
				k->raddr[i] = local ? d[i] : s[i];	\
			}						\
			return true;					\
		}							\
	}								\
	k->laddr[0] = local ? RD(sk, __sk_common.skc_rcv_saddr) :	\
			      RD(sk, __sk_common.skc_daddr);		\
	k->raddr[0] = local ? RD(sk, __sk_common.skc_daddr) :		\
			      RD(sk, __sk_common.skc_rcv_saddr);	\
	return true;							\
}

SOCK_KEY_OF(sock_key_of, RD_DIRECT, NETNS_DIRECT)
SOCK_KEY_OF(sock_key_at, RD_PROBE, NETNS_PROBE)

/* 127.0.0.0/8, in network order */
static __always_inline bool loopback4(__u32 a)
{
	return (bpf_ntohl(a) >> 24) == 127;
}

/*
 * The end of @k's flow from @end: the task (TASK when tracked, else
 * PROCESS with its tid and tgid), or NONE.
 */
static __always_inline __u32 end_task(const struct sock_end *end, __u32 *tid,
				      __u32 *tgid)
{
	if (!end->tid)
		return TDBPF_WAKER_NONE;
	*tid = end->tid;
	*tgid = end->tgid;
	return tracked_ids(end->tid, end->tgid) ? TDBPF_WAKER_TASK :
						  TDBPF_WAKER_PROCESS;
}

/*
 * No task at the other end of @sk in the registry: its peer's address if
 * that is not on loopback (another host, or another network namespace:
 * ENDPOINT, port in @tid, IPv4 address in @tgid), else SOCKET (counted).
 * IPv6 peers other than v4-mapped are not told (inet_daddr holds a
 * loopback placeholder there).
 */
static __always_inline __u32 sock_remote(struct sock *sk, __u32 *tid,
					 __u32 *tgid)
{
	__u32 addr = BPF_CORE_READ(sk, __sk_common.skc_daddr);
	__u16 port = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));

	if (addr && port && !loopback4(addr)) {
		*tid = port;
		*tgid = addr;
		return TDBPF_WAKER_ENDPOINT;
	}
	stat_inc(TDBPF_STAT_SOCK_UNRESOLVED);
	return TDBPF_WAKER_SOCKET;
}

/* A wake for space on @sk: the last reader at its other end. */
static __always_inline __u32 space_waker(struct sock *sk, __u32 *tid,
					 __u32 *tgid)
{
	struct sock_ends *e;
	struct sock_key key;
	__u32 kind;

	if (!sock_key_at(sk, false, &key))
		return TDBPF_WAKER_NONE;
	e = bpf_map_lookup_elem(&sock_ends, &key);
	if (e) {
		kind = end_task(&e->reader, tid, tgid);
		if (kind != TDBPF_WAKER_NONE)
			return kind;
	}
	if (key.proto == SOCK_PROTO_UNIX)
		return TDBPF_WAKER_NONE;
	return sock_remote(sk, tid, tgid);
}

/*
 * A softirq wakes @p and no data mark is for it: on a network softirq
 * that is buffer space, most likely on the socket @p last sent on (a
 * writer that polls for space rather than blocking in send; the kernel
 * traces no write-space callback). NONE if it never sent.
 */
static __always_inline __u32 softirq_sock_waker(struct tdbpf_wake *k,
						__u32 *tid, __u32 *tgid)
{
	if (!k->last_send_sk)
		return TDBPF_WAKER_NONE;
	return space_waker((struct sock *)k->last_send_sk, tid, tgid);
}

/*
 * Who ends @p's wait, if a socket does: @p (tracked, with waker state
 * @k) blocked in a TCP send is woken for buffer space on that socket:
 * the last reader at its other end. Else, if a data-ready callback runs
 * on this CPU for a socket @p last read: that socket's last writer.
 * NONE: no socket told (the caller judges by the waker's context).
 */
static __always_inline __u32 sock_waker(struct task_struct *p,
					struct tdbpf_wake *k, __u32 *tid,
					__u32 *tgid)
{
	struct sock_ends *e;
	struct sock_mark *m;
	__u32 z = 0, kind;

	if (k->send_sk)
		return space_waker((struct sock *)k->send_sk, tid, tgid);
	m = bpf_map_lookup_elem(&sock_marks, &z);
	/* not keyed: not a followed end, so not in the registry */
	if (!m || !m->sk || !m->keyed)
		return TDBPF_WAKER_NONE;
	e = bpf_map_lookup_elem(&sock_ends, &m->key);
	/*
	 * Another task reads that socket: a mark left by an earlier wake
	 * of this softirq, not this wake's. One no one has read since the
	 * start, with its writer known, is taken: the read blocked when
	 * tracing began ends here.
	 */
	if (!e || (e->reader.tid && e->reader.tid != p->pid) ||
	    (!e->reader.tid && !e->writer.tid))
		return TDBPF_WAKER_NONE;
	kind = end_task(&e->writer, tid, tgid);
	if (kind != TDBPF_WAKER_NONE)
		return kind;
	if (m->key.proto == SOCK_PROTO_UNIX)
		return TDBPF_WAKER_NONE;	/* the writer wakes it itself */
	return sock_remote((struct sock *)m->sk, tid, tgid);
}

/* no wake callback sleeps: at a switch no mark is open on this CPU */
static __always_inline void marks_reset(void)
{
	__u32 z = 0;
	struct sock_mark *m = bpf_map_lookup_elem(&sock_marks, &z);

	if (m)
		m->sk = 0;
}

/* A network softirq runs on this CPU (what wakes for socket space). */
static __always_inline bool in_net_rx(void)
{
	__u32 z = 0;
	struct sock_mark *m = bpf_map_lookup_elem(&sock_marks, &z);

	return m && (m->vec == NET_RX_SOFTIRQ + 1 ||
		     m->vec == NET_TX_SOFTIRQ + 1 ||
		     m->vec == TASKLET_SOFTIRQ + 1);
}

#endif /* TDBPF_SOCKETS_BPF_H */
