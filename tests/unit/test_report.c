// SPDX-License-Identifier: GPL-2.0
/*
 * Report: scaling, scheduling verdicts, sort/top, and the three writers
 * (JSON parsed back with json-c, CSV split into fields, table columns).
 * Expected values are worked out here by hand from the inputs.
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
#include <json-c/json.h>
#include "analysis/report.h"
#include "unit_helpers.h"

/* ---- helpers ---------------------------------------------------------- */

/* The software model in one group led by its first event (slot = event). */
static void sw_plan(struct event_plan *p)
{
	one_group_plan(p, &model_software);
}

static struct task_row *add(struct task_table *t, __u32 tid, const char *comm,
			    __u64 on, __u64 rq, __u64 off)
{
	struct task_row *r = tasks_get(t, tid);

	assert_non_null(r);
	r->pid = 1000;
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->sched.on_cpu_ns = on;
	r->sched.runq_wait_ns = rq;
	r->sched.off_cpu_ns = off;
	return r;
}

static void set_ctr(struct task_row *r, int slot, __u64 v, __u64 ena,
		    __u64 run)
{
	r->ctr[slot].value = v;
	r->ctr[slot].enabled = ena;
	r->ctr[slot].running = run;
}

static json_object *parse_strict(const char *s)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;
	size_t end;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
				    JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, s, (int)strlen(s));
	if (!o)
		fail_msg("invalid JSON (%s): %s",
			 json_tokener_error_desc(json_tokener_get_error(tok)),
			 s);
	/* one document and nothing after it but the final newline */
	end = json_tokener_get_parse_end(tok);
	if (strspn(s + end, " \n") != strlen(s + end))
		fail_msg("text after the JSON document: %s", s + end);
	json_tokener_free(tok);
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("key \"%s\" missing", key);
	return v;
}

static bool has(json_object *o, const char *key)
{
	return json_object_object_get_ex(o, key, NULL);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- scale_count ------------------------------------------------------ */

static double scale(__u64 v, __u64 ena, __u64 run)
{
	struct tdbpf_count c = { .value = v, .enabled = ena, .running = run };

	return scale_count(&c);
}

static void test_scale_count(void **state)
{
	(void)state;
	/* task never enabled: nothing to scale */
	assert_true(scale(0, 0, 0) == 0.0);
	/* always on the PMU: the raw value, exactly */
	assert_true(scale(12345, 999, 999) == 12345.0);
	assert_true(scale((1ull << 52) + 1, 7, 7) == (double)((1ull << 52) + 1));
	/* counted half the time: doubled */
	assert_true(scale(100, 20, 10) == 200.0);
	assert_true(scale(3, 3, 2) == 4.5);
	/* 1000 counted over 1/3 of the time */
	assert_true(fabs(scale(1000, 3000000, 1000000) - 3000.0) < 1e-9);
	/* enabled but never running: never counted, not zero */
	assert_true(isnan(scale(0, 10, 0)));
	assert_true(isnan(scale(5, 10, 0)));
	/* big sums do not overflow: 2^62 * 2 */
	assert_true(scale(1ull << 62, 2ull << 40, 1ull << 40) ==
		    (double)(1ull << 63));
}

/* ---- sched_judge ------------------------------------------------------ */

static enum sched_verdict judge_ns(__u64 on, __u64 rq, __u64 off)
{
	struct task_row r;

	memset(&r, 0, sizeof(r));
	r.sched.on_cpu_ns = on;
	r.sched.runq_wait_ns = rq;
	r.sched.off_cpu_ns = off;
	return sched_judge(&r, 1000);
}

/* shares in milliseconds: well above the 1 ms of life a verdict needs */
static enum sched_verdict judge(__u64 on, __u64 rq, __u64 off)
{
	return judge_ns(on * 1000000, rq * 1000000, off * 1000000);
}

static void test_sched_judge(void **state)
{
	(void)state;
	assert_int_equal(judge(0, 0, 0), SCHED_IDLE);
	assert_int_equal(judge(0, 0, 500), SCHED_IDLE);
	/* waited but never ran: starved */
	assert_int_equal(judge(0, 1, 0), SCHED_STARVED);
	/* runq exactly 25% of life and above on-CPU: starved */
	assert_int_equal(judge(24, 25, 51), SCHED_STARVED);
	/* runq 24%: not starved; off 53% >= 50%: blocked */
	assert_int_equal(judge(23, 24, 53), SCHED_BLOCKED);
	/* runq == on-CPU is not "more waiting than running" */
	assert_int_equal(judge(25, 25, 50), SCHED_BLOCKED);
	assert_int_equal(judge(40, 40, 20), SCHED_NONE);
	/* starved wins over blocked when both hold */
	assert_int_equal(judge(10, 30, 60), SCHED_STARVED);
	/* off exactly 50%: blocked; 49%: not */
	assert_int_equal(judge(50, 0, 50), SCHED_BLOCKED);
	assert_int_equal(judge(51, 0, 49), SCHED_NONE);
	assert_int_equal(judge(1, 2, 97), SCHED_BLOCKED);
	assert_int_equal(judge(100, 0, 0), SCHED_NONE);
	/* sums near 2^64 / 3 do not overflow the comparisons */
	assert_int_equal(judge_ns(1ull << 62, (1ull << 62) + 1, 1ull << 62),
			 SCHED_STARVED);
	assert_int_equal(judge_ns(1ull << 62, 0, (1ull << 62) + 1),
			 SCHED_BLOCKED);
	/* under 1 ms of observed life: no verdict from a few microseconds */
	assert_int_equal(judge_ns(0, 999999, 0), SCHED_NONE);
	assert_int_equal(judge_ns(0, 1000000, 0), SCHED_STARVED);
	assert_int_equal(judge_ns(1, 0, 999998), SCHED_NONE);
	assert_int_equal(judge_ns(1, 0, 999999), SCHED_BLOCKED);
	assert_string_equal(sched_verdict_str(SCHED_STARVED), "CPU-starved");
	assert_string_equal(sched_verdict_str(SCHED_BLOCKED), "blocked");
	assert_string_equal(sched_verdict_str(SCHED_IDLE), "idle");
	assert_string_equal(sched_verdict_str(SCHED_NONE), "-");
}

/* ---- report_build ----------------------------------------------------- */

/* five tasks, each first by one key */
static void five(struct task_table *t)
{
	struct task_row *r;

	tasks_init(t);
	add(t, 50, "e", 500, 10, 10);		/* most CPU */
	add(t, 40, "d", 100, 400, 10);		/* most runq */
	add(t, 30, "a", 200, 10, 900);		/* most off, first name */
	r = add(t, 20, "c", 300, 20, 20);
	r->sched.nvcsw = 70;				/* most switches: 70+5 */
	r->sched.nivcsw = 5;
	r = add(t, 10, "b", 300, 30, 30);	/* ties 20 on CPU */
	r->sched.nvcsw = 74;
}

static void order(const struct report *rep, const __u32 *want, int n,
		  const char *what)
{
	int i;

	assert_int_equal(rep->nr, n);
	for (i = 0; i < n; i++)
		if (rep->rows[i]->tid != want[i])
			fail_msg("%s: position %d: tid %u, want %u", what, i,
				 rep->rows[i]->tid, want[i]);
}

static void test_build_sort_top(void **state)
{
	static const __u32 cpu[] = { 50, 10, 20, 30, 40 };	/* tie by tid */
	static const __u32 runq[] = { 40, 10, 20, 30, 50 };
	static const __u32 off[] = { 30, 10, 20, 40, 50 };
	static const __u32 tid[] = { 10, 20, 30, 40, 50 };
	static const __u32 comm[] = { 30, 10, 20, 40, 50 };
	static const __u32 sw[] = { 20, 10, 30, 40, 50 };
	static const struct {
		const char *what;
		enum sort_key sort;
		int top;		/* --top */
		const __u32 *want;	/* the rows' tids, in order */
		int n;
	} cases[] = {
		{ "cpu", SORT_CPU, 0, cpu, 5 },
		{ "runq", SORT_RUNQ, 0, runq, 5 },
		{ "offcpu", SORT_OFFCPU, 0, off, 5 },
		{ "tid", SORT_TID, 0, tid, 5 },
		{ "comm", SORT_COMM, 0, comm, 5 },
		{ "switches", SORT_SWITCHES, 0, sw, 5 },
		/* --top keeps the first N after sorting; nr_total the count before */
		{ "runq, top 2", SORT_RUNQ, 2, runq, 2 },
		{ "tid, top 99", SORT_TID, 99, tid, 5 },
	};
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	size_t i;

	(void)state;
	sw_plan(&plan);
	five(&t);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(report_build(&rep, &t, &plan, 0, 1000,
					      cases[i].sort, cases[i].top),
				 0);
		order(&rep, cases[i].want, cases[i].n, cases[i].what);
		assert_int_equal(rep.nr_total, 5);
		assert_int_equal(rep.interval, -1);
		report_free(&rep);
		assert_null(rep.rows);
	}

	/* an empty table makes an empty report */
	tasks_reset(&t);
	assert_int_equal(report_build(&rep, &t, &plan, 0, 1000, SORT_CPU, 3),
			 0);
	assert_int_equal(rep.nr, 0);
	assert_int_equal(rep.nr_total, 0);
	report_free(&rep);
	tasks_free(&t);
}

/* Decode @tid's row into @d, as the writers do. */
static const struct task_decoded *by_tid(const struct report *rep, __u32 tid,
					 struct task_decoded *d)
{
	int i;

	for (i = 0; i < rep->nr; i++) {
		if (rep->rows[i]->tid == tid) {
			report_decode_task(rep, i, d);
			assert_ptr_equal(d->row, rep->rows[i]);
			return d;
		}
	}
	fail_msg("tid %u not in report", tid);
	return NULL;
}

static void test_build_decode(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_decoded dec;
	const struct task_decoded *d;
	struct task_row *r;
	int i;

	(void)state;
	assert_true(model_software.nr_events >= 3);
	assert_int_equal(model_software.max_level, 0);
	sw_plan(&plan);
	tasks_init(&t);
	r = add(&t, 1, "run", 400000000, 100000000, 0);	/* 0.4 s of 2 s */
	for (i = 0; i < plan.nr; i++)
		set_ctr(r, i, 1000 + i, 400000000, 400000000);
	add(&t, 2, "starved", 37000000, 63000000, 0);
	add(&t, 3, "blocked", 12000000, 0, 88000000);
	add(&t, 4, "idle", 0, 0, 0);
	assert_int_equal(report_build(&rep, &t, &plan, 3, 2000000000ull,
				      SORT_TID, 0), 0);
	assert_int_equal(rep.level, 0);	/* no TMA tree to go down */

	d = by_tid(&rep, 1, &dec);
	for (i = 0; i < plan.nr; i++)
		assert_true(d->ev[i] == 1000.0 + i);
	assert_true(d->coverage == 1.0);
	assert_false(d->low_coverage);
	assert_true(fabs(d->on_cpu_pct - 20.0) < 1e-9);
	assert_int_equal(d->sched, SCHED_NONE);
	assert_false(d->has_tma);
	assert_string_equal(d->bottleneck, "on-CPU (no PMU breakdown)");

	d = by_tid(&rep, 2, &dec);
	assert_int_equal(d->sched, SCHED_STARVED);
	assert_string_equal(d->bottleneck, "CPU-starved (runq 63%)");
	assert_true(d->coverage == 1.0);	/* never enabled: no loss */
	d = by_tid(&rep, 3, &dec);
	assert_int_equal(d->sched, SCHED_BLOCKED);
	assert_string_equal(d->bottleneck, "blocked (off-CPU 88%)");
	d = by_tid(&rep, 4, &dec);
	assert_int_equal(d->sched, SCHED_IDLE);
	assert_string_equal(d->bottleneck, "idle");
	assert_true(d->ev[0] == 0.0);
	report_free(&rep);
	tasks_free(&t);
}

/* Two groups; the second ran 3% of its enabled time. */
static void mux_plan(struct event_plan *p)
{
	sw_plan(p);
	p->nr = 3;
	p->group[0] = 0;
	p->group[1] = 0;
	p->group[2] = 1;
	p->nr_groups = 2;
	p->leader[0] = 0;
	p->leader[1] = 2;
}

static void test_build_coverage(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_decoded dec;
	const struct task_decoded *d;
	struct task_row *r;

	(void)state;
	mux_plan(&plan);
	tasks_init(&t);
	r = add(&t, 1, "mux", 1000, 0, 0);
	set_ctr(r, 0, 500, 1000, 500);		/* leader g0: 50% */
	set_ctr(r, 1, 10, 1001, 499);		/* member: leader's times */
	set_ctr(r, 2, 6, 1000, 30);		/* leader g1: 3% */
	r = add(&t, 2, "never", 1000, 0, 0);
	set_ctr(r, 0, 0, 1000, 1000);
	set_ctr(r, 2, 0, 1000, 0);		/* g1 never counted */
	assert_int_equal(report_build(&rep, &t, &plan, 0, 1000, SORT_TID, 0),
			 0);
	d = by_tid(&rep, 1, &dec);
	assert_true(d->ev[0] == 1000.0);
	assert_true(d->ev[1] == 20.0);		/* 10 * 1000 / 500 */
	assert_true(d->ev[2] == 200.0);	/* 6 * 1000 / 30 */
	assert_true(fabs(d->coverage - 0.03) < 1e-12);
	assert_true(d->low_coverage);
	assert_string_equal(d->bottleneck, "on-CPU (no PMU breakdown) (low coverage 3%)");
	d = by_tid(&rep, 2, &dec);
	assert_true(isnan(d->ev[2]));
	assert_true(d->coverage == 0.0);
	assert_true(d->low_coverage);
	report_free(&rep);
	tasks_free(&t);
}

/* ---- writers ---------------------------------------------------------- */

static const char odd_comm[] = "a\x01\xff\"b";	/* control, invalid, quote */

static void writer_table(struct task_table *t)
{
	struct task_row *r;
	int i;

	tasks_init(t);
	r = add(t, 101, odd_comm, 3000000000ull, 1000000, 2000000);
	r->sched.nvcsw = 120;
	r->sched.nivcsw = 3;
	r->sched.migrations = 4;
	r->sched.uncounted_ns = 250000;
	r->exited = true;
	for (i = 0; i < model_software.nr_events; i++)
		set_ctr(r, i, 7000 + i, 3000000000ull, 3000000000ull);
	r = add(t, 102, "parse1", 1000000, 0, 5000000);
	r->sched.nvcsw = 9;
	for (i = 0; i < model_software.nr_events; i++)
		set_ctr(r, i, 0, 0, 0);
	/* a folded row of 8 tasks */
	r = add(t, 103, "worker-*", 2000000000ull, 0, 0);
	r->tid = 0;
	r->nr_tasks = 8;
}

static void test_json(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	json_object *o, *tasks, *x, *ctr;
	char *s;
	int i;

	(void)state;
	sw_plan(&plan);
	writer_table(&t);
	/* the folded row has tid 0 and no index entry: rebuild by hand */
	assert_int_equal(report_build(&rep, &t, &plan, 0, 4000000000ull,
				      SORT_CPU, 0), 0);
	rep.lost.map_full = 12;
	rep.lost.read_errors = 3;
	rep.lost.unseen_switch_ins = 5;

	s = render_report(&rep, FMT_JSON, NULL);
	o = parse_strict(s);
	assert_string_equal(json_object_get_string(get(o, "model")),
			    model_software.name);
	assert_int_equal(json_object_get_int(get(o, "level")), 0);
	assert_false(json_object_get_boolean(get(o, "smt")));
	assert_int_equal(json_object_get_int64(get(o, "duration_ns")),
			 4000000000ll);
	assert_false(has(o, "interval"));
	x = get(o, "lost");
	assert_int_equal(json_object_get_int(get(x, "map_full")), 12);
	assert_int_equal(json_object_get_int(get(x, "read_errors")), 3);
	assert_int_equal(json_object_get_int(get(x, "unseen_switch_ins")), 5);
	tasks = get(o, "tasks");
	assert_int_equal(json_object_array_length(tasks), 3);

	/* sorted by CPU: odd (3 s), worker-* (2 s), parse1 (1 ms) */
	x = json_object_array_get_idx(tasks, 0);
	assert_int_equal(json_object_get_int(get(x, "tid")), 101);
	assert_int_equal(json_object_get_int(get(x, "pid")), 1000);
	/* 0x01 survives (escaped), 0xff becomes U+FFFD, quote survives */
	assert_string_equal(json_object_get_string(get(x, "comm")),
			    "a\x01\xef\xbf\xbd\"b");
	assert_int_equal(json_object_get_int64(get(x, "on_cpu_ns")),
			 3000000000ll);
	assert_int_equal(json_object_get_int64(get(x, "runq_wait_ns")),
			 1000000);
	assert_int_equal(json_object_get_int64(get(x, "off_cpu_ns")), 2000000);
	assert_int_equal(json_object_get_int(get(x, "switches")), 123);
	assert_int_equal(json_object_get_int(get(x, "voluntary")), 120);
	assert_int_equal(json_object_get_int(get(x, "involuntary")), 3);
	assert_int_equal(json_object_get_int(get(x, "migrations")), 4);
	assert_int_equal(json_object_get_int(get(x, "uncounted_ns")), 250000);
	assert_true(json_object_get_boolean(get(x, "exited")));
	assert_false(has(x, "nr_tasks"));
	assert_false(has(x, "metrics"));	/* software: nothing decodes */
	assert_true(json_object_get_double(get(x, "coverage")) == 1.0);
	assert_string_equal(json_object_get_string(get(x, "bottleneck")),
			    "on-CPU (no PMU breakdown)");
	ctr = get(x, "counters");
	assert_int_equal(json_object_object_length(ctr),
			 model_software.nr_events);
	for (i = 0; i < model_software.nr_events; i++) {
		json_object *v = get(ctr, model_software.events[i].name);

		assert_true(json_object_is_type(v, json_type_int));
		assert_int_equal(json_object_get_int64(v), 7000 + i);
	}

	x = json_object_array_get_idx(tasks, 1);
	assert_string_equal(json_object_get_string(get(x, "comm")),
			    "worker-*");
	assert_int_equal(json_object_get_int(get(x, "tid")), 0);
	assert_int_equal(json_object_get_int(get(x, "nr_tasks")), 8);

	x = json_object_array_get_idx(tasks, 2);
	assert_string_equal(json_object_get_string(get(x, "comm")), "parse1");
	assert_false(json_object_get_boolean(get(x, "exited")));
	assert_string_equal(json_object_get_string(get(x, "bottleneck")),
			    "blocked (off-CPU 83%)");	/* 5 of 6 ms */
	json_object_put(o);
	assert_true(count_lines(s) > 10);		/* pretty */
	free(s);

	/* interval mode: one line, interval present */
	rep.interval = 7;
	s = render_report(&rep, FMT_JSON_LINE, NULL);
	assert_int_equal(count_lines(s), 1);
	assert_int_equal(s[strlen(s) - 1], '\n');
	o = parse_strict(s);
	assert_int_equal(json_object_get_int(get(o, "interval")), 7);
	json_object_put(o);
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

static void test_json_nan_is_null(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	json_object *root, *o, *ctr;
	struct task_row *r;
	char *s;

	(void)state;
	mux_plan(&plan);
	tasks_init(&t);
	r = add(&t, 1, "\xe2\x82\xac\xc0\xaf\xed\xa0\x80z", 1000, 0, 0);
	set_ctr(r, 0, 5, 1000, 1000);
	set_ctr(r, 2, 0, 1000, 0);		/* never counted */
	report_build(&rep, &t, &plan, 0, 1000, SORT_CPU, 0);
	s = render_report(&rep, FMT_JSON_LINE, NULL);
	root = parse_strict(s);
	o = json_object_array_get_idx(get(root, "tasks"), 0);
	/* valid U+20AC kept; overlong C0 AF and surrogate ED A0 80 replaced */
	assert_string_equal(json_object_get_string(get(o, "comm")),
			    "\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
	ctr = get(o, "counters");
	assert_int_equal(json_object_get_int(
			 get(ctr, model_software.events[0].name)), 5);
	assert_true(json_object_is_type(get(ctr,
				model_software.events[2].name), json_type_null));
	assert_true(json_object_get_boolean(get(o, "low_coverage")));
	json_object_put(root);
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

/* Split @line on @sep; returns the field count, fills up to 8 fields. */
static int split(char *line, char sep, char **f)
{
	int n = 0;

	for (;;) {
		char *e = strchr(line, sep);

		if (n < 8)
			f[n] = line;
		n++;
		if (!e)
			return n;
		*e = '\0';
		line = e + 1;
	}
}

static void test_csv(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	char *s, *line, *save = NULL, *f[8];
	int nl = 0, per_task = 8 + model_software.nr_events;
	bool seen_on = false, seen_ctr = false, seen_unc = false;

	(void)state;
	sw_plan(&plan);
	writer_table(&t);
	/* a separator and a newline inside a name must not add fields */
	snprintf(tasks_get(&t, 102)->comm, TDBPF_COMM_LEN, "p,a\nr");
	report_build(&rep, &t, &plan, 0, 4000000000ull, SORT_CPU, 0);
	rep.lost.read_errors = 3;
	s = render_report(&rep, FMT_CSV, ",");
	assert_int_equal(count_lines(s), 1 + 3 * per_task);
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (nl++ == 0) {
			assert_string_equal(line,
				"# lost: 0 tasks (map full), 3 counter reads");
			continue;
		}
		assert_int_equal(split(line, ',', f), 6);
		/* 0x01 becomes '?'; bytes >= 0x80 and quotes stay */
		if (!strcmp(f[0], "a?\xff\"b-101")) {
			if (!strcmp(f[3], "on_cpu_ns")) {
				assert_string_equal(f[1], "3000000000");
				assert_string_equal(f[2], "ns");
				assert_string_equal(f[5], "100.00");
				seen_on = true;
			}
			if (!strcmp(f[3], "uncounted_ns")) {
				assert_string_equal(f[1], "250000");
				assert_string_equal(f[2], "ns");
				seen_unc = true;
			}
			if (!strcmp(f[3], model_software.events[1].name)) {
				assert_string_equal(f[1], "7001");
				assert_string_equal(f[4], "3000000000");
				assert_string_equal(f[5], "100.00");
				seen_ctr = true;
			}
		}
		if (!strncmp(f[0], "p?a?r-", 6))
			assert_string_equal(f[0], "p?a?r-102");
		if (!strncmp(f[0], "worker-*", 8))
			assert_string_equal(f[0], "worker-*-0");
	}
	assert_true(seen_on && seen_ctr && seen_unc);
	free(s);

	/* interval reports put the interval first: one more field */
	rep.interval = 2;
	rep.lost.read_errors = 0;
	s = render_report(&rep, FMT_CSV, ";");
	assert_int_equal(count_lines(s), 3 * per_task);
	line = strtok_r(s, "\n", &save);
	assert_int_equal(split(line, ';', f), 7);
	assert_string_equal(f[0], "2");
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

static void test_csv_not_counted(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_row *r;
	char *s, want[256];

	(void)state;
	mux_plan(&plan);
	tasks_init(&t);
	r = add(&t, 9, "m", 1000, 0, 0);
	set_ctr(r, 0, 500, 1000, 500);
	set_ctr(r, 2, 0, 1000, 0);
	report_build(&rep, &t, &plan, 0, 1000, SORT_CPU, 0);
	s = render_report(&rep, FMT_CSV, ",");
	snprintf(want, sizeof(want), "m-9,<not counted>,%s,%s,0,0.00\n",
		 model_software.events[2].unit ? model_software.events[2].unit :
						 "",
		 model_software.events[2].name);
	assert_non_null(strstr(s, want));
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

static void test_table(void **state)
{
	static const char *const cols[] = {
		"TID", "COMM", "ON-CPU ms", "CPU%", "RUNQ ms", "OFF-CPU ms",
		"SW", "MIGR", "BOTTLENECK",
	};
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	char *s, *hdr, *row;
	size_t i;

	(void)state;
	sw_plan(&plan);
	writer_table(&t);
	report_build(&rep, &t, &plan, 0, 4000000000ull, SORT_CPU, 2);
	rep.lost.map_full = 12;
	rep.lost.read_errors = 3;
	s = render_report(&rep, FMT_TABLE, NULL);
	assert_int_equal(count_lines(s), 2 + 2);
	/* 101 exited; --top left the other two to one shown row */
	assert_non_null(strstr(s, "2 of 3 tasks shown (1 exited);"));
	assert_non_null(strstr(s, "lost: 12 tasks (map full), 3 counter reads"));
	assert_non_null(strstr(s, model_software.name));
	hdr = strchr(s, '\n') + 1;
	row = strchr(hdr, '\n') + 1;
	*strchr(row, '\n') = '\0';
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (!strstr(hdr, cols[i]))
			fail_msg("column %s missing: %s", cols[i], hdr);
	for (i = 0; i < (size_t)model_software.nr_events; i++)
		assert_non_null(strstr(hdr, model_software.events[i].name));
	/* first row: odd name with '?' for 0x01 and 0xff */
	assert_non_null(strstr(row, "a??\"b"));
	assert_non_null(strstr(row, " 101 "));
	assert_non_null(strstr(row, " 3000.0 "));	/* ms on CPU */
	assert_non_null(strstr(row, " 75.0 "));	/* of 4 s */
	assert_non_null(strstr(row, " 120/3 "));
	assert_null(strchr(row, '\x01'));
	assert_null(strchr(row, '\xff'));
	/* second row: the folded one shows its task count */
	assert_non_null(strstr(row + strlen(row) + 1, "(8)"));
	assert_null(strstr(row + strlen(row) + 1, "low coverage"));
	free(s);
	report_free(&rep);
	tasks_free(&t);
}

static void test_table_low_coverage_note(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_row *r;
	char *s;

	(void)state;
	mux_plan(&plan);
	tasks_init(&t);
	r = add(&t, 1, "mux", 1000, 0, 0);
	set_ctr(r, 0, 500, 1000, 1000);
	set_ctr(r, 2, 6, 1000, 30);
	report_build(&rep, &t, &plan, 0, 1000, SORT_CPU, 0);
	s = render_report(&rep, FMT_TABLE, NULL);
	assert_non_null(strstr(s, "on-CPU (no PMU breakdown) (low coverage 3%)"));
	assert_non_null(strstr(s, "\n? low coverage"));
	assert_int_equal(count_lines(s), 4);
	free(s);
	report_free(&rep);
	tasks_free(&t);
}


/* ---- a small TMA model, to drive the TMA columns ---------------------- */

/*
 * Not a real CPU: four events and a two-level tree whose formulas are
 * simple enough to work out by hand. slots = 4 * clocks.
 */
enum { F_INST, F_CLK, F_BE, F_RET, F_NR };
enum { N_FE, N_BS, N_RET, N_BE, N_MEM, N_NR };

static const struct model_event fake_events[F_NR] = {
	[F_INST] = { .name = "INST_RETIRED.ANY", .kind = EV_FIXED },
	[F_CLK] = { .name = "CPU_CLK_UNHALTED.THREAD", .kind = EV_FIXED },
	[F_BE] = { .name = "FAKE.BACKEND", .kind = EV_GP, .level = 1 },
	[F_RET] = { .name = "FAKE.RETIRED", .kind = EV_GP, .level = 1 },
};

static const struct tma_node fake_nodes[N_NR] = {
	[N_FE] = { "tma_frontend_bound", "Frontend", -1, 1, 0.15, false,
		   .column = "FRONTEND%" },
	[N_BS] = { "tma_bad_speculation", "Bad_Speculation", -1, 1, 0.15, false,
		   .column = "BADSPEC%" },
	[N_RET] = { "tma_retiring", "Retiring", -1, 1, 0.7, false,
		    .column = "RETIRE%" },
	[N_BE] = { "tma_backend_bound", "Backend", -1, 1, 0.2, false,
		   .column = "BACKEND%" },
	[N_MEM] = TMA_NODE("tma_memory_bound", "Memory", N_BE, 2, 0.2, false),
};

static void fake_eval(const struct tma_input *in, double *out)
{
	double slots = 4 * in->ev[F_CLK];

	out[N_RET] = in->ev[F_RET] / slots;
	out[N_BE] = in->ev[F_BE] / slots;
	out[N_FE] = 0.125;
	out[N_BS] = 1 - out[N_RET] - out[N_BE] - out[N_FE];
	out[N_MEM] = out[N_BE] * 0.75;
}

static const struct model fake_model = {
	.name = "fake", .gp_smt_on = 4, .gp_smt_off = 8, .max_level = 2,
	.events = fake_events, .nr_events = F_NR,
	.nodes = fake_nodes, .nr_nodes = N_NR, .eval = fake_eval,
	.ipc_inst = "INST_RETIRED.ANY", .ipc_cycles = "CPU_CLK_UNHALTED.THREAD",
};

static void fake_plan(struct event_plan *p)
{
	one_group_plan(p, &fake_model);
	p->level = 2;
	p->nr_counters = F_NR;
}

static void fake_row(struct task_table *t, __u32 tid, __u64 inst,
		     __u64 clk, __u64 be, __u64 ret, __u64 ena, __u64 run)
{
	struct task_row *r = add(t, tid, "stage", 1000, 0, 0);

	set_ctr(r, F_INST, inst, ena, run);
	set_ctr(r, F_CLK, clk, ena, run);
	set_ctr(r, F_BE, be, ena, run);
	set_ctr(r, F_RET, ret, ena, run);
}

static void test_tma_columns(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_decoded dec;
	const struct task_decoded *d;
	json_object *o, *tasks, *met;
	char *s, *line;

	(void)state;
	fake_plan(&plan);
	tasks_init(&t);
	/* slots 4000: backend 2400/4000 = 60%, memory 45%, retiring 30% */
	fake_row(&t, 1, 2500, 1000, 2400, 1200, 100, 100);
	/* retiring 4800/4000 = 120%: shown clamped, JSON exact */
	fake_row(&t, 2, 10000, 1000, 0, 4800, 100, 100);
	/* 4% coverage: counts x25; same fractions as tid 1 */
	fake_row(&t, 3, 100, 40, 96, 48, 100, 4);
	assert_int_equal(report_build(&rep, &t, &plan, 0, 1000, SORT_TID, 0),
			 0);
	assert_int_equal(rep.level, 2);
	d = by_tid(&rep, 1, &dec);
	assert_true(d->has_tma);
	assert_true(fabs(d->tma.val[N_BE] - 0.6) < 1e-12);
	assert_true(fabs(d->tma.val[N_MEM] - 0.45) < 1e-12);
	assert_string_equal(d->bottleneck, "Backend.Memory");
	d = by_tid(&rep, 3, &dec);
	assert_true(d->ev[F_CLK] == 1000.0);
	assert_true(fabs(d->coverage - 0.04) < 1e-12);
	assert_true(d->low_coverage);
	assert_string_equal(d->bottleneck, "Backend.Memory (low coverage 4%)");
	/* the same struct again: nothing of tid 3 shows through */
	d = by_tid(&rep, 1, &dec);
	assert_true(d->coverage == 1.0);
	assert_false(d->low_coverage);
	assert_string_equal(d->bottleneck, "Backend.Memory");

	s = render_report(&rep, FMT_TABLE, NULL);
	line = strchr(s, '\n') + 1;
	assert_non_null(strstr(s, "level 2"));
	assert_non_null(strstr(line, "RETIRE%"));
	assert_non_null(strstr(line, "BADSPEC%"));
	assert_non_null(strstr(line, "FRONTEND%"));
	assert_non_null(strstr(line, "BACKEND%"));
	assert_non_null(strstr(line, "IPC"));
	line = strchr(line, '\n') + 1;
	/* tid 1: FE 12.5 BS -2.5 -> 0.0 RET 30 BE 60, IPC 2.5 */
	assert_non_null(strstr(line, " 12.5 "));
	assert_non_null(strstr(line, " 0.0 "));
	assert_non_null(strstr(line, " 30.0 "));
	assert_non_null(strstr(line, " 60.0 "));
	assert_non_null(strstr(line, " 2.50 "));
	assert_non_null(strstr(line, "Backend.Memory <=="));
	line = strchr(line, '\n') + 1;
	assert_non_null(strstr(line, " 100.0 "));	/* clamped 120 */
	assert_non_null(strstr(line, " 10.00 "));	/* IPC */
	line = strchr(line, '\n') + 1;
	assert_non_null(strstr(line, "60.0?"));
	assert_non_null(strstr(line, "Backend.Memory <== (low coverage 4%)"));
	assert_non_null(strstr(s, "\n? low coverage"));
	free(s);

	s = render_report(&rep, FMT_JSON, NULL);
	o = parse_strict(s);
	assert_int_equal(json_object_get_int(get(o, "level")), 2);
	tasks = get(o, "tasks");
	met = get(json_object_array_get_idx(tasks, 0), "metrics");
	assert_int_equal(json_object_object_length(met), N_NR);
	assert_true(fabs(json_object_get_double(get(met, "tma_backend_bound")) -
			 60) < 1e-9);
	assert_true(fabs(json_object_get_double(get(met, "tma_bad_speculation"))
			 + 2.5) < 1e-9);	/* not clamped */
	met = get(json_object_array_get_idx(tasks, 1), "metrics");
	assert_true(fabs(json_object_get_double(get(met, "tma_retiring")) -
			 120) < 1e-9);
	json_object_put(o);
	free(s);

	/* CSV: one line per node down to the level, in percent */
	s = render_report(&rep, FMT_CSV, ",");
	assert_int_equal(count_lines(s), 3 * (8 + F_NR + N_NR));
	assert_non_null(strstr(s, "stage-1,60.00,%,tma_backend_bound,1000,100.00\n"));
	assert_non_null(strstr(s, "stage-1,-2.50,%,tma_bad_speculation,"));
	assert_non_null(strstr(s, "stage-3,60.00,%,tma_backend_bound,1000,4.00\n"));
	free(s);
	report_free(&rep);

	/* level 1 asked: no level-2 node, path stops at Backend */
	report_build(&rep, &t, &plan, 1, 1000, SORT_TID, 0);
	assert_int_equal(rep.level, 1);
	assert_string_equal(by_tid(&rep, 1, &dec)->bottleneck, "Backend");
	s = render_report(&rep, FMT_JSON_LINE, NULL);
	o = parse_strict(s);
	met = get(json_object_array_get_idx(get(o, "tasks"), 0), "metrics");
	assert_int_equal(json_object_object_length(met), 4);
	assert_false(has(met, "tma_memory_bound"));
	json_object_put(o);
	free(s);
	report_free(&rep);

	/* no plan, and @dec last held a TMA task: no tree, full coverage */
	report_build(&rep, &t, NULL, 0, 1000, SORT_TID, 0);
	d = by_tid(&rep, 3, &dec);
	assert_false(d->has_tma);
	assert_int_equal(d->tma.bottleneck, -1);
	assert_true(d->coverage == 1.0);
	assert_false(d->low_coverage);
	assert_string_equal(d->bottleneck, "on-CPU (no PMU breakdown)");
	report_free(&rep);
	tasks_free(&t);
}

/* ---- the JSON writer on hostile input --------------------------------- */

static const struct {
	const char *comm;	/* as the kernel may report it: <= 15 bytes */
	const char *json;	/* what the parsed "comm" must be */
} nasty[] = {
	/* quote, backslash, slash, DEL: all legal once escaped */
	{ "q\"b\\s/\x7f", "q\"b\\s/\x7f" },
	/* every kind of control byte, short escapes and \uXXXX */
	{ "\x01\x08\t\n\x0c\r\x1b\x1f", "\x01\x08\t\n\x0c\r\x1b\x1f" },
	/* 15 bytes, cut inside a 3-byte sequence: two bad bytes */
	{ "abcdefghijklm\xe2\x82",
	  "abcdefghijklm\xef\xbf\xbd\xef\xbf\xbd" },
	/* 15 bytes with a valid 4-byte sequence: kept */
	{ "\xf0\x9f\x98\x80" "0123456789a",
	  "\xf0\x9f\x98\x80" "0123456789a" },
	/* stray bytes, overlong NUL, lead byte beyond U+10FFFF */
	{ "\xff\xfe\xc0\x80\xf5\x80",
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	  "\xef\xbf\xbd\xef\xbf\xbd" },
	{ "abcdefghijklmno", "abcdefghijklmno" },
};

#define NR_NASTY ((int)(sizeof(nasty) / sizeof(nasty[0])))

/*
 * What printf makes of @v with "%.*f", read back: the JSON report rounds
 * counts to whole counts and fractions to 6 decimals, as printf does.
 */
static double printf_rounded(double v, int prec)
{
	char buf[400];

	if (fabs(v) >= 9007199254740992.0)	/* 2^53: printed exactly */
		return v;
	snprintf(buf, sizeof(buf), "%.*f", prec, v);
	return strtod(buf, NULL);
}

/*
 * Each parsed value of @x must be the decoded value: integers to the
 * last bit, counts and fractions as printf rounds them.
 */
static void check_task_json(json_object *x, const struct task_decoded *d)
{
	const struct task_row *r = d->row;
	json_object *ctr = get(x, "counters"), *met, *v;
	int i;

	assert_true(json_object_is_type(get(x, "on_cpu_ns"), json_type_int));
	assert_true(json_object_get_uint64(get(x, "on_cpu_ns")) ==
		    r->sched.on_cpu_ns);
	assert_true(json_object_get_uint64(get(x, "runq_wait_ns")) ==
		    r->sched.runq_wait_ns);
	assert_true(json_object_get_uint64(get(x, "off_cpu_ns")) ==
		    r->sched.off_cpu_ns);
	assert_true(json_object_get_uint64(get(x, "switches")) ==
		    r->sched.nvcsw + r->sched.nivcsw);
	assert_true(json_object_get_uint64(get(x, "voluntary")) == r->sched.nvcsw);
	assert_true(json_object_get_uint64(get(x, "involuntary")) ==
		    r->sched.nivcsw);
	assert_true(json_object_get_uint64(get(x, "migrations")) ==
		    r->sched.migrations);
	assert_true(json_object_get_double(get(x, "coverage")) ==
		    printf_rounded(d->coverage, 6));
	assert_int_equal(json_object_get_boolean(get(x, "low_coverage")),
			 d->low_coverage);
	assert_string_equal(json_object_get_string(get(x, "sched")),
			    sched_verdict_str(d->sched));
	assert_string_equal(json_object_get_string(get(x, "bottleneck")),
			    d->bottleneck);
	assert_int_equal(json_object_object_length(ctr), F_NR);
	for (i = 0; i < F_NR; i++) {
		v = get(ctr, fake_events[i].name);
		if (isnan(d->ev[i]))
			assert_true(json_object_is_type(v, json_type_null));
		else
			assert_true(json_object_get_double(v) ==
				    printf_rounded(d->ev[i], 0));
	}
	met = get(x, "metrics");
	assert_int_equal(json_object_object_length(met), N_NR);
	for (i = 0; i < N_NR; i++) {
		double want = printf_rounded(d->tma.val[i] * 100, 6);

		v = get(met, fake_nodes[i].name);
		if (isnan(want))
			assert_true(json_object_is_type(v, json_type_null));
		else if (json_object_get_double(v) != want)
			fail_msg("%s: %.17g, want %.17g", fake_nodes[i].name,
				 json_object_get_double(v), want);
	}
}

/*
 * The JSON writer writes keys unescaped: every model's event and node
 * name must be printable ASCII without a quote or a backslash.
 */
static void test_json_keys_plain(void **state)
{
	const char *name;
	int k, i, j;

	(void)state;
	for (k = 0; models[k]; k++) {
		const struct model *m = models[k];

		for (i = 0; i < m->nr_events + m->nr_nodes; i++) {
			name = i < m->nr_events ? m->events[i].name :
						  m->nodes[i - m->nr_events].name;
			assert_non_null(name);
			assert_true(name[0] != '\0');
			for (j = 0; name[j]; j++)
				if (name[j] < 0x20 || name[j] > 0x7e ||
				    name[j] == '"' || name[j] == '\\')
					fail_msg("model %s: name \"%s\" needs "
						 "escaping in JSON", m->name,
						 name);
		}
	}
}

static void test_json_nasty(void **state)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_decoded dec;
	const struct task_decoded *d;
	json_object *root, *tasks, *x, *v;
	struct task_row *r;
	char *s;
	int i, line, k;

	(void)state;
	fake_plan(&plan);
	tasks_init(&t);
	for (i = 0; i < NR_NASTY; i++) {
		r = add(&t, i + 1, nasty[i].comm, UINT64_MAX - i, 1ull << 63,
			UINT64_MAX);
		r->sched.nvcsw = UINT64_MAX / 2;
		r->sched.nivcsw = UINT64_MAX / 2;
		r->sched.migrations = UINT64_MAX;
		for (k = 0; k < F_NR; k++)
			set_ctr(r, k, 0, 0, 0);
	}
	/* tid 1: enabled, never on a counter: every count and metric NaN */
	for (k = 0; k < F_NR; k++)
		set_ctr(tasks_get(&t, 1), k, 0, 1000, 0);
	/* tid 2: multiplexed 3 of 7: thirds, metrics not integral */
	r = tasks_get(&t, 2);
	set_ctr(r, F_INST, 1000, 7, 3);
	set_ctr(r, F_CLK, 1001, 7, 3);
	set_ctr(r, F_BE, 997, 7, 3);
	set_ctr(r, F_RET, 1, 7, 3);
	/* tid 3: counts past 2^53 cannot all be integers in a double */
	r = tasks_get(&t, 3);
	set_ctr(r, F_INST, (1ull << 60) + 1, 5, 5);
	set_ctr(r, F_CLK, UINT64_MAX, 5, 5);
	set_ctr(r, F_BE, (1ull << 53) + 1, 5, 5);
	set_ctr(r, F_RET, (1ull << 53) - 1, 5, 5);

	assert_int_equal(report_build(&rep, &t, &plan, 2, UINT64_MAX,
				      SORT_TID, 0), 0);
	rep.lost.map_full = UINT64_MAX;
	rep.lost.read_errors = 1ull << 63;
	d = by_tid(&rep, 1, &dec);
	assert_true(isnan(d->ev[F_INST]) && isnan(d->tma.val[N_RET]));
	d = by_tid(&rep, 2, &dec);
	assert_true(d->ev[F_INST] == 1000 * (7.0 / 3.0));
	assert_true(d->ev[F_INST] != floor(d->ev[F_INST]));

	for (line = 0; line <= 1; line++) {
		rep.interval = line ? 4 : -1;
		s = render_report(&rep, line ? FMT_JSON_LINE : FMT_JSON, NULL);
		if (line)	/* a '\n' in a name stays escaped */
			assert_int_equal(count_lines(s), 1);
		else
			assert_true(count_lines(s) > 30 * NR_NASTY);
		root = parse_strict(s);
		assert_true(json_object_get_uint64(get(root, "duration_ns")) ==
			    UINT64_MAX);
		x = get(root, "lost");
		assert_true(json_object_get_uint64(get(x, "map_full")) ==
			    UINT64_MAX);
		assert_true(json_object_get_uint64(get(x, "read_errors")) ==
			    1ull << 63);
		assert_int_equal(has(root, "interval"), line);
		tasks = get(root, "tasks");
		assert_int_equal(json_object_array_length(tasks), NR_NASTY);
		for (i = 0; i < NR_NASTY; i++) {
			x = json_object_array_get_idx(tasks, i);
			assert_int_equal(json_object_get_int(get(x, "tid")),
					 i + 1);
			v = get(x, "comm");
			assert_string_equal(json_object_get_string(v),
					    nasty[i].json);
			check_task_json(x, by_tid(&rep, i + 1, &dec));
		}
		/* spot checks by hand: NaN is null, 2^53 - 1 an integer */
		x = json_object_array_get_idx(tasks, 0);
		v = get(get(x, "metrics"), "tma_retiring");
		assert_true(json_object_is_type(v, json_type_null));
		v = get(get(x, "counters"), "INST_RETIRED.ANY");
		assert_true(json_object_is_type(v, json_type_null));
		/* 1000 * 7 / 3 = 2333.33...: a whole count */
		x = get(json_object_array_get_idx(tasks, 1), "counters");
		v = get(x, "INST_RETIRED.ANY");
		assert_true(json_object_is_type(v, json_type_int));
		assert_int_equal(json_object_get_int64(v), 2333);
		x = get(json_object_array_get_idx(tasks, 2), "counters");
		v = get(x, "FAKE.RETIRED");
		assert_true(json_object_is_type(v, json_type_int));
		assert_true(json_object_get_int64(v) == (1ll << 53) - 1);
		assert_true(json_object_get_double(get(x, "INST_RETIRED.ANY"))
			    == 1152921504606846976.0);	/* 2^60 */
		assert_true(json_object_get_double(get(x,
			"CPU_CLK_UNHALTED.THREAD")) == 18446744073709551616.0);
		json_object_put(root);
		free(s);
	}
	report_free(&rep);

	/* nothing to show: still a document, with an empty list */
	tasks_reset(&t);
	report_build(&rep, &t, NULL, 0, 0, SORT_CPU, 0);
	for (line = 0; line <= 1; line++) {
		s = render_report(&rep, line ? FMT_JSON_LINE : FMT_JSON, NULL);
		root = parse_strict(s);
		assert_string_equal(json_object_get_string(get(root, "model")),
				    "none");
		assert_int_equal(json_object_array_length(get(root, "tasks")),
				 0);
		json_object_put(root);
		free(s);
	}
	report_free(&rep);
	tasks_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_count),
		cmocka_unit_test(test_sched_judge),
		cmocka_unit_test(test_build_sort_top),
		cmocka_unit_test(test_build_decode),
		cmocka_unit_test(test_build_coverage),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_nan_is_null),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_not_counted),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_low_coverage_note),
		cmocka_unit_test(test_tma_columns),
		cmocka_unit_test(test_json_nasty),
		cmocka_unit_test(test_json_keys_plain),
	};

	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
