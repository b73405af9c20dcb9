// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics exposition on fixed task tables: folding into series,
 * counters that never go back (exits, renames, dropped tids, multiplexed
 * scaling), the series limit, tid labels that end with their thread,
 * label escaping, TMA slots, and both text formats. Expected values are
 * worked out here from the inputs, not taken from the program.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <setjmp.h>
#include <cmocka.h>
#include "exporter/prom.h"
#include "sources/targets.h"
#include "unit_helpers.h"

/* ---- helpers ---------------------------------------------------------- */

/* The software model in one group led by its first event (slot = event). */
static void sw_plan(struct event_plan *p)
{
	one_group_plan(p, &model_software);
}

static struct task_row *row(struct task_table *t, __u32 tid, __u32 pid,
			    const char *comm, __u64 on)
{
	struct task_row *r = tasks_get(t, tid);

	assert_non_null(r);
	r->pid = pid;
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->sched.on_cpu_ns = on;
	return r;
}

/* A model's plan at level 1, SMT off, 8 counters. */
static void model_plan(struct event_plan *p, const struct model *m)
{

	plan_ok(p, m, 1, false, 8);
}

/* An exposition state (@labels, @max series) over @plan, an empty table. */
static void start(struct prom_state *st, struct task_table *t,
		  const struct event_plan *plan, unsigned int labels,
		  unsigned int max)
{
	assert_int_equal(prom_init(st, plan, labels, max), 0);
	/* as a live run names them: from this host's /proc */
	st->process_name = targets_process_name;
	tasks_init(t);
	tasks_set_events(t, plan->nr);
}

static void stop(struct prom_state *st, struct task_table *t)
{
	tasks_free(t);
	prom_free(st);
}

/* What most tests scrape: a plan, an exposition state and a task table. */
struct scrape_fix {
	struct event_plan plan;
	struct prom_state st;
	struct task_table t;
};

/* @x over the software model's plan: start()'s @labels and @max. */
static void sw_start(struct scrape_fix *x, unsigned int labels,
		     unsigned int max)
{
	sw_plan(&x->plan);
	start(&x->st, &x->t, &x->plan, labels, max);
}

static void fix_stop(struct scrape_fix *x)
{
	stop(&x->st, &x->t);
}

static char *render(const struct prom_state *st, bool om)
{
	struct prom_health h = { .tasks_live = 7, .collect_ns = 1500000 };
	FILE *f = tmpfile();

	assert_non_null(f);
	assert_int_equal(prom_write(st, &h, om, f), 0);
	return slurp(f);
}

/* A scrape: @t folded into the series, the text format (caller frees). */
static char *scrape(struct prom_state *st, const struct task_table *t)
{
	assert_int_equal(prom_update(st, t), 0);
	return render(st, false);
}

/* The value of the sample line that starts with @sel + " "; NAN if none. */
static double value(const char *text, const char *sel)
{
	size_t n = strlen(sel);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, sel, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NAN;
}

static int count_lines(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = text;
	int c = 0;

	while (p && *p) {
		if (!strncmp(p, prefix, n))
			c++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return c;
}

/* cmocka 1.1 has no assert_double_equal: the same, with a message */
static void close_to(double got, double want, double eps, int line)
{
	if (!(fabs(got - want) <= eps))
		fail_msg("line %d: got %.17g, want %.17g", line, got, want);
}

#define assert_double_equal(a, b, eps) close_to((a), (b), (eps), __LINE__)

#define ON(labels) "tdbpf_task_on_cpu_seconds_total{" labels "}"

/* A sample a scrape must hold: @sel's value, or NAN for none at all. */
struct want {
	const char *sel;
	double v;
};

/*
 * Each of @w (up to the first with no @sel) in @text, to 1e-9 of it or,
 * when @exact, to the bit (@line, @step: the table's, on failure).
 */
static void holds_step(const char *text, const struct want *w, size_t n,
		       bool exact, int line, int step)
{
	size_t i;

	for (i = 0; i < n && w[i].sel; i++) {
		double got = value(text, w[i].sel), want = w[i].v;
		bool ok;

		/* relative: the nanosecond sums' seconds are 1e-9 apart */
		if (isnan(want))
			ok = isnan(got);
		else if (exact)
			ok = got == want;
		else
			ok = fabs(got - want) <= 1e-9 * fabs(want);
		if (!ok)
			fail_msg("line %d step %d: %s: got %.17g, want %.17g",
				 line, step, w[i].sel, got, want);
	}
}

static void holds(const char *text, const struct want *w, size_t n, int line)
{
	holds_step(text, w, n, false, line, 0);
}

#define HOLDS(text, ...)                                                   \
	do {                                                               \
		const struct want w_[] = { __VA_ARGS__ };                  \
		holds((text), w_, sizeof(w_) / sizeof(w_[0]), __LINE__);   \
	} while (0)

/* @r's waker or holder slots, each set as set_wait() sets one. */
#define SET_WAITS(t, r, ...)                                               \
	do {                                                               \
		const struct tdbpf_wait w_[] = { __VA_ARGS__ };            \
		size_t i_;                                                 \
		for (i_ = 0; i_ < sizeof(w_) / sizeof(w_[0]); i_++)        \
			set_wait((t), (r), w_[i_]);                        \
	} while (0)

/* A scrape of @t, holding each want of HOLDS() */
#define SCRAPE_HOLDS(st, t, ...)                                           \
	do {                                                               \
		char *s_ = scrape((st), (t));                              \
		HOLDS(s_, __VA_ARGS__);                                    \
		free(s_);                                                  \
	} while (0)

/*
 * A row of a scrape's task table: what the tests set of a task_row (its
 * first two counter slots too).
 */
struct row_def {
	__u32 tid, pid;
	const char *comm;
	__u64 on, nvcsw, nivcsw, migrations, runq, off;
	bool exited;
	struct tdbpf_count ctr[2];
};

/* @d's rows (up to the first of tid 0) set in @t, added if new. */
static void rows_set(struct task_table *t, const struct row_def *d, size_t n)
{
	size_t i;

	for (i = 0; i < n && d[i].tid; i++) {
		struct task_row *r = row(t, d[i].tid, d[i].pid, d[i].comm,
					 d[i].on);

		r->sched.nvcsw = d[i].nvcsw;
		r->sched.nivcsw = d[i].nivcsw;
		r->sched.migrations = d[i].migrations;
		r->sched.runq_wait_ns = d[i].runq;
		r->sched.off_cpu_ns = d[i].off;
		r->exited = d[i].exited;
		r->ctr[0] = d[i].ctr[0];
		r->ctr[1] = d[i].ctr[1];
	}
}

/* @t's rows of each row_def given, added if new */
#define SET_ROWS(t, ...)                                                   \
	do {                                                               \
		const struct row_def d_[] = { __VA_ARGS__ };               \
		rows_set((t), d_, sizeof(d_) / sizeof(d_[0]));             \
	} while (0)

/*
 * One scrape of a test's sequence: the table emptied (unless @keep),
 * @rows set in it, then each of @want held by the scrape (@exact: to the
 * bit).
 */
struct step {
	bool keep, exact;
	struct row_def rows[4];
	struct want want[8];
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* Each of @s in turn on @st and @t (@line: the table's, on failure). */
static void run_steps(struct prom_state *st, struct task_table *t,
		      const struct step *s, size_t n, int line)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *txt;

		if (!s[i].keep)
			tasks_reset(t);
		rows_set(t, s[i].rows, NR(s[i].rows));
		txt = scrape(st, t);
		holds_step(txt, s[i].want, NR(s[i].want), s[i].exact, line,
			   (int)i);
		free(txt);
	}
}

#define RUN_STEPS(st, t, steps) \
	run_steps((st), (t), (steps), NR(steps), __LINE__)

/* HOLDS(), each value to the bit */
#define HOLDS_EXACT(text, ...)                                             \
	do {                                                               \
		const struct want w_[] = { __VA_ARGS__ };                  \
		holds_step((text), w_, NR(w_), true, __LINE__, 0);         \
	} while (0)

/*
 * A scrape of one row @d over @plan, default labels: its sample @sel is
 * @v to the bit (@line: the test's, on failure).
 */
static void one_row_is(const struct event_plan *plan, const struct row_def *d,
		       const char *sel, double v, int line)
{
	const struct want w = { sel, v };
	struct prom_state st;
	struct task_table t;
	char *txt;

	start(&st, &t, plan, 0, 0);
	rows_set(&t, d, 1);
	txt = scrape(&st, &t);
	holds_step(txt, &w, 1, true, line, 0);
	free(txt);
	stop(&st, &t);
}

#define ONE_ROW_IS(plan, sel, v, ...)                                      \
	do {                                                               \
		const struct row_def d_ = __VA_ARGS__;                     \
		one_row_is((plan), &d_, (sel), (v), __LINE__);             \
	} while (0)

/* A TCP socket half: its state and ends. */
struct flow_def {
	enum flow_state state;
	const char *local, *remote;
};

/* @n TCP socket halves @d of process @pid @comm in @ft. */
static void add_flows(struct flow_table *ft, __u32 pid, const char *comm,
		      const struct flow_def *d, int n)
{
	struct sock_flow f = { .pid = pid, .proto = "tcp" };
	int i;

	snprintf(f.comm, sizeof(f.comm), "%s", comm);
	flows_init(ft);
	for (i = 0; i < n; i++) {
		f.state = d[i].state;
		assert_true(flow_end_parse(d[i].local, &f.local));
		assert_true(flow_end_parse(d[i].remote, &f.remote));
		assert_int_equal(flows_add(ft, &f), 0);
	}
}

/* ---- tests ------------------------------------------------------------ */

static void test_accept(void **state)
{
	(void)state;
	/* what Prometheus 2.42 sends */
	assert_true(prom_wants_openmetrics(
		"application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_false(prom_wants_openmetrics(NULL));
	assert_false(prom_wants_openmetrics("*/*"));
	assert_false(prom_wants_openmetrics("text/plain;version=0.0.4"));
	assert_false(prom_wants_openmetrics(
		"application/openmetrics-text; q=0.2, text/plain"));
	assert_false(prom_wants_openmetrics(
		"application/openmetrics-text;q=0"));
	assert_true(prom_wants_openmetrics(
		"text/plain;q=0.5, application/openmetrics-text"));
	assert_string_equal(prom_content_type(false),
			    "text/plain; version=0.0.4; charset=utf-8");
	assert_string_equal(prom_content_type(true),
			    "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

#define APP(thread) "{comm=\"app\",thread=\"" thread "\"}"

/*
 * Default labels: one series per process name and folded thread name.
 * Then the worker threads exit, vanish from the table, rename: no series
 * ever goes back, and nothing is counted twice.
 */
static const struct step fold_steps[] = {
	{ .rows = { { 100, 100, "app", .on = 1000000000 },
		    { 101, 100, "worker-1", .on = 1500000000, .nvcsw = 10,
		      .nivcsw = 2, .migrations = 1, .runq = 7, .off = 300 },
		    { 102, 100, "worker-2", .on = 2000000000, .nvcsw = 5 } },
	  .want = { { "tdbpf_task_on_cpu_seconds_total" APP("app"), 1.0 },
		    { "tdbpf_task_on_cpu_seconds_total" APP("worker-*"), 3.5 },
		    { "tdbpf_task_switches_total{comm=\"app\",thread=\"worker-*\",kind=\"voluntary\"}", 15 },
		    { "tdbpf_task_switches_total{comm=\"app\",thread=\"worker-*\",kind=\"involuntary\"}", 2 },
		    { "tdbpf_task_runqueue_wait_seconds_total" APP("worker-*"), 7e-9 },
		    { "tdbpf_task_threads" APP("worker-*"), 2 },
		    { "tdbpf_series", 2 } } },
	/*
	 * 101 exits after 0.25 s more; 102 is gone from the table (the
	 * source dropped it); 103 is new; the main thread ran 0.5 s more.
	 * worker-*: 3.5 + 0.25 + 0.125 = 3.875 (102's last reading stays).
	 * 101's off-CPU smaller: a run-queue wait ended.
	 */
	{ .rows = { { 100, 100, "app", .on = 1500000000 },
		    { 101, 100, "worker-1", .on = 1750000000, .nvcsw = 11,
		      .nivcsw = 2, .off = 200, .exited = true },
		    { 103, 100, "worker-3", .on = 125000000 } },
	  .want = { { "tdbpf_task_on_cpu_seconds_total" APP("app"), 1.5 },
		    { "tdbpf_task_on_cpu_seconds_total" APP("worker-*"), 3.875 },
		    { "tdbpf_task_off_cpu_seconds_total" APP("worker-*"), 300e-9 },
		    { "tdbpf_task_exited_threads_total" APP("worker-*"), 1 },
		    { "tdbpf_task_threads" APP("worker-*"), 1 } } },
	/*
	 * The exited row again, unchanged (the report keeps it): not counted
	 * twice. 103 renames itself to "sink" and runs 1 s more: that second
	 * goes to the new series, worker-* keeps what it had. 101's off-CPU
	 * catches up (500 ns): only what passes the most counted (300) adds.
	 * The rest of the table as it was.
	 */
	{ .keep = true,
	  .rows = { { 101, 100, "worker-1", .on = 1750000000, .nvcsw = 11,
		      .nivcsw = 2, .off = 500, .exited = true },
		    { 103, 100, "sink", .on = 1125000000 } },
	  .want = { { "tdbpf_task_on_cpu_seconds_total" APP("worker-*"), 3.875 },
		    { "tdbpf_task_on_cpu_seconds_total" APP("sink"), 1.0 },
		    { "tdbpf_task_off_cpu_seconds_total" APP("worker-*"), 500e-9 },
		    { "tdbpf_task_exited_threads_total" APP("worker-*"), 1 },
		    { "tdbpf_task_threads" APP("worker-*"), 0 } } },
	/* a tid reused by a new task (sums restart): counted from zero */
	{ .exact = true, .rows = { { 103, 100, "sink", .on = 250000000 } },
	  .want = { { "tdbpf_task_on_cpu_seconds_total" APP("sink"), 1.25 } } },
};

static void test_fold_monotonic(void **state)
{
	struct scrape_fix x;

	(void)state;
	sw_start(&x, 0, 0);
	RUN_STEPS(&x.st, &x.t, fold_steps);
	fix_stop(&x);
}

/*
 * An -e event's slot has no model event (ev -1) but its own descriptor;
 * with -e events alone the plan has no model. Its series are named after
 * the descriptor either way: the family was empty (no model) or read
 * model->events[-1] before.
 */
static void test_extra_event_series(void **state)
{
	static const struct model_event extra = {
		.name = "syscalls:sys_enter_getppid" };
	struct event_plan plan;
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		sw_plan(&plan);
		plan.ev[1] = -1;
		plan.evd[1] = &extra;
		if (pass)
			plan.model = NULL;
		ONE_ROW_IS(&plan, "tdbpf_task_events_total{comm=\"\",thread=\"w\",event=\"syscalls:sys_enter_getppid\"}",
			   31, { 7, 0, "w", .on = 10,
				 .ctr = { { 4, 10, 10 }, { 31, 0, 0 } } });
	}
}

/*
 * Counters are scaled per increment. Whole-life scaling would say
 * 100 x 10/5 = 200, then 150 x 20/15 = 200 + nothing; per increment it is
 * 200, then 200 + 50 x 10/10 = 250.
 */
static void test_scaled_increments(void **state)
{
	struct scrape_fix x;
	char sel[256];
	/* the leader's times, then the event's count */
	const struct step steps[] = {
		{ .rows = { { 7, 0, "w", .on = 10,
			      .ctr = { { 4, 10, 5 }, { 100, 0, 0 } } } },
		  .want = { { sel, 200 },
			    { "tdbpf_task_group_enabled_seconds_total{comm=\"\",thread=\"w\",group=\"0\"}", 10e-9 },
			    { "tdbpf_task_group_running_seconds_total{comm=\"\",thread=\"w\",group=\"0\"}", 5e-9 } } },
		{ .keep = true, .exact = true,
		  .rows = { { 7, 0, "w", .on = 20,
			      .ctr = { { 5, 20, 15 }, { 150, 0, 0 } } } },
		  .want = { { sel, 250 } } },
		/* enabled, never running: nothing to add, coverage shows it */
		{ .keep = true,
		  .rows = { { 7, 0, "w", .on = 30,
			      .ctr = { { 5, 30, 15 }, { 150, 0, 0 } } } },
		  .want = { { sel, 250 },
			    { "tdbpf_task_group_enabled_seconds_total{comm=\"\",thread=\"w\",group=\"0\"}", 30e-9 } } },
	};

	(void)state;
	sw_start(&x, 0, 0);
	snprintf(sel, sizeof(sel),
		 "tdbpf_task_events_total{comm=\"\",thread=\"w\",event=\"%s\"}",
		 model_software.events[1].name);
	RUN_STEPS(&x.st, &x.t, steps);
	fix_stop(&x);
}

/* 5 names, room for 2: the rest in `other`, and said so. */
static void test_series_limit(void **state)
{
	static const char *const names[] = { "a", "b", "c", "d", "e" };
	struct scrape_fix x;
	char *txt;
	int i;

	(void)state;
	sw_start(&x, 0, 2);
	for (i = 0; i < 5; i++)
		row(&x.t, 10 + i, 0, names[i], 1000000000ull * (i + 1));
	txt = scrape(&x.st, &x.t);
	HOLDS(txt, { ON("comm=\"\",thread=\"a\""), 1 },
	      { ON("comm=\"\",thread=\"b\""), 2 },
	      { ON("comm=\"\",thread=\"c\""), NAN });
	/* 3 + 4 + 5 */
	HOLDS(txt, { ON("comm=\"other\",thread=\"other\""), 12 },
	      { "tdbpf_series", 2 },
	      { "tdbpf_series_limit", 2 },
	      { "tdbpf_series_overflow_tasks", 3 });
	assert_int_equal(count_lines(txt, "tdbpf_task_on_cpu_seconds_total{"),
			 3);
	free(txt);
	fix_stop(&x);
}

#define WORKER_1 "tdbpf_task_on_cpu_seconds_total" \
	"{comm=\"app\",thread=\"worker-1\",pid=\"100\",tid=\"101\"}"

/* tid labels: a thread's series shows its final sums once, then ends. */
static const struct step tid_steps[] = {
	{ .rows = { { 100, 100, "app", .on = 1000000000 },
		    { 101, 100, "worker-1", .on = 2000000000 } },
	  .exact = true, .want = { { WORKER_1, 2 } } },
	{ .keep = true,
	  .rows = { { 101, 100, "worker-1", .on = 3000000000,
		      .exited = true } },
	  .exact = true, .want = { { WORKER_1, 3 } } },
	/* the same table again */
	{ .keep = true,
	  .want = { { WORKER_1, NAN },
		    { ON("comm=\"app\",thread=\"app\",pid=\"100\",tid=\"100\""), 1 },
		    { "tdbpf_series", 1 } } },
};

static void test_tid_labels(void **state)
{
	struct scrape_fix x;

	(void)state;
	sw_start(&x, LISTEN_LABEL_TID, 0);
	RUN_STEPS(&x.st, &x.t, tid_steps);
	fix_stop(&x);
}

/*
 * Whole names (a JVM's): the thread label folds them as it folds comms,
 * one series per operator, its tasks' times summed (1 + 2 + 4 s); with
 * tid labels each subtask's own; a name longer than the label's bound
 * is cut to its 63 bytes.
 */
static void test_whole_names(void **state)
{
	static const char *const sub[] = { "Map -> Filter (1/3)#0",
					   "Map -> Filter (2/3)#0",
					   "Map -> Filter (3/3)#0" };
	char longer[100], want[160];
	struct scrape_fix x;
	unsigned int l;
	char *txt;
	int i;

	(void)state;
	sw_plan(&x.plan);
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = 0;
	for (l = 0; l < 2; l++) {
		start(&x.st, &x.t, &x.plan, l ? LISTEN_LABEL_TID : 0, 0);
		row(&x.t, 100, 100, "java", 1000000);
		for (i = 0; i < 3; i++)
			row(&x.t, 101 + i, 100, "Map -> Filter (",
			    (1000000000ULL << i))->name = names_intern(sub[i]);
		row(&x.t, 110, 100, "xxxxxxxxxxxxxxx", 1000000000)->name =
			names_intern(longer);
		txt = scrape(&x.st, &x.t);
		if (!l)
			assert_double_equal(value(txt, ON("comm=\"java\",thread=\"Map -> Filter (*/3)#*\"")),
					    7, 0);
		for (i = 0; l && i < 3; i++) {
			snprintf(want, sizeof(want),
				 ON("comm=\"java\",thread=\"%s\",pid=\"100\",tid=\"%d\""),
				 sub[i], 101 + i);
			assert_double_equal(value(txt, want), 1 << i, 0);
		}
		snprintf(want, sizeof(want), ON("comm=\"java\",thread=\"%.63s\"%s"),
			 longer, l ? ",pid=\"100\",tid=\"110\"" : "");
		assert_double_equal(value(txt, want), 1, 0);
		free(txt);
		fix_stop(&x);
	}
}

/*
 * Tasks in containers: the id (and pod) among their labels, so that two
 * containers running the same names are two series; the host's have none.
 */
static void test_container_labels(void **state)
{
	static const char id1[] = "aa11111111111111111111111111111111111111111111111111111111111111";
	static const char id2[] = "bb22222222222222222222222222222222222222222222222222222222222222";
	struct task_cgroup c = { .pid = 100 };
	struct cgroup_table cg;
	struct scrape_fix x;

	(void)state;
	sw_start(&x, 0, 0);
	cgroups_init(&cg);
	memcpy(c.id, id1, sizeof(id1));
	assert_int_equal(cgroups_add(&cg, &c), 0);
	c.pid = 200;
	memcpy(c.id, id2, sizeof(id2));
	strcpy(c.pod, "8d7f1e2a-3b4c-4d5e-9f60-718293a4b5c6");
	assert_int_equal(cgroups_add(&cg, &c), 0);
	cgroups_sort(&cg);
	x.st.cgroups = &cg;
	row(&x.t, 101, 100, "worker-1", 1000000000);
	row(&x.t, 201, 200, "worker-1", 2000000000);
	row(&x.t, 301, 300, "worker-1", 4000000000);
	SCRAPE_HOLDS(&x.st, &x.t, { ON("comm=\"\",thread=\"worker-*\",container_id=\"aa11111111111111111111111111111111111111111111111111111111111111\""), 1 },
	             { ON("comm=\"\",thread=\"worker-*\",container_id=\"bb22222222222222222222222222222222222222222222222222222222222222\",pod_uid=\"8d7f1e2a-3b4c-4d5e-9f60-718293a4b5c6\""), 2 },
	             { ON("comm=\"\",thread=\"worker-*\""), 4 },
	             { "tdbpf_series", 3 });
	fix_stop(&x);
	cgroups_free(&cg);
}

/* Names hold any byte: escaped, and always valid UTF-8. */
static void test_escaping(void **state)
{
	struct event_plan plan;

	(void)state;
	sw_plan(&plan);
	ONE_ROW_IS(&plan, ON("comm=\"a\\\"b\\\\c\\nd\xef\xbf\xbd\xc3\xa9\",thread=\"a\\\"b\\\\c\\nd\xef\xbf\xbd\xc3\xa9\""),
		   1, { 5, 5, "a\"b\\c\nd\xff" "\xc3\xa9", .on = 1000000000 });
}

/* A process whose main thread is not in the table: its name from /proc. */
static void test_process_name(void **state)
{
	struct event_plan plan;
	char comm[32], sel[128];
	FILE *f;

	(void)state;
	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	sw_plan(&plan);
	snprintf(sel, sizeof(sel), ON("comm=\"%s\",thread=\"helper\""), comm);
	ONE_ROW_IS(&plan, sel, 1,
		   { 4000000, (__u32)getpid(), "helper", .on = 1000000000 });
}

/* The two formats differ where they must, and only there. */
static void test_formats(void **state)
{
	struct scrape_fix x;
	char *txt, *om;
	size_t n;

	(void)state;
	sw_start(&x, 0, 0);
	row(&x.t, 5, 5, "x", 1000000001);
	txt = scrape(&x.st, &x.t);
	om = render(&x.st, true);
	has_all(txt, STRS("# TYPE tdbpf_task_on_cpu_seconds_total counter\n",
			  "# TYPE tdbpf_build_info gauge\n",
			  "tdbpf_build_info{model=\"software\",level=\"0\"} 1\n",
			  /* exact seconds from nanoseconds */
			  ON("comm=\"x\",thread=\"x\"") " 1.000000001\n",
			  "tdbpf_last_collect_duration_seconds 0.0015\n",
			  "tdbpf_tasks{state=\"live\"} 7\n"));
	has_all(om, STRS("# TYPE tdbpf_task_on_cpu_seconds counter\n# UNIT tdbpf_task_on_cpu_seconds seconds\n",
			 "# TYPE tdbpf_build info\n",
			 ON("comm=\"x\",thread=\"x\"") " 1.000000001\n"));
	/* no BPF run time without kernel.bpf_stats_enabled */
	has_none(txt, STRS("# EOF", "# UNIT", "tdbpf_bpf_run"));
	n = strlen(om);
	assert_true(n > 6 && !strcmp(om + n - 6, "# EOF\n"));
	/* every family has HELP and TYPE */
	assert_int_equal(count_lines(txt, "# HELP "), count_lines(txt, "# TYPE "));
	free(txt);
	free(om);
	fix_stop(&x);
}

static int slot_of(const struct event_plan *p, const char *name)
{
	int i;

	for (i = 0; i < p->nr; i++)
		if (!strcasecmp(p->model->events[p->ev[i]].name, name))
			return i;
	fail_msg("no slot for %s", name);
	return -1;
}

static void set_count(struct task_row *r, const struct event_plan *p,
		      const char *name, __u64 v)
{
	int s = slot_of(p, name), l = p->leader[p->group[s]];

	r->ctr[s].value = v;
	r->ctr[l].enabled = 1000;
	r->ctr[l].running = 1000;
}

/* An event's count at each scrape of a test. */
struct count_def {
	const char *ev;
	__u64 v[2];
};

/* Each of @c's counts for scrape @col, as set_count() sets one. */
static void set_counts(struct task_row *r, const struct event_plan *p,
		       const struct count_def *c, size_t n, int col)
{
	size_t i;

	for (i = 0; i < n; i++)
		set_count(r, p, c[i].ev, c[i].v[col]);
}

/*
 * TMA on Ice Lake level 1 (PERF_METRICS): Retiring = retiring / sum of the
 * four topdown-* fields (+0 when the other inputs are 0), so an increment
 * of 30:10:20:40 with 100000 slots adds 30000 retiring slots; a second of
 * 60:0:0:0 with 50000 slots adds all of them.
 */
static void test_tma_slots(void **state)
{
	static const struct count_def counts[] = {
		{ "TOPDOWN.SLOTS", { 100000, 150000 } },
		{ "topdown-retiring", { 30000, 90000 } },
		{ "topdown-fe-bound", { 10000, 10000 } },
		{ "topdown-bad-spec", { 20000, 20000 } },
		{ "topdown-be-bound", { 40000, 40000 } },
	};
	struct scrape_fix x;
	struct task_row *r;
	const char *ret = "tdbpf_task_tma_slots_total{comm=\"\",thread=\"w\",node=\"tma_retiring\",level=\"1\"}";
	const char *be = "tdbpf_task_tma_slots_total{comm=\"\",thread=\"w\",node=\"tma_backend_bound\",level=\"1\"}";

	(void)state;
	model_plan(&x.plan, &model_icelake);
	start(&x.st, &x.t, &x.plan, 0, 0);
	r = row(&x.t, 9, 0, "w", 1000);
	set_counts(r, &x.plan, counts, NR(counts), 0);
	SCRAPE_HOLDS(&x.st, &x.t, { ret, 30000 },
	             { be, 40000 },
	             { "tdbpf_task_slots_total{comm=\"\",thread=\"w\"}", 100000 },
	             { "tdbpf_task_tma_slots_total{comm=\"\",thread=\"w\",node=\"tma_dram_bound\",level=\"3\"}", NAN });

	r->sched.on_cpu_ns = 2000;
	set_counts(r, &x.plan, counts, NR(counts), 1);
	/* the leader's times grew too */
	r->ctr[x.plan.leader[x.plan.group[slot_of(&x.plan, "TOPDOWN.SLOTS")]]].enabled = 2000;
	r->ctr[x.plan.leader[x.plan.group[slot_of(&x.plan, "TOPDOWN.SLOTS")]]].running = 2000;
	SCRAPE_HOLDS(&x.st, &x.t, { ret, 80000 },
	             { be, 40000 },
	             { "tdbpf_task_slots_total{comm=\"\",thread=\"w\"}", 150000 });
	fix_stop(&x);
}

/*
 * A model without a slots event: Broadwell weighs by its cycles event
 * times 4, as perf's SLOTS = 4 * CLKS; Retiring = RETIRE_SLOTS / SLOTS:
 * 1000 of 4 x 1000 slots is 0.25, i.e. 1000 slots.
 */
static void test_tma_cycle_slots(void **state)
{
	static const struct count_def counts[] = {
		{ "CPU_CLK_UNHALTED.THREAD", { 1000 } },
		{ "UOPS_RETIRED.RETIRE_SLOTS", { 1000 } },
		/* alone on its core: perf's core clocks are the thread's */
		{ "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", { 100 } },
		{ "CPU_CLK_UNHALTED.REF_XCLK", { 100 } },
	};
	struct scrape_fix x;
	struct task_row *r;

	(void)state;
	model_plan(&x.plan, &model_broadwell);
	start(&x.st, &x.t, &x.plan, 0, 0);
	r = row(&x.t, 9, 0, "w", 1000);
	set_counts(r, &x.plan, counts, NR(counts), 0);
	SCRAPE_HOLDS(&x.st, &x.t, { "tdbpf_task_slots_total{comm=\"\",thread=\"w\"}", 4000 },
	             { "tdbpf_task_tma_slots_total{comm=\"\",thread=\"w\",node=\"tma_retiring\",level=\"1\"}", 1000 });
	fix_stop(&x);
}

#define WAIT(labels) "tdbpf_task_wait_seconds_total{" labels "}"

/* The software model's state and a task table with waker slots. */
static void start_waits(struct scrape_fix *x, unsigned int max)
{
	sw_plan(&x->plan);
	assert_int_equal(prom_init(&x->st, &x->plan, 0, max), 0);
	tasks_init(&x->t);
	assert_int_equal(tasks_set_layout(&x->t, x->plan.nr, true), 0);
}

/*
 * Wait series: each task's waker slots, as increments, on the series of
 * its labels and its waker's (a task by its series' labels, a kind by
 * name); bounded like the task series, the rest in one `other`.
 */
#define SINK "comm=\"src\",thread=\"sink-*\","

static void test_wait_series(void **state)
{
	struct scrape_fix x;
	struct task_row *r;

	(void)state;
	start_waits(&x, 2);
	SET_ROWS(&x.t, { 10, 10, "src", .on = 1000000000ull },
		 { 11, 10, "sink-1", .on = 100000000ull, .off = 900000000ull });
	r = tasks_find(&x.t, 11);
	SET_WAITS(&x.t, r,
		  { .kind = TDBPF_WAKER_TASK, .tid = 10, .wakeups = 40,
		    .wait_ns = 600000000ull },
		  { .kind = TDBPF_WAKER_TIMER, .wakeups = 9,
		    .wait_ns = 200000000ull });
	SCRAPE_HOLDS(&x.st, &x.t, { WAIT(SINK "waker_comm=\"src\",waker_thread=\"src\""), 0.6 },
	             { WAIT(SINK "waker_comm=\"\",waker_thread=\"timer\""), 0.2 },
	             { "tdbpf_task_wakeups_total{" SINK
		"waker_comm=\"src\",waker_thread=\"src\"}", 40 });
	/* the next scrape adds the slots' increments; a third waker overflows */
	r = tasks_find(&x.t, 11);
	r->sched.off_cpu_ns = 1500000000ull;
	SET_WAITS(&x.t, r,
		  { .kind = TDBPF_WAKER_TASK, .tid = 10, .wakeups = 70,
		    .wait_ns = 1000000000ull },
		  { .kind = TDBPF_WAKER_HARDIRQ, .wakeups = 3,
		    .wait_ns = 50000000ull });
	SCRAPE_HOLDS(&x.st, &x.t, { WAIT(SINK "waker_comm=\"src\",waker_thread=\"src\""), 1.0 },
	             { WAIT(SINK "waker_comm=\"\",waker_thread=\"timer\""), 0.2 },
	             { WAIT(SINK "waker_comm=\"\",waker_thread=\"irq\""), NAN },
	             { WAIT("comm=\"other\",thread=\"other\",waker_comm=\"\",waker_thread=\"other\""),
		0.05 });
	fix_stop(&x);
}

#define SPAN(fam, labels) "tdbpf_span_" fam "_total{" labels "}"
#define ENGINE(fam, span) \
	SPAN(fam, "comm=\"engine\",thread=\"worker-*\",span=\"" span "\"")

/*
 * Span series (--span): each (thread, span) on its thread's series
 * labels and span="NAME", summed over the threads of a folded series;
 * increments per (thread, span), so that a blocked time that shrinks (a
 * run-queue wait that was counted as off-CPU) never goes back; past
 * max_series, span="other". No span family without spans.
 */
static void test_span_series(void **state)
{
	static const struct span_def spans[] = {
		{ 11, 10, 1, "enrich", { .entries = 3, .on_cpu_ns = 600000000,
					 .runq_ns = 100000000,
					 .off_ns = 300000000, .woke = 2,
					 .woke_ns = 30000000 } },
		{ 12, 10, 1, "enrich", { .entries = 2, .on_cpu_ns = 400000000,
					 .woke = 1, .woke_ns = 5000000 } },
		{ 12, 10, 2, "parse", { .entries = 5, .on_cpu_ns = 50000000 } },
	};
	static const struct span_def emit = {
		11, 10, 3, "emit", { .entries = 7, .on_cpu_ns = 70000000 } };
	struct scrape_fix x;
	struct span_table sp;
	struct span_row *r;
	char *txt;

	(void)state;
	sw_start(&x, 0, 2);
	spans_init(&sp);
	row(&x.t, 10, 10, "engine", 1000000000ull);
	row(&x.t, 11, 10, "worker-1", 1000000000ull);
	row(&x.t, 12, 10, "worker-2", 1000000000ull);
	txt = scrape(&x.st, &x.t);
	assert_null(strstr(txt, "tdbpf_span_"));
	free(txt);
	x.st.span_cur = &sp;
	spans_set(&sp, spans, NR(spans));
	tasks_find(&x.t, 11)->sched.on_cpu_ns = 2000000000ull;
	tasks_find(&x.t, 12)->sched.on_cpu_ns = 2000000000ull;
	txt = scrape(&x.st, &x.t);
	HOLDS_EXACT(txt, { ENGINE("entries", "enrich"), 5 },
		    { ENGINE("entries", "parse"), 5 },
		    /* the waits it ended, summed over the folded threads */
		    { ENGINE("woke", "enrich"), 3 },
		    { ENGINE("woke", "parse"), 0 });
	HOLDS(txt, { ENGINE("on_cpu_seconds", "enrich"), 1.0 },
	      { ENGINE("runqueue_wait_seconds", "enrich"), 0.1 },
	      { ENGINE("blocked_seconds", "enrich"), 0.2 },
	      { ENGINE("woke_wait_seconds", "enrich"), 0.035 });
	free(txt);
	/* a queued wait was counted as off-CPU: blocked shrinks, stays */
	r = spans_get(&sp, 11, 10, 1);
	r->s.runq_ns = 250000000;
	r->s.entries = 4;
	/* a third span name: past max_series (2), into other */
	spans_set(&sp, &emit, 1);
	tasks_find(&x.t, 11)->sched.on_cpu_ns = 3000000000ull;
	txt = scrape(&x.st, &x.t);
	HOLDS_EXACT(txt, { ENGINE("entries", "enrich"), 6 },
		    { ENGINE("entries", "emit"), NAN },
		    { SPAN("entries", "comm=\"other\",thread=\"other\",span=\"other\""),
		      7 });
	HOLDS(txt, { ENGINE("blocked_seconds", "enrich"), 0.2 },
	      { ENGINE("runqueue_wait_seconds", "enrich"), 0.25 });
	assert_int_equal(count_lines(txt, "tdbpf_span_entries_total{"), 3);
	free(txt);
	spans_free(&sp);
	fix_stop(&x);
}

/* agg's series, held by @labels */
#define HELD(labels)                                             \
	"tdbpf_task_cpu_held_seconds_total{comm=\"enrich\",thread=\"agg\"," \
	labels "}"

/*
 * Hold series: run-queue time charged to the CPU's holders is not
 * blocked time. It has a family of its own, the holder named by its
 * series' labels (a task gone from the table: cpu-other) or its kind;
 * none of it reaches the wait series.
 */
static void test_hold_series(void **state)
{
	struct scrape_fix x;
	char *txt;

	(void)state;
	start_waits(&x, 8);
	SET_ROWS(&x.t, { 10, 10, "enrich", .on = 1000000000ull },
		 { 11, 10, "agg", .on = 500000000ull, .runq = 450000000ull });
	SET_WAITS(&x.t, tasks_find(&x.t, 11),
		  { .kind = TDBPF_HOLDER_TASK, .tid = 10, .wakeups = 30,
		    .wait_ns = 300000000ull },
		  { .kind = TDBPF_HOLDER_TASK, .tid = 4242, .wakeups = 5,
		    .wait_ns = 100000000ull },
		  { .kind = TDBPF_HOLDER_LIMIT, .wakeups = 2,
		    .wait_ns = 50000000ull });
	txt = scrape(&x.st, &x.t);
	HOLDS(txt, { HELD("holder_comm=\"enrich\",holder_thread=\"enrich\""), 0.3 },
	      { HELD("holder_comm=\"\",holder_thread=\"cpu-other\""), 0.1 },
	      { HELD("holder_comm=\"\",holder_thread=\"cpu-limit\""), 0.05 });
	assert_non_null(strstr(txt, "# TYPE tdbpf_task_cpu_held_seconds_total counter\n"));
	/* no hold is blocked time, and no label names "(null)" */
	assert_null(strstr(txt, "tdbpf_task_wait_seconds_total"));
	assert_null(strstr(txt, "(null)"));
	free(txt);
	fix_stop(&x);
}

#define RELAY(state, local, remote)                                   \
	"tdbpf_socket_flows{comm=\"relay\",proto=\"tcp\",state=\"" state \
	"\",local=\"" local "\",remote=\"" remote "\"}"

/* Socket halves: a client's ephemeral port folded, the service's kept. */
static void test_socket_flows(void **state)
{
	static const struct flow_def d[] = {
		{ FLOW_LISTEN, "0.0.0.0:7001", "0.0.0.0:0" },
		/* accepted from gen's 40001: the service's side */
		{ FLOW_ESTABLISHED, "10.9.0.2:7001", "10.9.0.1:40001" },
		/* to sink's service from our ephemeral 40002: the client's */
		{ FLOW_ESTABLISHED, "10.9.0.2:40002", "10.9.0.3:7002" },
	};
	struct prom_health h = { .tasks_live = 1 };
	struct flow_table ft;
	struct event_plan plan;
	struct prom_state st;
	char *txt;
	FILE *out = tmpfile();

	(void)state;
	add_flows(&ft, 1, "relay", d, NR(d));
	h.flows = &ft;
	sw_plan(&plan);
	assert_int_equal(prom_init(&st, &plan, 0, 10), 0);
	assert_int_equal(prom_write(&st, &h, false, out), 0);
	txt = slurp(out);
	HOLDS(txt, { RELAY("established", "10.9.0.2:7001", "10.9.0.1:*"), 1 },
	      { RELAY("established", "10.9.0.2:*", "10.9.0.3:7002"), 1 },
	      { RELAY("listen", "0.0.0.0:7001", "0.0.0.0:0"), 1 });
	free(txt);
	flows_free(&ft);
	prom_free(&st);
}

/*
 * A wait on a remote endpoint: labelled with the address as the wakee's
 * socket sees it, the client's ephemeral port folded as the socket's
 * flow half is, so that it matches the other host's socket series.
 */
static void test_wait_endpoint(void **state)
{
	static const struct flow_def d[] = {
		{ FLOW_LISTEN, "0.0.0.0:7002", "0.0.0.0:0" },
		{ FLOW_ESTABLISHED, "10.9.0.3:7002", "10.9.0.2:40002" },
	};
	struct scrape_fix x;
	struct flow_table ft;
	struct task_row *r;

	(void)state;
	add_flows(&ft, 30, "sink", d, NR(d));
	start_waits(&x, 10);
	x.st.flows = &ft;
	r = row(&x.t, 30, 30, "sink", 100000000ull);
	r->sched.off_cpu_ns = 900000000ull;
	/* the peer 10.9.0.2:40002: address in network order, port in tid */
	set_wait(&x.t, r, (struct tdbpf_wait){
		.kind = TDBPF_WAKER_ENDPOINT, .tid = 40002,
		.tgid = htonl(0x0a090002), .wakeups = 5, .wait_ns = 700000000ull });
	SCRAPE_HOLDS(&x.st, &x.t, { WAIT("comm=\"sink\",thread=\"sink\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.2:*\""),
				0.7 });
	x.st.flows = NULL;
	flows_free(&ft);
	fix_stop(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_fold_monotonic),
		cmocka_unit_test(test_extra_event_series),
		cmocka_unit_test(test_scaled_increments),
		cmocka_unit_test(test_series_limit),
		cmocka_unit_test(test_tid_labels),
		cmocka_unit_test(test_whole_names),
		cmocka_unit_test(test_container_labels),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_process_name),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_tma_slots),
		cmocka_unit_test(test_tma_cycle_slots),
		cmocka_unit_test(test_wait_series),
		cmocka_unit_test(test_span_series),
		cmocka_unit_test(test_hold_series),
		cmocka_unit_test(test_socket_flows),
		cmocka_unit_test(test_wait_endpoint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
