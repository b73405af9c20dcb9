// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side, the socket hooks (--wakeups): mark which socket a
 * wake is for, and keep each flow's last writer and reader (see
 * sockets.bpf.h). Each hook is a tracepoint where the kernel has it
 * (6.3 and later) and a kernel function's entry or return elsewhere:
 * fentry/fexit where trampolines attach, else a kprobe. The programs
 * below are thin wrappers over one handler per hook; user space loads
 * the one of each it chose (sock_hooks.c) and leaves the others off.
 */
#include "shared.bpf.h"
#include "task.bpf.h"
#include "wait.bpf.h"
#include "sockets.bpf.h"
#include <bpf/bpf_tracing.h>

/*
 * Current sends (@writer) or receives @bytes on the flow of @k: a tracked
 * task (@mine) makes the entry, any other task only updates one that is
 * there.
 */
static __always_inline void sock_note(struct sock_key *k, bool mine,
				      bool writer, __u64 bytes)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct sock_ends *e, zero = {};
	struct sock_end *end;

	e = bpf_map_lookup_elem(&sock_ends, k);
	if (!e) {
		if (!mine)
			return;
		sock_bit_set(sock_bit(k));
		if (!bpf_map_update_elem(&sock_ends, k, &zero, BPF_NOEXIST))
			stat_inc(TDBPF_STAT_SOCK_NEW);
		e = bpf_map_lookup_elem(&sock_ends, k);
		if (!e)
			return;
	} else if (mine) {
		sock_bit_set(sock_bit(k));
	}
	end = writer ? &e->writer : &e->reader;
	end->tid = cur->pid;
	end->tgid = cur->tgid;
	end->at_jiffies = bpf_jiffies64();
	end->bytes += bytes;
}

/*
 * @sk sends or receives. The early exit for an untracked task: the
 * receiving end's bit, from one or two loads, before any key is built.
 * Two builds: direct loads where @sk is a trusted pointer (tracepoints,
 * fentry), probe reads where it is a number (kprobes).
 */
#define SOCK_NOTE_SK(name, RD, KEY_OF)					\
static __always_inline void name(struct sock *sk, bool mine,		\
				 bool writer, __u64 bytes)		\
{									\
	struct sock_key k;						\
									\
	if (!mine) {							\
		__u16 family = RD(sk, __sk_common.skc_family);		\
		__u32 b;						\
									\
		if (family == AF_UNIX) {				\
			__u64 p;					\
									\
			if (writer)					\
				p = (__u64)BPF_CORE_READ(		\
					(struct unix_sock *)sk, peer);	\
			else						\
				p = ptr_val(sk);			\
			b = ((__u32)p >> 6) & 0xffff;			\
		} else if (family == AF_INET || family == AF_INET6) {	\
			b = writer ?					\
				bpf_ntohs(RD(sk, __sk_common.skc_dport)) : \
				RD(sk, __sk_common.skc_num);		\
		} else {						\
			return;						\
		}							\
		if (!sock_bit_test(b))					\
			return;						\
	}								\
	/* a writer's entry is its peer's receiving end, a reader's its own */ \
	if (KEY_OF(sk, !writer, &k))					\
		sock_note(&k, mine, writer, bytes);			\
}

SOCK_NOTE_SK(sock_note_sk, RD_DIRECT, sock_key_of)
SOCK_NOTE_SK(sock_note_sk_probe, RD_PROBE, sock_key_at)

static __always_inline void note_sk(struct sock *sk, bool mine, bool writer,
				    __u64 bytes, bool probe)
{
	if (probe)
		sock_note_sk_probe(sk, mine, writer, bytes);
	else
		sock_note_sk(sk, mine, writer, bytes);
}

/*
 * Current's send on @sk (@bytes, > 0): its last, and the flow's writer.
 */
static __always_inline void sent(struct task_struct *cur, bool mine,
				 struct sock *sk, __u64 bytes, bool probe)
{
	if (mine) {
		struct tdbpf_wake *k = bpf_task_storage_get(&wake_store, cur,
							    0, 0);

		/* stored as is (a number to the verifier's readers, as
		 * send_sk): no copy through a helper */
		if (k)
			k->last_send_sk = (__u64)sk;
	}
	note_sk(sk, mine, true, bytes, probe);
}

/* Current's send ended: no longer waiting for space (on_tcp_send) */
static __always_inline void send_over(struct task_struct *cur, bool mine)
{
	struct tdbpf_wake *k;

	if (!mine)
		return;
	k = bpf_task_storage_get(&wake_store, cur, 0, 0);
	if (k)
		k->send_sk = 0;
}

/* A send on @sk ended: @ret bytes or -errno (tracepoint, fexit) */
static __always_inline void on_send(struct sock *sk, int ret)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	bool mine = tracked(cur);

	if (window_shut())
		return;
	send_over(cur, mine);
	if (ret > 0)
		sent(cur, mine, sk, ret, false);
}

/* A receive on @sk: its @bytes (0 when it failed or is not known) */
static __always_inline void on_recv(struct sock *sk, __u64 bytes, bool probe)
{
	bool mine = tracked(bpf_get_current_task_btf());

	if (window_shut())
		return;
	/* decided here, once: clang may not redo the bounded lookup */
	asm volatile("" : "+r"(mine));
	note_sk(sk, mine, false, bytes, probe);
}

/*
 * A tracked task in a TCP send, before it may wait for space: the socket
 * a wakeup ends that wait for. Cleared when the send ends. Only the
 * pointer's value is kept: no load through it.
 */
static __always_inline void on_tcp_send(struct sock *sk)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct tdbpf_wake *k;

	if (window_shut() || !tracked(cur))
		return;
	k = bpf_task_storage_get(&wake_store, cur, 0, 0);
	if (k) {
		wake_fresh(k);
		k->send_sk = (__u64)sk;
	}
}

/*
 * The key of @sk's receiving end into @k, if a tracked task marked it
 * (sock_bit): for TCP and UDP the port's bit is tested first, from one
 * load, so that a socket no tracked task uses costs no key.
 */
#define MARK_KEY(name, RD, KEY_OF)					\
static __always_inline bool name(struct sock *sk, struct sock_key *k)	\
{									\
	__u16 family = RD(sk, __sk_common.skc_family);			\
									\
	if ((family == AF_INET || family == AF_INET6) &&		\
	    !sock_bit_test(RD(sk, __sk_common.skc_num)))		\
		return false;						\
	return KEY_OF(sk, true, k) && sock_bit_test(sock_bit(k));	\
}

MARK_KEY(mark_key, RD_DIRECT, sock_key_of)
MARK_KEY(mark_key_probe, RD_PROBE, sock_key_at)

/* @sk's data-ready callback begins: the wakes that follow are for it */
static __always_inline void on_data_ready(struct sock *sk, bool probe)
{
	__u32 z = 0;
	struct sock_mark *m = bpf_map_lookup_elem(&sock_marks, &z);

	if (!m || window_shut())
		return;
	m->sk = (__u64)sk;
	m->keyed = probe ? mark_key_probe(sk, &m->key) : mark_key(sk, &m->key);
}

/*
 * The wrappers. Tracepoints (6.3: sk_data_ready, sock_send_length,
 * sock_recv_length; 6.12: tcp_sendmsg_locked) and, before them, the
 * functions they sit in: sock_def_readable (the data-ready callback of
 * TCP, UDP and Unix sockets), sock_sendmsg and sock_recvmsg (where
 * sock_sendmsg_nosec and sock_recvmsg_nosec, the tracepoints' home, are
 * inlined), tcp_sendmsg_locked.
 */
SEC("tp_btf/sock_send_length")
int BPF_PROG(tdbpf_sock_send, struct sock *sk, int ret, int flags)
{
	on_send(sk, ret);
	return 0;
}

SEC("fexit/sock_sendmsg")
int BPF_PROG(tdbpf_sock_send_fexit, struct socket *sock, struct msghdr *msg,
	     int ret)
{
	on_send(sock->sk, ret);
	return 0;
}

/*
 * Where the kernel has __sock_sendmsg (6.6, and the stable kernels it
 * went back to: Debian 12's 6.1.0-57 has it), send(), write() and
 * sendmsg() call it directly and sock_sendmsg only for the kernel's own
 * callers: the hook is there. Same arguments.
 */
SEC("fexit/__sock_sendmsg")
int BPF_PROG(tdbpf_sock_send2_fexit, struct socket *sock, struct msghdr *msg,
	     int ret)
{
	on_send(sock->sk, ret);
	return 0;
}

/*
 * kprobes: the writer noted as its send begins (the bytes it asks to
 * send), the send's end (send_over) from its return probe.
 */
static __always_inline void send_begins(struct socket *sock,
					struct msghdr *msg)
{
	struct task_struct *cur = bpf_get_current_task_btf();

	if (window_shut())
		return;
	sent(cur, tracked(cur), BPF_CORE_READ(sock, sk),
	     BPF_CORE_READ(msg, msg_iter.count), true);
}

static __always_inline void send_ends(void)
{
	struct task_struct *cur = bpf_get_current_task_btf();

	if (!window_shut())
		send_over(cur, tracked(cur));
}

SEC("kprobe/sock_sendmsg")
int BPF_KPROBE(tdbpf_sock_send_kprobe, struct socket *sock, struct msghdr *msg)
{
	send_begins(sock, msg);
	return 0;
}

SEC("kretprobe/sock_sendmsg")
int BPF_KRETPROBE(tdbpf_sock_sent_kretprobe)
{
	send_ends();
	return 0;
}

SEC("kprobe/__sock_sendmsg")
int BPF_KPROBE(tdbpf_sock_send2_kprobe, struct socket *sock,
	       struct msghdr *msg)
{
	send_begins(sock, msg);
	return 0;
}

SEC("kretprobe/__sock_sendmsg")
int BPF_KRETPROBE(tdbpf_sock_sent2_kretprobe)
{
	send_ends();
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(tdbpf_sock_recv, struct sock *sk, int ret, int flags)
{
	on_recv(sk, ret > 0 ? ret : 0, false);
	return 0;
}

SEC("fexit/sock_recvmsg")
int BPF_PROG(tdbpf_sock_recv_fexit, struct socket *sock, struct msghdr *msg,
	     int flags, int ret)
{
	on_recv(sock->sk, ret > 0 ? ret : 0, false);
	return 0;
}

/*
 * The reader noted as its receive begins, with no bytes: a return probe
 * held through every blocked read would use up the kernel's few
 * instances of it (maxactive).
 */
SEC("kprobe/sock_recvmsg")
int BPF_KPROBE(tdbpf_sock_recv_kprobe, struct socket *sock)
{
	on_recv(BPF_CORE_READ(sock, sk), 0, true);
	return 0;
}

SEC("tp_btf/tcp_sendmsg_locked")
int BPF_PROG(tdbpf_tcp_send, struct sock *sk)
{
	on_tcp_send(sk);
	return 0;
}

SEC("fentry/tcp_sendmsg_locked")
int BPF_PROG(tdbpf_tcp_send_fentry, struct sock *sk)
{
	on_tcp_send(sk);
	return 0;
}

SEC("kprobe/tcp_sendmsg_locked")
int BPF_KPROBE(tdbpf_tcp_send_kprobe, struct sock *sk)
{
	on_tcp_send(sk);
	return 0;
}

SEC("tp_btf/sk_data_ready")
int BPF_PROG(tdbpf_data_ready, struct sock *sk)
{
	on_data_ready(sk, false);
	return 0;
}

SEC("fentry/sock_def_readable")
int BPF_PROG(tdbpf_data_ready_fentry, struct sock *sk)
{
	on_data_ready(sk, false);
	return 0;
}

SEC("kprobe/sock_def_readable")
int BPF_KPROBE(tdbpf_data_ready_kprobe, struct sock *sk)
{
	on_data_ready(sk, true);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(tdbpf_softirq_entry, unsigned int vec)
{
	__u32 z = 0;
	struct sock_mark *m = bpf_map_lookup_elem(&sock_marks, &z);

	if (!m || window_shut())
		return 0;
	m->vec = vec + 1;
	/*
	 * CPU spent delivering packets in a tracked task's context: one clock
	 * read, for the network's softirqs only (the tick's timer, RCU and
	 * scheduler softirqs interrupt every task and are no one's traffic)
	 */
	if ((vec == NET_RX_SOFTIRQ || vec == NET_TX_SOFTIRQ) &&
	    tracked(bpf_get_current_task_btf()))
		m->soft_at = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(tdbpf_softirq_exit, unsigned int vec)
{
	__u32 z = 0;
	struct sock_mark *m = bpf_map_lookup_elem(&sock_marks, &z);

	if (!m || window_shut())
		return 0;
	m->sk = 0;
	m->vec = 0;
	if (m->soft_at) {
		struct task_struct *cur = bpf_get_current_task_btf();
		struct tdbpf_task *t;

		t = bpf_task_storage_get(&task_store, cur, 0, 0);
		if (t)
			t->sched.softirq_ns += bpf_ktime_get_ns() - m->soft_at;
		m->soft_at = 0;
	}
	return 0;
}
