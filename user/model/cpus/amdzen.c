// SPDX-License-Identifier: GPL-2.0
/*
 * AMD Zen 4 (amdzen4: family 0x19 models 0x10-0x1F and 0x60-0xFF, the ones
 * perf's mapfile does not give to amdzen3; EPYC 9004, Ryzen 7000) and
 * Zen 5 (amdzen5: family 0x1A; EPYC 9005, Ryzen 9000). perf's PipelineL1
 * and PipelineL2 metrics (pipeline.json): dispatch slots, 6 per cycle on
 * Zen 4 and 8 on Zen 5, split into frontend bound, bad speculation,
 * backend bound, SMT contention (slots the sibling thread took) and
 * retiring, each split once more at level 2.
 *
 * Six general counters per thread (PerfCtr0-5), none fixed, none
 * restricted for these event codes (arch/x86/events/amd/core.c). Level 1
 * is exactly six events, one group; level 2 adds six more.
 *
 * Raw configs as the kernel's "cpu" PMU format (event=config:0-7,32-35)
 * lays out AMD's 12-bit event select: event[7:0] | umask << 8 |
 * edge << 18 | inv << 23 | cmask << 24 | event[11:8] << 32.
 *
 * perf's JSON has no MetricThreshold for these metrics. The thresholds
 * here are those of the Intel TMA node each one corresponds to (frontend
 * 0.15, latency 0.1 under its parent, bandwidth 0.2 alone, ...; SMT
 * contention 0.15 like the other stall categories; retiring > 0.7 or
 * microcode > 0.1), so the verdict reads the same across vendors.
 */
#include <linux/perf_event.h>
#include "model/model.h"
#include "model/tma_expr.h"

enum {
	E_FE_C,		/* no_ops_from_frontend with cmask = slots per cycle */
	E_BE_STALLS,
	E_FE,
	E_SMT,
	E_DISP,
	E_LOAD_NC,
	E_NOT_COMPLETE,
	E_BRN_MISP,
	E_RET_OPS,
	E_UCODE_OPS,
	E_CYCLES,
	E_RESYNC,
	NR_EVENTS
};

/* AMD event select @ev (12 bits), unit mask @um, counter mask @cm */
#define AMD_CONFIG(ev, um, cm)						\
	((__u64)((ev) & 0xff) | (__u64)(um) << 8 | (__u64)(cm) << 24 |	\
	 (__u64)((ev) >> 8 & 0xf) << 32)
#define GP(n, ev, um, cm, lvl)						\
	{ .name = n, .type = PERF_TYPE_RAW,				\
	  .config = AMD_CONFIG(ev, um, cm), .kind = EV_GP,		\
	  .counters = 0x3f, .fixed = -1, .need = NEED_ALWAYS, .level = lvl }

/* Encodings from tma-events.md (perf JSON); no formula depends on SMT. */
#define ZEN_EVENTS(width, fe_c_name)					\
	[E_FE_C] = GP(fe_c_name, 0x1a0, 0x01, width, 2),		\
	[E_BE_STALLS] = GP("de_no_dispatch_per_slot.backend_stalls", 0x1a0, \
			   0x1e, 0, 1),					\
	[E_FE] = GP("de_no_dispatch_per_slot.no_ops_from_frontend", 0x1a0, \
		    0x01, 0, 1),					\
	[E_SMT] = GP("de_no_dispatch_per_slot.smt_contention", 0x1a0, 0x60, \
		     0, 1),						\
	[E_DISP] = GP("de_src_op_disp.all", 0xaa, 0x07, 0, 1),		\
	[E_LOAD_NC] = GP("ex_no_retire.load_not_complete", 0xd6, 0xa2, 0, 2), \
	[E_NOT_COMPLETE] = GP("ex_no_retire.not_complete", 0xd6, 0x02, 0, 2), \
	[E_BRN_MISP] = GP("ex_ret_brn_misp", 0xc3, 0, 0, 2),		\
	[E_RET_OPS] = GP("ex_ret_ops", 0xc1, 0, 0, 1),			\
	[E_UCODE_OPS] = GP("ex_ret_ucode_ops", 0x1c2, 0, 0, 2),		\
	[E_CYCLES] = GP("ls_not_halted_cyc", 0x76, 0, 0, 1)

static const struct model_event zen4_events[NR_EVENTS] = {
	ZEN_EVENTS(6, "cpu@de_no_dispatch_per_slot.no_ops_from_frontend,"
		      "cmask=0x6@"),
	[E_RESYNC] = GP("resyncs_or_nc_redirects", 0x96, 0, 0, 2),
};

static const struct model_event zen5_events[NR_EVENTS] = {
	ZEN_EVENTS(8, "cpu@de_no_dispatch_per_slot.no_ops_from_frontend,"
		      "cmask=0x8@"),
	[E_RESYNC] = GP("bp_redirects.resync", 0x9f, 0x01, 0, 2),
};

enum {
	N_FE, N_BS, N_BE, N_SMT, N_RET,
	N_FE_LAT, N_FE_BW, N_BS_MISP, N_BS_RESTART, N_BE_MEM, N_BE_CPU,
	N_RET_FAST, N_RET_UCODE,
	NR_NODES
};

#define L1(n, lbl, t, col, ...)						\
	{ .name = n, .label = lbl, .parent = -1, .level = 1, .thresh = t, \
	  .column = col, __VA_ARGS__ }
#define L2(n, lbl, p, t, alone)						\
	{ .name = n, .label = lbl, .parent = p, .level = 2, .thresh = t, \
	  .thresh_alone = alone }

/* perf's metric names differ between the two (Zen 5: "_by_", "_from_") */
#define ZEN_NODES(fe_lat, fe_bw, bs_misp, bs_restart, be_mem, be_cpu,	\
		  ret_fast, ret_ucode)					\
	[N_FE] = L1("frontend_bound", "Frontend", 0.15, "FRONTEND%"),	\
	[N_BS] = L1("bad_speculation", "Bad_Spec", 0.15, "BADSPEC%"),	\
	[N_BE] = L1("backend_bound", "Backend", 0.2, "BACKEND%"),	\
	[N_SMT] = L1("smt_contention", "SMT_Contention", 0.15, "SMT%"),	\
	[N_RET] = L1("retiring", "Retiring", 0.7, "RETIRE%",		\
		     .or_over = ret_ucode),				\
	[N_FE_LAT] = L2(fe_lat, "Latency", N_FE, 0.1, false),		\
	[N_FE_BW] = L2(fe_bw, "Bandwidth", N_FE, 0.2, true),		\
	[N_BS_MISP] = L2(bs_misp, "Mispredicts", N_BS, 0.1, false),	\
	[N_BS_RESTART] = L2(bs_restart, "Pipeline_Restarts", N_BS, 0.1,	\
			    false),					\
	[N_BE_MEM] = L2(be_mem, "Memory", N_BE, 0.2, false),		\
	[N_BE_CPU] = L2(be_cpu, "CPU", N_BE, 0.1, false),		\
	[N_RET_FAST] = L2(ret_fast, "Fastpath", N_RET, 0.6, true),	\
	[N_RET_UCODE] = L2(ret_ucode, "Microcode", N_RET, 0.1, true)

static const struct tma_node zen4_nodes[NR_NODES] = {
	ZEN_NODES("frontend_bound_latency", "frontend_bound_bandwidth",
		  "bad_speculation_mispredicts",
		  "bad_speculation_pipeline_restarts", "backend_bound_memory",
		  "backend_bound_cpu", "retiring_fastpath",
		  "retiring_microcode"),
};

static const struct tma_node zen5_nodes[NR_NODES] = {
	ZEN_NODES("frontend_bound_by_latency", "frontend_bound_by_bandwidth",
		  "bad_speculation_from_mispredicts",
		  "bad_speculation_from_pipeline_restarts",
		  "backend_bound_by_memory", "backend_bound_by_cpu",
		  "retiring_from_fastpath", "retiring_from_microcode"),
};

/* perf's MetricExpr with @width dispatch slots per cycle, in its order */
static void zen_eval(const struct tma_input *in, double *o, double width)
{
	const double *e = in->ev;
	double slots = width * e[E_CYCLES], mem, misp;

	o[N_FE] = dr(e[E_FE], slots);
	o[N_FE_BW] = dr(e[E_FE] - (width * e[E_FE_C]), slots);
	o[N_FE_LAT] = dr((width * e[E_FE_C]), slots);
	o[N_BS] = dr(e[E_DISP] - e[E_RET_OPS], slots);
	misp = e[E_BRN_MISP] + e[E_RESYNC];
	o[N_BS_MISP] = dr(o[N_BS] * e[E_BRN_MISP], misp);
	o[N_BS_RESTART] = dr(o[N_BS] * e[E_RESYNC], misp);
	o[N_BE] = dr(e[E_BE_STALLS], slots);
	mem = dr(e[E_LOAD_NC], e[E_NOT_COMPLETE]);
	o[N_BE_CPU] = o[N_BE] * (1 - mem);
	o[N_BE_MEM] = o[N_BE] * mem;
	o[N_SMT] = dr(e[E_SMT], slots);
	o[N_RET] = dr(e[E_RET_OPS], slots);
	o[N_RET_FAST] = o[N_RET] * (1 - dr(e[E_UCODE_OPS], e[E_RET_OPS]));
	o[N_RET_UCODE] = o[N_RET] * dr(e[E_UCODE_OPS], e[E_RET_OPS]);
}

static void zen4_eval(const struct tma_input *in, double *o)
{
	zen_eval(in, o, 6);
}

static void zen5_eval(const struct tma_input *in, double *o)
{
	zen_eval(in, o, 8);
}

/*
 * Without PerfCtrExtCore (cpuinfo "perfctr_core"; some hypervisors hide
 * it) the kernel drives the four legacy K7 counters only.
 */
#define ZEN_LEGACY	.gp_flag = "perfctr_core", .gp_legacy = 4

/* perf's mapfile: amdzen3 is 25-00..0F and 25-20..5F, amdzen4 the rest */
static const struct model_match zen4_match[] = {
	MATCH_X86(VENDOR_AMD, 0x19, 0x10, 0x1f),
	MATCH_X86(VENDOR_AMD, 0x19, 0x60, 0xff),
};
static const struct model_match zen5_match[] = {
	MATCH_X86(VENDOR_AMD, 0x1a, 0x00, 0xff),
};

const struct model model_amdzen4 = {
	.name = "amdzen4",
	.desc = "AMD Zen 4 / EPYC 9004 (family 0x19 models 0x10-0x1F, "
		"0x60-0xFF)",
	.gp_smt_on = 6,
	.gp_smt_off = 6,
	.max_level = 2,
	.events = zen4_events,
	.nr_events = NR_EVENTS,
	.nodes = zen4_nodes,
	.nr_nodes = NR_NODES,
	.eval = zen4_eval,
	MODEL_MATCHES(zen4_match),
	.pmu = "cpu",
	ZEN_LEGACY,
};

const struct model model_amdzen5 = {
	.name = "amdzen5",
	.desc = "AMD Zen 5 / EPYC 9005 (family 0x1A)",
	.gp_smt_on = 6,
	.gp_smt_off = 6,
	.max_level = 2,
	.events = zen5_events,
	.nr_events = NR_EVENTS,
	.nodes = zen5_nodes,
	.nr_nodes = NR_NODES,
	.eval = zen5_eval,
	MODEL_MATCHES(zen5_match),
	.pmu = "cpu",
	ZEN_LEGACY,
};
