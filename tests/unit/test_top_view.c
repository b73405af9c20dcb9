// SPDX-License-Identifier: GPL-2.0
/*
 * The screen of tdbpf top, laid out into a character grid (no terminal):
 * what each row shows for known sums, that sort and fold keys change the
 * rows, that 80x24 and smaller screens are filled exactly and never
 * overflowed, the bar's cells, the help, pause and banner.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "outputs/top_view.h"
#include "sums/spans.h"
#include "unit_helpers.h"

#define GW 200
#define GH 60

struct grid {
	int w, h;
	char c[GH][GW + 1];
	enum top_attr a[GH][GW];
	int writes_outside;
	int cells_written;
};

static void put(void *ctx, int y, int x, const char *s, int n,
		enum top_attr a)
{
	struct grid *g = ctx;
	int i;

	if (y < 0 || y >= g->h || x < 0 || x + n > g->w) {
		g->writes_outside++;
		return;
	}
	for (i = 0; i < n; i++) {
		/* the view only writes printable text */
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			g->writes_outside++;
		g->c[y][x + i] = s[i];
		g->a[y][x + i] = a;
		g->cells_written++;
	}
}

static void draw(struct grid *g, int w, int h, const struct top_state *st,
		 const struct top_frame *fr)
{
	struct top_out out = { .put = put, .ctx = g };
	int y;

	memset(g, 0, sizeof(*g));
	g->w = w;
	g->h = h;
	for (y = 0; y < GH; y++)
		memset(g->c[y], '@', GW);	/* what was never written */
	assert_int_equal(top_render(st, fr, w, h, &out), 0);
	assert_int_equal(g->writes_outside, 0);
	for (y = 0; y < h; y++) {
		g->c[y][w] = '\0';
		/* every cell written: nothing of the last frame shows */
		if (strchr(g->c[y], '@'))
			fail_msg("row %d not filled: '%s'", y, g->c[y]);
	}
}

/* Row @y with trailing blanks cut. */
static const char *text(struct grid *g, int y)
{
	static char buf[GW + 1];
	int n;

	snprintf(buf, sizeof(buf), "%s", g->c[y]);
	n = (int)strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
	return buf;
}

/* The first row (below the header) whose text contains @s, or -1. */
static int find_row(struct grid *g, const char *s)
{
	int y;

	for (y = 4; y < g->h - 1; y++)
		if (strstr(g->c[y], s))
			return y;
	return -1;
}

static void sw_plan(struct event_plan *p)
{

	plan_ok(p, &model_software, 1, false, 4);
}

static struct task_row *add(struct task_table *t, __u32 tid, const char *comm,
			    double on_ms, double rq_ms, double off_ms)
{
	struct task_row *r = tasks_get(t, tid);

	assert_non_null(r);
	r->pid = 100;
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->sched.on_cpu_ns = (__u64)(on_ms * 1e6);
	r->sched.runq_wait_ns = (__u64)(rq_ms * 1e6);
	r->sched.off_cpu_ns = (__u64)(off_ms * 1e6);
	r->sched.nvcsw = tid;
	return r;
}

/* An empty table of @p's counters. */
static void empty(struct task_table *t, const struct event_plan *p)
{
	tasks_init(t);
	tasks_set_events(t, p->nr);
}

/* Four threads over a 1 s interval. */
static void workload(struct task_table *t, const struct event_plan *p)
{
	empty(t, p);
	add(t, 11, "worker-1", 900, 50, 50);
	add(t, 12, "worker-2", 300, 600, 100);
	add(t, 13, "sink", 100, 0, 900);
	add(t, 14, "src\x01x", 0, 0, 1000);
}

/* A task of a table with waker slots: its sums and its one wait. */
struct wait_task {
	__u32 tid;
	const char *comm;
	struct tdbpf_sched sched;
	struct tdbpf_wait w;
};

/* A table of @p's counters with waker slots, the @n tasks of @d in it. */
static void wait_table(struct task_table *t, const struct event_plan *p,
		       const struct wait_task *d, size_t n)
{
	struct tdbpf_wait w[TDBPF_NR_WAITS];
	struct tdbpf_task s;
	size_t i;

	tasks_init(t);
	tasks_set_layout(t, p->nr, true);
	for (i = 0; i < n; i++) {
		task_blank(&s, w, d[i].tid, d[i].comm);
		s.sched = d[i].sched;
		w[0] = d[i].w;
		assert_int_equal(tasks_add(t, &s, w, 0), 0);
	}
}

/* A frame of @t's sums over @window_ns on @ncpu CPUs (0: not said). */
static struct top_frame frame(const struct event_plan *p,
			      const struct task_table *t, __u64 window_ns,
			      int ncpu)
{
	return (struct top_frame){ .plan = p, .tasks = t,
				   .window_ns = window_ns, .ncpu = ncpu,
				   .valid = true };
}

/* What a test draws: a plan, a table, the view's state, a frame, a grid. */
struct view {
	struct event_plan p;
	struct task_table t;
	struct top_state st;
	struct top_frame fr;
	struct grid g;
};

/* @v's table over 1 s on 2 CPUs, sorted by CPU, drawn @w x 24. */
static void show(struct view *v, int w)
{
	top_state_init(&v->st, SORT_CPU, false, 0, 1000);
	v->fr = frame(&v->p, &v->t, 1000000000ULL, 2);
	draw(&v->g, w, 24, &v->st, &v->fr);
}

/* The software model's @v, its table @d's @n tasks, shown @w wide. */
static void show_waits(struct view *v, const struct wait_task *d, size_t n,
		       int w)
{
	sw_plan(&v->p);
	wait_table(&v->t, &v->p, d, n);
	show(v, w);
}

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* @v with the @n spans @d, drawn 200 x 24: the banner line is @want. */
static void banner_with_spans(struct view *v, const struct span_def *d,
			      size_t n, const char *want)
{
	struct span_table sp;

	spans_init(&sp);
	spans_set(&sp, d, n);
	v->fr.spans = &sp;
	draw(&v->g, 200, 24, &v->st, &v->fr);
	assert_string_equal(text(&v->g, 1), want);
	v->fr.spans = NULL;
	spans_free(&sp);
}

static void test_rows_80x24(void **state)
{
	struct view v;
	int y;

	(void)state;
	sw_plan(&v.p);
	workload(&v.t, &v.p);
	show(&v, 80);

	assert_non_null(strstr(text(&v.g, 0), "tdbpf top - model software, every 1.0 s, sort cpu"));
	assert_string_equal(text(&v.g, 1),
			    "4 tasks, CPU 130.0% of 200%, run-queue wait 65.0%");
	assert_non_null(strstr(text(&v.g, 2), "# on-CPU + run-queue . off-CPU"));
	assert_string_equal(text(&v.g, 3),
			    "    TID COMM              CPU% RUNQ%  OFF% BREAKDOWN  VERDICT");
	assert_int_equal(v.g.a[3][0], TOP_HEADER);
	/* by CPU: worker-1, worker-2, sink, then the idle one */
	assert_string_equal(text(&v.g, 4),
			    "     11 worker-1          90.0   5.0   5.0 #########+ on-CPU (no PMU breakdown)");
	assert_string_equal(text(&v.g, 5),
			    "     12 worker-2          30.0  60.0  10.0 ###++++++. CPU-starved (runq 60%)");
	assert_string_equal(text(&v.g, 6),
			    "     13 sink              10.0   0.0  90.0 #......... blocked (off-CPU 90%)");
	/* a control byte in a name is shown as '?' */
	assert_string_equal(text(&v.g, 7),
			    "     14 src?x              0.0   0.0 100.0 .......... idle");
	/* the starved verdict stands out; the bar is coloured cell by cell */
	assert_int_equal(v.g.a[5][59], TOP_WARN);
	assert_int_equal(v.g.a[4][43], TOP_BAR0);
	assert_int_equal(v.g.a[4][52], TOP_BAR1);
	for (y = 8; y < 23; y++)
		assert_string_equal(text(&v.g, y), "");
	assert_string_equal(text(&v.g, 23), "q quit  s sort  f fold  p pause  h help");
	tasks_free(&v.t);
}

/*
 * A whole name longer than COMM's 15 columns (a JVM's) keeps its head
 * and its tail, the subtask index; one that fits shows whole.
 */
static void test_whole_names(void **state)
{
	struct view v;

	(void)state;
	sw_plan(&v.p);
	empty(&v.t, &v.p);
	add(&v.t, 21, "Map -> Filter (", 500, 0, 500)->name =
		names_intern("Map -> Filter (2/3)#0");
	add(&v.t, 22, "Window agg", 100, 0, 900)->name =
		names_intern("Window agg 2");
	show(&v, 80);
	assert_string_equal(text(&v.g, 4),
			    "     21 Map ->~ (2/3)#0   50.0   0.0  50.0 #####..... blocked (off-CPU 50%)");
	assert_non_null(strstr(text(&v.g, 5), "     22 Window agg 2      10.0"));
	tasks_free(&v.t);
}

static void test_keys_sort_fold(void **state)
{
	struct view v;

	(void)state;
	sw_plan(&v.p);
	workload(&v.t, &v.p);
	top_state_init(&v.st, SORT_CPU, false, 0, 500);
	v.fr = frame(&v.p, &v.t, 1000000000ULL, 0);

	/* s: the next key, runq: worker-2 first */
	assert_int_equal(top_key(&v.st, 's'), TOP_KEY_REDRAW);
	assert_int_equal(v.st.sort, SORT_RUNQ);
	draw(&v.g, 80, 24, &v.st, &v.fr);
	assert_non_null(strstr(text(&v.g, 0), "sort runq"));
	assert_int_equal(find_row(&v.g, "worker-2"), 4);
	assert_int_equal(find_row(&v.g, "worker-1"), 5);
	/* the cycle comes back to cpu */
	assert_int_equal(top_next_sort(SORT_OFFCPU), SORT_SWITCHES);
	assert_int_equal(top_next_sort(SORT_SWITCHES), SORT_COMM);
	assert_int_equal(top_next_sort(SORT_COMM), SORT_TID);
	assert_int_equal(top_next_sort(SORT_TID), SORT_CPU);

	/*
	 * f: one row for worker-*, tid column "(2)", its shares the two
	 * threads' means: CPU (900 + 300) / 2 of 1000 ms, run queue
	 * (50 + 600) / 2, off-CPU (50 + 100) / 2 (a sum read 120% and more)
	 */
	assert_int_equal(top_key(&v.st, 'f'), TOP_KEY_REDRAW);
	draw(&v.g, 80, 24, &v.st, &v.fr);
	assert_non_null(strstr(text(&v.g, 0), "by name"));
	assert_int_equal(find_row(&v.g, "worker-1"), -1);
	assert_string_equal(text(&v.g, 4),
			    "    (2) worker-*          60.0  32.5   7.5 ######+++. on-CPU (no PMU breakdown)");
	assert_int_equal(find_row(&v.g, "sink"), 5);
	assert_int_equal(top_key(&v.st, 'f'), TOP_KEY_REDRAW);
	draw(&v.g, 80, 24, &v.st, &v.fr);
	assert_int_equal(find_row(&v.g, "worker-*"), -1);

	/* p pauses (the caller stops repainting), shown in the title */
	assert_int_equal(top_key(&v.st, 'p'), TOP_KEY_REDRAW);
	assert_true(v.st.paused);
	draw(&v.g, 80, 24, &v.st, &v.fr);
	assert_non_null(strstr(text(&v.g, 0), "[paused]"));
	assert_int_equal(top_key(&v.st, ' '), TOP_KEY_REDRAW);
	assert_false(v.st.paused);

	/* h: the help instead of the rows; Esc leaves it */
	assert_int_equal(top_key(&v.st, 'h'), TOP_KEY_REDRAW);
	draw(&v.g, 80, 24, &v.st, &v.fr);
	assert_int_equal(find_row(&v.g, "worker-2"), -1);
	assert_true(find_row(&v.g, "q          quit") > 0);
	assert_int_equal(top_key(&v.st, 27), TOP_KEY_REDRAW);
	assert_false(v.st.help);
	assert_int_equal(top_key(&v.st, 27), TOP_KEY_NONE);
	assert_int_equal(top_key(&v.st, 'x'), TOP_KEY_NONE);
	assert_int_equal(top_key(&v.st, 'q'), TOP_KEY_QUIT);
	tasks_free(&v.t);
}

/* More rows than fit: the rest is counted; tiny screens never overflow. */
static void test_sizes(void **state)
{
	static const int sizes[][2] = {
		{ 80, 24 }, { 80, 6 }, { 20, 10 }, { 1, 1 }, { 200, 60 },
		{ 55, 5 }, { 132, 3 },
	};
	struct view v;
	char name[16];
	size_t i;
	int k;

	(void)state;
	sw_plan(&v.p);
	empty(&v.t, &v.p);
	for (k = 0; k < 40; k++) {
		snprintf(name, sizeof(name), "w%d", k);
		add(&v.t, 100 + k, name, k, 40 - k, 10);
	}
	top_state_init(&v.st, SORT_CPU, false, 0, 1000);
	v.fr = frame(&v.p, &v.t, 100000000ULL, 0);
	draw(&v.g, 80, 24, &v.st, &v.fr);
	/* 24 lines: 4 above the rows, the key line: 19 rows, 21 more */
	assert_int_equal(find_row(&v.g, "w39"), 4);
	assert_int_equal(find_row(&v.g, "w21"), 22);
	assert_non_null(strstr(text(&v.g, 23), "+21 more rows"));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		draw(&v.g, sizes[i][0], sizes[i][1], &v.st, &v.fr);
		v.st.help = !v.st.help;
		draw(&v.g, sizes[i][0], sizes[i][1], &v.st, &v.fr);
		v.st.help = !v.st.help;
	}
	/* before the first interval */
	v.fr.valid = false;
	draw(&v.g, 80, 24, &v.st, &v.fr);
	assert_string_equal(text(&v.g, 4), "collecting the first 1.0 s interval...");
	tasks_free(&v.t);
}

/* A TMA model: the level-1 bar from the decoded tree, IPC, the banner. */
static void test_tma_bar_ipc_banner(void **state)
{
	const struct model *m = &model_icelakex;
	struct task_row *r;
	struct view v;
	int s, y;

	(void)state;
	plan_ok(&v.p, m, 1, true, m->gp_smt_on);
	empty(&v.t, &v.p);
	r = add(&v.t, 7, "busy", 1000, 0, 0);
	for (s = 0; s < v.p.nr; s++) {
		const char *n = m->events[v.p.ev[s]].name;
		__u64 v = 0;

		/* slots split 40/10/20/30 (FE/BS/BE/RET), IPC 2 */
		if (!strcmp(n, "TOPDOWN.SLOTS"))
			v = 1000;
		else if (!strcmp(n, "topdown-fe-bound"))
			v = 400;
		else if (!strcmp(n, "topdown-bad-spec"))
			v = 100;
		else if (!strcmp(n, "topdown-be-bound"))
			v = 200;
		else if (!strcmp(n, "topdown-retiring"))
			v = 300;
		else if (!strcmp(n, "INST_RETIRED.ANY"))
			v = 2000;
		else if (!strcmp(n, "CPU_CLK_UNHALTED.THREAD"))
			v = 1000;
		r->ctr[s].value = v;
		r->ctr[s].enabled = r->ctr[s].running = 1000000;
	}
	top_state_init(&v.st, SORT_CPU, false, 1, 1000);
	v.st.banner = "graph: src -> [parse] -> sink: parse is the bottleneck";
	v.fr = frame(&v.p, &v.t, 1000000000ULL, 0);
	draw(&v.g, 80, 24, &v.st, &v.fr);
	assert_non_null(strstr(text(&v.g, 0), "model icelakex, level 1"));
	assert_string_equal(text(&v.g, 1), v.st.banner);
	assert_int_equal(v.g.a[1][0], TOP_BANNER);
	assert_string_equal(text(&v.g, 2),
			    "BREAKDOWN: F Frontend S Bad_Spec B Backend R Retiring");
	assert_non_null(strstr(text(&v.g, 3), "BREAKDOWN     IPC VERDICT"));
	y = find_row(&v.g, "busy");
	assert_int_equal(y, 4);
	/* what the decode of these counts gives, the bar in its order */
	assert_non_null(strstr(text(&v.g, y), "FFFFSBBRRR   2.00 Frontend"));
	tasks_free(&v.t);
}

/*
 * Wakeups traced: the interval's bottleneck line comes above the table
 * and each row says what it waits on, a wait or a hold of the CPU; with
 * spans, the line names the operator in it.
 */
static void test_graph_banner_waits_on(void **state)
{
	/* src waits on enrich; enrich runs, starved by agg now and then */
	static const struct wait_task tasks[] = {
		{ 1, "src", { .on_cpu_ns = 50000000, .off_cpu_ns = 950000000 },
		  { .kind = TDBPF_WAKER_TASK, .tid = 2, .wakeups = 100,
		    .wait_ns = 950000000 } },
		{ 2, "enrich",
		  { .on_cpu_ns = 700000000, .runq_wait_ns = 300000000 },
		  { .kind = TDBPF_HOLDER_TASK, .tid = 3, .wakeups = 50,
		    .wait_ns = 300000000 } },
		{ 3, "agg", { .on_cpu_ns = 900000000, .off_cpu_ns = 100000000 },
		  { .kind = TDBPF_WAKER_TASK, .tid = 2, .wakeups = 10,
		    .wait_ns = 100000000 } },
	};
	/* its operator: 500 of enrich's 700 ms on CPU */
	static const struct span_def spans[] = {
		{ 2, 100, 7, "score", { .entries = 40, .on_cpu_ns = 500000000,
					.runq_ns = 100000000,
					.off_ns = 100000000 } },
	};
	struct view v;
	int y;

	(void)state;
	show_waits(&v, tasks, NR(tasks), 160);
	/*
	 * src's 950 ms reach enrich, which keeps its on-CPU 70% and sends
	 * its run-queue 30% (285 ms) to agg, which keeps it (its time less
	 * its waits on enrich is its own work); agg's own 100 ms on enrich
	 * stay there (enrich's time less agg's holds is its own work):
	 * enrich keeps 665 + 100 ms of 1050, from 2 tasks
	 */
	assert_string_equal(text(&v.g, 1),
			    "bottleneck: enrich (tid 2): runs (on-CPU 70%): no PMU breakdown; 2 tasks' waits lead to it (73% of their blocked time); busy 100% of its time");
	assert_int_equal(v.g.a[1][0], TOP_BANNER);
	assert_non_null(strstr(text(&v.g, 3), "BREAKDOWN  WAITS ON          VERDICT"));
	y = find_row(&v.g, "      2 enrich");
	assert_true(y > 3);
	assert_non_null(strstr(text(&v.g, y), " cpu:agg 100%      "));
	y = find_row(&v.g, "      1 src");
	assert_true(y > 3);
	assert_non_null(strstr(text(&v.g, y), " enrich 100%       "));
	/*
	 * --span: the line names the operator that holds most of the
	 * bottleneck's on-CPU time (it runs): 500 of enrich's 700 ms
	 */
	banner_with_spans(&v, spans, NR(spans),
			  "bottleneck: enrich (tid 2): runs (on-CPU 70%): no PMU breakdown; 2 tasks' waits lead to it (73% of their blocked time); busy 100% of its time; in it: score 71% of its on-CPU time");
	tasks_free(&v.t);
}

/*
 * --span and no task waiting on another for 1% of its blocked time (one
 * thread runs a whole GStreamer pipeline, the main thread waits on it a
 * few times at its start): the busiest task with spans is the line's,
 * named for its operator, not for waits that lead to it.
 */
static void test_banner_alone(void **state)
{
	static const struct wait_task tasks[] = {
		{ 1, "main", { .on_cpu_ns = 10000000, .off_cpu_ns = 990000000 },
		  { .kind = TDBPF_WAKER_TIMER, .wakeups = 10,
		    .wait_ns = 990000000 } },
		{ 2, "pipe",
		  { .on_cpu_ns = 800000000, .runq_wait_ns = 200000000 },
		  { 0 } },
		/* a few short waits on pipe: 0.1% of its blocked time */
		{ 3, "gmain", { .on_cpu_ns = 1000000, .off_cpu_ns = 999000000 },
		  { .kind = TDBPF_WAKER_TASK, .tid = 2, .wakeups = 5,
		    .wait_ns = 1000000 } },
	};
	/* the encoder 600 of pipe's 800 ms on CPU, the rest its source's */
	static const struct span_def spans[] = {
		{ 2, 100, 7, "jpegenc0", { .entries = 40,
					   .on_cpu_ns = 600000000,
					   .runq_ns = 150000000 } },
		{ 2, 100, 8, "videoconvert0", { .entries = 40,
						.on_cpu_ns = 150000000 } },
	};
	struct view v;

	(void)state;
	show_waits(&v, tasks, NR(tasks), 200);
	/* without spans, as before: no source, but ranked */
	assert_string_equal(text(&v.g, 1),
			    "bottleneck: pipe (tid 2): runs (on-CPU 80%): no PMU breakdown; 0 tasks' waits lead to it (100% of their blocked time); busy 100% of its time");
	banner_with_spans(&v, spans, NR(spans),
			  "bottleneck: pipe (tid 2): runs (on-CPU 80%): no PMU breakdown; no task waits on another, it runs the most; in it: jpegenc0 75% of its on-CPU time");
	tasks_free(&v.t);
}

static void test_bar_cells(void **state)
{
	double v[4];
	char b[11];
	enum top_attr a[10];

	(void)state;
	/* thirds: 4+3+3, the largest remainder first, ties to the first */
	v[0] = v[1] = v[2] = 1.0 / 3;
	assert_int_equal(top_bar(b, a, 10, v, "#+.", 3), 0);
	assert_string_equal(b, "####+++...");
	assert_int_equal(a[0], TOP_BAR0);
	assert_int_equal(a[9], TOP_BAR2);
	/* negatives and NaN count as 0; above 1 as 1; they still add up */
	v[0] = -0.2;
	v[1] = NAN;
	v[2] = 2.5;
	v[3] = 1;
	assert_int_equal(top_bar(b, a, 10, v, "ABCD", 4), 0);
	assert_string_equal(b, "CCCCCDDDDD");
	/* nothing to show */
	v[0] = v[1] = v[2] = 0;
	assert_int_equal(top_bar(b, NULL, 10, v, "#+.", 3), -1);
	assert_string_equal(b, "-         ");
	/* 0.93/0.07: the larger remainder takes the last cell */
	v[0] = 0.93;
	v[1] = 0.07;
	assert_int_equal(top_bar(b, NULL, 10, v, "#+", 2), 0);
	assert_string_equal(b, "#########+");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_80x24),
		cmocka_unit_test(test_whole_names),
		cmocka_unit_test(test_keys_sort_fold),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_tma_bar_ipc_banner),
		cmocka_unit_test(test_bar_cells),
		cmocka_unit_test(test_graph_banner_waits_on),
		cmocka_unit_test(test_banner_alone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
