// SPDX-License-Identifier: GPL-2.0
/* The models checked and the reference each is checked against. */
#include "reference.h"

/*
 * Weak, so that this file still links while a model is being written; a
 * missing model then fails its tests with a clear message instead of
 * breaking the build of every other test.
 */
#pragma weak model_broadwellx
#pragma weak model_broadwell
#pragma weak model_icelakex
#pragma weak model_icelake
#pragma weak model_sapphirerapids
#pragma weak model_skylakex
#pragma weak model_cascadelakex
#pragma weak model_skylake
#pragma weak model_emeraldrapids
#pragma weak model_graniterapids
#pragma weak model_amdzen4
#pragma weak model_amdzen5
#pragma weak model_neoverse_n1
#pragma weak model_neoverse_n2
#pragma weak model_neoverse_v1
#pragma weak model_neoverse_v2

const char *refdir;

/* ------------------------------------------------------------------ */
/* test plumbing                                                        */
/* ------------------------------------------------------------------ */

#define ANALOGS_L1							\
	{ "frontend_bound", "tma_frontend_bound" },			\
	{ "bad_speculation", "tma_bad_speculation" },			\
	{ "backend_bound", "tma_backend_bound" },			\
	{ "retiring", "tma_retiring" }

/* SMT contention has no TMA counterpart: tdbpf's own 0.15 */
static const struct analog zen4_analogs[] = {
	ANALOGS_L1,
	{ "smt_contention", NULL },
	{ "frontend_bound_latency", "tma_fetch_latency" },
	{ "frontend_bound_bandwidth", "tma_fetch_bandwidth" },
	{ "bad_speculation_mispredicts", "tma_branch_mispredicts" },
	{ "bad_speculation_pipeline_restarts", "tma_machine_clears" },
	{ "backend_bound_memory", "tma_memory_bound" },
	{ "backend_bound_cpu", "tma_core_bound" },
	{ "retiring_fastpath", "tma_light_operations" },
	{ "retiring_microcode", "tma_heavy_operations" },
	{ NULL, NULL },
};

static const struct analog zen5_analogs[] = {
	ANALOGS_L1,
	{ "smt_contention", NULL },
	{ "frontend_bound_by_latency", "tma_fetch_latency" },
	{ "frontend_bound_by_bandwidth", "tma_fetch_bandwidth" },
	{ "bad_speculation_from_mispredicts", "tma_branch_mispredicts" },
	{ "bad_speculation_from_pipeline_restarts", "tma_machine_clears" },
	{ "backend_bound_by_memory", "tma_memory_bound" },
	{ "backend_bound_by_cpu", "tma_core_bound" },
	{ "retiring_from_fastpath", "tma_light_operations" },
	{ "retiring_from_microcode", "tma_heavy_operations" },
	{ NULL, NULL },
};

/* stalled cycles: the frontend / backend bound of cycles, not slots */
#define ANALOGS_STALLED							\
	{ "frontend_stalled_cycles", "tma_frontend_bound" },		\
	{ "backend_stalled_cycles", "tma_backend_bound" }

static const struct analog arm_analogs[] = {
	ANALOGS_L1, ANALOGS_STALLED, { NULL, NULL },
};

static const struct analog n1_analogs[] = {
	ANALOGS_STALLED, { NULL, NULL },
};

/* the Intel thresholds the analogs are read from */
const struct spec intel_thresholds = {
	.dir = "sapphirerapids", .m = NULL, .mname = "thresholds",
};

#define INTEL(d, sym)							\
	{ .dir = d, .m = &sym, .mname = #sym, .vendor = VENDOR_INTEL }
/* AMD: no Counter field in the JSON; PerfCtr0-5 (tma-events.md) */
#define AMD(d, sym, an)							\
	{ .dir = d, .m = &sym, .mname = #sym, .vendor = VENDOR_AMD,	\
	  .gp = 6, .analogs = an }
/* Arm: six event counters; the MIDR and #slots the model stands for */
#define ARM(d, sym, id, sl, an)						\
	{ .dir = d, .m = &sym, .mname = #sym, .vendor = VENDOR_ARM,	\
	  .std = "arm64", .midr = id, .slots = sl, .gp = 6, .analogs = an }

struct spec specs[] = {
	INTEL("broadwellx", model_broadwellx),
	INTEL("broadwell", model_broadwell),
	INTEL("icelakex", model_icelakex),
	INTEL("icelake", model_icelake),
	INTEL("sapphirerapids", model_sapphirerapids),
	AMD("amdzen4", model_amdzen4, zen4_analogs),
	AMD("amdzen5", model_amdzen5, zen5_analogs),
	ARM("neoverse-n1", model_neoverse_n1, 0x413fd0c1, NAN, n1_analogs),
	ARM("neoverse-n2-v2", model_neoverse_n2, 0x410fd493, 5, arm_analogs),
	ARM("neoverse-v1", model_neoverse_v1, 0x411fd401, 8, arm_analogs),
	ARM("neoverse-n2-v2", model_neoverse_v2, 0x410fd4f0, 8, arm_analogs),
	INTEL("skylakex", model_skylakex),
	INTEL("cascadelakex", model_cascadelakex),
	INTEL("skylake", model_skylake),
	INTEL("emeraldrapids", model_emeraldrapids),
	INTEL("graniterapids", model_graniterapids),
};


/* skip without reference data, fail without the model; load the JSON */
void setup_ref(void **state, struct refset *r)
{
	const struct spec *sp = *state;

	if (!refdir)
		skip();
	if (!sp->m) {
		print_error("%s is not linked: user/model/cpus/ lacks it\n",
			    sp->mname);
		fail();
	}
	memset(r, 0, sizeof(*r));
	r->m = sp->m;
	assert_int_equal(ref_load(r, sp), 0);
}

/*
 * The metrics of the TopDown levels (Intel tma_*, tma_info_* excluded;
 * AMD PipelineL1-L2; Arm TopdownL1 and Cycle_Accounting), from @max on.
 */
static bool in_scope(const struct spec *sp, const struct ref_metric *rm,
		     int max)
{
	if (rm->level < 1 || rm->level > max)
		return false;
	if (sp->vendor == VENDOR_AMD || sp->vendor == VENDOR_ARM)
		return true;
	return !strncmp(rm->name, "tma_", 4) &&
	       strncmp(rm->name, "tma_info_", 9);
}

/* L1..L3 tree metrics in scope for the model */
bool in_tree(const struct refset *r, const struct ref_metric *rm)
{
	int max = r->m->max_level < 3 ? r->m->max_level : 3;

	return in_scope(r->sp, rm, max);
}

int ref_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
	const char *env = getenv("TDBPF_REFERENCE");
	const char *dir = env && *env ? env : REF_DEFAULT;
	char probe[512];
	struct stat st;

	snprintf(probe, sizeof(probe), "%s/mapfile.csv", dir);
	if (stat(probe, &st) == 0)
		refdir = dir;
	else
		printf("reference data not found at %s: skipping\n", dir);
	return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}
