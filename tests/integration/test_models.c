// SPDX-License-Identifier: GPL-2.0
/*
 * `tdbpf list` and `tdbpf decode` for the AMD and Arm models, through the
 * binary as a user runs them: every model by its name and short name,
 * the groups fitting six counters, decode input in perf's own event names
 * (AMD's lower case, Arm's upper or lower case, perf stat -x, lines), and
 * the JSON metric names perf prints for that CPU. Expected values are
 * perf's formulas (../shared/reference/tma-metrics.md) worked out by hand.
 */
#include "models.h"

struct listed {
	const char *name, *alias;
	int level, events, groups;
	bool cycle_counter;	/* Arm: cpu_cycles on PMCCNTR_EL0 */
};

static const struct listed listed[] = {
	{ "amdzen4", "zen4", 2, 12, 2, false },
	{ "amdzen5", "zen5", 2, 12, 2, false },
	{ "neoverse-n1", "n1", 1, 4, 2, true },
	{ "neoverse-n2", "n2", 1, 10, 3, true },
	{ "neoverse-v1", "v1", 1, 10, 3, true },
	{ "neoverse-v2", "v2", 1, 10, 3, true },
};

static void test_list_every_model(void **state)
{
	size_t i;
	int k, g, e, events;

	(void)state;
	for (i = 0; i < sizeof(listed) / sizeof(listed[0]); i++) {
		const struct listed *l = &listed[i];

		for (k = 0; k < 2; k++) {
			json_object *o = list(k ? l->alias : l->name, NULL);
			json_object *groups;

			assert_string_equal(jstr_of(o, "model"), l->name);
			assert_int_equal(jint(o, "level"), l->level);
			assert_int_equal(jint(o, "gp_counters"), 6);
			groups = jget(o, "groups");
			assert_int_equal(json_object_array_length(groups),
					 l->groups);
			events = 0;
			for (g = 0; g < l->groups; g++) {
				json_object *evs = jget(
					json_object_array_get_idx(groups, g),
					"events");
				int gp = 0;

				for (e = 0; e < (int)json_object_array_length(evs);
				     e++) {
					json_object *ev =
						json_object_array_get_idx(evs, e);
					const char *n = jstr_of(ev, "name");
					json_object *c;

					events++;
					if (!json_object_object_get_ex(
						    ev, "counter", &c)) {
						/* only the cycle counter */
						assert_true(l->cycle_counter);
						assert_string_equal(n,
								    "cpu_cycles");
						continue;
					}
					assert_true(json_object_get_int(c) < 6);
					gp++;
				}
				assert_true(gp <= 6);
			}
			assert_int_equal(events, l->events);
			json_object_put(o);
		}
	}
}

/*
 * Neoverse, perf stat -x, lines with the expressions' upper-case names.
 * N2 (5 slots): frontend 600000 / 5e6 - 1000 / 1e6 = 11.9%; retiring
 * 0.95 * (1 - 1e6 / 5e6) = 76%. V2 (8 slots) and V1 (its own frontend,
 * 8 slots, BR_MIS_PRED * 4) differ on the same counts.
 */
static const char arm_counts[] =
	"1000000,,CPU_CYCLES,1000000,100.00,,\n"
	"1000000,,STALL_SLOT,1000000,100.00,,\n"
	"600000,,STALL_SLOT_FRONTEND,1000000,100.00,,\n"
	"400000,,STALL_SLOT_BACKEND,1000000,100.00,,\n"
	"1900000,,OP_RETIRED,1000000,100.00,,\n"
	"2000000,,OP_SPEC,1000000,100.00,,\n"
	"1000,,BR_MIS_PRED,1000000,100.00,,\n"
	"500000,,stall_frontend,1000000,100.00,,\n"
	"100000,,stall_backend,1000000,100.00,,\n";

static void test_decode_neoverse(void **state)
{
	const struct decode_case c[] = {
		{ .model = "neoverse-n2", .counts = arm_counts, .smt_is = -1,
		  .nr_metrics = 6,
		  .metrics = METRICS({ "frontend_bound", 11.9 },
				     { "bad_speculation", 5 * 0.8 + 0.4 },
				     { "backend_bound", 8 - 0.3 },
				     { "retiring", 76 },
				     { "frontend_stalled_cycles", 50 },
				     { "backend_stalled_cycles", 10 }),
		  /* frontend stalled 50% is over, but beside TopdownL1 */
		  .bottleneck = "Retiring" },
		{ .model = "v2", .counts = arm_counts,
		  .metrics = METRICS({ "frontend_bound", 7.5 - 0.1 },
				     { "retiring",
				       0.95 * (1 - 1.0 / 8) * 100 }) },
		{ .model = "neoverse-v1", .counts = arm_counts,
		  .metrics = METRICS({ "frontend_bound", 7.5 - 0.4 },
				     { "backend_bound", 5 }) },
		/* N1: Cycle_Accounting only */
		{ .model = "n1",
		  .counts = "1000000,,cpu_cycles,1000000,100.00,,\n"
			    "500000,,STALL_FRONTEND,1000000,100.00,,\n"
			    "100000,,STALL_BACKEND,1000000,100.00,,\n",
		  .nr_metrics = 2,
		  .metrics = METRICS({ "frontend_stalled_cycles", 50 },
				     { "backend_stalled_cycles", 10 }),
		  .bottleneck = "Frontend_Stalled" },
	};

	(void)state;
	check_decodes(c, sizeof(c) / sizeof(c[0]));
}

/* AMD's models: a case for each */
static const struct decode_case zen[] = {
	/*
	 * Zen 4, perf's lower-case names, the cmask event in perf stat's
	 * cpu/.../ spelling. Slots 6e6: frontend 20%, latency 6 * 1e5 = 10%,
	 * bandwidth 10%; bad speculation 5%, split 1000:200; backend 41.67%,
	 * memory 1/3 of it; SMT 5%; retiring 33.3%, microcode 5% of it.
	 * Backend 41.7 > 20 and CPU 27.8 > 10 under it: Backend.CPU.
	 */
	{
		.model = "amdzen4",
		.counts = "ls_not_halted_cyc 1000000\n"
			  "de_no_dispatch_per_slot.no_ops_from_frontend 1200000\n"
			  "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/"
			  " 100000\n"
			  "de_no_dispatch_per_slot.backend_stalls 2500000\n"
			  "de_no_dispatch_per_slot.smt_contention 300000\n"
			  "de_src_op_disp.all 2300000\n"
			  "ex_ret_ops 2000000\n"
			  "ex_no_retire.load_not_complete 300\n"
			  "ex_no_retire.not_complete 900\n"
			  "ex_ret_brn_misp 1000\n"
			  "resyncs_or_nc_redirects 200\n"
			  "ex_ret_ucode_ops 100000\n",
		.nr_metrics = 13,
		.metrics = METRICS(
			{ "frontend_bound", 20 },
			{ "frontend_bound_latency", 10 },
			{ "frontend_bound_bandwidth", 10 },
			{ "bad_speculation", 5 },
			{ "bad_speculation_mispredicts", 5.0 * 1000 / 1200 },
			{ "bad_speculation_pipeline_restarts", 5.0 * 200 / 1200 },
			{ "backend_bound", 250.0 / 6 },
			{ "backend_bound_memory", 250.0 / 6 / 3 },
			{ "backend_bound_cpu", 250.0 / 6 * 2 / 3 },
			{ "smt_contention", 5 },
			{ "retiring", 100.0 / 3 },
			{ "retiring_fastpath", 100.0 / 3 * 0.95 },
			{ "retiring_microcode", 100.0 / 3 * 0.05 }),
		.bottleneck = "Backend.CPU",
	},
	/* Zen 5's names: "_by_", "_from_"; 8 slots per cycle */
	{
		.model = "zen5",
		.counts = "ls_not_halted_cyc 1000\n"
			  "de_no_dispatch_per_slot.no_ops_from_frontend 4000\n"
			  "cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x8/"
			  " 300\n"
			  "de_no_dispatch_per_slot.backend_stalls 800\n"
			  "de_no_dispatch_per_slot.smt_contention 0\n"
			  "de_src_op_disp.all 3400\n"
			  "ex_ret_ops 3200\n"
			  "ex_no_retire.load_not_complete 1\n"
			  "ex_no_retire.not_complete 2\n"
			  "ex_ret_brn_misp 3\n"
			  "bp_redirects.resync 1\n"
			  "ex_ret_ucode_ops 0\n",
		.name = "amdzen5",
		.metrics = METRICS(
			{ "frontend_bound", 50 },
			{ "frontend_bound_by_latency", 30 },
			{ "frontend_bound_by_bandwidth", 20 },
			{ "bad_speculation_from_mispredicts", 2.5 * 3 / 4 },
			{ "backend_bound_by_memory", 5 },
			{ "retiring_from_fastpath", 40 },
			{ "smt_contention", 0 }),
		/* frontend 50 > 15; latency 30 > 10, bandwidth 20 not > 20 */
		.bottleneck = "Frontend.Latency",
	},
};

static void test_decode_zen4(void **state)
{
	(void)state;
	check_decodes(&zen[0], 1);
}

static void test_decode_zen5(void **state)
{
	(void)state;
	check_decodes(&zen[1], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_every_model),
		cmocka_unit_test(test_decode_zen4),
		cmocka_unit_test(test_decode_zen5),
		cmocka_unit_test(test_decode_neoverse),
	};

	return cmocka_run_group_tests_name("models", tests, NULL, NULL);
}
