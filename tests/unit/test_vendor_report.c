// SPDX-License-Identifier: GPL-2.0
/*
 * The report of the AMD and Arm models, end to end from per-task counts
 * through the real models and plans: the level-1 columns are the
 * vendor's (five on Zen 4, SMT contention among them, no IPC column as
 * no instructions counter fits beside them), Arm's Cycle_Accounting is
 * in the JSON but neither a column nor on the bottleneck path, and the
 * verdicts are worked out by hand from perf's formulas.
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
#include "outputs/sink.h"
#include "report_helpers.h"

struct count {
	const char *event;
	__u64 value;
};

/* one task, on CPU the whole window, every counter running throughout */
static void task(struct task_table *t, const struct event_plan *p,
		 __u32 tid, const struct count *c, int n)
{
	struct task_row *r = tasks_get(t, tid);
	int i, s, ev;

	assert_non_null(r);
	snprintf(r->comm, sizeof(r->comm), "stage%u", tid);
	r->pid = 1000;
	r->sched.on_cpu_ns = 1000000;
	for (i = 0; i < n; i++) {
		ev = model_event_index(p->model, c[i].event);
		assert_true(ev >= 0);
		for (s = 0; s < p->nr && p->ev[s] != ev; s++)
			;
		assert_true(s < p->nr);
		r->ctr[s].value = c[i].value;
		r->ctr[s].enabled = r->ctr[s].running = 100;
	}
}

static char *table(const struct report *rep)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	report_write_table(f, rep);
	return slurp(f);
}

static json_object *json(const struct report *rep)
{
	FILE *f = tmpfile();
	json_object *o;
	char *s;

	assert_non_null(f);
	report_write_json(f, rep, false);
	s = slurp(f);
	o = json_tokener_parse(s);
	assert_non_null(o);
	free(s);
	return o;
}

static json_object *metrics_of(json_object *doc, int i)
{
	json_object *tasks, *m;

	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	assert_true(json_object_object_get_ex(
		json_object_array_get_idx(tasks, i), "metrics", &m));
	return m;
}

static double metric(json_object *m, const char *name)
{
	json_object *v;

	if (!json_object_object_get_ex(m, name, &v))
		fail_msg("no metric %s", name);
	return json_object_get_double(v);
}

/* @m's metric @name is @want, to less than @eps */
static void metric_near(json_object *m, const char *name, double want,
			double eps)
{
	double got = metric(m, name);

	if (!(fabs(got - want) < eps))
		fail_msg("%s: %.17g, want %.17g", name, got, want);
}

/* @m's plan at @level (@smt, @gp counters) in @fx, and an empty table */
static void plan_of(struct report_fix *fx, const struct model *m, int level,
		    bool smt, int gp)
{

	plan_ok(&fx->plan, m, level, smt, gp);
	tasks_init(&fx->t);
}

/*
 * @m's level-1 plan (SMT off, six counters) in @fx, one task @tid of the
 * @n counts @c, its report: the report's table (caller frees).
 */
static char *one_task_table(struct report_fix *fx, const struct model *m,
			    __u32 tid, const struct count *c, int n)
{
	plan_of(fx, m, 1, false, 6);
	task(&fx->t, &fx->plan, tid, c, n);
	fix_build(fx, 0, 1000000, SORT_TID, 0);
	return table(&fx->rep);
}

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static const char *line(const char *s, int n)
{
	while (n-- > 0) {
		s = strchr(s, '\n');
		assert_non_null(s);
		s++;
	}
	return s;
}

/*
 * Zen 4 level 1 on six counters: slots = 6 x 1e6. Task 1: frontend 20%,
 * bad speculation (2.3e6 - 2e6) 5%, backend 41.7%, SMT 5%, retiring
 * 33.3%: Backend. Task 2: the sibling took 3e6 slots, 50%: SMT_Contention.
 */
static void test_zen4_columns(void **state)
{
	const struct count t1[] = {
		{ "ls_not_halted_cyc", 1000000 },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 1200000 },
		{ "de_no_dispatch_per_slot.backend_stalls", 2500000 },
		{ "de_no_dispatch_per_slot.smt_contention", 300000 },
		{ "de_src_op_disp.all", 2300000 },
		{ "ex_ret_ops", 2000000 },
	};
	const struct count t2[] = {
		{ "ls_not_halted_cyc", 1000000 },
		{ "de_no_dispatch_per_slot.no_ops_from_frontend", 600000 },
		{ "de_no_dispatch_per_slot.backend_stalls", 900000 },
		{ "de_no_dispatch_per_slot.smt_contention", 3000000 },
		{ "de_src_op_disp.all", 1500000 },
		{ "ex_ret_ops", 1500000 },
	};
	struct report_fix fx;
	json_object *doc, *m;
	const char *hdr, *fe, *bs, *be, *smt, *ret;
	char *s;

	(void)state;
	plan_of(&fx, &model_amdzen4, 1, true, 6);
	assert_int_equal(fx.plan.nr, 6);
	assert_int_equal(fx.plan.nr_groups, 1);
	task(&fx.t, &fx.plan, 1, t1, NR(t1));
	task(&fx.t, &fx.plan, 2, t2, NR(t2));
	fix_build(&fx, 0, 1000000, SORT_TID, 0);

	s = table(&fx.rep);
	assert_non_null(strstr(s, "model amdzen4, level 1, SMT on"));
	hdr = line(s, 1);
	fe = strstr(hdr, "FE%");
	bs = strstr(hdr, "BAD%");
	be = strstr(hdr, "BE%");
	smt = strstr(hdr, "SMT%");
	ret = strstr(hdr, "RET%");
	/* the five of perf's PipelineL1, in its order */
	assert_true(fe && bs && be && smt && ret);
	assert_true(fe < bs && bs < be && be < smt && smt < ret);
	assert_true(ret < strstr(hdr, "BOTTLENECK"));
	assert_null(strstr(hdr, "IPC"));
	has_all(line(s, 2), STRS(" 20.0  ", " 5.0  ", " 41.7  ", " 33.3  ",
				 " Backend <=="));
	has_all(line(s, 3), STRS(" 50.0  ", " SMT_Contention <=="));
	free(s);

	doc = json(&fx.rep);
	m = metrics_of(doc, 0);
	assert_int_equal(json_object_object_length(m), 5);
	metric_near(m, "frontend_bound", 20, 1e-9);
	metric_near(m, "bad_speculation", 5, 1e-9);
	metric_near(m, "backend_bound", 250.0 / 6, 1e-6);
	metric_near(m, "smt_contention", 5, 1e-9);
	metric_near(m, "retiring", 100.0 / 3, 1e-6);
	json_object_put(doc);
	fix_free(&fx);
}

/* Zen 4 level 2 needs 12 events on six counters: two groups */
static void test_zen4_level2_multiplexes(void **state)
{
	struct event_plan p;

	(void)state;
	plan_ok(&p, &model_amdzen4, 2, false, 6);
	assert_int_equal(p.nr, 12);
	assert_int_equal(p.nr_groups, 2);
	/* no fixed counters: a general-purpose event leads each group */
	assert_true(p.gp_idx[p.leader[0]] >= 0);
	assert_true(p.gp_idx[p.leader[1]] >= 0);
}

/*
 * Neoverse N2, 5 slots: 1e6 cycles, 5e6 slots. stall_slot 1e6 (20%),
 * op_retired / op_spec 0.95: retiring 0.95 * 0.8 = 76% > 70%: Retiring.
 * Frontend stalled in 50% of cycles, over its 15%, but beside the tree.
 */
static void test_neoverse_n2_columns(void **state)
{
	const struct count c[] = {
		{ "cpu_cycles", 1000000 },
		{ "stall_slot", 1000000 },
		{ "stall_slot_frontend", 600000 },
		{ "stall_slot_backend", 400000 },
		{ "op_retired", 1900000 },
		{ "op_spec", 2000000 },
		{ "br_mis_pred", 1000 },
		{ "inst_retired", 2500000 },
		{ "stall_frontend", 500000 },
		{ "stall_backend", 100000 },
	};
	struct report_fix fx;
	json_object *doc, *m;
	const char *hdr;
	char *s;

	(void)state;
	s = one_task_table(&fx, &model_neoverse_n2, 7, c, NR(c));
	hdr = line(s, 1);
	has_all(hdr, STRS("FE%", "RET%", "IPC"));
	/* Cycle_Accounting: in the JSON */
	has_none(hdr, STRS("SMT%", "STALL%"));
	/* 2.50: IPC */
	has_all(line(s, 2), STRS(" 76.0  ", " 2.50 ", " Retiring <=="));
	free(s);

	doc = json(&fx.rep);
	m = metrics_of(doc, 0);
	assert_int_equal(json_object_object_length(m), 6);
	/* 600000 / 5e6 - 1000 / 1e6 */
	metric_near(m, "frontend_bound", 11.9, 1e-9);
	metric_near(m, "retiring", 76, 1e-9);
	metric_near(m, "frontend_stalled_cycles", 50, 1e-9);
	metric_near(m, "backend_stalled_cycles", 10, 1e-9);
	json_object_put(doc);
	fix_free(&fx);
}

/* N1 has only Cycle_Accounting: its two nodes are the columns */
static void test_neoverse_n1_columns(void **state)
{
	const struct count c[] = {
		{ "cpu_cycles", 1000000 },
		{ "inst_retired", 800000 },
		{ "stall_frontend", 100000 },
		{ "stall_backend", 450000 },
	};
	struct report_fix fx;
	const char *hdr;
	char *s;

	(void)state;
	s = one_task_table(&fx, &model_neoverse_n1, 3, c, NR(c));
	hdr = line(s, 1);
	assert_true(strstr(hdr, "FE-STALL%") < strstr(hdr, "BE-STALL%"));
	assert_null(strstr(hdr, "RET%"));
	has_all(line(s, 2), STRS(" 10.0  ", " 45.0  ", " 0.80 ",
				 " Backend_Stalled <=="));
	free(s);
	fix_free(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zen4_columns),
		cmocka_unit_test(test_zen4_level2_multiplexes),
		cmocka_unit_test(test_neoverse_n2_columns),
		cmocka_unit_test(test_neoverse_n1_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
