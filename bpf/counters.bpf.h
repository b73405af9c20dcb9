/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading this CPU's counters and charging their deltas since the last
 * reading: at a switch (switch.bpf.c) and at a span's boundary
 * (spans.bpf.c), which both move the same baselines.
 */
#ifndef TDBPF_COUNTERS_BPF_H
#define TDBPF_COUNTERS_BPF_H

#include "shared.bpf.h"
#include "task.bpf.h"

/*
 * One counter's reading. Only a group leader is read with its enabled and
 * running times (bpf_perf_event_read_value takes the clock for them); the
 * members of a group are scheduled in and out with their leader, so their
 * times are the leader's and a value-only read (bpf_perf_event_read) does.
 * That helper returns errors in-band, as -errno: no counter gets near 2^64.
 */
static __always_inline bool read_one(__u32 i, __u32 cpu, bool lead,
				     struct bpf_perf_event_value *v)
{
	__u64 r;

	if (lead)
		return !bpf_perf_event_read_value(&counters, i * nr_cpus + cpu,
						  v, sizeof(*v));
	r = bpf_perf_event_read(&counters, i * nr_cpus + cpu);
	if (r >= (__u64)-4095)
		return false;
	v->counter = r;
	return true;
}

/* What one step of the read loop needs; @v and @group_ok carry over. */
struct read_ctx {
	struct tdbpf_cpu *st;
	struct tdbpf_task *t;
	__u64 *span;		/* the innermost open span's counters, or NULL */
	__u64 slice;
	__u32 cpu;
	bool counted, group_ok;
	struct bpf_perf_event_value v;
};

/*
 * Counter @i of this CPU, for read_counters(). A bpf_loop() step: the
 * verifier checks it once, where an inlined loop over nr_events was
 * walked event by event and branch by branch (49 events took 13 s and
 * then passed its million instructions).
 */
static long read_step(__u32 i, void *arg)
{
	struct read_ctx *c = arg;
	struct tdbpf_cpu *st = c->st;
	struct tdbpf_task *t = c->t;
	__u64 k = i, bit = 1ULL << (i % 64), w;
	bool lead;

	/*
	 * @k indexes, checked: opaque to the compiler, so that no copy of
	 * @i made before the check (which the verifier cannot bound) is
	 * used for an access after it
	 */
	barrier_var(k);
	if (k >= TDBPF_MAX_EVENTS)
		return 1;
	w = k / 64;
	lead = group_leads[w] & bit;
	if ((lead || c->group_ok) && read_one(i, c->cpu, lead, &c->v)) {
		if (lead)
			c->group_ok = true;
	} else {
		if (lead)
			c->group_ok = false;
		stat_inc(TDBPF_STAT_READ_ERR);
		st->valid[w] &= ~bit;
		if (t)
			t->ctr[k].enabled += c->slice;
		return 0;
	}
	if (t) {
		if (c->counted && (st->valid[w] & bit)) {
			__u64 d = c->v.counter - st->prev[k].value;

			t->ctr[k].value += d;
			/* a span's counts are a part of its thread's */
			if (c->span)
				c->span[k] += d;
			t->ctr[k].enabled += c->v.enabled - st->prev[k].enabled;
			t->ctr[k].running += c->v.running - st->prev[k].running;
		} else {
			t->ctr[k].enabled += c->slice;
		}
	}
	st->prev[k].value = c->v.counter;
	st->prev[k].enabled = c->v.enabled;
	st->prev[k].running = c->v.running;
	st->valid[w] |= bit;
	return 0;
}

/*
 * Read this CPU's counters and keep them as the baseline of the next
 * slice. For @t (the task switching out, NULL if untracked) charge each
 * counter's delta since the slice began, when @counted (we saw the
 * slice's switch-in) and both readings are good. Otherwise its @slice of
 * on-CPU time goes into enabled only, as for a group multiplexed out:
 * scaling extrapolates over it and coverage shows it. A failed read is
 * counted and invalidates that baseline: a zeroed buffer is never charged.
 * Groups are contiguous, leader first (plan.c), so the step's @v keeps
 * the times of the group being read; a member of a group whose leader
 * failed fails. @span (NULL: none): the counters of @t's innermost open
 * span, charged each value delta @t is.
 */
static __always_inline void read_counters(struct tdbpf_cpu *st,
					  struct tdbpf_task *t, bool counted,
					  __u64 slice, __u32 cpu, __u64 *span)
{
	struct read_ctx c = { .st = st, .t = t, .span = span, .slice = slice,
			      .cpu = cpu, .counted = counted };

	if (nr_events)
		bpf_loop(nr_events < TDBPF_MAX_EVENTS ? nr_events :
						       TDBPF_MAX_EVENTS,
			 read_step, &c, 0);
}

#endif /* TDBPF_COUNTERS_BPF_H */
