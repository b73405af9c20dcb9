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

/* A fixture's flag: not looked at, or asserted true or false. */
enum flag { ANY, YES, NO };

/* An int that is checked when @on. */
struct opt_int {
	bool on;
	int v;
};

#define GP(n) { .on = true, .v = (n) }

/*
 * One recorded machine: what detect() of its fixture returns and finds.
 * A string NULL is not looked at; "" must be empty. Each of the *_has
 * strings must be in its field; @one_line: the reason has no newline.
 */
struct detect_case {
	const char *name;
	const char *fixture;
	int ret;
	const struct model *model;
	enum flag smt, nmi, hybrid;
	struct opt_int gp;
	const char *pmu, *reason, *note;
	const char *desc_has[2], *reason_has[5], *note_has[4];
	bool one_line;
};

static const struct detect_case cases[] = {
	{ .name = "test_bdx_e5_2620v4_ht", .fixture = "bdx-e5-2620v4-ht",
	  .model = &model_broadwellx, .smt = YES, .nmi = NO, .hybrid = NO,
	  .gp = GP(4), .pmu = "cpu", .reason = "", .note = "",
	  .desc_has = { "E5-2620 v4", "6-4F" } },
	/* no smt/active (older kernel): siblings > cores in cpuinfo: SMT */
	{ .name = "test_bdw_nmi_watchdog", .fixture = "bdw-i7-5775c-nmi",
	  .model = &model_broadwell, .smt = YES, .nmi = YES,
	  .gp = GP(3),	/* 4 minus the watchdog's */
	  .note_has = { "NMI watchdog", "3 general counters",
			"kernel.nmi_watchdog=0" } },
	{ .name = "test_icx", .fixture = "icx-gold-6338",
	  .model = &model_icelakex, .smt = YES, .gp = GP(8),
	  .desc_has = { "6-6A" } },
	{ .name = "test_spr_smt_off", .fixture = "spr-8480-smt-off",
	  .model = &model_sapphirerapids, .smt = NO, .gp = GP(8) },
	/* Emerald Rapids: SPR's driver name and PERF_METRICS events */
	{ .name = "test_emr", .fixture = "emr-8592-plus",
	  .model = &model_emeraldrapids, .smt = YES, .gp = GP(8),
	  .desc_has = { "6-CF" } },
	{ .name = "test_gnr", .fixture = "gnr-6980p",
	  .model = &model_graniterapids, .smt = YES, .gp = GP(8),
	  .desc_has = { "6-AD" } },
	/* a kernel from before GNR had its own driver name: no raw events */
	{ .name = "test_gnr_old_kernel", .fixture = "gnr-6980p-old-kernel",
	  .ret = 1, .model = &model_software,
	  .reason_has = { "'sapphire_rapids', not 'granite_rapids'",
			  "using the software model" } },
	/* the slots models need the kernel's PERF_METRICS events */
	{ .name = "test_icx_vm_without_topdown", .fixture = "icx-vm-no-topdown",
	  .ret = 1, .model = &model_software, .gp = GP(0),
	  .reason_has = { "icelakex", "topdown-retiring",
			  "using the software model" } },
	{ .name = "test_spr_without_l2_topdown", .fixture = "spr-no-l2-topdown",
	  .ret = 1, .model = &model_software,
	  .reason_has = { "topdown-heavy-ops" } },
	{ .name = "test_hybrid", .fixture = "adl-i7-12700k-hybrid", .ret = 1,
	  .model = &model_software, .hybrid = YES, .pmu = "cpu_core",
	  .reason_has = { "hybrid", "12700K", "using the software model" } },
	/* one line: the CPU, what is missing, what tdbpf does instead */
	{ .name = "test_vm_without_pmu", .fixture = "vm-no-pmu", .ret = 1,
	  .model = &model_software, .smt = NO, .gp = GP(0), .pmu = "",
	  .reason = "AMD EPYC (AuthenticAMD 25-01): no hardware PMU "
		    "exposed (no /sys/bus/event_source/devices/cpu): "
		    "using the software model (scheduling breakdown "
		    "only)" },
	/* this project's CI machines: a Zen 5 VM that exposes no PMU */
	{ .name = "test_zen5_vm_without_pmu", .fixture = "zen5-vm-no-pmu",
	  .ret = 1, .model = &model_software, .gp = GP(0),
	  .reason = "AMD EPYC (AuthenticAMD 26-02), model amdzen5: no "
		    "hardware PMU exposed (no /sys/bus/event_source/"
		    "devices/cpu): using the software model "
		    "(scheduling breakdown only)",
	  .one_line = true },
	/* AMD: six general counters per thread, SMT on or off, none fixed */
	{ .name = "test_zen4", .fixture = "zen4-epyc-9654",
	  .model = &model_amdzen4, .smt = YES, .gp = GP(6), .pmu = "cpu",
	  .reason = "", .note = "",
	  .desc_has = { "EPYC 9654", "AuthenticAMD 25-11" } },
	/* Zen 4c (family 0x19 model 0xA0) with SMT off */
	{ .name = "test_zen4_smt_off", .fixture = "zen4-epyc-9754-smt-off",
	  .model = &model_amdzen4, .smt = NO, .gp = GP(6) },
	/* A VM that hides PerfCtrExtCore: the four legacy counters only */
	{ .name = "test_zen4_vm_legacy_counters",
	  .fixture = "zen4-vm-legacy-pmu", .model = &model_amdzen4, .smt = NO,
	  .gp = GP(4), .note_has = { "no 'perfctr_core'", "4 counters" } },
	{ .name = "test_zen5_nmi_watchdog", .fixture = "zen5-epyc-9575f",
	  .model = &model_amdzen5, .smt = YES,
	  .gp = GP(5),	/* 6 minus the watchdog's */
	  .note_has = { "5 general counters" } },
	/* family 0x19 model 0x01 is Zen 3 (perf's amdzen3): none, one line */
	{ .name = "test_zen3_has_no_model", .fixture = "zen3-epyc-7763",
	  .ret = 1, .model = &model_software, .pmu = "cpu",
	  .reason_has = { "EPYC 7763", "AuthenticAMD 25-01",
			  "no TopDown model", "(models: amdzen4, amdzen5)",
			  "using the software model" },
	  .one_line = true },
	/* Arm: the MIDR from sysfs, the PMU armv8_pmuv3_*, no caps/slots */
	{ .name = "test_neoverse_n1", .fixture = "neoverse-n1-altra",
	  .model = &model_neoverse_n1, .smt = NO, .gp = GP(6),
	  .pmu = "armv8_pmuv3_0",
	  .note = "",	/* N1 formulas need no slots */
	  .desc_has = { "part 0xd0c r3p1", "MIDR 0x413fd0c1" } },
	{ .name = "test_neoverse_n2_slots", .fixture = "neoverse-n2-r0p3",
	  .model = &model_neoverse_n2, .reason = "", .note = "",
	  .desc_has = { "r0p3" } },
	/* N2 before r0p3 takes the other branch of perf's formulas: none */
	{ .name = "test_neoverse_n2_r0p0", .fixture = "neoverse-n2-r0p0",
	  .ret = 1, .model = &model_software,
	  .reason_has = { "part 0xd49 r0p0",
			  "neoverse-n2 model is for r0p3 and later" } },
	/* no caps/slots (older kernel), no sysfs MIDR: cpuinfo, V1's 8 */
	{ .name = "test_neoverse_v1_without_slots",
	  .fixture = "neoverse-v1-no-slots", .model = &model_neoverse_v1,
	  .desc_has = { "MIDR 0x411fd401" },
	  .note_has = { "caps/slots", "8 slots per cycle" } },
	{ .name = "test_neoverse_v2", .fixture = "neoverse-v2-grace",
	  .model = &model_neoverse_v2, .note = "" },
	/* a PMU reporting another width than the model's formulas fix */
	{ .name = "test_neoverse_slots_mismatch",
	  .fixture = "neoverse-v2-slots-mismatch", .ret = 1,
	  .model = &model_software,
	  .reason_has = { "6 slots per cycle", "neoverse-v2", "has 8" } },
	/*
	 * Recorded in QEMU 7.2's "-cpu max" guest (Debian 12's arm64
	 * kernel): an unknown MIDR and an emulated PMUv3 without the
	 * Neoverse slot events gets the generic model, and says which
	 * events were missing.
	 */
	{ .name = "test_qemu_arm64_generic", .fixture = "qemu-arm64-max",
	  .model = &model_armv8, .gp = GP(6), .pmu = "armv8_pmuv3",
	  .reason = "",
	  .note_has = { "MIDR 0x000f0510", "no TopDown model",
			"lacks the Neoverse events br_mis_pred op_retired "
			"op_spec stall_slot_backend stall_slot_frontend "
			"stall_slot:",
			"generic Arm model (cycles, instructions, IPC)" } },
	/* without -icount QEMU has no INST_RETIRED: no generic model */
	{ .name = "test_qemu_arm64_no_instructions",
	  .fixture = "qemu-arm64-max-no-icount", .ret = 1,
	  .model = &model_software,
	  .reason_has = { "armv8_pmuv3/events has no inst_retired for the "
			  "generic Arm model" } },
	{ .name = "test_unsupported_cpu", .fixture = "hsx-e5-2680v3", .ret = 1,
	  .model = &model_software,
	  .reason_has = { "E5-2680 v3", "6-3F", "no TopDown model" } },
	/* Skylake-SP: 6-55 stepping 4 (perf's mapfile: skylakex is 0-4) */
	{ .name = "test_skx", .fixture = "skx-gold-6148",
	  .model = &model_skylakex, .smt = YES, .gp = GP(4), .reason = "",
	  .desc_has = { "Gold 6148" } },
	/* Cascade Lake: the same 6-55, stepping 7; 8 counters with SMT off */
	{ .name = "test_clx_smt_off", .fixture = "clx-gold-6248-smt-off",
	  .model = &model_cascadelakex, .smt = NO, .gp = GP(8),
	  .desc_has = { "Gold 6248" } },
	/* Coffee Lake (6-9E) is perf's skylake; the watchdog takes one of 4 */
	{ .name = "test_skl_client", .fixture = "skl-i7-8700",
	  .model = &model_skylake, .smt = YES, .nmi = YES, .gp = GP(3),
	  .desc_has = { "6-9E" } },
	/* CPUID says BDX, but the driver does not know it: no raw events */
	{ .name = "test_generic_pmu_driver", .fixture = "bdx-generic-pmu",
	  .ret = 1, .model = &model_software,
	  .reason_has = { "generic_arch_v2+", "'broadwell'" } },
};

#define NR(a) (sizeof(a) / sizeof((a)[0]))

static void flag_is(bool got, enum flag want, const char *what)
{
	if (want != ANY && got != (want == YES))
		fail_msg("%s is %d, want %d", what, got, want == YES);
}

/* Each of the @n strings @want (up to the first NULL) in @s. */
static void has_each(const char *s, const char *const *want, size_t n)
{
	size_t i;

	for (i = 0; i < n && want[i]; i++)
		has(s, want[i]);
}

/* @s is @want when it is given. */
static void is_str(const char *s, const char *want)
{
	if (want)
		assert_string_equal(s, want);
}

/* The recorded machine of @state (a detect_case) detected as it says. */
static void test_machine(void **state)
{
	const struct detect_case *c = *state;

	assert_int_equal(detect(c->fixture), c->ret);
	assert_ptr_equal(d.model, c->model);
	flag_is(d.smt, c->smt, "smt");
	flag_is(d.nmi_watchdog, c->nmi, "nmi_watchdog");
	flag_is(d.hybrid, c->hybrid, "hybrid");
	if (c->gp.on)
		assert_int_equal(d.gp_counters, c->gp.v);
	is_str(d.pmu, c->pmu);
	is_str(d.reason, c->reason);
	is_str(d.note, c->note);
	has_each(d.cpu_desc, c->desc_has, NR(c->desc_has));
	has_each(d.reason, c->reason_has, NR(c->reason_has));
	has_each(d.note, c->note_has, NR(c->note_has));
	if (c->one_line)
		assert_null(strchr(d.reason, '\n'));
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
	static const struct CMUnitTest others[] = {
		cmocka_unit_test(test_6_55_stepping_split),
		cmocka_unit_test(test_cpuinfo_garbled_or_missing),
		cmocka_unit_test(test_empty_root),
		cmocka_unit_test(test_hz),
	};
	/* one test a recorded machine, named as the case says */
	struct CMUnitTest tests[NR(cases) + NR(others)];
	size_t i;

	for (i = 0; i < NR(cases); i++)
		tests[i] = (struct CMUnitTest){ .name = cases[i].name,
						.test_func = test_machine,
						.initial_state =
							(void *)&cases[i] };
	for (i = 0; i < NR(others); i++)
		tests[NR(cases) + i] = others[i];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
