// SPDX-License-Identifier: GPL-2.0
/*
 * `tdbpf list` and `tdbpf decode` for Skylake-SP, Cascade Lake, Skylake
 * client, Emerald Rapids and Granite Rapids, through the binary as a user
 * runs them: every model by its name and short name with SMT on and off,
 * the groups fitting the counters with the kernel's restrictions, and
 * decode input in perf's own event names (perf stat -x, lines, and the
 * cpu/EVENT,cmask=1,edge/ form). Event and group counts are those of
 * ../shared/reference/tma-events.md; expected values are perf's formulas
 * (tma-metrics.md) worked out by hand.
 */
#include "models.h"

struct listed {
	const char *name, *alias;
	int gp_on, gp_off;		/* GP counters per thread */
	int events_on, events_off;	/* L1-L3, per task */
	int gp_groups_on, gp_groups_off;
	bool slots;			/* TOPDOWN.SLOTS leads group 0 */
};

static const struct listed listed[] = {
	{ "skylakex", "skx", 4, 8, 48, 48, 12, 6, false },
	{ "cascadelakex", "clx", 4, 8, 48, 48, 12, 6, false },
	{ "skylake", "skl", 4, 8, 48, 48, 12, 6, false },
	{ "emeraldrapids", "emr", 8, 8, 59, 58, 6, 6, true },
	{ "graniterapids", "gnr", 8, 8, 65, 64, 7, 7, true },
};

/*
 * Events that only counters 0-3 take: on Skylake the kernel's constraint
 * with SMT off (MEM_INST_RETIRED, MEM_LOAD_RETIRED); on EMR/GNR the JSON's
 * "0,1,2,3" for the frontend and memory-stall events.
 */
static bool low4(const char *model, const char *ev)
{
	static const char *const skl[] = { "MEM_INST_RETIRED.",
					   "MEM_LOAD_RETIRED.", NULL };
	static const char *const glc[] = {
		"DECODE.LCP", "DSB2MITE_SWITCHES.", "ICACHE_DATA.",
		"ICACHE_TAG.", "IDQ.", "MEMORY_ACTIVITY.", NULL,
	};
	const char *const *p = strstr(model, "rapids") ? glc : skl;

	for (; *p; p++)
		if (!strncmp(ev, *p, strlen(*p)))
			return true;
	return false;
}

static void check_list(const struct listed *l, const char *as, bool smt)
{
	json_object *o = list(as, smt ? "on" : "off"), *groups;
	int gp = smt ? l->gp_on : l->gp_off, g, e, events = 0, low = 0;
	int ngroups;

	assert_string_equal(jstr_of(o, "model"), l->name);
	assert_int_equal(jint(o, "level"), 3);
	assert_int_equal(jint(o, "gp_counters"), gp);
	groups = jget(o, "groups");
	ngroups = (int)json_object_array_length(groups);
	/* the fixed-counter group, then the GP groups */
	assert_int_equal(ngroups,
			 1 + (smt ? l->gp_groups_on : l->gp_groups_off));
	for (g = 0; g < ngroups; g++) {
		json_object *evs = jget(json_object_array_get_idx(groups, g),
					"events");
		unsigned int used = 0;

		for (e = 0; e < (int)json_object_array_length(evs); e++) {
			json_object *ev = json_object_array_get_idx(evs, e);
			const char *n = jstr_of(ev, "name");
			json_object *c, *c1;
			int k;

			events++;
			if (!g && !e)
				assert_string_equal(n, l->slots ?
						    "TOPDOWN.SLOTS" :
						    "INST_RETIRED.ANY");
			if (!json_object_object_get_ex(ev, "counter", &c)) {
				assert_int_equal(g, 0);	/* fixed group */
				continue;
			}
			assert_true(g > 0);
			k = json_object_get_int(c);
			assert_true(k >= 0 && k < gp);
			assert_false(used >> k & 1);
			used |= 1u << k;
			if (low4(l->name, n)) {
				assert_true(k < 4);
				low++;
			}
			/* the frontend MSR 0x3F7 rides in config1 */
			if (!strcmp(n, "UOPS_RETIRED.MS")) {
				assert_true(json_object_object_get_ex(
					ev, "config1", &c1));
				assert_int_equal(json_object_get_int(c1), 8);
			}
		}
	}
	assert_int_equal(events, smt ? l->events_on : l->events_off);
	/* 4 memory events on Skylake; frontend and stall ones: EMR 11, GNR 12 */
	assert_int_equal(low, strstr(l->name, "emerald") ? 11 :
			      strstr(l->name, "granite") ? 12 : 4);
	json_object_put(o);
}

static void test_list_every_model(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(listed) / sizeof(listed[0]); i++) {
		check_list(&listed[i], listed[i].name, true);
		check_list(&listed[i], listed[i].alias, false);
	}
}

/*
 * Skylake-SP in perf stat -x, lines. THREAD 1e6, ONE_THREAD / REF_XCLK
 * 0.5: core clocks 0.75e6, slots 3e6. Bad speculation (1.8e6 - 1.5e6 + 4 *
 * recovery) / 3e6 with recovery RECOVERY_CYCLES_ANY / 2 = 10000 (SMT on)
 * or RECOVERY_CYCLES = 8000 (off).
 */
static const char skx_counts[] =
	"1000000,,CPU_CLK_UNHALTED.THREAD,1000000,100.00,,\n"
	"500,,CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE,1000000,100.00,,\n"
	"1000,,CPU_CLK_UNHALTED.REF_XCLK,1000000,100.00,,\n"
	"1200000,,INST_RETIRED.ANY,1000000,100.00,,\n"
	"600000,,IDQ_UOPS_NOT_DELIVERED.CORE,1000000,100.00,,\n"
	"1800000,,UOPS_ISSUED.ANY,1000000,100.00,,\n"
	"1500000,,UOPS_RETIRED.RETIRE_SLOTS,1000000,100.00,,\n"
	"20000,,INT_MISC.RECOVERY_CYCLES_ANY,1000000,100.00,,\n"
	"8000,,INT_MISC.RECOVERY_CYCLES,1000000,100.00,,\n"
	"100000,,UOPS_RETIRED.MACRO_FUSED,1000000,100.00,,\n"
	"4000,,ICACHE_16B.IFDATA_STALL,1000000,100.00,,\n"
	"300,,cpu/ICACHE_16B.IFDATA_STALL,cmask=1,edge/,1000000,100.00,,\n"
	"100000,,IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE,1000000,"
	"100.00,,\n";

static void test_decode_skylake(void **state)
{
	const struct decode_case c[] = {
		{ .model = "skylakex", .smt = "on", .counts = skx_counts,
		  .name = "skylakex", .smt_is = 1,
		  .metrics = METRICS(
			{ "tma_frontend_bound", 20 },
			{ "tma_bad_speculation", 340000.0 / 3e6 * 100 },
			{ "tma_backend_bound", 100 - 20 - 1840000.0 / 3e6 * 100 },
			{ "tma_retiring", 50 },
			{ "tma_fetch_latency", 400000.0 / 3e6 * 100 },
			{ "tma_heavy_operations", 400000.0 / 3e6 * 100 },
			{ "tma_icache_misses", 0.46 }),
		  /* not given: no value, as perf prints none */
		  .absent = STRS("tma_dram_bound", "tma_pmm_bound"),
		  /* retiring 50% < 70%, but heavy operations 13.3% > 10% */
		  .bottleneck = "Retiring.Heavy_Ops" },
		/* SMT off: the thread's own recovery cycles */
		{ .model = "skx", .smt = "off", .counts = skx_counts,
		  .metrics = METRICS(
			{ "tma_bad_speculation", 332000.0 / 3e6 * 100 },
			{ "tma_backend_bound",
			  100 - 20 - 1832000.0 / 3e6 * 100 }) },
		/* Cascade Lake: the same, and tma_pmm_bound 0 without Optane */
		{ .model = "clx", .smt = "on", .counts = skx_counts,
		  .metrics = METRICS(
			{ "tma_bad_speculation", 340000.0 / 3e6 * 100 },
			{ "tma_pmm_bound", 0 }) },
		/* Skylake client names the FP vector event plainly */
		{ .model = "skl", .smt = "off",
		  .counts = "CPU_CLK_UNHALTED.THREAD 1000\n"
			    "UOPS_RETIRED.RETIRE_SLOTS 2000\n"
			    "FP_ARITH_INST_RETIRED.SCALAR 100\n"
			    "FP_ARITH_INST_RETIRED.VECTOR 300\n"
			    "UOPS_EXECUTED.X87 0\n"
			    "UOPS_EXECUTED.THREAD 2000\n"
			    "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE 1\n"
			    "CPU_CLK_UNHALTED.REF_XCLK 1\n",
		  .metrics = METRICS({ "tma_retiring", 50 },
				     { "tma_fp_arith", 20 }) },
	};

	(void)state;
	check_decodes(c, sizeof(c) / sizeof(c[0]));
}

/*
 * Granite Rapids in lines: level 1 from PERF_METRICS (sum 1000), frontend
 * 10% - UOP_DROPPING / SLOTS 1%; mispredicts split by branch type.
 */
#define SLOTS_COUNTS							\
	"TOPDOWN.SLOTS 1000\n"						\
	"CPU_CLK_UNHALTED.THREAD 200\n"					\
	"CPU_CLK_UNHALTED.DISTRIBUTED 100\n"				\
	"INST_RETIRED.ANY 100\n"						\
	"topdown-fe-bound 100\n"						\
	"topdown-bad-spec 300\n"						\
	"topdown-retiring 450\n"						\
	"topdown-be-bound 150\n"						\
	"topdown-br-mispredict 250\n"					\
	"topdown-fetch-lat 50\n"						\
	"topdown-heavy-ops 0\n"						\
	"topdown-mem-bound 100\n"						\
	"INT_MISC.UOP_DROPPING 10\n"

static void test_decode_granite(void **state)
{
	const char *counts = SLOTS_COUNTS
			     "BR_MISP_RETIRED.ALL_BRANCHES 100\n"
			     "BR_MISP_RETIRED.COND_TAKEN 30\n"
			     "cpu/UOPS_RETIRED.MS,cmask=1/ 9\n"
			     "IDQ.MS_CYCLES_ANY 12\n"
			     "UOPS_RETIRED.SLOTS 100\n"
			     "UOPS_ISSUED.ANY 200\n";
	const struct decode_case c[] = {
		{ .model = "gnr", .smt = "on", .counts = counts,
		  .name = "graniterapids",
		  .metrics = METRICS(
			{ "tma_frontend_bound", 9 },
			{ "tma_backend_bound", 15 },
			{ "tma_retiring", 45 },
			{ "tma_bad_speculation", 31 },
			{ "tma_branch_mispredicts", 25 },
			{ "tma_machine_clears", 6 },
			{ "tma_fetch_latency", 4 },
			{ "tma_fetch_bandwidth", 5 },
			{ "tma_cond_tk_mispredicts", 7.5 },
			/* max(12, 9 / (100 / 200)) / DISTRIBUTED / 2.4 */
			{ "tma_ms", 18.0 / 100 / 2.4 * 100 }),
		  .absent = STRS("tma_dram_bound"),	/* not a GNR node */
		  .bottleneck = "Bad_Spec.Branch_Mispred.Cond_TK_Mispred" },
		/* SMT off: core clocks are the thread's, DISTRIBUTED unused */
		{ .model = "graniterapids", .smt = "off", .counts = counts,
		  .metrics = METRICS({ "tma_ms", 18.0 / 200 / 2.4 * 100 }) },
		/* Emerald Rapids: SPR's formulas, "+ 0 * slots" included */
		{ .model = "emr", .smt = "on", .counts = SLOTS_COUNTS,
		  .name = "emeraldrapids",
		  .metrics = METRICS({ "tma_frontend_bound", 9 },
				     { "tma_memory_bound", 10 },
				     { "tma_core_bound", 5 }),
		  .absent = STRS("tma_pmm_bound") },	/* SPR has it, EMR not */
	};

	(void)state;
	check_decodes(c, sizeof(c) / sizeof(c[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_every_model),
		cmocka_unit_test(test_decode_skylake),
		cmocka_unit_test(test_decode_granite),
	};

	return cmocka_run_group_tests_name("intel models", tests, NULL, NULL);
}
