// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side, the switch: charge per-CPU counter deltas and scheduling
 * time to the task that ran the slice, at sched_switch; and the flush
 * that charges the tasks running when a report asks.
 *
 * Counters are opened by user space on every CPU (pid=-1, cpu=N) and stored
 * in @counters at event * nr_cpus + cpu. At a switch we read this CPU's
 * counters once, charge "now - reading at switch-in" to prev and keep "now"
 * as next's baseline. Nothing is scaled here: value, enabled and running are
 * summed so user space can scale per task. What the kernel already counts
 * per task (CPU time, run-queue wait, migrations, switches, page faults) is
 * read from prev itself at its switch-out, against a baseline from when it
 * was first seen: the software model needs no counter at all.
 */
#include "shared.bpf.h"
#include "task.bpf.h"
#include "wait.bpf.h"
#include "holders.bpf.h"
#include "sockets.bpf.h"
#include "spans.bpf.h"

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

/*
 * Read this CPU's counters and keep them as the baseline of the next
 * slice. For @t (the task switching out, NULL if untracked) charge each
 * counter's delta since the slice began, when @counted (we saw the
 * slice's switch-in) and both readings are good. Otherwise its @slice of
 * on-CPU time goes into enabled only, as for a group multiplexed out:
 * scaling extrapolates over it and coverage shows it. A failed read is
 * counted and invalidates that baseline: a zeroed buffer is never charged.
 * Groups are contiguous, leader first (plan.c), so @v keeps the times of
 * the group being read; a member of a group whose leader failed fails.
 */
static __always_inline void read_loop(struct tdbpf_cpu *st,
				      struct tdbpf_task *t, bool counted,
				      __u64 slice, __u32 cpu)
{
	struct bpf_perf_event_value v = {};
	bool group_ok = false;
	__u32 i;

	for (i = 0; i < TDBPF_MAX_EVENTS; i++) {
		__u32 w = i / 64;
		__u64 bit = 1ULL << (i % 64);
		bool lead = group_leads[w] & bit;

		if (i >= nr_events)
			break;
		if ((lead || group_ok) && read_one(i, cpu, lead, &v)) {
			if (lead)
				group_ok = true;
		} else {
			if (lead)
				group_ok = false;
			stat_inc(TDBPF_STAT_READ_ERR);
			st->valid[w] &= ~bit;
			if (t)
				t->ctr[i].enabled += slice;
			continue;
		}
		if (t) {
			if (counted && (st->valid[w] & bit)) {
				t->ctr[i].value += v.counter - st->prev[i].value;
				t->ctr[i].enabled +=
					v.enabled - st->prev[i].enabled;
				t->ctr[i].running +=
					v.running - st->prev[i].running;
			} else {
				t->ctr[i].enabled += slice;
			}
		}
		st->prev[i].value = v.counter;
		st->prev[i].enabled = v.enabled;
		st->prev[i].running = v.running;
		st->valid[w] |= bit;
	}
}

/*
 * read_loop() as a global function: the verifier checks it once per
 * program, with unknown arguments, instead of walking its loop event by
 * event where it was inlined (three places in the switch program, two
 * in the flush), on every path that reaches them (49 events took 13 s
 * and passed its million instructions). Not a bpf_loop() step: that
 * needs 5.17, and one (d64a317) lost group members' counts on 6.1, most
 * likely as 6.1's verifier checks a callback once, with the caller's
 * first context (later ones take it as run any number of times), so
 * group_ok looked always false and the members' reads dead code. A
 * NULL @t gets its own copy of the loop: the compiler may compute
 * &t->ctr[i] before a test of @t, which the verifier refuses for a
 * pointer that may be NULL.
 */
__noinline int read_counters(struct tdbpf_cpu *st, struct tdbpf_task *t,
			     bool counted, __u64 slice, __u32 cpu)
{
	if (!st)
		return 0;
	if (t)
		read_loop(st, t, counted, slice, cpu);
	else
		read_loop(st, NULL, false, 0, cpu);
	return 0;
}

/*
 * Charge @p, running on this CPU: the counters of the slice since its
 * switch-in, when we saw it (else the slice only lowers the coverage); its
 * on-CPU time as the kernel accounts it, se.sum_exec_runtime (what
 * /proc/PID/task/TID/schedstat and the thread's CPU clock show, brought
 * up to date by __schedule() before the tracepoint) since what was
 * charged already, so that a slice is charged whole even when its
 * switch-in was not seen (some kernels switch tasks without the
 * tracepoint); and its run-queue wait and migrations, which the scheduler
 * also keeps per task.
 */
static __always_inline struct tdbpf_task *
charge_current(struct tdbpf_cpu *st, struct task_struct *p, __u32 cpu,
	       bool in_flush)
{
	__u32 pid = p->pid;
	/* counters: only a slice whose switch-in we saw is theirs */
	bool counted = st->tid == pid;
	struct tdbpf_task *t = task_get(p, pid, p->tgid, st, in_flush,
					counted);
	__u64 slice, window;

	if (!t) {
		read_counters(st, NULL, false, 0, cpu);
		return NULL;
	}
	slice = charge_sched(p, t);
	if (!counted)
		charge_uncounted(t, slice);
	window = t->ctr[0].enabled;
	read_counters(st, t, counted, slice, cpu);
	/*
	 * The first counter's enabled time grew by the window it counted
	 * (per-CPU counters are always enabled), or by @slice when it
	 * could not count: what the kernel charged beyond that window.
	 */
	if (nr_events && counted)
		t->sched.window_gap_ns += slice - (t->ctr[0].enabled - window);
	return t;
}

/*
 * @p starts a slice on this CPU: its accounting now is where a first
 * sight at its switch-out would start counting it.
 */
static __always_inline void note_switch_in(struct tdbpf_cpu *st,
					   struct task_struct *p)
{
	st->tid = p->pid;
	st->in_exec = p->se.sum_exec_runtime;
	st->in_faults = task_faults(p);
	st->in_nvcsw = p->nvcsw;
	st->in_nivcsw = p->nivcsw;
}

/*
 * The graph's work at this switch: always with --wakeups; sampled, in a
 * window only. Read-free, this program is attached only in windows; with
 * counters it runs at every switch. Either way @sample_gen tells.
 */
static __always_inline bool waking_now(void)
{
	return track_wakeups && !window_shut();
}

/*
 * Sampled, with nothing to read at a switch (the software model): the
 * graph's part alone. A wait is charged at its wakeup (wakeups.bpf.c),
 * not started here; who held the CPU is charged here.
 */
static __always_inline void sampled_switch(struct task_struct *prev, bool tp,
					   struct task_struct *next, bool tn,
					   bool requeued)
{
	if (track_sockets)
		marks_reset();
	if (tp && requeued)
		note_requeue(prev);
	if (tn)
		charge_holders(prev, next);
}

static __always_inline int on_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state)
{
	bool tp = tracked(prev), tn = tracked(next), wk = waking_now();
	bool block = !preempt && prev_state != TASK_RUNNING;
	struct tdbpf_task *t;
	struct tdbpf_cpu *st;
	__u32 z = 0, cpu;

	/* read-free, the graph is all it does */
	if (read_free && !wk)
		return 0;
	if (wk) {
		/* who held this CPU: wanted for any task a tracked one
		 * waits on */
		ring_push(prev, tp, next, tn);
	}
	/* the early exit: untracked switches cost two bit tests */
	if (!tp && !tn)
		return 0;
	if (read_free) {
		sampled_switch(prev, tp, next, tn, !block);
		return 0;
	}
	cpu = bpf_get_smp_processor_id();
	st = bpf_map_lookup_elem(&cpu_state, &z);
	if (!st)
		return 0;

	if (track_sockets && wk)
		marks_reset();
	if (tp) {
		/* --span: its innermost open span is charged too */
		struct tdbpf_spans *sp = span_state(prev);

		t = charge_current(st, prev, cpu, false);
		if (sp)
			span_switch_out(prev, sp, st);
		if (t) {
			/* one clock read, when it blocks; sampled, none */
			if (wk && !block)
				note_requeue(prev);
			else if (wk && !sampled)
				wake_block(prev, t, prev_state & TASK_DEAD);
			if (prev_state & TASK_DEAD) {
				/* its last slice: hand it over to user space */
				t->end_ns = bpf_ktime_get_ns();
				task_archive(prev, t);
			}
		}
	} else {
		/* untracked prev: only take next's baseline */
		read_counters(st, NULL, false, 0, cpu);
	}
	if (tn) {
		if (wk)
			charge_holders(prev, next);
		note_switch_in(st, next);
		span_switch_in(next, st);
	} else
		st->tid = 0;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(tdbpf_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(preempt, prev, next, prev_state);
}

/* task_struct's state before 5.14 named it __state */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

/*
 * Before Linux 5.18 sched_switch has no prev_state (three arguments):
 * the task's own state, as __schedule() left it, read at the
 * tracepoint. A wakeup racing the switch can have moved it to
 * TASK_WAKING, which still tells a block: only TASK_RUNNING is a
 * preemption, and __schedule() sets that itself when a signal keeps
 * the task queued. User space loads this one or tdbpf_switch.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(tdbpf_switch_nostate, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	struct task_struct___pre514 *old = (void *)prev;
	unsigned int state;

	if (bpf_core_field_exists(prev->__state))
		state = BPF_CORE_READ(prev, __state);
	else
		state = (unsigned int)BPF_CORE_READ(old, state);
	return on_switch(preempt, prev, next, state);
}

/*
 * Run by user space on every CPU (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU)
 * before a report, so that a task running right now is charged up to now.
 * It runs in an IPI on that CPU: "current" is the task that was running.
 */
SEC("raw_tp")
int tdbpf_flush(void *ctx)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct tdbpf_spans *sp;
	struct tdbpf_task *t;
	struct tdbpf_cpu *st;
	__u32 z = 0;

	st = bpf_map_lookup_elem(&cpu_state, &z);
	if (!st)
		return 0;
	if (!tracked(cur))
		return 0;
	/* --span: its innermost span is charged up to now too */
	sp = span_state(cur);
	if (sp)
		span_checkpoint(cur, sp, bpf_get_smp_processor_id(), st);
	/* on-CPU as of the last tick; the switch-out charges the rest */
	t = charge_current(st, cur, bpf_get_smp_processor_id(), true);
	/* its last wakeup's wait, so that a report's waits add up */
	if (t && track_wakeups && !sampled) {
		struct tdbpf_wake *k;

		k = bpf_task_storage_get(&wake_store, cur, 0, 0);
		if (k && k->pending_slot)
			settle_wait(cur, t, k, bpf_ktime_get_ns(), true);
	}
	note_switch_in(st, cur);
	return 0;
}
