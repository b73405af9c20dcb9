// SPDX-License-Identifier: GPL-2.0
/*
 * TMA decode on hand-built counts. The expected values are worked out here
 * from perf's MetricExpr for broadwellx (../shared/reference/tma-metrics.md)
 * with #core_wide = 0, by plain arithmetic on the chosen counts.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "model/tma.h"

static double ev[MODEL_MAX_EVENTS];

static void set(const struct model *m, const char *name, double v)
{
	int i = model_event_index(m, name);

	if (i < 0)
		fail_msg("no event %s in %s", name, m->name);
	ev[i] = v;
}

/* A count of the vector, by event name. */
struct count_of {
	const char *event;
	double v;
};

/* Every event of @m measured, zero but those of @c; the rest NAN. */
static void load(const struct model *m, const struct count_of *c, size_t n)
{
	size_t i;

	for (i = 0; i < MODEL_MAX_EVENTS; i++)
		ev[i] = (int)i < m->nr_events ? 0 : NAN;
	for (i = 0; i < n; i++)
		set(m, c[i].event, c[i].v);
}

#define LOAD(m, ...)                                                       \
	do {                                                               \
		const struct count_of c_[] = { __VA_ARGS__ };              \
		load((m), c_, sizeof(c_) / sizeof(c_[0]));                 \
	} while (0)

static int node(const struct model *m, const char *name)
{
	int i;

	for (i = 0; i < m->nr_nodes; i++)
		if (!strcmp(m->nodes[i].name, name))
			return i;
	fail_msg("no node %s in %s", name, m->name);
	return -1;
}

static double val(const struct model *m, const struct tma_result *r,
		  const char *name)
{
	return r->val[node(m, name)];
}

#define assert_close(a, b)						\
	do {								\
		double _a = (a), _b = (b);				\
		if (!(fabs(_a - _b) <= 1e-12 * (fabs(_b) + 1)))		\
			fail_msg("%s = %.17g, expected %.17g", #a, _a, _b); \
	} while (0)

/*
 * A memory-bound task, SMT off. ONE_THREAD_ACTIVE = REF_XCLK makes core
 * clocks = THREAD / 2 * (1 + 1) = THREAD, so slots = 4e9.
 */
static void bdx_memory_vector(void)
{
	const struct model *m = &model_broadwellx;

	/* every event measured, zero unless set here */
	LOAD(m,
	     { "CPU_CLK_UNHALTED.THREAD", 1e9 },
	     { "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 2e7 },
	     { "CPU_CLK_UNHALTED.REF_XCLK", 2e7 },
	     { "INST_RETIRED.ANY", 0.5e9 }, /* IPC 0.5 */
	     { "IDQ_UOPS_NOT_DELIVERED.CORE", 0.4e9 },
	     { "UOPS_ISSUED.ANY", 1.2e9 },
	     { "UOPS_RETIRED.RETIRE_SLOTS", 1.0e9 },
	     { "INT_MISC.RECOVERY_CYCLES", 0.025e9 },
	     { "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE", 0.05e9 },
	     { "BR_MISP_RETIRED.ALL_BRANCHES", 3e6 },
	     { "MACHINE_CLEARS.COUNT", 1e6 },
	     { "CYCLE_ACTIVITY.STALLS_MEM_ANY", 0.6e9 },
	     { "RESOURCE_STALLS.SB", 0.05e9 },
	     { "CYCLE_ACTIVITY.STALLS_TOTAL", 0.7e9 },
	     { "UOPS_EXECUTED.CYCLES_GE_1_UOP_EXEC", 0.4e9 },
	     { "UOPS_EXECUTED.CYCLES_GE_2_UOPS_EXEC", 0.3e9 },
	     { "UOPS_EXECUTED.CYCLES_GE_3_UOPS_EXEC", 0.2e9 },
	     { "RS_EVENTS.EMPTY_CYCLES", 0.1e9 },
	     { "IDQ.MS_UOPS", 0.024e9 },
	     { "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0.5e9 },
	     { "CYCLE_ACTIVITY.STALLS_L2_MISS", 0.45e9 },
	     { "MEM_LOAD_UOPS_RETIRED.L3_HIT", 1e6 },
	     { "MEM_LOAD_UOPS_RETIRED.L3_MISS", 1e6 },
	     { "INT_MISC.RECOVERY_CYCLES_ANY", NAN }); /* SMT on only */
}

static void test_bdx_dram(void **state)
{
	const struct model *m = &model_broadwellx;
	struct tma_result r;
	double fe = 0.4 / 4, bs = (1.2 - 1.0 + 4 * 0.025) / 4, ret = 1.0 / 4;
	double be = 1 - (fe + bs + ret), fl = 4 * 0.05 / 4;
	/* ipc 0.5 <= 1.8: GE_2; fetch latency 0.05 <= 0.1: no RS term */
	double mb = (0.6 + 0.05) / (0.7 + 0.4 - 0.3 - 0 + 0.05) * be;
	double l3f = 1e6 / (1e6 + 7 * 1e6);

	(void)state;
	bdx_memory_vector();
	tma_decode(m, ev, false, 3, &r);
	assert_close(val(m, &r, "tma_frontend_bound"), fe);
	assert_close(val(m, &r, "tma_bad_speculation"), bs);
	assert_close(val(m, &r, "tma_retiring"), ret);
	assert_close(val(m, &r, "tma_backend_bound"), be);
	assert_close(val(m, &r, "tma_fetch_latency"), fl);
	assert_close(val(m, &r, "tma_fetch_bandwidth"), fe - fl);
	assert_close(val(m, &r, "tma_branch_mispredicts"), 0.75 * bs);
	assert_close(val(m, &r, "tma_machine_clears"), bs - 0.75 * bs);
	assert_close(val(m, &r, "tma_memory_bound"), mb);
	assert_close(val(m, &r, "tma_core_bound"), be - mb);
	assert_close(val(m, &r, "tma_heavy_operations"),
		     1.0 / 1.2 * 0.024 / 4);
	assert_close(val(m, &r, "tma_dram_bound"), (1 - l3f) * 0.45);
	assert_close(val(m, &r, "tma_l3_bound"), l3f * 0.45);
	assert_close(val(m, &r, "tma_l1_bound"), 0.6 - 0.5);
	assert_close(val(m, &r, "tma_l2_bound"), 0.5 - 0.45);
	assert_close(val(m, &r, "tma_store_bound"), 0.05);
	assert_close(val(m, &r, "tma_ports_utilization"),
		     0.7 + 0.4 - 0.3 - 0 + 0.05 - 0.05 - 0.6);
	assert_close(val(m, &r, "tma_dsb"), 0);

	/* Backend 0.575 is the only L1 node over its threshold (0.2) */
	assert_true(r.over[node(m, "tma_backend_bound")]);
	assert_false(r.over[node(m, "tma_frontend_bound")]);
	assert_false(r.over[node(m, "tma_retiring")]);
	/* both L2 children over; Memory is larger */
	assert_true(r.over[node(m, "tma_core_bound")]);
	assert_true(r.over[node(m, "tma_memory_bound")]);
	/* L1 bound is exactly at 0.1: "> 0.1" is false */
	assert_false(r.over[node(m, "tma_l1_bound")]);
	assert_true(r.over[node(m, "tma_l3_bound")]);
	assert_string_equal(r.path, "Backend.Memory.DRAM");
	assert_int_equal(r.bottleneck, node(m, "tma_dram_bound"));
}

static void test_level_cutoff(void **state)
{
	const struct model *m = &model_broadwellx;
	struct tma_result r;

	(void)state;
	bdx_memory_vector();
	tma_decode(m, ev, false, 1, &r);
	assert_string_equal(r.path, "Backend");
	assert_true(isnan(val(m, &r, "tma_memory_bound")));
	assert_true(isnan(val(m, &r, "tma_dram_bound")));
	assert_false(isnan(val(m, &r, "tma_backend_bound")));

	tma_decode(m, ev, false, 2, &r);
	assert_string_equal(r.path, "Backend.Memory");
	assert_int_equal(r.bottleneck, node(m, "tma_memory_bound"));
	assert_true(isnan(val(m, &r, "tma_dram_bound")));
	assert_false(r.over[node(m, "tma_dram_bound")]);
}

/*
 * Retiring 0.5 is under 0.7, but heavy operations 0.15 > 0.1 flags it
 * (perf: tma_retiring > 0.7 | tma_heavy_operations > 0.1), and at 0.5 it
 * beats Backend 0.3875.
 */
static void test_bdx_retiring_heavy(void **state)
{
	const struct model *m = &model_broadwellx;
	struct tma_result r;
	double ret = 2.0 / 4, heavy = 2.0 / 2.0 * 0.6 / 4;

	(void)state;
	bdx_memory_vector();
	set(m, "UOPS_ISSUED.ANY", 2e9);
	set(m, "UOPS_RETIRED.RETIRE_SLOTS", 2e9);
	set(m, "INT_MISC.RECOVERY_CYCLES", 0.0125e9);
	set(m, "IDQ.MS_UOPS", 0.6e9);
	tma_decode(m, ev, false, 3, &r);
	assert_close(val(m, &r, "tma_retiring"), ret);
	assert_close(val(m, &r, "tma_heavy_operations"), heavy);
	assert_close(val(m, &r, "tma_light_operations"), ret - heavy);
	assert_close(val(m, &r, "tma_backend_bound"),
		     1 - (0.1 + 4 * 0.0125 / 4 + ret));
	assert_true(r.over[node(m, "tma_retiring")]);
	assert_true(r.over[node(m, "tma_backend_bound")]);
	assert_string_equal(r.path, "Retiring.Heavy_Ops.Microcode_Seq");

	/*
	 * At level 1 heavy operations are not shown, but perf's threshold
	 * for retiring (> 0.7 | heavy_operations > 0.1) still sees it: 0.5
	 * is flagged and, larger than backend's 0.35, is the bottleneck.
	 */
	tma_decode(m, ev, false, 1, &r);
	assert_true(isnan(val(m, &r, "tma_heavy_operations")));
	assert_true(r.over[node(m, "tma_retiring")]);
	assert_string_equal(r.path, "Retiring");
}

static void test_smt_on(void **state)
{
	const struct model *m = &model_broadwellx;
	struct tma_result r;
	/* per-thread estimate: THREAD / 2 * (1 + 1e7 / 2e7) = 0.75e9 */
	double slots = 4 * 0.75e9;

	(void)state;
	bdx_memory_vector();
	set(m, "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 1e7);
	set(m, "INT_MISC.RECOVERY_CYCLES", NAN);	/* SMT off only */
	set(m, "INT_MISC.RECOVERY_CYCLES_ANY", 0.05e9);
	tma_decode(m, ev, true, 3, &r);
	assert_close(val(m, &r, "tma_frontend_bound"), 0.4e9 / slots);
	assert_close(val(m, &r, "tma_bad_speculation"),
		     (1.2e9 - 1.0e9 + 4 * (0.05e9 / 2)) / slots);
	/* tma_dsb uses core clocks, tma_l2_bound thread clocks */
	set(m, "IDQ.ALL_DSB_CYCLES_ANY_UOPS", 0.3e9);
	set(m, "IDQ.ALL_DSB_CYCLES_4_UOPS", 0.15e9);
	tma_decode(m, ev, true, 3, &r);
	assert_close(val(m, &r, "tma_dsb"), 0.15e9 / 0.75e9 / 2);
	assert_close(val(m, &r, "tma_l2_bound"), 0.05);
}

static void test_missing_event(void **state)
{
	const struct model *m = &model_broadwellx;
	struct tma_result r;

	(void)state;
	bdx_memory_vector();
	set(m, "IDQ_UOPS_NOT_DELIVERED.CORE", NAN);
	tma_decode(m, ev, false, 3, &r);
	assert_true(isnan(val(m, &r, "tma_frontend_bound")));
	assert_true(isnan(val(m, &r, "tma_fetch_bandwidth")));
	/* backend = 1 - (frontend + ...) and everything under it */
	assert_true(isnan(val(m, &r, "tma_backend_bound")));
	assert_true(isnan(val(m, &r, "tma_memory_bound")));
	assert_true(isnan(val(m, &r, "tma_core_bound")));
	/* nodes that do not use it are still computed */
	assert_false(isnan(val(m, &r, "tma_retiring")));
	assert_false(isnan(val(m, &r, "tma_fetch_latency")));
	assert_false(isnan(val(m, &r, "tma_dram_bound")));
	assert_false(r.over[node(m, "tma_backend_bound")]);
	assert_false(r.over[node(m, "tma_dram_bound")]);
	/* no L1 node over its threshold: no bottleneck */
	assert_int_equal(r.bottleneck, -1);
	assert_string_equal(r.path, "");

	/* max() propagates a missing input rather than returning 0 */
	bdx_memory_vector();
	set(m, "CYCLE_ACTIVITY.STALLS_L1D_MISS", NAN);
	tma_decode(m, ev, false, 3, &r);
	assert_true(isnan(val(m, &r, "tma_l1_bound")));
	/* a condition on a missing value is missing too */
	bdx_memory_vector();
	set(m, "INST_RETIRED.ANY", NAN);
	tma_decode(m, ev, false, 3, &r);
	assert_true(isnan(val(m, &r, "tma_memory_bound")));
	assert_false(isnan(val(m, &r, "tma_backend_bound")));
}

static void test_division_by_zero(void **state)
{
	const struct model *m = &model_broadwellx;
	struct tma_result r;
	int i;

	(void)state;
	bdx_memory_vector();
	set(m, "CPU_CLK_UNHALTED.THREAD", 0);
	tma_decode(m, ev, false, 3, &r);
	for (i = 0; i < m->nr_nodes; i++) {
		/* per retired uop, no clocks in it: 0 / 1e9 + ... */
		if (!strcmp(m->nodes[i].name, "tma_fp_arith")) {
			assert_close(r.val[i], 0);
			continue;
		}
		/* perf's max(a, b) is "a > b ? a : b": max(NAN, 0) is 0 */
		if (!strcmp(m->nodes[i].name, "tma_l1_bound")) {
			assert_true(r.val[i] == 0.0);
			continue;
		}
		if (!isnan(r.val[i]))
			fail_msg("%s = %g with zero clocks",
				 m->nodes[i].name, r.val[i]);
	}
	assert_int_equal(r.bottleneck, -1);
}

/* Values are perf's, not clamped: frontend + retiring > 1 here. */
static void test_no_clamping(void **state)
{
	const struct model *m = &model_broadwellx;
	struct tma_result r;

	(void)state;
	bdx_memory_vector();
	set(m, "IDQ_UOPS_NOT_DELIVERED.CORE", 2e9);
	set(m, "UOPS_RETIRED.RETIRE_SLOTS", 2.4e9);
	set(m, "UOPS_ISSUED.ANY", 2.4e9);
	tma_decode(m, ev, false, 3, &r);
	assert_close(val(m, &r, "tma_backend_bound"),
		     1 - (0.5 + 0.1 / 4 + 0.6));
	assert_true(val(m, &r, "tma_backend_bound") < 0);
	/* fetch bandwidth 0.5 - 0.05 is over 0.2; fetch latency is not */
	assert_close(val(m, &r, "tma_fetch_bandwidth"), 0.5 - 4 * 0.05 / 4);
	assert_string_equal(r.path, "Frontend.Fetch_BW");
}

/* Sapphire Rapids level 1-2 from PERF_METRICS slots alone. */
static void test_spr_metrics(void **state)
{
	const struct model *m = &model_sapphirerapids;
	struct tma_result r;
	int i;

	(void)state;
	for (i = 0; i < MODEL_MAX_EVENTS; i++)
		ev[i] = NAN;
	set(m, "TOPDOWN.SLOTS", 1000);
	set(m, "topdown-fe-bound", 100);
	set(m, "topdown-bad-spec", 50);
	set(m, "topdown-retiring", 250);
	set(m, "topdown-be-bound", 600);
	set(m, "topdown-mem-bound", 450);
	set(m, "topdown-fetch-lat", 60);
	set(m, "topdown-heavy-ops", 50);
	set(m, "topdown-br-mispredict", 40);
	set(m, "INT_MISC.UOP_DROPPING", 0);
	tma_decode(m, ev, true, 2, &r);
	assert_close(val(m, &r, "tma_backend_bound"), 0.6);
	assert_close(val(m, &r, "tma_bad_speculation"), 1 - (0.1 + 0.6 + 0.25));
	assert_close(val(m, &r, "tma_memory_bound"), 0.45);
	assert_close(val(m, &r, "tma_core_bound"), 0.6 - 0.45);
	assert_close(val(m, &r, "tma_machine_clears"),
		     1 - (0.1 + 0.6 + 0.25) - 0.04);
	assert_string_equal(r.path, "Backend.Memory");
	/* level-3 inputs absent: level 3 nodes missing, path stops */
	tma_decode(m, ev, true, 3, &r);
	assert_true(isnan(val(m, &r, "tma_dram_bound")));
	assert_string_equal(r.path, "Backend.Memory");
}

/*
 * Skylake-SP, worked by hand from skx-metrics.json: THREAD 1e6, ONE_THREAD
 * / REF_XCLK = 0.5, so core clocks 1e6 / 2 * 1.5 = 0.75e6, slots 3e6. With
 * SMT on Bad Speculation takes RECOVERY_CYCLES_ANY / 2 (the core's
 * recoveries, halved: perf's per-thread choice), with SMT off the
 * thread's own RECOVERY_CYCLES; Backend Bound is 1 - FE - (ISSUED + 4 *
 * recovery) / slots, so it absorbs the difference.
 */
static void skx_vector(const struct model *m)
{
	LOAD(m,
	     { "CPU_CLK_UNHALTED.THREAD", 1e6 },
	     { "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 500 },
	     { "CPU_CLK_UNHALTED.REF_XCLK", 1000 },
	     { "INST_RETIRED.ANY", 1.2e6 },
	     { "IDQ_UOPS_NOT_DELIVERED.CORE", 0.6e6 },
	     { "UOPS_ISSUED.ANY", 1.8e6 },
	     { "UOPS_RETIRED.RETIRE_SLOTS", 1.5e6 },
	     { "INT_MISC.RECOVERY_CYCLES_ANY", 20000 },
	     { "INT_MISC.RECOVERY_CYCLES", 8000 },
	     { "UOPS_RETIRED.MACRO_FUSED", 1e5 },
	     { "cpu/ICACHE_16B.IFDATA_STALL,cmask=1,edge/", 300 },
	     { "ICACHE_16B.IFDATA_STALL", 4000 },
	     { "MEM_LOAD_RETIRED.L2_HIT", 1000 },
	     { "MEM_LOAD_RETIRED.FB_HIT", 500 },
	     { "MEM_LOAD_RETIRED.L1_MISS", 2000 },
	     { "cpu/L1D_PEND_MISS.FB_FULL,cmask=1/", 750 },
	     { "CYCLE_ACTIVITY.STALLS_L1D_MISS", 0.2e6 },
	     { "CYCLE_ACTIVITY.STALLS_L2_MISS", 0.1e6 },
	     { "CYCLE_ACTIVITY.STALLS_L3_MISS", 0.04e6 });
}

static void test_skx(void **state)
{
	const struct model *m = &model_skylakex;
	struct tma_result r;

	(void)state;
	skx_vector(m);
	tma_decode(m, ev, true, 3, &r);
	assert_close(val(m, &r, "tma_frontend_bound"), 0.2);
	assert_close(val(m, &r, "tma_bad_speculation"),
		     (1.8e6 - 1.5e6 + 4 * 10000) / 3e6);
	assert_close(val(m, &r, "tma_backend_bound"),
		     1 - 0.2 - (1.8e6 + 4 * 10000) / 3e6);
	assert_close(val(m, &r, "tma_retiring"), 0.5);
	assert_close(val(m, &r, "tma_heavy_operations"), 0.4e6 / 3e6);
	/* (IFDATA_STALL + 2 * its cmask=1,edge count) / clocks */
	assert_close(val(m, &r, "tma_icache_misses"), 4600 / 1e6);
	/* L2 hits 1000 * (1 + 500 / 2000) = 1250 of 1250 + 750 FB-full */
	assert_close(val(m, &r, "tma_l2_bound"), 1250.0 / 2000 * 0.1);
	assert_close(val(m, &r, "tma_dram_bound"),
		     0.04 + 0.1 - 1250.0 / 2000 * 0.1);
	assert_close(val(m, &r, "tma_l3_bound"), 0.06);
	tma_decode(m, ev, false, 3, &r);
	assert_close(val(m, &r, "tma_bad_speculation"),
		     (1.8e6 - 1.5e6 + 4 * 8000) / 3e6);
	assert_close(val(m, &r, "tma_backend_bound"),
		     1 - 0.2 - (1.8e6 + 4 * 8000) / 3e6);
	/* Cascade Lake: the same, and tma_pmm_bound 0 without Optane */
	m = &model_cascadelakex;
	skx_vector(m);
	tma_decode(m, ev, true, 3, &r);
	assert_close(val(m, &r, "tma_l2_bound"), 1250.0 / 2000 * 0.1);
	assert_close(val(m, &r, "tma_pmm_bound"), 0);
}

/*
 * On the generic-event models (#core_wide = 0) #SMT_on appears only in
 * the recovery term: perf's SMT-off formula is the SMT-on one with the
 * thread's own RECOVERY_CYCLES in place of RECOVERY_CYCLES_ANY / 2. That is
 * what makes `--smt off` on an SMT machine the per-thread variant
 * (docs/models.md, "Bad Speculation with SMT on"). Checked node by node
 * on varied counts.
 */
static void test_smt_is_only_recovery(void **state)
{
	const struct model *const ms[] = {
		&model_broadwellx, &model_broadwell, &model_skylakex,
		&model_cascadelakex, &model_skylake,
	};
	struct tma_result on, off;
	size_t k;
	int i, v, rec, any;

	(void)state;
	for (k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
		const struct model *m = ms[k];

		rec = model_event_index(m, "INT_MISC.RECOVERY_CYCLES");
		any = model_event_index(m, "INT_MISC.RECOVERY_CYCLES_ANY");
		assert_true(rec >= 0 && any >= 0);
		for (v = 0; v < 50; v++) {
			for (i = 0; i < MODEL_MAX_EVENTS; i++)
				ev[i] = i < m->nr_events ?
						1e5 + (i * 7919 + v * 104729) %
							      900001 : NAN;
			tma_decode(m, ev, false, 3, &off);
			ev[any] = 2 * ev[rec];
			ev[rec] = NAN;	/* not programmed with SMT on */
			tma_decode(m, ev, true, 3, &on);
			for (i = 0; i < m->nr_nodes; i++) {
				if (isnan(off.val[i]) && isnan(on.val[i]))
					continue;
				assert_close(on.val[i], off.val[i]);
			}
			assert_string_equal(on.path, off.path);
		}
	}
}

/*
 * Granite Rapids, worked by hand from gnr-metrics.json: level 1 from
 * PERF_METRICS as on SPR but without "+ 0 * slots", and the level-3
 * mispredict split by branch type.
 */
static void test_gnr(void **state)
{
	const struct model *m = &model_graniterapids;
	struct tma_result r;

	(void)state;
	LOAD(m,
	     { "TOPDOWN.SLOTS", 1000 },
	     { "CPU_CLK_UNHALTED.THREAD", 200 },
	     { "CPU_CLK_UNHALTED.DISTRIBUTED", 100 },
	     { "topdown-fe-bound", 100 },
	     { "topdown-bad-spec", 300 },
	     { "topdown-retiring", 450 },
	     { "topdown-be-bound", 150 },
	     { "topdown-br-mispredict", 250 },
	     { "INT_MISC.UOP_DROPPING", 10 },
	     { "BR_MISP_RETIRED.ALL_BRANCHES", 100 },
	     { "BR_MISP_RETIRED.COND_NTAKEN", 20 },
	     { "BR_MISP_RETIRED.COND_TAKEN", 30 },
	     { "BR_MISP_RETIRED.INDIRECT", 25 },
	     { "BR_MISP_RETIRED.INDIRECT_CALL", 15 },
	     { "BR_MISP_RETIRED.RET", 5 },
	     { "IDQ.MS_CYCLES_ANY", 12 },
	     { "UOPS_RETIRED.SLOTS", 100 },
	     { "UOPS_ISSUED.ANY", 200 },
	     { "cpu/UOPS_RETIRED.MS,cmask=1/", 9 });
	tma_decode(m, ev, true, 3, &r);
	assert_close(val(m, &r, "tma_frontend_bound"), 0.1 - 0.01);
	assert_close(val(m, &r, "tma_bad_speculation"),
		     1 - (0.09 + 0.15 + 0.45));
	assert_close(val(m, &r, "tma_branch_mispredicts"), 0.25);
	assert_close(val(m, &r, "tma_cond_nt_mispredicts"), 0.2 * 0.25);
	assert_close(val(m, &r, "tma_cond_tk_mispredicts"), 0.3 * 0.25);
	assert_close(val(m, &r, "tma_ind_jump_mispredicts"), 0.1 * 0.25);
	assert_close(val(m, &r, "tma_ret_mispredicts"), 0.05 * 0.25);
	/* max(12, 9 / (100 / 200)) / DISTRIBUTED (SMT on) / 2.4 */
	assert_close(val(m, &r, "tma_ms"), 18.0 / 100 / 2.4);
	assert_close(val(m, &r, "tma_cxl_mem_bound"), 0);
	/* 7.5% over 5%: the taken conditional branches are the bottleneck */
	assert_string_equal(r.path, "Bad_Spec.Branch_Mispred.Cond_TK_Mispred");
	/* SMT off: core clocks are the thread's */
	tma_decode(m, ev, false, 3, &r);
	assert_close(val(m, &r, "tma_ms"), 18.0 / 200 / 2.4);
}

static void test_software_has_no_tree(void **state)
{
	struct tma_result r;

	(void)state;
	tma_decode(&model_software, ev, false, 3, &r);
	assert_int_equal(r.bottleneck, -1);
	assert_string_equal(r.path, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bdx_dram),
		cmocka_unit_test(test_level_cutoff),
		cmocka_unit_test(test_bdx_retiring_heavy),
		cmocka_unit_test(test_smt_on),
		cmocka_unit_test(test_missing_event),
		cmocka_unit_test(test_division_by_zero),
		cmocka_unit_test(test_no_clamping),
		cmocka_unit_test(test_spr_metrics),
		cmocka_unit_test(test_skx),
		cmocka_unit_test(test_smt_is_only_recovery),
		cmocka_unit_test(test_gnr),
		cmocka_unit_test(test_software_has_no_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
