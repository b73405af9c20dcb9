/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A task's waits (--wakeups): charged to their waker's slot at the
 * wakeup (wakeups.bpf.c), settled at the task's next block or a flush
 * (switch.bpf.c).
 */
#ifndef TDBPF_WAIT_BPF_H
#define TDBPF_WAIT_BPF_H

#include "task.bpf.h"

/*
 * Charge one ended wait of @t to its waker: the waker's slot, found by
 * (kind, tid) among the first TDBPF_WAKER_SLOTS - 1 or taken if free; the
 * last of them takes the rest, counted in lost.wakers. A hold of the CPU
 * (TDBPF_KIND_HOLDS) goes the same way in the second half of the slots,
 * its last one TDBPF_HOLDER_UNSEEN. Wakers of one task are serialised by
 * its pi_lock (try_to_wake_up), and its own blocking switch-out never
 * runs while it is being woken; holds are charged at its switch-in, when
 * it is not blocked: no atomics needed. Returns the slot.
 */
#ifdef TDBPF_DEFINE_SHARED
/*
 * A global function, defined once (shared.bpf.c) and verified once per
 * program, not at each of its six call sites: inlined, it made the
 * switch program's verification, tdbpf's start-up, twice as long.
 */
__noinline __u32 charge_wait(struct tdbpf_wake *k, __u32 kind, __u32 tid,
			     __u32 tgid, __u64 wait)
{
	__u32 base = TDBPF_KIND_HOLDS(kind) ? TDBPF_WAKER_SLOTS : 0, i, j;
	struct tdbpf_wait *w;

	if (!k)
		return 0;
	for (i = 0; i < TDBPF_WAKER_SLOTS - 1; i++) {
		j = (base + i) & (TDBPF_NR_WAITS - 1);
		w = &k->waits[j];
		if (w->kind == TDBPF_WAKER_NONE) {
			w->kind = kind;
			w->tid = tid;
			w->tgid = tgid;
		}
		if (w->kind == kind && w->tid == tid && w->tgid == tgid)
			goto found;
	}
	j = (base + TDBPF_WAKER_SLOTS - 1) & (TDBPF_NR_WAITS - 1);
	w = &k->waits[j];
	if (base) {
		w->kind = TDBPF_HOLDER_UNSEEN;
	} else {
		w->kind = TDBPF_WAKER_SPILL;
		stat_inc(TDBPF_STAT_WAITS_FULL);
	}
	w->tid = 0;
	w->tgid = 0;
found:
	w->wakeups++;
	w->wait_ns += wait;
	return j;
}
#else
extern __u32 charge_wait(struct tdbpf_wake *k, __u32 kind, __u32 tid,
			 __u32 tgid, __u64 wait);
#endif

/*
 * The throttled time so far of @p's group's run queue on its CPU (the
 * cgroup CPU limit's, cfs_rq.throttled_clock_self_time), into @k with
 * that queue: @p becomes runnable (woken, or put back preempted), and
 * what the queue is throttled from now until it runs is its group's
 * limit holding it (holders.bpf.h). 0 on kernels without the field.
 */
/*
 * Flavours of fields newer kernels have: a vmlinux.h of an older one (a
 * cross build takes Debian 12's 6.1) lacks them, and naming them through
 * the kernel's own types would not compile there.
 */
struct cfs_rq___self {
	__u64 throttled_clock_self_time;
} __attribute__((preserve_access_index));

struct task_struct___thr {
	bool throttled;
} __attribute__((preserve_access_index));

/* a flavour: a vmlinux.h of a kernel before 6.6 has no such field */
struct cfs_bandwidth___hq {
	__s64 hierarchical_quota;
} __attribute__((preserve_access_index));

/*
 * No CPU limit on @p's group or any above it: its queues are never
 * throttled. The root group, or (6.6+) a group whose hierarchical quota
 * is unlimited (-1, RUNTIME_INF). Read from the group, which changes
 * when a limit is set, not from its queue on @p's CPU, which that CPU
 * writes at every switch: a wakeup from another CPU would fetch the
 * line from there (120 ns of a 400 ns cross-CPU wakeup, measured).
 */
static __always_inline bool unlimited(struct task_struct *p)
{
	struct cfs_bandwidth___hq *b;
	struct task_group *tg;

	if (!bpf_core_field_exists(p->sched_task_group))
		return false;
	tg = p->sched_task_group;
	if (!tg || !tg->parent)
		return true;
	if (!bpf_core_field_exists(tg->cfs_bandwidth) ||
	    !bpf_core_field_exists(struct cfs_bandwidth___hq,
				   hierarchical_quota))
		return false;
	b = (void *)&tg->cfs_bandwidth;
	return b->hierarchical_quota < 0;
}

static __always_inline void note_runnable(struct task_struct *p,
					  struct tdbpf_wake *k)
{
	struct cfs_rq___self *c = (void *)p->se.cfs_rq;

	k->throttle_rq = 0;
	k->throttle_base = 0;
	if (!c || !bpf_core_field_exists(c->throttled_clock_self_time))
		return;
	if (unlimited(p))
		return;
	k->throttle_rq = (__u64)c;
	/* a load through the BTF pointer, not a helper call */
	k->throttle_base = c->throttled_clock_self_time;
}

/* The last wakeup's waker, to be settled at the next switch-out. */
static __always_inline void set_pending(struct tdbpf_wake *k, __u32 slot,
					__u64 wait)
{
	k->pending_slot = slot + 1;
	k->pending_wait = wait;
}

/* @ns, one wait ended, may be the longest of its slot's (longest_us) */
static __always_inline void note_longest(struct tdbpf_wait *w, __u64 ns)
{
	__u64 us = ns / 1000;

	if (us > 0xffffffffULL)
		us = 0xffffffffULL;
	if (us > w->longest_us)
		w->longest_us = (__u32)us;
}

/*
 * @p blocks again (or dies), after a wakeup: the wait its waker ended
 * was charged from the blocking switch-out to the wakeup; make it the
 * off-CPU time, as the kernel accounts it, from that block to this one
 * (the time since, minus on-CPU and run-queue time since). Those
 * intervals tile the task's life from its first block, so its waits
 * add up to the report's off_cpu_ns (life - on - runq) exactly: they
 * also hold the scheduler's pick before the switch tracepoint, the
 * enqueue after the wakeup, and what the kernel's own accounting does
 * around a preemption (a switch-in counts as on-CPU from the pick and
 * as run-queue wait until the switch, a few microseconds both). On-CPU
 * time is already charged up to now (t->charged_exec). @rearm (a flush
 * while it runs): settle up to now and go on from now, for the same
 * waker, so the next settling adds only what follows.
 */
static __always_inline void settle_wait(struct task_struct *p,
					const struct tdbpf_task *t,
					struct tdbpf_wake *k, __u64 now,
					bool rearm)
{
	/* TDBPF_NR_WAITS is a power of two: the mask is the bound */
	__u64 i = (k->pending_slot - 1) & (TDBPF_NR_WAITS - 1);
	__u64 busy, off, delay = p->sched_info.run_delay;

	if (!k->pending_slot)
		return;
	busy = (t->charged_exec - k->block_exec) + (delay - k->block_delay);
	/* clocks a hair apart never make a wait negative */
	off = now - k->block_at > busy ? now - k->block_at - busy : 0;
	/* the provisional wait out, the settled one in */
	k->waits[i].wait_ns += off - k->pending_wait;
	note_longest(&k->waits[i], off);
	if (!rearm) {
		k->pending_slot = 0;
		return;
	}
	k->pending_wait = 0;
	k->block_at = now;
	k->block_exec = t->charged_exec;
	k->block_delay = delay;
}

/*
 * How many times @p was switched in (sched_info.pcount, counted as it
 * arrives on a CPU): the same from one switch-in to the next, so it
 * tells a wakeup of the block now under way from one before @p last ran.
 */
static __always_inline __u32 run_seq(struct task_struct *p)
{
	return (__u32)p->sched_info.pcount;
}

/*
 * This run queue's clock, as __schedule() just updated it; 0 unknown.
 * Loads through the task's BTF pointers, not bpf_probe_read_kernel():
 * the JIT makes them plain loads that fault to 0, with no helper call.
 */
static __always_inline __u64 rq_clock_now(struct task_struct *cur)
{
	struct cfs_rq *c = cur->se.cfs_rq;
	struct rq *rq;

	if (!c)
		return 0;
	rq = c->rq;
	return rq ? rq->clock : 0;
}

/*
 * Sampled: what a window wrote in @k beyond the waits (a TCP send under
 * way, a throttling, the run_delay of a switch-in) may have ended unseen
 * before the next: forgotten at a window's first touch. The waits
 * charged stay: they are the sample.
 */
static __always_inline void wake_fresh(struct tdbpf_wake *k)
{
	__u32 gen = sample_gen;

	if (!sampled || k->gen == gen)
		return;
	k->send_sk = 0;
	k->throttle_ns = 0;
	k->throttle_rq = 0;
	k->throttle_base = 0;
	k->delay_seen = 0;
	k->pending_slot = 0;
	k->gen = gen;
}

/*
 * Sampled: where the wait of @p, being woken, began, on the run queues'
 * clock (rq->clock), from its own accounting, with no clock read at its
 * block: se.exec_start is its queue's task clock (rq->clock_task) as of
 * its switch-out (update_curr() at its dequeue), and that clock is the
 * queue's clock less the interrupt and steal time the CPU has
 * accounted: adding the queue's difference now makes it a time on the
 * queue's clock (interrupt and steal time of that CPU during the wait
 * come out of the wait; an idle CPU's stale clocks leave out less).
 * 0: unknown (no start: a migration may zero it).
 */
static __always_inline __u64 sleep_start(struct task_struct *p)
{
	struct cfs_rq *c = p->se.cfs_rq;
	__u64 start = p->se.exec_start;
	struct rq *rq;
	__s64 gap;

	if (!c || !start)
		return 0;
	rq = c->rq;
	if (!rq)
		return 0;
	gap = (__s64)(rq->clock - rq->clock_task);
	return gap > 0 ? start + gap : start;
}

/*
 * On a run queue, waiting for a CPU (or running): not blocked yet. Since
 * 6.12 (EEVDF's delayed dequeue) a task that blocks with negative lag
 * stays on its queue, flagged sched_delayed, until the wakeup requeues
 * it: blocked.
 */
/* a flavour: vmlinux.h of a kernel before 6.12 has no such field */
struct sched_entity___delayed {
	unsigned char sched_delayed;
} __attribute__((preserve_access_index));

static __always_inline bool queued(struct task_struct *p)
{
	struct sched_entity___delayed *se = (void *)&p->se;

	if (!p->on_rq)
		return false;
	if (bpf_core_field_exists(se->sched_delayed))
		return !se->sched_delayed;
	return true;
}

/*
 * Sampled: how long @p, off its queue (blocked), has waited so far, read
 * at a report by the task iterator. Nobody has ended that wait yet, so
 * it has no waker: the report's split of blocked time among the wakers
 * the windows saw (sums/wait_share.c) leaves it out. "Now" is this CPU's
 * queue clock, the iterating task's (a tick old at most), the clock
 * sleep_start() gives on every CPU where the TSC or the timer is stable.
 */
static __always_inline __u64 open_wait_ns(struct task_struct *p)
{
	__u64 start, now;

	if (queued(p))
		return 0;
	start = sleep_start(p);
	now = rq_clock_now(bpf_get_current_task_btf());
	return start && now > start ? now - start : 0;
}

/*
 * Sampled: @p, woken in this window (@k's pending slot), is switched in.
 * The wait its waker ended runs from its start to its enqueue
 * (sched_info.last_queued, still set at the tracepoint): both times on
 * the run queues' clock, one clock on every CPU where the TSC or the
 * timer is stable, so no conversion to CLOCK_MONOTONIC and no clock
 * read. From there it waited on a queue, as the kernel counts it
 * (run_delay, the holders'). A wakeup whose switch-in comes after its
 * window closed keeps the count and loses the wait (a run-queue
 * latency's worth of a window's end).
 */
static __always_inline void sampled_queued(struct task_struct *p,
					   struct tdbpf_wake *k)
{
	__u64 i = (k->pending_slot - 1) & (TDBPF_NR_WAITS - 1);
	__u64 q = p->sched_info.last_queued;

	if (!k->pending_slot)
		return;
	k->pending_slot = 0;
	if (k->sleep_rq && q > k->sleep_rq) {
		k->waits[i].wait_ns += q - k->sleep_rq;
		note_longest(&k->waits[i], q - k->sleep_rq);
	}
}

/*
 * The early wakeup marked for @k (tdbpf_waking) ends a wait of zero; the
 * settling at its next block makes it the off-CPU time since this one.
 */
static __always_inline void take_early(struct tdbpf_wake *k)
{
	set_pending(k, charge_wait(k, k->early_kind, k->early_tid,
				   k->early_tgid, 0), 0);
	k->early_kind = TDBPF_WAKER_NONE;
	k->block_ns = 0;
}

/*
 * @p's last block is uncharged and an early wakeup was marked in that
 * block's window (same run_seq): the waker ran while that switch-out was
 * traced and marked it after block_start() had looked. That wakeup ended
 * the last block. Asked at the wakeup's end (tdbpf_wakeup) and, should
 * that run have been missed, at @p's next block.
 */
static __always_inline void take_late_early(struct tdbpf_wake *k)
{
	if (k->block_ns && k->early_kind && k->early_seq == k->block_seq)
		take_early(k);
}

/*
 * @p blocks (a voluntary switch-out, not its last): its blocked interval
 * starts now, unless its wakeup already came, in the window between
 * leaving the run queue and this tracepoint (tdbpf_waking marked it,
 * while @p was on the CPU it is leaving: same run_seq): then it blocks
 * for no time, and the waker ends a wait of zero. A mark from before @p
 * last ran is stale and never taken. A start left by a wakeup that was
 * not seen is overwritten: that interval shows as blocked time no seen
 * wakeup ended.
 */
static __always_inline void block_start(struct task_struct *p,
					const struct tdbpf_task *t,
					struct tdbpf_wake *k, __u64 now)
{
	__u32 seq = run_seq(p);

	k->block_at = now;
	k->block_exec = t->charged_exec;
	k->block_delay = p->sched_info.run_delay;
	k->block_seq = seq;
	if (k->early_kind && k->early_seq == seq) {
		take_early(k);
		return;
	}
	k->block_ns = now;
}

/*
 * @p blocks or dies: settle its last wakeup's wait and, unless it dies,
 * start its blocked interval. Its waker state is created if its first
 * sight could not (a live task only: a dead one's goes with it).
 */
static __always_inline void wake_block(struct task_struct *p,
				       const struct tdbpf_task *t, bool dead)
{
	struct tdbpf_wake *k;
	__u64 now;

	k = bpf_task_storage_get(&wake_store, p, 0,
				 dead ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!k)
		return;
	now = bpf_ktime_get_ns();
	take_late_early(k);
	settle_wait(p, t, k, now, false);
	if (!dead)
		block_start(p, t, k, now);
}

#endif /* TDBPF_WAIT_BPF_H */
