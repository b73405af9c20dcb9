// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side, the socket hooks (--wakeups): mark which socket a
 * wake is for, and keep each flow's last writer and reader (see
 * sockets.bpf.h). Tracepoints only; user space loads each one the
 * kernel has (tracer.c).
 */
#include "shared.bpf.h"
#include "task.bpf.h"
#include "wait.bpf.h"
#include "sockets.bpf.h"

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
 * @sk (a trusted pointer: direct loads) sends or receives. The early
 * exit for an untracked task: the receiving end's bit, from one or two
 * loads, before any key is built.
 */
static __always_inline void sock_note_sk(struct sock *sk, bool mine,
					 bool writer, __u64 bytes)
{
	struct sock_key k;

	if (!mine) {
		__u16 family = sk->__sk_common.skc_family;
		__u32 b;

		if (family == AF_UNIX) {
			__u64 p;

			if (writer)
				p = (__u64)BPF_CORE_READ((struct unix_sock *)sk,
							 peer);
			else
				p = ptr_val(sk);
			b = ((__u32)p >> 6) & 0xffff;
		} else if (family == AF_INET || family == AF_INET6) {
			b = writer ? bpf_ntohs(sk->__sk_common.skc_dport) :
				     sk->__sk_common.skc_num;
		} else {
			return;
		}
		if (!sock_bit_test(b))
			return;
	}
	/* a writer's entry is its peer's receiving end, a reader's its own */
	if (sock_key_of(sk, !writer, &k))
		sock_note(&k, mine, writer, bytes);
}

/* Every send and receive, any family, when it ends: @ret bytes or -errno */
SEC("tp_btf/sock_send_length")
int BPF_PROG(tdbpf_sock_send, struct sock *sk, int ret, int flags)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	bool mine = tracked(cur);

	if (window_shut())
		return 0;
	/* its send ended: no longer waiting for space (tdbpf_tcp_send) */
	if (mine) {
		struct tdbpf_wake *k = bpf_task_storage_get(&wake_store, cur,
							    0, 0);

		if (k) {
			k->send_sk = 0;
			/* stored as is (a number to the verifier's
			 * readers, as send_sk): no copy through a helper */
			if (ret > 0)
				k->last_send_sk = (__u64)sk;
		}
	}
	if (ret > 0)
		sock_note_sk(sk, mine, true, ret);
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(tdbpf_sock_recv, struct sock *sk, int ret, int flags)
{
	bool mine = tracked(bpf_get_current_task_btf());

	if (window_shut())
		return 0;
	/* decided here, once: clang may not redo the bounded lookup */
	asm volatile("" : "+r"(mine));
	sock_note_sk(sk, mine, false, ret > 0 ? ret : 0);
	return 0;
}

/*
 * A tracked task in a TCP send, before it may wait for space: the socket
 * a wakeup ends that wait for. Cleared when the send ends.
 */
SEC("tp_btf/tcp_sendmsg_locked")
int BPF_PROG(tdbpf_tcp_send, struct sock *sk)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct tdbpf_wake *k;

	if (window_shut() || !tracked(cur))
		return 0;
	k = bpf_task_storage_get(&wake_store, cur, 0, 0);
	if (k) {
		wake_fresh(k);
		k->send_sk = (__u64)sk;
	}
	return 0;
}

/*
 * The key of @sk's receiving end into @k, if a tracked task marked it
 * (sock_bit): for TCP and UDP the port's bit is tested first, from one
 * load, so that a socket no tracked task uses costs no key.
 */
static __always_inline bool mark_key(struct sock *sk, struct sock_key *k)
{
	__u16 family = sk->__sk_common.skc_family;

	if ((family == AF_INET || family == AF_INET6) &&
	    !sock_bit_test(sk->__sk_common.skc_num))
		return false;
	return sock_key_of(sk, true, k) && sock_bit_test(sock_bit(k));
}

SEC("tp_btf/sk_data_ready")
int BPF_PROG(tdbpf_data_ready, struct sock *sk)
{
	__u32 z = 0;
	struct sock_mark *m = bpf_map_lookup_elem(&sock_marks, &z);

	if (!m || window_shut())
		return 0;
	m->sk = (__u64)sk;
	m->keyed = mark_key(sk, &m->key);
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
