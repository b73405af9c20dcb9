// SPDX-License-Identifier: GPL-2.0
/*
 * Machine detection on recorded sysfs/procfs trees (tests/fixtures/<name>),
 * run from the repository root. Expected counter budgets come from the
 * reference's counter.json (BDX/BDW 4 GP counters per thread with SMT on,
 * 8 with SMT off; ICX/ICL/SPR 8), not from the models.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "detect.h"

#define FIX "tests/fixtures/"

static struct detect_info d;

static int detect(const char *name)
{
	char root[256];

	snprintf(root, sizeof(root), FIX "%s", name);
	return detect_machine(root, &d);
}

static void has(const char *s, const char *what)
{
	if (!strstr(s, what)) {
		print_error("'%s' lacks '%s'\n", s, what);
		fail();
	}
}

static void test_bdx_e5_2620v4_ht(void **state)
{
	(void)state;
	assert_int_equal(detect("bdx-e5-2620v4-ht"), 0);
	assert_ptr_equal(d.model, &model_broadwellx);
	assert_true(d.smt);
	assert_false(d.nmi_watchdog);
	assert_false(d.hybrid);
	assert_int_equal(d.gp_counters, 4);
	assert_string_equal(d.pmu, "cpu");
	assert_string_equal(d.reason, "");
	assert_string_equal(d.note, "");
	has(d.cpu_desc, "E5-2620 v4");
	has(d.cpu_desc, "6-4F");
}

/* no smt/active (older kernel): siblings > cores in cpuinfo means SMT */
static void test_bdw_nmi_watchdog(void **state)
{
	(void)state;
	assert_int_equal(detect("bdw-i7-5775c-nmi"), 0);
	assert_ptr_equal(d.model, &model_broadwell);
	assert_true(d.smt);
	assert_true(d.nmi_watchdog);
	assert_int_equal(d.gp_counters, 3);	/* 4 minus the watchdog's */
	has(d.note, "NMI watchdog");
	has(d.note, "3 general counters");
	has(d.note, "kernel.nmi_watchdog=0");
}

static void test_icx(void **state)
{
	(void)state;
	assert_int_equal(detect("icx-gold-6338"), 0);
	assert_ptr_equal(d.model, &model_icelakex);
	assert_true(d.smt);
	assert_int_equal(d.gp_counters, 8);
	has(d.cpu_desc, "6-6A");
}

static void test_spr_smt_off(void **state)
{
	(void)state;
	assert_int_equal(detect("spr-8480-smt-off"), 0);
	assert_ptr_equal(d.model, &model_sapphirerapids);
	assert_false(d.smt);
	assert_int_equal(d.gp_counters, 8);
}

/* the slots models need the kernel's PERF_METRICS events */
static void test_icx_vm_without_topdown(void **state)
{
	(void)state;
	assert_int_equal(detect("icx-vm-no-topdown"), 1);
	assert_ptr_equal(d.model, &model_software);
	assert_int_equal(d.gp_counters, 0);
	has(d.reason, "icelakex");
	has(d.reason, "topdown-retiring");
	has(d.reason, "using the software model");
}

static void test_spr_without_l2_topdown(void **state)
{
	(void)state;
	assert_int_equal(detect("spr-no-l2-topdown"), 1);
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "topdown-heavy-ops");
}

static void test_hybrid(void **state)
{
	(void)state;
	assert_int_equal(detect("adl-i7-12700k-hybrid"), 1);
	assert_true(d.hybrid);
	assert_string_equal(d.pmu, "cpu_core");
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "hybrid");
	has(d.reason, "12700K");
	has(d.reason, "using the software model");
}

static void test_vm_without_pmu(void **state)
{
	(void)state;
	assert_int_equal(detect("vm-no-pmu"), 1);
	assert_ptr_equal(d.model, &model_software);
	assert_false(d.smt);
	assert_int_equal(d.gp_counters, 0);
	assert_string_equal(d.pmu, "");
	assert_string_equal(d.reason,
			    "no hardware PMU (no /sys/bus/event_source/devices"
			    "/cpu): using the software model (scheduling "
			    "breakdown only)");
}

static void test_unsupported_cpu(void **state)
{
	(void)state;
	assert_int_equal(detect("skx-gold-6148"), 1);
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "Gold 6148");
	has(d.reason, "6-55");
	has(d.reason, "no TopDown model");
}

/* CPUID says BDX, but the driver does not know it: no raw events */
static void test_generic_pmu_driver(void **state)
{
	(void)state;
	assert_int_equal(detect("bdx-generic-pmu"), 1);
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "generic_arch_v2+");
	has(d.reason, "'broadwell'");
}

/* a root with nothing in it: software, never a crash */
static void test_empty_root(void **state)
{
	(void)state;
	assert_int_equal(detect_machine("/nonexistent-tdbpf-root", &d), 1);
	assert_ptr_equal(d.model, &model_software);
	assert_false(d.smt);
	has(d.cpu_desc, "unknown CPU");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bdx_e5_2620v4_ht),
		cmocka_unit_test(test_bdw_nmi_watchdog),
		cmocka_unit_test(test_icx),
		cmocka_unit_test(test_spr_smt_off),
		cmocka_unit_test(test_icx_vm_without_topdown),
		cmocka_unit_test(test_spr_without_l2_topdown),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_vm_without_pmu),
		cmocka_unit_test(test_unsupported_cpu),
		cmocka_unit_test(test_generic_pmu_driver),
		cmocka_unit_test(test_empty_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
