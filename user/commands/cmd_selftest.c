// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf selftest: like perf test, a check a user runs on their own
 * machine (and pastes into a bug report). It traces its own workload
 * (selftest_work.c) and compares, thread by thread and event by event,
 * what tdbpf charged with what the kernel itself counted: per-thread perf
 * events the selftest opens for the same events, and the task's own
 * accounting (/proc/.../schedstat, status, stat).
 *
 * The window opens and closes while every workload thread is parked
 * (blocked, off-CPU), so on both sides it starts at a switch-in and ends
 * at a switch-out: what differs is only where at a switch each side
 * reads. tdbpf reads its per-CPU counters in the sched_switch program;
 * the kernel switches a per-thread event out in perf_event_task_sched_out()
 * (prepare_task_switch(), after the tracepoint) and in again in
 * perf_event_task_sched_in() (finish_task_switch(), after the switch).
 * Per slice, tdbpf thus counts the instructions from its read to the
 * kernel's switch-in, less those from its read to the kernel's
 * switch-out: the rest of the BPF program and the kernel's switch path,
 * a bounded number per switch (SWITCH_INSNS_*), never a fraction of the
 * work. The bounds below are per switch for that reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "commands/cmd.h"
#include "commands/selftest_work.h"
#include "sources/counters.h"
#include "sources/targets.h"
#include "sums/snapshot.h"
#include "sources/tracer.h"

/*
 * Instructions per switch that one side counts and the other does not:
 * on the switch-out, the rest of tdbpf's sched_switch program after its
 * read of a counter and the kernel's path to perf_event_task_sched_out();
 * on the switch-in, those plus context_switch() up to
 * perf_event_task_sched_in(). The program reads its counters one after
 * the other, so the gap grows with their number. Measured on Debian 12's
 * arm64 kernel under QEMU (-icount: exact): 490-530 per switch with 2
 * counters, 630-650 with 4, 1,300 with 10. Allowed: 1,000 + 250 per
 * counter, 2-3 times that; a slice of the workload is 10^4-10^6.
 */
#define SWITCH_INSNS_BASE	1000
#define SWITCH_INSNS_PER_CTR	250
/*
 * The same gap in time: the switch path's instructions at the speed of
 * the slowest machine it runs on, an emulator. QEMU's x86 TCG (100-300
 * million instructions per second) with Debian 12's PREEMPT_RT kernel:
 * the task's clock ran 30-34 us per switch ahead of perf's for the
 * short-slice threads on an idle host. With the host's other CPU busy
 * single-threaded TCG runs slower: 3 of 20 runs went over the 50 us
 * once allowed (the task's clock 17-25% ahead of perf's). 100 us.
 */
#define SWITCH_NS	100000
/*
 * On-CPU time, though, is not read at the same points: the task's
 * se.sum_exec_runtime runs from the pick to the next update_curr(), the
 * per-thread cpu-clock from perf's switch-in to its switch-out, and where
 * the host deschedules a vCPU (a loaded VM, an emulator) in between, a
 * switch takes far longer than its instructions. Measured: this 2-CPU VM
 * -8.3..+2.5%, QEMU's x86 TCG -3.1..+3.6%, its arm64 TCG with 2 vCPUs on
 * a loaded host +5.1..+6.1%. So time gets 10% of itself beside the
 * switches; the exact check of on-CPU time is the one against /proc's
 * schedstat, the same quantity.
 */
#define NS_REL		0.10
/*
 * perf counts a migration at the next switch-in, once however many
 * moves came before it (task->sched_migrated is a flag); the task's
 * se.nr_migrations counts each move: a wakeup's placement and a load
 * balancer's moves before the task runs are several to perf's 1 (QEMU's
 * arm64 guest, 2 vCPUs: 9 to 7). So 25% + 2 against perf; the exact
 * check is against /proc's sched (se.nr_migrations), the same quantity.
 */
#define MIGR_REL	0.25
/*
 * A multiplexed count is an estimate, on both sides: count x enabled /
 * running, extrapolated from the share f of the time the counter ran to
 * the rest (tdbpf's per-CPU groups and the selftest's per-thread events
 * rotate on the same counters). If the event's rate in the time it was
 * not counted is within MUX_DEV of its rate when counted, an estimate is
 * off by at most MUX_DEV x (1 - f) of the count; the two sides' errors
 * add. The workload's loops run at a steady rate in user mode; its
 * kernel time (switches, faults, syscalls) comes in bursts: +-25%. (In
 * QEMU's arm64 guest, at 46-50% of the time, the estimates were within
 * 0.1-2% of the exact count.)
 */
#define MUX_DEV		0.25
/* cycles and any event of unknown kind: per switch, or 1% of the count */
#define OTHER_REL	0.01

enum cls {
	CLS_INSN,	/* exact: instructions retired */
	CLS_NS,		/* time: cpu-clock, task-clock */
	CLS_COUNT,	/* the kernel's own counts: faults, switches */
	CLS_MIGR,	/* cpu-migrations */
	CLS_OTHER,	/* cycles, any other hardware event */
};

struct check_stats {
	int pass, fail;
	char skipped[512];	/* what could not be checked */
	size_t skipped_len;
};

static void skip(struct check_stats *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void skip(struct check_stats *st, const char *fmt, ...)
{
	size_t n = st->skipped_len, room = sizeof(st->skipped);
	va_list ap;

	if (n >= room - 1)
		return;
	if (n)
		n += snprintf(st->skipped + n, room - n, "; ");
	va_start(ap, fmt);
	if (n < room)
		n += vsnprintf(st->skipped + n, room - n, fmt, ap);
	va_end(ap);
	st->skipped_len = n < room ? n : room - 1;
}

static enum cls classify(const struct model_event *e)
{
	if (e->kind == EV_TASK)
		return e->config1 == TF_ON_CPU ? CLS_NS :
		       e->config1 == TF_MIGRATIONS ? CLS_MIGR : CLS_COUNT;
	if (e->type == PERF_TYPE_HARDWARE &&
	    e->config == PERF_COUNT_HW_INSTRUCTIONS)
		return CLS_INSN;
#if defined(__aarch64__)
	/* the architected INST_RETIRED */
	if (e->type == PERF_TYPE_RAW && (e->config & 0xffff) == 0x08)
		return CLS_INSN;
#endif
	if (e->type == PERF_TYPE_SOFTWARE)
		return e->config == PERF_COUNT_SW_CPU_CLOCK ||
			       e->config == PERF_COUNT_SW_TASK_CLOCK ? CLS_NS :
		       e->config == PERF_COUNT_SW_CPU_MIGRATIONS ? CLS_MIGR :
								   CLS_COUNT;
	return CLS_OTHER;
}

/*
 * When tdbpf's events outnumber the counters, the kernel schedules the
 * per-CPU ones (tdbpf's) onto the counters before any per-thread one
 * (ctx_sched_in(): CPU context first), and rotation always finds a
 * per-CPU event waiting: flexible per-thread events never run (0% on
 * Debian 12's 6.1). So then the kernel's reference for the first
 * MUX_REFS hardware events is pinned (before every flexible event,
 * never multiplexed: an exact count), and tdbpf multiplexes its events
 * on the counters left; the other events are not checked, and said so.
 */
#define MUX_REFS	2

static bool hw_event(const struct model_event *e)
{
	return e->kind != EV_TASK && e->type != PERF_TYPE_SOFTWARE &&
	       e->type != PERF_TYPE_TRACEPOINT;
}

/* The per-thread event the kernel counts for slot @e of the plan. */
static int open_thread_event(const struct model_event *e, pid_t tid,
			     bool pinned)
{
	struct perf_event_attr a;

	counters_attr(&a, e);
	/* a task event's config1 names the task's sum it stands for */
	if (e->kind == EV_TASK) {
		a.config1 = a.config2 = 0;
		a.exclude_user = a.exclude_kernel = 0;
	}
	a.pinned = pinned;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, 0);
}

/* value, enabled, running; scaled as perf stat scales */
static double scaled(const struct tdbpf_count *c, bool *mux)
{
	*mux = c->running && c->running < c->enabled;
	if (!c->running)
		return (double)c->value;
	return (double)c->value * (double)c->enabled / (double)c->running;
}

/* What the task's own accounting says, from /proc (see the checks). */
struct proc_task {
	__u64 exec_ns;		/* schedstat: se.sum_exec_runtime */
	__u64 switches;		/* status: voluntary + nonvoluntary */
	__u64 faults;		/* stat: minflt + majflt */
	long long migrations;	/* sched: se.nr_migrations, -1 unknown */
};

static int proc_task_read(pid_t tid, struct proc_task *p)
{
	char path[96], buf[1024], *s;
	unsigned long long a, b;
	FILE *f;
	size_t n;
	int i;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &a) != 1) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	p->exec_ns = a;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f))
		if (sscanf(buf, "voluntary_ctxt_switches: %llu", &a) == 1 ||
		    sscanf(buf, "nonvoluntary_ctxt_switches: %llu", &a) == 1)
			p->switches += a;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after "(comm) ": state ppid pgrp session tty tpgid flags minflt
	 * cminflt majflt */
	s = strrchr(buf, ')');
	if (!s)
		return -1;
	for (i = 0; i < 8 && s; i++)
		s = strchr(s + 1, ' ');
	if (!s || sscanf(s, " %llu %*u %llu", &a, &b) != 2)
		return -1;
	p->faults = a + b;
	/* CONFIG_SCHED_DEBUG's file: absent on some kernels */
	p->migrations = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/sched", tid);
	f = fopen(path, "r");
	if (f) {
		while (fgets(buf, sizeof(buf), f))
			if (sscanf(buf, "se.nr_migrations : %llu", &a) == 1)
				p->migrations = (long long)a;
		fclose(f);
	}
	return 0;
}

/* One check: a line with the figures, counted as a pass or a fail. */
static void check(FILE *out, struct check_stats *st, const char *who,
		  const char *what, double tdbpf, double kernel, double bound,
		  const char *how)
{
	double d = tdbpf - kernel;
	bool ok = fabs(d) <= bound;

	if (ok)
		st->pass++;
	else
		st->fail++;
	fprintf(out, "  %s  %-22s %-22s tdbpf %.0f, kernel %.0f: diff %+.0f, bound %.0f (%s)\n",
		ok ? "ok  " : "FAIL", who, what, tdbpf, kernel, d, bound,
		how);
}

struct st_thread {
	const struct work_thread *t;
	int fd[TDBPF_MAX_EVENTS];
	struct proc_task p0, p1;
};

static int build_plan(const struct options *o, struct event_plan *plan,
		      struct detect_info *d, FILE *out)
{
	const struct model *m = d->model;
	char err[512];
	bool smt;
	int i;

	if (o->model) {
		m = find_model_or_say(o->model);
		if (!m)
			return 2;
		if (m != &model_software && m != d->model) {
			errorf("--model %s: %s", m->name,
			       d->reason[0] ? d->reason :
			       "not this machine's model");
			return 1;
		}
	}
	smt = o->smt >= 0 ? o->smt : d->smt;
	if (plan_events(m, level_for(m, o->level), smt, gp_budget(m, smt, d),
			plan, err, sizeof(err))) {
		errorf("%s", err);
		return 1;
	}
	i = cmd_add_events(o, plan, err, sizeof(err));
	if (i) {
		errorf("%s", err);
		return i;
	}
	fprintf(out, "tdbpf selftest: model %s, %d events (%d counters)\n",
		m->name, plan->nr, plan->nr_counters);
	return 0;
}

/* the window: every thread parked; both sides read, then read again */
static int run_window(struct work *w, struct tracer *tr,
		      struct st_thread *th, struct snapshot *s0,
		      struct snapshot *s1)
{
	int i;

	if (work_wait_parked(w, 60000))
		return -ETIMEDOUT;
	for (i = 0; i < w->nr; i++)
		if (proc_task_read(th[i].t->tid, &th[i].p0))
			return -EIO;
	if (tracer_collect(tr, s0))
		return -EIO;
	work_release(w);
	if (work_wait_parked(w, 600000))
		return -ETIMEDOUT;
	if (tracer_collect(tr, s1))
		return -EIO;
	for (i = 0; i < w->nr; i++)
		if (proc_task_read(th[i].t->tid, &th[i].p1))
			return -EIO;
	return 0;
}

/*
 * How far tdbpf's count @t of @e may be from the kernel's @k, given @sw
 * switches of @per_sw instructions each and the shares of the time each
 * side's counter ran (@ft, @fk; @mux: either side multiplexed), and why,
 * into @how.
 */
static double slot_bound(const struct model_event *e, double t, double k,
			 double ft, double fk, bool mux, double sw, int per_sw,
			 char *how, size_t len)
{
	if (mux) {
		snprintf(how, len, "multiplexed: ran %.0f%% (tdbpf), %.0f%% (kernel) of the time; %.0f switches x %d + %.0f%% x %.2f",
			 100 * ft, 100 * fk, sw, per_sw, MUX_DEV * 100,
			 2 - ft - fk);
		return sw * per_sw + MUX_DEV * (2 - ft - fk) * fmax(t, k);
	}
	switch (classify(e)) {
	case CLS_INSN:
		snprintf(how, len, "%.0f switches x %d", sw, per_sw);
		return sw * per_sw;
	case CLS_NS:
		snprintf(how, len, "%.0f switches x %d ns + %.0f%%", sw,
			 SWITCH_NS, NS_REL * 100);
		return sw * SWITCH_NS + NS_REL * k;
	case CLS_MIGR:
		snprintf(how, len, "perf: once per switch-in, %.0f%% + 2",
			 MIGR_REL * 100);
		return floor(MIGR_REL * k) + 2;
	case CLS_COUNT:
		snprintf(how, len, "the same count");
		return 0;
	default:
		snprintf(how, len, "%.0f switches x %d or %.0f%%", sw, per_sw,
			 OTHER_REL * 100);
		return fmax(sw * per_sw, OTHER_REL * k);
	}
}

/* Slot @s of one thread against the kernel's count of its event. */
static void check_slot(FILE *out, struct check_stats *st, const char *who,
		       const struct event_plan *plan, int s,
		       const struct st_thread *th, const struct task_row *r0,
		       const struct task_row *r1, double sw)
{
	int per_sw = SWITCH_INSNS_BASE +
		     SWITCH_INSNS_PER_CTR * plan->nr_counters;
	const struct model_event *e = plan->evd[s];
	struct tdbpf_count c = r1->ctr[s], kc = { 0 };
	double t, k, ft, fk, bound;
	bool mux_t, mux_k;
	char how[160];
	__u64 v[3];

	if (r0) {
		c.value -= r0->ctr[s].value;
		c.enabled -= r0->ctr[s].enabled;
		c.running -= r0->ctr[s].running;
	}
	if (read(th->fd[s], v, sizeof(v)) != sizeof(v)) {
		skip(st, "%s %s: reading the kernel's count failed", who,
		     e->name);
		return;
	}
	kc.value = v[0];
	kc.enabled = v[1];
	kc.running = v[2];
	if (!kc.running) {
		/* once per event, not per thread */
		if (!strstr(st->skipped, e->name))
			skip(st, "%s: the kernel's per-thread event never ran",
			     e->name);
		return;
	}
	t = scaled(&c, &mux_t);
	k = scaled(&kc, &mux_k);
	ft = c.enabled ? (double)c.running / c.enabled : 1;
	fk = kc.enabled ? (double)kc.running / kc.enabled : 1;
	bound = slot_bound(e, t, k, ft, fk, mux_t || mux_k, sw, per_sw, how,
			   sizeof(how));
	check(out, st, who, e->name, t, k, bound, how);
	if (e->kind == EV_TASK && e->config1 == TF_FAULTS)
		check(out, st, who, "page-faults", t,
		      (double)(th->p1.faults - th->p0.faults), 0,
		      "/proc stat minflt + majflt");
}

/* The checks of one thread: every slot, then its own accounting. */
static void check_thread(FILE *out, struct check_stats *st,
			 const struct event_plan *plan,
			 const struct st_thread *th, const struct task_row *r0,
			 const struct task_row *r1)
{
	struct tdbpf_sched sd;
	char who[48];
	double sw;
	int s;

	snprintf(who, sizeof(who), "%s/%d", th->t->name, th->t->tid);
	sched_sub(&sd, &r1->sched, r0 ? &r0->sched : &(struct tdbpf_sched){});
	/* the thread's switches in the window: each is one gap */
	sw = (double)(sd.nvcsw + sd.nivcsw) + 1;
	for (s = 0; s < plan->nr; s++)
		if (th->fd[s] >= 0)
			check_slot(out, st, who, plan, s, th, r0, r1, sw);
	/* the task's own accounting, as /proc shows it: exactly tdbpf's */
	check(out, st, who, "on-cpu-ns", (double)sd.on_cpu_ns,
	      (double)(th->p1.exec_ns - th->p0.exec_ns), 0,
	      "/proc schedstat");
	check(out, st, who, "switches",
	      (double)(sd.nvcsw + sd.nivcsw),
	      (double)(th->p1.switches - th->p0.switches), 0, "/proc status");
	if (th->p0.migrations >= 0 && th->p1.migrations >= 0)
		check(out, st, who, "migrations", (double)sd.migrations,
		      (double)(th->p1.migrations - th->p0.migrations), 0,
		      "/proc sched se.nr_migrations");
	else if (!strstr(st->skipped, "/proc sched"))
		skip(st, "migrations against /proc sched (no CONFIG_SCHED_DEBUG)");
}

/*
 * The kernel's own per-thread counters for the workload's threads,
 * opened while they are parked (@parked), each beside tdbpf's slot;
 * when tdbpf multiplexes, only the first MUX_REFS hardware events get
 * one, pinned.
 */
static void open_references(FILE *out, struct check_stats *st,
			    const struct event_plan *plan,
			    const struct detect_info *d, struct work *w,
			    struct st_thread *th, bool parked)
{
	char noref[256] = "";
	size_t nref = 0;
	int i, s, hw;
	bool mux;

	/* more hardware events than counters (+1: a cycle counter)? */
	for (s = 0, hw = 0; s < plan->nr; s++)
		hw += hw_event(plan->evd[s]);
	mux = d->gp_counters && hw > d->gp_counters + 1;
	if (mux)
		fprintf(out, "tdbpf selftest: %d hardware events for %d counters: tdbpf multiplexes; the kernel's reference is pinned for the first %d\n",
			hw, d->gp_counters + 1, MUX_REFS);
	for (i = 0; parked && i < w->nr; i++) {
		th[i].t = &w->t[i];
		for (s = 0, hw = 0; s < plan->nr; s++) {
			const struct model_event *e = plan->evd[s];
			bool is_hw = hw_event(e);

			hw += is_hw;
			if (mux && is_hw && hw > MUX_REFS) {
				if (i == 0)
					nref += snprintf(noref + nref,
							 nref < sizeof(noref) ? sizeof(noref) - nref : 0,
							 "%s%s", nref ? ", " : "", e->name);
				continue;
			}
			th[i].fd[s] = open_thread_event(e, w->t[i].tid,
							mux && is_hw);
			if (th[i].fd[s] < 0 && i == 0)
				skip(st, "%s: the kernel's per-thread event does not open (%s)",
				     e->name, strerror(errno));
		}
	}
	if (nref)
		skip(st, "%s: no counter left for the kernel's reference while tdbpf multiplexes",
		     noref);
}

/* Every thread's checks and the summary; the exit status. */
static int check_all(FILE *out, struct check_stats *st,
		     const struct event_plan *plan, const struct work *w,
		     const struct st_thread *th, const struct snapshot *s0,
		     const struct snapshot *s1)
{
	int i;

	fprintf(out, "tdbpf selftest: %d threads (long, short, migrating slices) on %d CPUs\n",
		w->nr, w->ncpu);
	for (i = 0; i < w->nr; i++) {
		const struct task_row *r0 = tasks_find(&s0->tasks, w->t[i].tid);
		const struct task_row *r1 = tasks_find(&s1->tasks, w->t[i].tid);

		if (!r1) {
			st->fail++;
			fprintf(out, "  FAIL  %s/%d: tdbpf charged it nothing\n",
				w->t[i].name, w->t[i].tid);
			continue;
		}
		check_thread(out, st, plan, &th[i], r0, r1);
	}
	if (s1->lost.read_errors || s1->lost.map_full) {
		st->fail++;
		fprintf(out, "  FAIL  tdbpf lost data: %llu read errors, %llu tasks without sums\n",
			(unsigned long long)s1->lost.read_errors,
			(unsigned long long)s1->lost.map_full);
	}
	fprintf(out, "tdbpf selftest: %d passed, %d failed\n", st->pass,
		st->fail);
	if (st->skipped_len)
		fprintf(out, "tdbpf selftest: not checked: %s\n", st->skipped);
	return st->fail ? 1 : 0;
}

int cmd_selftest(const struct options *o, FILE *out)
{
	struct st_thread th[WORK_MAX_THREADS];
	struct check_stats st = { 0 };
	struct snapshot s0, s1;
	struct event_plan plan;
	struct detect_info d;
	struct tracer *tr = NULL;
	struct work w;
	pid_t self = getpid();
	char err[512];
	int rc, i, s, nthreads;

	if (targets_pid_ns_problem()) {
		errorf("%s", targets_pid_ns_problem());
		return 1;
	}
	detect_machine("", &d);
	if (d.model == &model_software && d.reason[0])
		skip(&st, "hardware counters (%s)", d.reason);
	if (d.note[0])
		fprintf(out, "tdbpf selftest: %s\n", d.note);
	rc = build_plan(o, &plan, &d, out);
	if (rc)
		return rc;

	struct tracer_conf tc = {
		.plan = &plan,
		.targets = { .pids = &self, .nr_pids = 1 },
		.max_tasks = 1024,
		.verbose = o->verbose,
	};
	tr = tracer_open(&tc, err, sizeof(err));
	if (!tr) {
		errorf("%s", err);
		return 1;
	}
	/* threads on every CPU, at least one of each kind */
	nthreads = (int)sysconf(_SC_NPROCESSORS_ONLN) * 2;
	if (nthreads < WORK_NR_KINDS * 2)
		nthreads = WORK_NR_KINDS * 2;
	if (work_start(&w, nthreads)) {
		errorf("cannot start the selftest's threads: %s",
		       strerror(w.err));
		tracer_close(tr);
		return 1;
	}
	for (i = 0; i < WORK_MAX_THREADS; i++)
		for (s = 0; s < TDBPF_MAX_EVENTS; s++)
			th[i].fd[s] = -1;
	snapshot_init(&s0, plan.nr);
	snapshot_init(&s1, plan.nr);
	rc = work_wait_parked(&w, 60000);
	open_references(out, &st, &plan, &d, &w, th, !rc);
	if (!rc)
		rc = run_window(&w, tr, th, &s0, &s1);
	if (rc) {
		errorf("the selftest's window failed: %s; nothing was checked",
		       strerror(-rc));
		rc = 1;
		goto out;
	}
	rc = check_all(out, &st, &plan, &w, th, &s0, &s1);
out:
	work_stop(&w);
	for (i = 0; i < w.nr; i++)
		for (s = 0; s < plan.nr; s++)
			if (th[i].fd[s] >= 0)
				close(th[i].fd[s]);
	snapshot_free(&s0);
	snapshot_free(&s1);
	tracer_close(tr);
	return rc;
}
