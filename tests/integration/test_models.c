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
 * Zen 4, perf's lower-case names, the cmask event in perf stat's
 * cpu/.../ spelling. Slots 6e6: frontend 20%, latency 6 * 1e5 = 10%,
 * bandwidth 10%; bad speculation 5%, split 1000:200; backend 41.67%,
 * memory 1/3 of it; SMT 5%; retiring 33.3%, microcode 5% of it.
 * Backend 41.7 > 20 and CPU 27.8 > 10 under it: Backend.CPU.
 */
static void test_decode_zen4(void **state)
{
	const char *counts =
		"ls_not_halted_cyc 1000000\n"
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
		"ex_ret_ucode_ops 100000\n";
	json_object *o, *m;

	(void)state;
	o = decode_counts("amdzen4", NULL, counts);
	m = jget(o, "metrics");
	assert_int_equal(json_object_object_length(m), 13);
	near(m, "frontend_bound", 20);
	near(m, "frontend_bound_latency", 10);
	near(m, "frontend_bound_bandwidth", 10);
	near(m, "bad_speculation", 5);
	near(m, "bad_speculation_mispredicts", 5.0 * 1000 / 1200);
	near(m, "bad_speculation_pipeline_restarts", 5.0 * 200 / 1200);
	near(m, "backend_bound", 250.0 / 6);
	near(m, "backend_bound_memory", 250.0 / 6 / 3);
	near(m, "backend_bound_cpu", 250.0 / 6 * 2 / 3);
	near(m, "smt_contention", 5);
	near(m, "retiring", 100.0 / 3);
	near(m, "retiring_fastpath", 100.0 / 3 * 0.95);
	near(m, "retiring_microcode", 100.0 / 3 * 0.05);
	assert_string_equal(jstr_of(o, "bottleneck"), "Backend.CPU");
	json_object_put(o);
}

/* Zen 5's names: "_by_", "_from_"; 8 slots per cycle */
static void test_decode_zen5(void **state)
{
	const char *counts =
		"ls_not_halted_cyc 1000\n"
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
		"ex_ret_ucode_ops 0\n";
	json_object *o, *m;

	(void)state;
	o = decode_counts("zen5", NULL, counts);
	assert_string_equal(jstr_of(o, "model"), "amdzen5");
	m = jget(o, "metrics");
	near(m, "frontend_bound", 50);
	near(m, "frontend_bound_by_latency", 30);
	near(m, "frontend_bound_by_bandwidth", 20);
	near(m, "bad_speculation_from_mispredicts", 2.5 * 3 / 4);
	near(m, "backend_bound_by_memory", 5);
	near(m, "retiring_from_fastpath", 40);
	near(m, "smt_contention", 0);
	/* frontend 50 > 15; latency 30 > 10, bandwidth 20 not > 20 */
	assert_string_equal(jstr_of(o, "bottleneck"), "Frontend.Latency");
	json_object_put(o);
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
	const char *counts;
	json_object *o, *m;

	(void)state;
	o = decode_counts("neoverse-n2", NULL, arm_counts);
	assert_false(json_object_get_boolean(jget(o, "smt")));
	m = jget(o, "metrics");
	assert_int_equal(json_object_object_length(m), 6);
	near(m, "frontend_bound", 11.9);
	near(m, "bad_speculation", 5 * 0.8 + 0.4);
	near(m, "backend_bound", 8 - 0.3);
	near(m, "retiring", 76);
	near(m, "frontend_stalled_cycles", 50);
	near(m, "backend_stalled_cycles", 10);
	/* frontend stalled 50% is over, but beside TopdownL1 */
	assert_string_equal(jstr_of(o, "bottleneck"), "Retiring");
	json_object_put(o);

	o = decode_counts("v2", NULL, arm_counts);
	m = jget(o, "metrics");
	near(m, "frontend_bound", 7.5 - 0.1);
	near(m, "retiring", 0.95 * (1 - 1.0 / 8) * 100);
	json_object_put(o);

	o = decode_counts("neoverse-v1", NULL, arm_counts);
	m = jget(o, "metrics");
	near(m, "frontend_bound", 7.5 - 0.4);
	near(m, "backend_bound", 5);
	json_object_put(o);

	/* N1: Cycle_Accounting only */
	counts = "1000000,,cpu_cycles,1000000,100.00,,\n"
		 "500000,,STALL_FRONTEND,1000000,100.00,,\n"
		 "100000,,STALL_BACKEND,1000000,100.00,,\n";
	o = decode_counts("n1", NULL, counts);
	m = jget(o, "metrics");
	assert_int_equal(json_object_object_length(m), 2);
	near(m, "frontend_stalled_cycles", 50);
	near(m, "backend_stalled_cycles", 10);
	assert_string_equal(jstr_of(o, "bottleneck"), "Frontend_Stalled");
	json_object_put(o);
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
