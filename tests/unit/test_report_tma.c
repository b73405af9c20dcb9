// SPDX-License-Identifier: GPL-2.0
/*
 * The writers' TMA columns, driven by a small TMA model made here, and the
 * JSON writer on hostile input (names, NaN, huge and tiny values).
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
#include "report_helpers.h"

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
		   .column = "FE%" },
	[N_BS] = { "tma_bad_speculation", "Bad_Speculation", -1, 1, 0.15, false,
		   .column = "BAD%" },
	[N_RET] = { "tma_retiring", "Retiring", -1, 1, 0.7, false,
		    .column = "RET%" },
	[N_BE] = { "tma_backend_bound", "Backend", -1, 1, 0.2, false,
		   .column = "BE%" },
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
	struct report_fix fx;
	const struct task_decoded *d;
	json_object *o, *tasks, *met;
	char *s, *line;

	(void)state;
	fake_plan(&fx.plan);
	tasks_init(&fx.t);
	/* slots 4000: backend 2400/4000 = 60%, memory 45%, retiring 30% */
	fake_row(&fx.t, 1, 2500, 1000, 2400, 1200, 100, 100);
	/* retiring 4800/4000 = 120%: shown clamped, JSON exact */
	fake_row(&fx.t, 2, 10000, 1000, 0, 4800, 100, 100);
	/* 4% coverage: counts x25; same fractions as tid 1 */
	fake_row(&fx.t, 3, 100, 40, 96, 48, 100, 4);
	fix_build(&fx, 0, 1000, SORT_TID, 0);
	assert_int_equal(fx.rep.level, 2);
	d = fix_task(&fx, 1);
	assert_true(d->has_tma);
	assert_true(fabs(d->tma.val[N_BE] - 0.6) < 1e-12);
	assert_true(fabs(d->tma.val[N_MEM] - 0.45) < 1e-12);
	assert_string_equal(d->bottleneck, "Backend.Memory");
	d = fix_task(&fx, 3);
	assert_true(d->ev[F_CLK] == 1000.0);
	assert_true(fabs(d->coverage - 0.04) < 1e-12);
	assert_true(d->low_coverage);
	assert_string_equal(d->bottleneck, "Backend.Memory (low coverage 4%)");
	/* the same struct again: nothing of tid 3 shows through */
	d = fix_task(&fx, 1);
	assert_true(d->coverage == 1.0);
	assert_false(d->low_coverage);
	assert_string_equal(d->bottleneck, "Backend.Memory");

	s = render_report(&fx.rep, FMT_TABLE, NULL);
	line = strchr(s, '\n') + 1;
	assert_non_null(strstr(s, "level 2"));
	has_all(line, STRS("RET%", "BAD%", "FE%", "BE%", "IPC"));
	line = strchr(line, '\n') + 1;
	/* tid 1: FE 12.5 BS -2.5 -> 0.0 RET 30 BE 60, IPC 2.5 */
	has_all(line, STRS(" 12.5 ", " 0.0 ", " 30.0 ", " 60.0 ", " 2.50 ",
			   "Backend.Memory <=="));
	line = strchr(line, '\n') + 1;
	assert_non_null(strstr(line, " 100.0 "));	/* clamped 120 */
	assert_non_null(strstr(line, " 10.00 "));	/* IPC */
	line = strchr(line, '\n') + 1;
	assert_non_null(strstr(line, "60.0?"));
	/* past 120 columns the verdict wraps at a word, under its column */
	assert_non_null(strstr(line, "Backend.Memory <== (low"));
	line = strchr(line, '\n') + 1;
	assert_true(strspn(line, " ") > 60);
	assert_int_equal(strncmp(line + strspn(line, " "), "coverage 4%)\n", 13), 0);
	assert_non_null(strstr(s, "\n? low coverage"));
	free(s);

	s = render_report(&fx.rep, FMT_JSON, NULL);
	o = parse_strict(s);
	assert_int_equal(json_object_get_int(jget(o, "level")), 2);
	tasks = jget(o, "tasks");
	met = jget(json_object_array_get_idx(tasks, 0), "metrics");
	assert_int_equal(json_object_object_length(met), N_NR);
	assert_true(fabs(json_object_get_double(jget(met, "tma_backend_bound")) -
			 60) < 1e-9);
	assert_true(fabs(json_object_get_double(jget(met, "tma_bad_speculation"))
			 + 2.5) < 1e-9);	/* not clamped */
	met = jget(json_object_array_get_idx(tasks, 1), "metrics");
	assert_true(fabs(json_object_get_double(jget(met, "tma_retiring")) -
			 120) < 1e-9);
	json_object_put(o);
	free(s);

	/* CSV: one line per node down to the level, in percent */
	s = render_report(&fx.rep, FMT_CSV, ",");
	assert_int_equal(count_lines(s), 3 * (9 + F_NR + N_NR));
	has_all(s, STRS("stage-1,60.00,%,tma_backend_bound,1000,100.00\n",
			"stage-1,-2.50,%,tma_bad_speculation,",
			"stage-3,60.00,%,tma_backend_bound,1000,4.00\n"));
	free(s);
	report_free(&fx.rep);

	/* level 1 asked: no level-2 node, path stops at Backend */
	report_build(&fx.rep, &fx.t, &fx.plan, 1, 1000, SORT_TID, 0);
	assert_int_equal(fx.rep.level, 1);
	assert_string_equal(fix_task(&fx, 1)->bottleneck, "Backend");
	s = render_report(&fx.rep, FMT_JSON_LINE, NULL);
	o = parse_strict(s);
	met = jget(json_object_array_get_idx(jget(o, "tasks"), 0), "metrics");
	assert_int_equal(json_object_object_length(met), 4);
	assert_false(jhas(met, "tma_memory_bound"));
	json_object_put(o);
	free(s);
	report_free(&fx.rep);

	/* no plan, and @dec last held a TMA task: no tree, full coverage */
	report_build(&fx.rep, &fx.t, NULL, 0, 1000, SORT_TID, 0);
	d = fix_task(&fx, 3);
	assert_false(d->has_tma);
	assert_int_equal(d->tma.bottleneck, -1);
	assert_true(d->coverage == 1.0);
	assert_false(d->low_coverage);
	assert_string_equal(d->bottleneck, "on-CPU (no PMU breakdown)");
	fix_free(&fx);
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
	json_object *ctr = jget(x, "counters"), *met, *v;
	int i;

	assert_true(json_object_is_type(jget(x, "on_cpu_ns"), json_type_int));
	assert_true(json_object_get_uint64(jget(x, "on_cpu_ns")) ==
		    r->sched.on_cpu_ns);
	assert_true(json_object_get_uint64(jget(x, "runq_wait_ns")) ==
		    r->sched.runq_wait_ns);
	assert_true(json_object_get_uint64(jget(x, "off_cpu_ns")) ==
		    r->sched.off_cpu_ns);
	assert_true(json_object_get_uint64(jget(x, "switches")) ==
		    r->sched.nvcsw + r->sched.nivcsw);
	assert_true(json_object_get_uint64(jget(x, "voluntary")) == r->sched.nvcsw);
	assert_true(json_object_get_uint64(jget(x, "involuntary")) ==
		    r->sched.nivcsw);
	assert_true(json_object_get_uint64(jget(x, "migrations")) ==
		    r->sched.migrations);
	assert_true(json_object_get_double(jget(x, "coverage")) ==
		    printf_rounded(d->coverage, 6));
	assert_int_equal(json_object_get_boolean(jget(x, "low_coverage")),
			 d->low_coverage);
	assert_string_equal(json_object_get_string(jget(x, "sched")),
			    sched_verdict_str(d->sched));
	assert_string_equal(json_object_get_string(jget(x, "bottleneck")),
			    d->bottleneck);
	assert_int_equal(json_object_object_length(ctr), F_NR);
	for (i = 0; i < F_NR; i++) {
		v = jget(ctr, fake_events[i].name);
		if (isnan(d->ev[i]))
			assert_true(json_object_is_type(v, json_type_null));
		else
			assert_true(json_object_get_double(v) ==
				    printf_rounded(d->ev[i], 0));
	}
	met = jget(x, "metrics");
	assert_int_equal(json_object_object_length(met), N_NR);
	for (i = 0; i < N_NR; i++) {
		double want = printf_rounded(d->tma.val[i] * 100, 6);

		v = jget(met, fake_nodes[i].name);
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
	struct report_fix fx;
	const struct task_decoded *d;
	json_object *root, *tasks, *x, *v;
	struct task_row *r;
	char *s;
	int i, line, k;

	(void)state;
	fake_plan(&fx.plan);
	tasks_init(&fx.t);
	for (i = 0; i < NR_NASTY; i++) {
		r = add(&fx.t, i + 1, nasty[i].comm, UINT64_MAX - i, 1ull << 63,
			UINT64_MAX);
		r->sched.nvcsw = UINT64_MAX / 2;
		r->sched.nivcsw = UINT64_MAX / 2;
		r->sched.migrations = UINT64_MAX;
		for (k = 0; k < F_NR; k++)
			set_ctr(r, k, 0, 0, 0);
	}
	/* tid 1: enabled, never on a counter: every count and metric NaN */
	for (k = 0; k < F_NR; k++)
		set_ctr(tasks_get(&fx.t, 1), k, 0, 1000, 0);
	/* tid 2: multiplexed 3 of 7: thirds, metrics not integral */
	r = tasks_get(&fx.t, 2);
	set_ctr(r, F_INST, 1000, 7, 3);
	set_ctr(r, F_CLK, 1001, 7, 3);
	set_ctr(r, F_BE, 997, 7, 3);
	set_ctr(r, F_RET, 1, 7, 3);
	/* tid 3: counts past 2^53 cannot all be integers in a double */
	r = tasks_get(&fx.t, 3);
	set_ctr(r, F_INST, (1ull << 60) + 1, 5, 5);
	set_ctr(r, F_CLK, UINT64_MAX, 5, 5);
	set_ctr(r, F_BE, (1ull << 53) + 1, 5, 5);
	set_ctr(r, F_RET, (1ull << 53) - 1, 5, 5);

	fix_build(&fx, 2, UINT64_MAX, SORT_TID, 0);
	fx.rep.lost.map_full = UINT64_MAX;
	fx.rep.lost.read_errors = 1ull << 63;
	d = fix_task(&fx, 1);
	assert_true(isnan(d->ev[F_INST]) && isnan(d->tma.val[N_RET]));
	d = fix_task(&fx, 2);
	assert_true(d->ev[F_INST] == 1000 * (7.0 / 3.0));
	assert_true(d->ev[F_INST] != floor(d->ev[F_INST]));

	for (line = 0; line <= 1; line++) {
		fx.rep.interval = line ? 4 : -1;
		s = render_report(&fx.rep, line ? FMT_JSON_LINE : FMT_JSON,
				  NULL);
		if (line)	/* a '\n' in a name stays escaped */
			assert_int_equal(count_lines(s), 1);
		else
			assert_true(count_lines(s) > 30 * NR_NASTY);
		root = parse_strict(s);
		assert_true(json_object_get_uint64(jget(root, "duration_ns")) ==
			    UINT64_MAX);
		x = jget(root, "lost");
		assert_true(json_object_get_uint64(jget(x, "map_full")) ==
			    UINT64_MAX);
		assert_true(json_object_get_uint64(jget(x, "read_errors")) ==
			    1ull << 63);
		assert_int_equal(jhas(root, "interval"), line);
		tasks = jget(root, "tasks");
		assert_int_equal(json_object_array_length(tasks), NR_NASTY);
		for (i = 0; i < NR_NASTY; i++) {
			x = json_object_array_get_idx(tasks, i);
			assert_int_equal(json_object_get_int(jget(x, "tid")),
					 i + 1);
			v = jget(x, "comm");
			assert_string_equal(json_object_get_string(v),
					    nasty[i].json);
			check_task_json(x, fix_task(&fx, i + 1));
		}
		/* spot checks by hand: NaN is null, 2^53 - 1 an integer */
		x = json_object_array_get_idx(tasks, 0);
		v = jget(jget(x, "metrics"), "tma_retiring");
		assert_true(json_object_is_type(v, json_type_null));
		v = jget(jget(x, "counters"), "INST_RETIRED.ANY");
		assert_true(json_object_is_type(v, json_type_null));
		/* 1000 * 7 / 3 = 2333.33...: a whole count */
		x = jget(json_object_array_get_idx(tasks, 1), "counters");
		v = jget(x, "INST_RETIRED.ANY");
		assert_true(json_object_is_type(v, json_type_int));
		assert_int_equal(json_object_get_int64(v), 2333);
		x = jget(json_object_array_get_idx(tasks, 2), "counters");
		v = jget(x, "FAKE.RETIRED");
		assert_true(json_object_is_type(v, json_type_int));
		assert_true(json_object_get_int64(v) == (1ll << 53) - 1);
		assert_true(json_object_get_double(jget(x, "INST_RETIRED.ANY"))
			    == 1152921504606846976.0);	/* 2^60 */
		assert_true(json_object_get_double(jget(x,
			"CPU_CLK_UNHALTED.THREAD")) == 18446744073709551616.0);
		json_object_put(root);
		free(s);
	}
	report_free(&fx.rep);

	/* nothing to show: still a document, with an empty list */
	tasks_reset(&fx.t);
	report_build(&fx.rep, &fx.t, NULL, 0, 0, SORT_CPU, 0);
	for (line = 0; line <= 1; line++) {
		s = render_report(&fx.rep, line ? FMT_JSON_LINE : FMT_JSON,
				  NULL);
		root = parse_strict(s);
		assert_string_equal(json_object_get_string(jget(root, "model")),
				    "none");
		assert_int_equal(json_object_array_length(jget(root, "tasks")),
				 0);
		json_object_put(root);
		free(s);
	}
	fix_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tma_columns),
		cmocka_unit_test(test_json_nasty),
		cmocka_unit_test(test_json_keys_plain),
	};

	return cmocka_run_group_tests_name("report_tma", tests, NULL, NULL);
}
