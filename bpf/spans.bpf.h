/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spans (--span): charging a task's innermost open span. A span is
 * charged like a task, from the same accounting, at checkpoints: its
 * boundaries (spans.bpf.c), the task's switches (switch.bpf.c) and the
 * report's flush. Between two checkpoints the innermost span did what the
 * task did: on-CPU time, run-queue wait (sched_info.run_delay), page
 * faults (the task's own count), counter deltas, and, from a switch-out
 * to the next switch-in, its time off CPU.
 *
 * On-CPU time: the kernel brings se.sum_exec_runtime up to date at a
 * switch, not at a boundary, so within a slice a span's share is clock
 * time (mark_ns) less the CPU's steal time in it, kept pending until the
 * switch-out gives the slice's on-CPU time to share out in that
 * proportion. A thread's spans thus never add up to more than its
 * on-CPU time.
 */
#ifndef TDBPF_SPANS_BPF_H
#define TDBPF_SPANS_BPF_H

#include "shared.bpf.h"
#include "task.bpf.h"

/*
 * The steal clock of the CPU @p runs on (steal_from_rq); 0 where the
 * kernel has none: a slice's steal time is then spread over its spans.
 */
static __always_inline __u64 cpu_steal(struct task_struct *p)
{
	__u64 rq, v = 0;

	if (!steal_from_rq)
		return 0;
	rq = task_rq(p);
	if (rq)
		bpf_probe_read_kernel(&v, sizeof(v),
				      (void *)(rq + steal_from_rq));
	return v;
}

/* A slice's marks (or the first sight's) start at @now */
static __always_inline void span_mark_slice(struct task_struct *p,
					    struct tdbpf_spans *s, __u64 now)
{
	s->mark_ns = now;
	s->in_ns = now;
	s->mark_steal = cpu_steal(p);
	s->in_steal = s->mark_steal;
}

/* The sums of span @id in @p, created at its first use; NULL: full. */
static __always_inline struct tdbpf_span_sums *
span_sums_get(struct task_struct *p, __u64 id)
{
	struct tdbpf_span_key k = { .tid = p->pid, .tgid = p->tgid, .id = id };
	struct tdbpf_span_sums *v = bpf_map_lookup_elem(&span_sums, &k);

	if (v)
		return v;
	/* EEXIST: a flush on this CPU's IPI made it meanwhile */
	if (bpf_map_update_elem(&span_sums, &k, &span_zero, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&span_sums, &k)) {
		stat_inc(TDBPF_STAT_SPAN_LOST);
		return NULL;
	}
	return bpf_map_lookup_elem(&span_sums, &k);
}

/* The sums of @p's innermost open span; NULL outside any span. */
static __always_inline struct tdbpf_span_sums *
span_top(struct task_struct *p, const struct tdbpf_spans *s)
{
	__u32 d = s->depth;

	if (!d)
		return NULL;
	if (d > TDBPF_SPAN_DEPTH)
		d = TDBPF_SPAN_DEPTH;
	return span_sums_get(p, s->id[(d - 1) & (TDBPF_SPAN_DEPTH - 1)]);
}

/* @p's open spans, with --span only; NULL for a task with none yet */
static __always_inline struct tdbpf_spans *span_state(struct task_struct *p)
{
	if (!track_spans)
		return NULL;
	return bpf_task_storage_get(&span_store, p, 0, 0);
}

/* What the task counts itself since the last checkpoint: @v's (if any) */
static __always_inline void span_charge_acct(struct task_struct *p,
					     struct tdbpf_spans *s,
					     struct tdbpf_span_sums *v)
{
	__u64 delay = p->sched_info.run_delay, flt = task_faults(p);

	if (v) {
		v->runq_ns += delay - s->mark_delay;
		v->faults += flt - s->mark_faults;
	}
	s->mark_delay = delay;
	s->mark_faults = flt;
}

/*
 * @d ns of clock time in span @id, in this slice: pending until the
 * slice ends. No room (a slice of many short spans): charged as it is.
 */
static __always_inline void span_pend(struct task_struct *p,
				      struct tdbpf_spans *s, __u64 id, __u64 d)
{
	__u32 n = s->nr_pend;
	struct tdbpf_span_sums *v;

	if (n && n <= TDBPF_SPAN_PENDING &&
	    s->pend_id[(n - 1) & (TDBPF_SPAN_PENDING - 1)] == id) {
		s->pend_ns[(n - 1) & (TDBPF_SPAN_PENDING - 1)] += d;
		return;
	}
	if (n < TDBPF_SPAN_PENDING) {
		s->pend_id[n & (TDBPF_SPAN_PENDING - 1)] = id;
		s->pend_ns[n & (TDBPF_SPAN_PENDING - 1)] = d;
		s->nr_pend = n + 1;
		return;
	}
	v = span_sums_get(p, id);
	if (v)
		v->on_cpu_ns += d;
}

/* The innermost open span's id; 0 outside any */
static __always_inline __u64 span_top_id(const struct tdbpf_spans *s)
{
	__u32 d = s->depth;

	if (!d)
		return 0;
	if (d > TDBPF_SPAN_DEPTH)
		d = TDBPF_SPAN_DEPTH;
	return s->id[(d - 1) & (TDBPF_SPAN_DEPTH - 1)];
}

/*
 * The waker @cur, a tracked task, ends a wait of @wait ns (0: not known
 * yet): charged to its innermost span, if any. Its own sums: nobody but
 * it (and a flush on its CPU) writes them.
 */
static __always_inline void span_woke(struct task_struct *cur, __u64 wait)
{
	struct tdbpf_spans *s = span_state(cur);
	struct tdbpf_span_sums *v;

	if (!s || !s->depth)
		return;
	v = span_sums_get(cur, span_top_id(s));
	if (!v)
		return;
	v->woke++;
	v->woke_ns += wait;
}

/*
 * A checkpoint while @p runs (a boundary, a flush, its switch-out): the
 * clock time since the last, less the steal time in it (the host ran
 * something else: no span of @p's ran), to its innermost span @v (if
 * any), pending; what it counts itself, at once. A slice stays on one
 * CPU, so its marks are of one steal clock.
 */
static __always_inline void span_charge_running(struct task_struct *p,
						struct tdbpf_spans *s,
						struct tdbpf_span_sums *v,
						__u64 now)
{
	__u64 d = now > s->mark_ns ? now - s->mark_ns : 0;
	__u64 steal = cpu_steal(p), sd = steal - s->mark_steal;

	d = d > sd ? d - sd : 0;
	s->mark_ns = now;
	s->mark_steal = steal;
	if (v && d)
		span_pend(p, s, span_top_id(s), d);
	span_charge_acct(p, s, v);
}

/* What one step of a boundary's counter read needs */
struct span_read {
	struct tdbpf_spans *s;
	struct tdbpf_span_sums *v;
	__u32 cpu, gen;
};

/*
 * Counter @i of this CPU since @p's baseline, to its innermost span: a
 * bpf_loop() step, as the switch's read (switch.bpf.c). A uprobe's
 * program can be preempted: once a switch has charged the task (@gen
 * moved on), the rest of the read is the switch's.
 */
static long span_read_step(__u32 i, void *arg)
{
	struct span_read *c = arg;
	struct tdbpf_spans *s = c->s;
	__u64 k = i, r;

	barrier_var(k);
	if (k >= TDBPF_MAX_EVENTS)
		return 1;
	r = bpf_perf_event_read(&counters, i * nr_cpus + c->cpu);
	if (r >= (__u64)-4095) {
		stat_inc(TDBPF_STAT_READ_ERR);
		return 0;
	}
	if (s->gen != c->gen)
		return 1;
	if (c->v && s->cvalid)
		c->v->ctr[k] += r - s->cbase[k];
	s->cbase[k] = r;
	return 0;
}

/*
 * @seen: this slice's switch-in was seen (the CPU's state names the
 * task), so that the baselines are this CPU's. Some switches are not
 * traced: then the next reading is a baseline, not a delta.
 */
static __always_inline void span_read_counters(struct tdbpf_spans *s,
					       struct tdbpf_span_sums *v,
					       __u32 cpu, __u32 gen, bool seen)
{
	struct span_read c = { .s = s, .v = v, .cpu = cpu, .gen = gen };

	if (!nr_events)
		return;
	if (!seen)
		s->cvalid = 0;
	bpf_loop(nr_events < TDBPF_MAX_EVENTS ? nr_events : TDBPF_MAX_EVENTS,
		 span_read_step, &c, 0);
	if (s->gen == gen)
		s->cvalid = 1;
}

/*
 * @p runs though its last switch was a switch-out (out_ns set): its
 * switch-in was not traced. What it ran since, as of the kernel's last
 * update, goes to the span it left in; its slice starts now, its clock
 * unknown before, so that no time off CPU is taken for time on it.
 */
static __always_inline void span_missed_in(struct task_struct *p,
					   struct tdbpf_spans *s, __u64 now)
{
	struct tdbpf_span_sums *v;
	__u64 exec = p->se.sum_exec_runtime;

	if (!s->out_ns)
		return;
	v = span_top(p, s);
	if (v && exec > s->out_exec)
		v->on_cpu_ns += exec - s->out_exec;
	s->out_ns = 0;
	span_mark_slice(p, s, now);
	s->in_exec = exec;
	s->nr_pend = 0;
	s->cvalid = 0;
}

/*
 * A checkpoint while @p runs on @cpu (a boundary, a flush): its
 * innermost span is charged up to now, its counters too.
 */
static __always_inline void span_checkpoint(struct task_struct *p,
					    struct tdbpf_spans *s, __u32 cpu,
					    const struct tdbpf_cpu *st)
{
	struct tdbpf_span_sums *v = span_top(p, s);
	__u64 now = bpf_ktime_get_ns();
	__u32 gen = s->gen;

	span_missed_in(p, s, now);
	span_charge_running(p, s, v, now);
	span_read_counters(s, v, cpu, gen, st->tid == p->pid);
}

/*
 * The slice's time in spans shared out by its on-CPU time, both without
 * the slice's steal time (to its last mark, made at @now): what is
 * spread is only what neither clock accounts, some microseconds.
 */
static __always_inline void span_settle(struct task_struct *p,
					struct tdbpf_spans *s, __u64 now,
					bool seen)
{
	__u64 kt = now > s->in_ns ? now - s->in_ns : 0, ex;
	__u64 sd = s->mark_steal - s->in_steal;
	__u32 i;

	kt = kt > sd ? kt - sd : 0;

	ex = p->se.sum_exec_runtime - s->in_exec;
	/*
	 * a slice begun before the attach, or whose switch-in was not
	 * traced (its marks are an older slice's), or over 4 s: as clocked
	 */
	if (ex > kt || kt >= 1ULL << 32 || !seen)
		ex = kt;
	for (i = 0; i < TDBPF_SPAN_PENDING; i++) {
		struct tdbpf_span_sums *w;

		if (i >= s->nr_pend)
			break;
		w = span_sums_get(p, s->pend_id[i]);
		if (w && kt)
			w->on_cpu_ns += s->pend_ns[i] * ex / kt;
	}
	s->nr_pend = 0;
}

/*
 * @p switches out, this CPU's counters just read into @st (after
 * charge_current(): its sum_exec_runtime is up to date too): the rest
 * of its slice to its innermost span, and its time off CPU starts.
 * The slice's time in each span (clock less steal) becomes on-CPU time,
 * scaled by the slice's on-CPU time as the kernel accounts it over the
 * same. Without a steal clock (not a KVM guest) they differ by the time
 * the host ran something else, which the thread's CPU clock leaves out
 * too: spread evenly then, for want of better.
 */
static __always_inline void span_switch_out(struct task_struct *p,
					    struct tdbpf_spans *s,
					    const struct tdbpf_cpu *st)
{
	struct tdbpf_span_sums *v = span_top(p, s);
	__u64 now = bpf_ktime_get_ns();
	/* before note_switch_in(): the CPU's state is still this slice's */
	bool seen = st->tid == p->pid;
	__u32 i;

	if (s->out_ns) {
		/* a slice whose switch-in was not traced, nor a boundary */
		if (v && p->se.sum_exec_runtime > s->out_exec)
			v->on_cpu_ns += p->se.sum_exec_runtime - s->out_exec;
		span_charge_acct(p, s, v);
		s->nr_pend = 0;
	} else {
		span_charge_running(p, s, v, now);
		span_settle(p, s, now, seen);
	}
	s->out_ns = now;
	s->out_exec = p->se.sum_exec_runtime;
	if (!nr_events)
		return;
	if (!seen || !s->cvalid)
		v = NULL;
	/* straight-line: what is past nr_events is 0 - 0 */
	for (i = 0; i < TDBPF_MAX_EVENTS; i++) {
		if (v)
			v->ctr[i] += st->prev[i].value - s->cbase[i];
		s->cbase[i] = st->prev[i].value;
	}
	s->cvalid = 1;
}

/*
 * @p starts a slice on the CPU of @st: its time off CPU to the span it
 * left in (the stack does not change off CPU), the marks of the slice
 * and its counters' baselines (this switch's readings). Created here,
 * so that a task's marks start at a switch-in, exact.
 */
static __always_inline void span_switch_in(struct task_struct *p,
					   const struct tdbpf_cpu *st)
{
	struct tdbpf_spans *s;
	__u64 now;
	__u32 i;

	if (!track_spans)
		return;
	s = bpf_task_storage_get(&span_store, p, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s)
		return;
	now = bpf_ktime_get_ns();
	if (!s->seen) {
		s->seen = 1;
		s->mark_delay = p->sched_info.run_delay;
		s->mark_faults = task_faults(p);
	} else if (s->out_ns && s->depth) {
		struct tdbpf_span_sums *v = span_top(p, s);

		if (v)
			v->off_ns += now - s->out_ns;
	}
	s->gen++;
	s->out_ns = 0;
	span_mark_slice(p, s, now);
	s->in_exec = p->se.sum_exec_runtime;
	s->nr_pend = 0;
	if (!nr_events)
		return;
	for (i = 0; i < TDBPF_MAX_EVENTS; i++)
		s->cbase[i] = st->prev[i].value;
	s->cvalid = 1;
}

#endif /* TDBPF_SPANS_BPF_H */
