// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side, the wakeups (--wakeups): at sched_waking, who ended a
 * tracked task's wait, from the waker's context.
 */
#include "shared.bpf.h"
#include "task.bpf.h"
#include "wait.bpf.h"
#include "sockets.bpf.h"
#include "spans.bpf.h"

/*
 * The interrupt bits of this CPU's preempt count; 0 when unknown. x86
 * keeps PREEMPT_NEED_RESCHED inverted in bit 31: never part of the mask.
 */
static __always_inline __u32 irq_count(__u64 rq)
{
	__u32 pc;

	if (!rq || !preempt_from_rq ||
	    bpf_probe_read_kernel(&pc, sizeof(pc),
				  (void *)(rq + preempt_from_rq)))
		return 0;
	return pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET);
}

/* An hrtimer callback runs on this CPU, in the hard (0-3) or soft bases. */
static __always_inline bool hrtimer_running(__u64 rq, __u32 first)
{
	__u64 b = rq + hrtimers_from_rq, running;
	__u32 i, step = bpf_core_type_size(struct hrtimer_clock_base);

	if (!rq || !hrtimers_from_rq)
		return false;
	b += bpf_core_field_offset(struct hrtimer_cpu_base, clock_base) +
	     bpf_core_field_offset(struct hrtimer_clock_base, running);
	for (i = first; i < first + HRTIMER_SOFT; i++)
		if (!bpf_probe_read_kernel(&running, sizeof(running),
					   (void *)(b + i * step)) &&
		    running)
			return true;
	return false;
}

/*
 * Who is waking @p, from the waker's context: an interrupt first (then
 * current is whatever task it interrupted, not the waker), told apart as
 * an hrtimer callback or another hard or soft interrupt; else the task
 * running the wakeup: the idle task, a tracked task (by tid), a kernel
 * thread, an untracked thread of @p's process, or another process.
 */
static __always_inline __u32 waker_kind(struct task_struct *p,
					struct tdbpf_wake *k, __u32 *tid,
					__u32 *tgid)
{
	struct task_struct *cur;
	__u64 rq;
	__u32 pc, kind;

	*tid = 0;
	*tgid = 0;
	/* a socket's wake: the task at its other end, whatever the context */
	if (track_sockets) {
		kind = sock_waker(p, k, tid, tgid);
		if (kind != TDBPF_WAKER_NONE)
			return kind;
	}
	/* current runs here, even when an interrupt is what wakes */
	rq = task_rq(bpf_get_current_task_btf());
	pc = irq_count(rq);
	if (pc & (HARDIRQ_MASK | NMI_MASK))
		return hrtimer_running(rq, 0) ? TDBPF_WAKER_TIMER :
						TDBPF_WAKER_HARDIRQ;
	if (pc & SOFTIRQ_OFFSET) {
		if (hrtimer_running(rq, HRTIMER_SOFT))
			return TDBPF_WAKER_TIMER;
		if (track_sockets && in_net_rx()) {
			kind = softirq_sock_waker(k, tid, tgid);
			if (kind != TDBPF_WAKER_NONE)
				return kind;
		}
		return TDBPF_WAKER_SOFTIRQ;
	}
	cur = bpf_get_current_task_btf();
	if (!cur->pid)
		return TDBPF_WAKER_IDLE;
	if (tracked(cur)) {
		*tid = cur->pid;
		*tgid = cur->tgid;
		return TDBPF_WAKER_TASK;
	}
	if (cur->flags & PF_KTHREAD)
		return TDBPF_WAKER_KTHREAD;
	return cur->tgid == p->tgid ? TDBPF_WAKER_THREAD : TDBPF_WAKER_PROCESS;
}

/*
 * --span: a wait a tracked task ends in its own context (not a socket's
 * peer, nor an interrupt's) is its innermost span's too.
 */
static __always_inline void woke_in_span(__u32 kind, __u32 tid, __u64 wait)
{
	struct task_struct *cur;

	if (!track_spans || kind != TDBPF_WAKER_TASK)
		return;
	cur = bpf_get_current_task_btf();
	if (cur->pid == tid)
		span_woke(cur, wait);
}

/*
 * Sampled: a wakeup in a window, counted for its waker; its wait, whole
 * however long ago it began (sleep_start()), is charged at the wakee's
 * switch-in (sampled_queued()). A wait is in the sample when its wakeup
 * falls in a window, as likely for a long wait as for a short one, so
 * the sample's shares are the waits' (user space scales them by the
 * windows' share of the time). A wakee still on its queue did not
 * block; one still on its CPU (woken between its dequeue and the
 * switch) waited for nothing.
 */
static __always_inline void sampled_waking(struct task_struct *p)
{
	struct tdbpf_wake *k;
	__u32 kind, tid, tgid;
	__u64 now;

	if (queued(p))
		return;
	k = bpf_task_storage_get(&wake_store, p, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!k)
		return;
	wake_fresh(k);
	/* on its CPU still: it waits for nothing */
	k->sleep_rq = p->on_cpu ? 0 : sleep_start(p);
	kind = waker_kind(p, k, &tid, &tgid);
	set_pending(k, charge_wait(k, kind, tid, tgid, 0), 0);
	/*
	 * --span: its wait so far, on this queue's clock (sampled_queued()'s
	 * end); no clock read without spans
	 */
	if (track_spans) {
		now = rq_clock_now(bpf_get_current_task_btf());
		woke_in_span(kind, tid, k->sleep_rq && now > k->sleep_rq ?
						now - k->sleep_rq : 0);
	}
	note_runnable(p, k);
}

/*
 * A wakeup, in the waker's context (sched_wakeup may run on the wakee's
 * CPU later, where the waker is gone). For a tracked wakee whose blocking
 * switch-out was seen, the interval from that switch-out to now is one
 * wait its waker ended. The kernel traces sched_waking only for a task
 * still in the state it went to sleep in, so a wakee that has not run
 * since that switch-out (same run_seq) is in that block, even if caught
 * between queues (a delayed dequeue ending); one that ran since had that
 * block ended by a wakeup we did not see: its start is stale, left for
 * its next block. A wakee with no block started that left its run queue
 * is between that and the switch tracepoint, or racing with it on its
 * CPU; one still on its run queue was woken before it slept, but its CPU
 * may dequeue it before try_to_wake_up() reads on_rq (sched_waking is
 * traced first, and nothing orders the two). Either way the wakeup is
 * marked early, for block_start() or, if that looked first, for
 * take_late_early(); tdbpf_wakeup drops a mark no block took. The
 * waker's fields go in before the kind that makes them valid. Untracked
 * wakees cost one bit test.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(tdbpf_waking, struct task_struct *p)
{
	struct tdbpf_wake *k;
	__u64 start;
	__u32 kind, tid, tgid, seq;

	if (!tracked(p))
		return 0;
	if (sampled) {
		if (!window_shut())
			sampled_waking(p);
		return 0;
	}
	/* no entry: first seen later, its life (and this block) unseen */
	k = bpf_task_storage_get(&wake_store, p, 0, 0);
	if (!k)
		return 0;
	start = k->block_ns;
	seq = run_seq(p);
	if (start) {
		if (seq != k->block_seq)
			return 0;
		k->block_ns = 0;
		kind = waker_kind(p, k, &tid, &tgid);
		start = bpf_ktime_get_ns() - start;
		set_pending(k, charge_wait(k, kind, tid, tgid, start), start);
		woke_in_span(kind, tid, start);
		note_runnable(p, k);
	} else {
		/* no block started: it may yet (see above) */
		kind = waker_kind(p, k, &tid, &tgid);
		k->early_tid = tid;
		k->early_tgid = tgid;
		k->early_seq = seq;
		/* x86 keeps stores in order: the compiler must too */
		asm volatile("" ::: "memory");
		k->early_kind = kind;
	}
	return 0;
}

/*
 * The end of every wakeup that passed sched_waking, after the kernel
 * read the wakee's on_rq and, if it was off its queue, waited for it to
 * leave its CPU (or queued the wakeup to that CPU): its switch-out, if
 * any, is traced. An early mark still here was either taken too late by
 * block_start() (take it now) or was for a wakee that never blocked
 * (drop it, or a later block in the same run_seq would take it).
 */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(tdbpf_wakeup, struct task_struct *p)
{
	struct tdbpf_wake *k;

	if (!tracked(p))
		return 0;
	k = bpf_task_storage_get(&wake_store, p, 0, 0);
	if (!k || !k->early_kind)
		return 0;
	take_late_early(k);
	k->early_kind = TDBPF_WAKER_NONE;
	return 0;
}
