/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who held the CPU while a task waited for it (--wakeups). Every switch
 * on the machine pushes the slice that ends (the task and its on-CPU
 * time in it, se.sum_exec_runtime - se.prev_sum_exec_runtime: no clock
 * read) on this CPU's ring. When a tracked task is switched in, its wait
 * on this run queue (rq->clock - sched_info.last_queued, both the run
 * queue's clock; sched_info_arrive() clears it only after the
 * tracepoint) is charged to the newest slices back until it is covered:
 * those tasks held the CPU it waited for. Of a wait cut by a migration
 * only the part on this CPU is charged: the kernel added the rest to
 * run_delay when the task left the other CPU's queue.
 */
#ifndef TDBPF_HOLDERS_BPF_H
#define TDBPF_HOLDERS_BPF_H

#include "wait.bpf.h"

/* A task whose cgroup's CPU limit took it off its CPU (6.18+: per task). */
static __always_inline bool throttled(struct task_struct *p)
{
	struct task_struct___thr *t = (void *)p;

	return bpf_core_field_exists(t->throttled) && t->throttled;
}

static __always_inline void ring_push(struct task_struct *prev, bool tp,
				      struct task_struct *next, bool tn)
{
	struct tdbpf_ring *r;
	struct tdbpf_slice *sl;
	__u32 z = 0;

	__u64 ns;

	r = bpf_map_lookup_elem(&cpu_ring, &z);
	if (!r)
		return;
	/* who runs here from now: what another CPU's waiter samples */
	r->cur = next->pid | (tn ? TDBPF_RING_TRACKED : 0);
	ns = prev->pid ? prev->se.sum_exec_runtime -
				 prev->se.prev_sum_exec_runtime
		       : 0;
	/* the same task again (woken back at once): one longer slice */
	sl = &r->s[(r->head - 1) & (TDBPF_NR_SLICES - 1)];
	if (sl->tid == prev->pid && sl->ns) {
		sl->ns += ns;
		return;
	}
	sl = &r->s[r->head & (TDBPF_NR_SLICES - 1)];
	sl->tid = prev->pid;
	sl->tracked = tp;
	sl->ns = ns;
	r->head++;
}

/*
 * Tasks outside the targets that hold the CPU get a slot each, for the
 * first TDBPF_NR_OTHERS of them that hold it long (a CPU hog's slices: a
 * noisy neighbour is named); the rest (on a busy machine hundreds of
 * short-lived or short-slice tasks) share one slot, tid 0, so that
 * wakers keep theirs.
 */
#define TDBPF_NR_OTHERS	 3
#define TDBPF_OTHER_LONG 500000 /* ns of one slice's charge */

static __always_inline __u32 other_slot(const struct tdbpf_wake *k, __u32 tid,
					__u64 take)
{
	__u32 i, n = 0;

	for (i = 0; i < TDBPF_NR_WAITS; i++) {
		const struct tdbpf_wait *w = &k->waits[i];

		if (w->kind != TDBPF_HOLDER_OTHER || !w->tid)
			continue;
		if (w->tid == tid)
			return tid;
		n++;
	}
	return n < TDBPF_NR_OTHERS && take >= TDBPF_OTHER_LONG ? tid : 0;
}

/*
 * While task @tid waited on this CPU's queue, the other CPUs it may run
 * on (@n of them, @cpus_ptr its mask if not all) were busy too, or the
 * scheduler would have moved it: their tasks held the CPU it waited for
 * as much as this CPU's did (three busy stages on two CPUs: the one that
 * has a CPU to itself starves the other two). Of @queue_wait, the part
 * its cgroup's limit did not hold, each allowed CPU takes an equal
 * share; the others' shares go to the task that one of them, drawn at
 * random, runs at the wait's end (its ring's cur: a sample, exact on two
 * CPUs for the wait's last moment, unbiased over many waits). An idle
 * one means the CPUs were not all busy: nothing is charged elsewhere.
 * Returns what it charged, for this CPU's slices to take the rest.
 * A global function (this file is switch.bpf.c's alone): verified once,
 * not on every path of the switch program that reaches it.
 */
#define TDBPF_DRAWS 4

__noinline __u64 charge_elsewhere(struct tdbpf_wake *k, __u32 tid,
				  __u64 cpus_ptr, __u32 n, __u64 queue_wait)
{
	__u32 cpu = bpf_get_smp_processor_id(), j = 0, i, z = 0, cur, kind;
	struct tdbpf_ring *r;
	__u64 word, take;
	bool all;

	if (!k)
		return 0;
	/* allowed everywhere (most tasks): no mask to read */
	all = n >= nr_cpus;
	if (all)
		n = nr_cpus;
	if (!percpu_lookup || n < 2 || !queue_wait || (!all && !cpus_ptr))
		return 0;
	/*
	 * one of the other CPUs, each as likely; a few draws: a sparse
	 * mask on a large machine may find none
	 */
	for (i = 0; i < TDBPF_DRAWS; i++) {
		j = (cpu + 1 + bpf_get_prandom_u32() % (nr_cpus - 1)) %
		    nr_cpus;
		if (all)
			break;
		word = 0;
		bpf_probe_read_kernel(&word, sizeof(word),
				      (void *)(cpus_ptr + (j / 64) * 8));
		if (word & (1ULL << (j % 64)))
			break;
	}
	if (i == TDBPF_DRAWS)
		return 0;
	r = bpf_map_lookup_percpu_elem(&cpu_ring, &z, j);
	if (!r)
		return 0;
	cur = r->cur & ~TDBPF_RING_TRACKED;
	if (!cur || cur == tid)
		return 0;
	take = queue_wait / n * (n - 1);
	kind = TDBPF_HOLDER_TASK;
	if (!(r->cur & TDBPF_RING_TRACKED)) {
		kind = TDBPF_HOLDER_OTHER;
		cur = other_slot(k, cur, take);
	}
	charge_wait(k, kind, cur, 0, take);
	return take;
}

/* The walk over a CPU's last slices, newest first (bpf_loop's context). */
struct hold_walk {
	struct tdbpf_wake *k;
	struct tdbpf_ring *r;
	__u64 wait; /* still to charge */
	__u32 tid;  /* the task switched in */
};

/*
 * Step @i of the walk over this CPU's slices for the wait left: the slice
 * @i back from the newest, for the part of the wait it covers; then what
 * no slice covered (unseen: on a busy machine short slices of other
 * tasks can overrun the ring). A callback of bpf_loop(), with the one
 * call of charge_wait(): verified once, not once per step, which would
 * make the switch program take seconds to verify.
 */
static __noinline long hold_step(__u64 i, void *ctx)
{
	struct hold_walk *w = ctx;
	struct tdbpf_slice *sl;
	__u32 kind, tid = 0;
	__u64 take;

	if (!w->wait)
		return 1;
	if (i >= TDBPF_NR_SLICES) {
		kind = TDBPF_HOLDER_UNSEEN;
		take = w->wait;
	} else {
		sl = &w->r->s[(w->r->head - (i + 1)) & (TDBPF_NR_SLICES - 1)];
		/* its own last slice: its wait began after it */
		if (sl->tid == w->tid) {
			kind = TDBPF_HOLDER_UNSEEN;
			take = w->wait;
		} else {
			take = sl->ns < w->wait ? sl->ns : w->wait;
			if (!sl->tid)
				return 0;
			kind = sl->tracked ? TDBPF_HOLDER_TASK
					   : TDBPF_HOLDER_OTHER;
			tid = sl->tracked ? sl->tid
					  : other_slot(w->k, sl->tid, take);
		}
	}
	if (!take)
		return 0;
	charge_wait(w->k, kind, tid, 0, take);
	w->wait -= take;
	return 0;
}

/*
 * Waits on queues @next was moved off since its last switch-in: the
 * kernel added each to run_delay as it left that queue
 * (sched_info_dequeue), and this switch-in sees the last queue's part
 * only (@wait). Who held those CPUs is not known now: cpu-unseen, so
 * that its holds add up to its run-queue wait.
 */
static __always_inline void charge_moved(struct tdbpf_wake *k,
					 struct task_struct *next, __u64 wait)
{
	__u64 delay = next->sched_info.run_delay;

	if (k->delay_seen && delay > k->delay_seen)
		charge_wait(k, TDBPF_HOLDER_UNSEEN, 0, 0,
			    delay - k->delay_seen);
	/* sched_info_arrive() adds this wait after the tracepoint */
	k->delay_seen = delay + wait;
}

/*
 * How long the task was throttled: since it left its CPU so, or its
 * queue's throttled time, whichever is longer; the marks cleared.
 */
static __always_inline __u64 throttled_for(struct tdbpf_wake *k)
{
	__u64 throttled = 0, now = 0;

	if (k->throttle_ns) {
		throttled = bpf_ktime_get_ns() - k->throttle_ns;
		k->throttle_ns = 0;
	}
	/*
	 * the queue it became runnable on, even if it was moved since to
	 * another CPU's: a group's queues live as long as the group, and a
	 * read of one that went is a failed or capped one, never a fault
	 */
	if (k->throttle_rq &&
	    bpf_core_field_exists(struct cfs_rq___self,
				  throttled_clock_self_time)) {
		bpf_probe_read_kernel(
			&now, sizeof(now),
			(void *)(k->throttle_rq +
				 bpf_core_field_offset(
					 struct cfs_rq___self,
					 throttled_clock_self_time)));
		if (now > k->throttle_base &&
		    now - k->throttle_base > throttled)
			throttled = now - k->throttle_base;
	}
	k->throttle_rq = 0;
	return throttled;
}

/*
 * @next, tracked, is switched in after waiting on this run queue: charge
 * that wait to its cgroup's limit for as long as it was throttled, a
 * share to the tasks holding the other CPUs it may run on, the rest to
 * the tasks of this CPU's last slices, newest first.
 */
static __always_inline void charge_holders(struct task_struct *prev,
					   struct task_struct *next)
{
	__u64 queued = next->sched_info.last_queued, clock, throttled;
	struct hold_walk w = {};
	struct tdbpf_slice *sl;
	__u32 z = 0, n;
	__u64 mask = 0;

	if (!queued && !sampled)
		return;
	/* sampled: a task that never blocked is made one here */
	w.k = bpf_task_storage_get(&wake_store, next, 0,
				   sampled ? BPF_LOCAL_STORAGE_GET_F_CREATE :
					     0);
	w.r = bpf_map_lookup_elem(&cpu_ring, &z);
	if (!w.k || !w.r)
		return;
	wake_fresh(w.k);
	/* its last wakeup settled at this switch-in, queued or not */
	if (sampled)
		sampled_queued(next, w.k);
	if (!queued)
		return;
	w.tid = next->pid;
	clock = rq_clock_now(prev);
	w.wait = clock > queued ? clock - queued : 0;
	charge_moved(w.k, next, w.wait);
	throttled = throttled_for(w.k);
	if (!w.wait)
		return;
	if (throttled) {
		__u64 take = throttled < w.wait ? throttled : w.wait;

		charge_wait(w.k, TDBPF_HOLDER_LIMIT, 0, 0, take);
		w.wait -= take;
		if (!w.wait)
			return;
	}
	n = next->nr_cpus_allowed;
	/* a number for the global function: only a mask's, for a draw */
	if (n >= 2 && n < nr_cpus)
		bpf_probe_read_kernel(&mask, sizeof(mask), &next->cpus_ptr);
	w.wait -= charge_elsewhere(w.k, w.tid, mask, n, w.wait);
	/*
	 * The common case, a task handing its CPU to the one it woke: the
	 * newest slice, a tracked task's, covers the wait. No walk.
	 */
	sl = &w.r->s[(w.r->head - 1) & (TDBPF_NR_SLICES - 1)];
	if (sl->tracked && sl->tid && sl->tid != w.tid && sl->ns >= w.wait) {
		if (w.wait)
			charge_wait(w.k, TDBPF_HOLDER_TASK, sl->tid, 0, w.wait);
		return;
	}
	if (have_loop) {
		bpf_loop(TDBPF_NR_SLICES + 1, hold_step, &w, 0);
		return;
	}
	/* no bpf_loop (before 5.17): the newest slice, then unseen */
	hold_step(0, &w);
	hold_step(TDBPF_NR_SLICES, &w);
}

/*
 * @p, tracked, leaves its CPU runnable (preempted, or throttled by its
 * cgroup's CPU limit: then its wait is the limit's from now).
 */
static __always_inline void note_requeue(struct task_struct *p)
{
	struct tdbpf_wake *k = bpf_task_storage_get(&wake_store, p, 0, 0);

	if (!k)
		return;
	wake_fresh(k);
	note_runnable(p, k);
	if (throttled(p) && !k->throttle_ns)
		k->throttle_ns = bpf_ktime_get_ns();
}

#endif /* TDBPF_HOLDERS_BPF_H */
