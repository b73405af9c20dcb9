// SPDX-License-Identifier: GPL-2.0
/*
 * Machine detection on recorded sysfs/procfs trees (tests/fixtures/<name>),
 * run from the repository root. Expected counter budgets come from the
 * reference's counter.json (BDX/BDW/SKX/CLX/SKL 4 GP counters per thread
 * with SMT on, 8 with SMT off; ICX/ICL/SPR/EMR/GNR 8) and tma-events.md
 * (AMD PerfCtr0-5, Arm PMCR_EL0.N = 6), not from the models.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "model/detect.h"

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

/* Emerald Rapids: SPR's driver name and PERF_METRICS events */
static void test_emr(void **state)
{
	(void)state;
	assert_int_equal(detect("emr-8592-plus"), 0);
	assert_ptr_equal(d.model, &model_emeraldrapids);
	assert_true(d.smt);
	assert_int_equal(d.gp_counters, 8);
	has(d.cpu_desc, "6-CF");
}

static void test_gnr(void **state)
{
	(void)state;
	assert_int_equal(detect("gnr-6980p"), 0);
	assert_ptr_equal(d.model, &model_graniterapids);
	assert_true(d.smt);
	assert_int_equal(d.gp_counters, 8);
	has(d.cpu_desc, "6-AD");
}

/* a kernel from before GNR had its own driver name: no raw events */
static void test_gnr_old_kernel(void **state)
{
	(void)state;
	assert_int_equal(detect("gnr-6980p-old-kernel"), 1);
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "'sapphire_rapids', not 'granite_rapids'");
	has(d.reason, "using the software model");
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
	/* one line: the CPU, what is missing, what tdbpf does instead */
	assert_string_equal(d.reason,
			    "AMD EPYC (AuthenticAMD 25-01): no hardware PMU "
			    "exposed (no /sys/bus/event_source/devices/cpu): "
			    "using the software model (scheduling breakdown "
			    "only)");
}

/* this project's CI machines: a Zen 5 VM that exposes no PMU */
static void test_zen5_vm_without_pmu(void **state)
{
	(void)state;
	assert_int_equal(detect("zen5-vm-no-pmu"), 1);
	assert_ptr_equal(d.model, &model_software);
	assert_int_equal(d.gp_counters, 0);
	assert_string_equal(d.reason,
			    "AMD EPYC (AuthenticAMD 26-02), model amdzen5: no "
			    "hardware PMU exposed (no /sys/bus/event_source/"
			    "devices/cpu): using the software model "
			    "(scheduling breakdown only)");
	assert_null(strchr(d.reason, '\n'));
}

/* AMD: six general counters per thread, SMT on or off, none fixed */
static void test_zen4(void **state)
{
	(void)state;
	assert_int_equal(detect("zen4-epyc-9654"), 0);
	assert_ptr_equal(d.model, &model_amdzen4);
	assert_true(d.smt);
	assert_int_equal(d.gp_counters, 6);
	assert_string_equal(d.pmu, "cpu");
	assert_string_equal(d.reason, "");
	assert_string_equal(d.note, "");
	has(d.cpu_desc, "EPYC 9654");
	has(d.cpu_desc, "AuthenticAMD 25-11");
}

/* Zen 4c (family 0x19 model 0xA0) with SMT off */
static void test_zen4_smt_off(void **state)
{
	(void)state;
	assert_int_equal(detect("zen4-epyc-9754-smt-off"), 0);
	assert_ptr_equal(d.model, &model_amdzen4);
	assert_false(d.smt);
	assert_int_equal(d.gp_counters, 6);
}

/* A VM that hides PerfCtrExtCore: the four legacy counters only */
static void test_zen4_vm_legacy_counters(void **state)
{
	(void)state;
	assert_int_equal(detect("zen4-vm-legacy-pmu"), 0);
	assert_ptr_equal(d.model, &model_amdzen4);
	assert_false(d.smt);
	assert_int_equal(d.gp_counters, 4);
	has(d.note, "no 'perfctr_core'");
	has(d.note, "4 counters");
}

static void test_zen5_nmi_watchdog(void **state)
{
	(void)state;
	assert_int_equal(detect("zen5-epyc-9575f"), 0);
	assert_ptr_equal(d.model, &model_amdzen5);
	assert_true(d.smt);
	assert_int_equal(d.gp_counters, 5);	/* 6 minus the watchdog's */
	has(d.note, "5 general counters");
}

/* family 0x19 model 0x01 is Zen 3 (perf's amdzen3): no model, one line */
static void test_zen3_has_no_model(void **state)
{
	(void)state;
	assert_int_equal(detect("zen3-epyc-7763"), 1);
	assert_ptr_equal(d.model, &model_software);
	assert_string_equal(d.pmu, "cpu");
	has(d.reason, "EPYC 7763");
	has(d.reason, "AuthenticAMD 25-01");
	has(d.reason, "no TopDown model");
	has(d.reason, "(models: amdzen4, amdzen5)");
	has(d.reason, "using the software model");
	assert_null(strchr(d.reason, '\n'));
}

/* Arm: the MIDR from sysfs, the PMU armv8_pmuv3_*, no caps/slots on N1 */
static void test_neoverse_n1(void **state)
{
	(void)state;
	assert_int_equal(detect("neoverse-n1-altra"), 0);
	assert_ptr_equal(d.model, &model_neoverse_n1);
	assert_false(d.smt);
	assert_int_equal(d.gp_counters, 6);
	assert_string_equal(d.pmu, "armv8_pmuv3_0");
	assert_string_equal(d.note, "");	/* N1 formulas need no slots */
	has(d.cpu_desc, "part 0xd0c r3p1");
	has(d.cpu_desc, "MIDR 0x413fd0c1");
}

static void test_neoverse_n2_slots(void **state)
{
	(void)state;
	assert_int_equal(detect("neoverse-n2-r0p3"), 0);
	assert_ptr_equal(d.model, &model_neoverse_n2);
	assert_string_equal(d.reason, "");
	assert_string_equal(d.note, "");
	has(d.cpu_desc, "r0p3");
}

/* N2 before r0p3 takes the other branch of perf's formulas: no model */
static void test_neoverse_n2_r0p0(void **state)
{
	(void)state;
	assert_int_equal(detect("neoverse-n2-r0p0"), 1);
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "part 0xd49 r0p0");
	has(d.reason, "neoverse-n2 model is for r0p3 and later");
}

/* no caps/slots (older kernel) and no sysfs MIDR: cpuinfo, V1's 8 slots */
static void test_neoverse_v1_without_slots(void **state)
{
	(void)state;
	assert_int_equal(detect("neoverse-v1-no-slots"), 0);
	assert_ptr_equal(d.model, &model_neoverse_v1);
	has(d.cpu_desc, "MIDR 0x411fd401");
	has(d.note, "caps/slots");
	has(d.note, "8 slots per cycle");
}

static void test_neoverse_v2(void **state)
{
	(void)state;
	assert_int_equal(detect("neoverse-v2-grace"), 0);
	assert_ptr_equal(d.model, &model_neoverse_v2);
	assert_string_equal(d.note, "");
}

/* a PMU reporting another width than the model's formulas fix */
static void test_neoverse_slots_mismatch(void **state)
{
	(void)state;
	assert_int_equal(detect("neoverse-v2-slots-mismatch"), 1);
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "6 slots per cycle");
	has(d.reason, "neoverse-v2");
	has(d.reason, "has 8");
}

/*
 * Recorded in QEMU 7.2's "-cpu max" guest (Debian 12's arm64 kernel): an
 * unknown MIDR and an emulated PMUv3 without the Neoverse slot events
 * gets the generic model, and says which events were missing.
 */
static void test_qemu_arm64_generic(void **state)
{
	(void)state;
	assert_int_equal(detect("qemu-arm64-max"), 0);
	assert_ptr_equal(d.model, &model_armv8);
	assert_string_equal(d.reason, "");
	assert_string_equal(d.pmu, "armv8_pmuv3");
	assert_int_equal(d.gp_counters, 6);
	has(d.note, "MIDR 0x000f0510");
	has(d.note, "no TopDown model");
	has(d.note, "lacks the Neoverse events br_mis_pred op_retired "
		    "op_spec stall_slot_backend stall_slot_frontend "
		    "stall_slot:");
	has(d.note, "generic Arm model (cycles, instructions, IPC)");
}

/* without -icount QEMU does not implement INST_RETIRED: no generic model */
static void test_qemu_arm64_no_instructions(void **state)
{
	(void)state;
	assert_int_equal(detect("qemu-arm64-max-no-icount"), 1);
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "armv8_pmuv3/events has no inst_retired for the "
		      "generic Arm model");
}

static void test_unsupported_cpu(void **state)
{
	(void)state;
	assert_int_equal(detect("hsx-e5-2680v3"), 1);
	assert_ptr_equal(d.model, &model_software);
	has(d.reason, "E5-2680 v3");
	has(d.reason, "6-3F");
	has(d.reason, "no TopDown model");
}

/* Skylake-SP: 6-55 stepping 4 (perf's mapfile: skylakex is 0-4) */
static void test_skx(void **state)
{
	(void)state;
	assert_int_equal(detect("skx-gold-6148"), 0);
	assert_ptr_equal(d.model, &model_skylakex);
	assert_true(d.smt);
	assert_int_equal(d.gp_counters, 4);
	assert_string_equal(d.reason, "");
	has(d.cpu_desc, "Gold 6148");
}

/* Cascade Lake: the same 6-55, stepping 7; 8 counters with SMT off */
static void test_clx_smt_off(void **state)
{
	(void)state;
	assert_int_equal(detect("clx-gold-6248-smt-off"), 0);
	assert_ptr_equal(d.model, &model_cascadelakex);
	assert_false(d.smt);
	assert_int_equal(d.gp_counters, 8);
	has(d.cpu_desc, "Gold 6248");
}

/* Coffee Lake (6-9E) is perf's skylake; the watchdog takes one of 4 */
static void test_skl_client(void **state)
{
	(void)state;
	assert_int_equal(detect("skl-i7-8700"), 0);
	assert_ptr_equal(d.model, &model_skylake);
	assert_true(d.smt);
	assert_true(d.nmi_watchdog);
	assert_int_equal(d.gp_counters, 3);
	has(d.cpu_desc, "6-9E");
}

/* A copy of fixture @name at @root (a mkdtemp template), to edit. */
static void fixture_copy(const char *name, char *root)
{
	char cmd[512];

	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -r " FIX "%s/. '%s'", name, root);
	assert_int_equal(system(cmd), 0);
}

/*
 * The stepping decides 6-55: 0-4 Skylake-SP, 5-F Cascade Lake, as in
 * perf's mapfile.csv (GenuineIntel-6-55-[01234] and -[56789ABCDEF]). The
 * skx fixture's cpuinfo with each stepping written in.
 */
static void test_6_55_stepping_split(void **state)
{
	char root[] = "/tmp/tdbpf-step-XXXXXX", cmd[512], path[300];
	int step;

	(void)state;
	fixture_copy("skx-gold-6148", root);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	for (step = 0; step <= 15; step++) {
		snprintf(cmd, sizeof(cmd),
			 "sed -i 's/^stepping\t: .*/stepping\t: %d/' '%s'",
			 step, path);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(detect_machine(root, &d), 0);
		assert_ptr_equal(d.model, step <= 4 ? &model_skylakex :
						      &model_cascadelakex);
	}
	/* no stepping line: neither model can be told, so neither */
	snprintf(cmd, sizeof(cmd), "sed -i '/^stepping/d' '%s'", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(detect_machine(root, &d), 1);
	assert_ptr_equal(d.model, &model_software);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/*
 * A /proc/cpuinfo that names no vendor (garbled) is not a missing one:
 * the description says which it was.
 */
static void test_cpuinfo_garbled_or_missing(void **state)
{
	char root[] = "/tmp/tdbpf-cpuinfo-XXXXXX", cmd[512], path[300];

	(void)state;
	fixture_copy("skx-gold-6148", root);
	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	snprintf(cmd, sizeof(cmd), "printf 'garbage\\n\\001\\002:x\\n' > '%s'",
		 path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(detect_machine(root, &d), 1);
	has(d.cpu_desc, "names no vendor_id");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(detect_machine(root, &d), 1);
	has(d.cpu_desc, "no /proc/cpuinfo: No such file");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
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

/* write @text to <@root>/@rel, gzipped when @gz */
static void put(const char *root, const char *rel, const char *text, bool gz)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	if (gz) {
		gzFile f = gzopen(path, "wb");

		assert_non_null(f);
		assert_true(gzputs(f, text) > 0);
		assert_int_equal(gzclose(f), Z_OK);
	} else {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		assert_true(fputs(text, f) >= 0);
		assert_int_equal(fclose(f), 0);
	}
}

/*
 * CONFIG_HZ: the boot config of the running release first, then
 * /proc/config.gz (gzipped), as libbpf looks; 0 when neither has it.
 */
static void test_hz(void **state)
{
	char root[] = "/tmp/tdbpf-hz-XXXXXX", dir[256], rel[320];
	struct utsname u;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(uname(&u), 0);
	assert_int_equal(detect_hz(root), 0);		/* nothing there */
	snprintf(dir, sizeof(dir), "%s/proc", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	put(root, "/proc/config.gz",
	    "# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n",
	    true);
	assert_int_equal(detect_hz(root), 250);
	snprintf(dir, sizeof(dir), "%s/boot", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(rel, sizeof(rel), "/boot/config-%s", u.release);
	put(root, rel, "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n", false);
	assert_int_equal(detect_hz(root), 1000);	/* boot config first */
	/* a boot config without it: /proc's still answers */
	put(root, rel, "CONFIG_NO_HZ=y\n", false);
	assert_int_equal(detect_hz(root), 250);
	/* a compressed file that is garbage past its header: no answer */
	put(root, "/proc/config.gz", "\x1f\x8b\x08\x00garbage", false);
	assert_int_equal(detect_hz(root), 0);
	snprintf(dir, sizeof(dir), "rm -rf '%s'", root);
	assert_int_equal(system(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bdx_e5_2620v4_ht),
		cmocka_unit_test(test_bdw_nmi_watchdog),
		cmocka_unit_test(test_icx),
		cmocka_unit_test(test_spr_smt_off),
		cmocka_unit_test(test_emr),
		cmocka_unit_test(test_gnr),
		cmocka_unit_test(test_gnr_old_kernel),
		cmocka_unit_test(test_icx_vm_without_topdown),
		cmocka_unit_test(test_spr_without_l2_topdown),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_vm_without_pmu),
		cmocka_unit_test(test_zen5_vm_without_pmu),
		cmocka_unit_test(test_zen4),
		cmocka_unit_test(test_zen4_smt_off),
		cmocka_unit_test(test_zen4_vm_legacy_counters),
		cmocka_unit_test(test_zen5_nmi_watchdog),
		cmocka_unit_test(test_zen3_has_no_model),
		cmocka_unit_test(test_neoverse_n1),
		cmocka_unit_test(test_neoverse_n2_slots),
		cmocka_unit_test(test_neoverse_n2_r0p0),
		cmocka_unit_test(test_neoverse_v1_without_slots),
		cmocka_unit_test(test_neoverse_v2),
		cmocka_unit_test(test_neoverse_slots_mismatch),
		cmocka_unit_test(test_qemu_arm64_generic),
		cmocka_unit_test(test_qemu_arm64_no_instructions),
		cmocka_unit_test(test_unsupported_cpu),
		cmocka_unit_test(test_skx),
		cmocka_unit_test(test_clx_smt_off),
		cmocka_unit_test(test_skl_client),
		cmocka_unit_test(test_6_55_stepping_split),
		cmocka_unit_test(test_cpuinfo_garbled_or_missing),
		cmocka_unit_test(test_generic_pmu_driver),
		cmocka_unit_test(test_empty_root),
		cmocka_unit_test(test_hz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
