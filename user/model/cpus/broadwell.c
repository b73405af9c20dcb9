// SPDX-License-Identifier: GPL-2.0
/*
 * Broadwell: Xeon E5 v4 (broadwellx, BDX, CPUID 6-4F) and client
 * (broadwell, BDW, 6-3D/6-47). Both share the same core events and the same
 * TMA L1-L3 formulas (perf's bdx-metrics.json and bdw-metrics.json agree).
 *
 * Events are raw configs: event | umask << 8 | edge << 18 | any << 21 |
 * inv << 23 | cmask << 24. The formulas are perf's MetricExpr evaluated for
 * per-task counting: #core_wide = 0, #has_pmem = 0, #SMT_on from the input.
 * With #core_wide = 0 perf estimates core clocks from this thread's clocks
 * and ONE_THREAD_ACTIVE / REF_XCLK, so AnyThread events are never needed.
 */
#include <linux/perf_event.h>
#include "model/cpus/intel.h"
#include "model/cpus/tma_tree.h"
#include "model/model.h"
#include "model/tma_expr.h"

enum {
	E_FPU_DIV,
	E_BACLEARS,
	E_BR_MISP,
	E_ITLB_WALK_DUR_C1,
	E_ONE_THREAD,
	E_REF_XCLK,
	E_THREAD,
	E_THREAD_ANY,
	E_STALLS_L1D,
	E_STALLS_L2,
	E_STALLS_MEM,
	E_STALLS_TOTAL,
	E_DSB2MITE,
	E_FP_SCALAR,
	E_FP_VECTOR,
	E_ICACHE,
	E_DSB_4,
	E_DSB_ANY,
	E_MITE_4,
	E_MITE_ANY,
	E_MS_SWITCHES,
	E_MS_UOPS,
	E_NOT_DELIV,
	E_NOT_DELIV_C0,
	E_LCP,
	E_INST,
	E_X87,
	E_RECOVERY,
	E_RECOVERY_ANY,
	E_STLB_HIT,
	E_WALK_DONE,
	E_MC_COUNT,
	E_L3_HIT,
	E_L3_MISS,
	E_SB,
	E_RS_EMPTY,
	E_GE1,
	E_GE2,
	E_GE3,
	E_ISSUED,
	E_RETIRE_SLOTS,
	NR_EVENTS
};

#define GP(n, cfg, mask, nd, lvl)					\
	{ .name = n, .type = PERF_TYPE_RAW, .config = cfg,		\
	  .kind = EV_GP, .counters = mask, .fixed = -1, .need = nd,	\
	  .level = lvl }
#define FIXED(n, cfg, idx, nd, lvl)					\
	{ .name = n, .type = PERF_TYPE_RAW, .config = cfg,		\
	  .kind = EV_FIXED, .fixed = idx, .need = nd, .level = lvl }

/* Counter masks and "needed when" from tma-events.md (perf JSON). */
static const struct model_event bdw_events[NR_EVENTS] = {
	[E_FPU_DIV] = GP("ARITH.FPU_DIV_ACTIVE", 0x114, 0xff, NEED_ALWAYS, 3),
	[E_BACLEARS] = GP("BACLEARS.ANY", 0x1fe6, 0xff, NEED_ALWAYS, 3),
	[E_BR_MISP] = GP("BR_MISP_RETIRED.ALL_BRANCHES", 0xc5, 0xff,
			 NEED_ALWAYS, 2),
	[E_ITLB_WALK_DUR_C1] = GP("cpu@ITLB_MISSES.WALK_DURATION,cmask=1@",
				  0x1001085, 0xff, NEED_ALWAYS, 3),
	[E_ONE_THREAD] = GP("CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 0x23c, 0xff,
			    NEED_ALWAYS, 1),
	[E_REF_XCLK] = GP("CPU_CLK_UNHALTED.REF_XCLK", 0x13c, 0xff,
			  NEED_ALWAYS, 1),
	[E_THREAD] = FIXED("CPU_CLK_UNHALTED.THREAD", 0x3c, 1, NEED_ALWAYS, 1),
	/* only in the #core_wide = 1 branch: system-wide counting */
	[E_THREAD_ANY] = FIXED("CPU_CLK_UNHALTED.THREAD_ANY", 0x20003c, 1,
			       NEED_NEVER, 1),
	/* the only event of the model restricted to one counter (2) */
	[E_STALLS_L1D] = GP("CYCLE_ACTIVITY.STALLS_L1D_MISS", 0xc000ca3, 0x4,
			    NEED_ALWAYS, 3),
	[E_STALLS_L2] = GP("CYCLE_ACTIVITY.STALLS_L2_MISS", 0x50005a3, 0xff,
			   NEED_ALWAYS, 3),
	[E_STALLS_MEM] = GP("CYCLE_ACTIVITY.STALLS_MEM_ANY", 0x60006a3, 0xff,
			    NEED_ALWAYS, 2),
	[E_STALLS_TOTAL] = GP("CYCLE_ACTIVITY.STALLS_TOTAL", 0x40004a3, 0xff,
			      NEED_ALWAYS, 2),
	[E_DSB2MITE] = GP("DSB2MITE_SWITCHES.PENALTY_CYCLES", 0x2ab, 0xff,
			  NEED_ALWAYS, 3),
	[E_FP_SCALAR] = GP("FP_ARITH_INST_RETIRED.SCALAR", 0x3c7, 0xff,
			   NEED_ALWAYS, 3),
	[E_FP_VECTOR] = GP("FP_ARITH_INST_RETIRED.VECTOR", 0xfcc7, 0xff,
			   NEED_ALWAYS, 3),
	[E_ICACHE] = GP("ICACHE.IFDATA_STALL", 0x480, 0xff, NEED_ALWAYS, 3),
	[E_DSB_4] = GP("IDQ.ALL_DSB_CYCLES_4_UOPS", 0x4001879, 0xff,
		       NEED_ALWAYS, 3),
	[E_DSB_ANY] = GP("IDQ.ALL_DSB_CYCLES_ANY_UOPS", 0x1001879, 0xff,
			 NEED_ALWAYS, 3),
	[E_MITE_4] = GP("IDQ.ALL_MITE_CYCLES_4_UOPS", 0x4002479, 0xff,
			NEED_ALWAYS, 3),
	[E_MITE_ANY] = GP("IDQ.ALL_MITE_CYCLES_ANY_UOPS", 0x1002479, 0xff,
			  NEED_ALWAYS, 3),
	[E_MS_SWITCHES] = GP("IDQ.MS_SWITCHES", 0x1043079, 0xff, NEED_ALWAYS, 3),
	[E_MS_UOPS] = GP("IDQ.MS_UOPS", 0x3079, 0xff, NEED_ALWAYS, 2),
	[E_NOT_DELIV] = GP("IDQ_UOPS_NOT_DELIVERED.CORE", 0x19c, 0xff,
			   NEED_ALWAYS, 1),
	[E_NOT_DELIV_C0] = GP("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE",
			      0x400019c, 0xff, NEED_ALWAYS, 2),
	[E_LCP] = GP("ILD_STALL.LCP", 0x187, 0xff, NEED_ALWAYS, 3),
	[E_INST] = FIXED("INST_RETIRED.ANY", 0xc0, 0, NEED_ALWAYS, 1),
	[E_X87] = GP("INST_RETIRED.X87", 0x2c0, 0xff, NEED_ALWAYS, 3),
	[E_RECOVERY] = GP("INT_MISC.RECOVERY_CYCLES", 0x100030d, 0xff,
			  NEED_SMT_OFF, 1),
	[E_RECOVERY_ANY] = GP("INT_MISC.RECOVERY_CYCLES_ANY", 0x120030d, 0xff,
			      NEED_SMT_ON, 1),
	[E_STLB_HIT] = GP("ITLB_MISSES.STLB_HIT", 0x6085, 0xff, NEED_ALWAYS, 3),
	[E_WALK_DONE] = GP("ITLB_MISSES.WALK_COMPLETED", 0xe85, 0xff,
			   NEED_ALWAYS, 3),
	[E_MC_COUNT] = GP("MACHINE_CLEARS.COUNT", 0x10401c3, 0xff,
			  NEED_ALWAYS, 2),
	[E_L3_HIT] = GP("MEM_LOAD_UOPS_RETIRED.L3_HIT", 0x4d1, 0xff,
			NEED_ALWAYS, 3),
	[E_L3_MISS] = GP("MEM_LOAD_UOPS_RETIRED.L3_MISS", 0x20d1, 0xff,
			 NEED_ALWAYS, 3),
	[E_SB] = GP("RESOURCE_STALLS.SB", 0x8a2, 0xff, NEED_ALWAYS, 2),
	[E_RS_EMPTY] = GP("RS_EVENTS.EMPTY_CYCLES", 0x15e, 0xff, NEED_ALWAYS, 2),
	[E_GE1] = GP("UOPS_EXECUTED.CYCLES_GE_1_UOP_EXEC", 0x10001b1, 0xff,
		     NEED_ALWAYS, 2),
	[E_GE2] = GP("UOPS_EXECUTED.CYCLES_GE_2_UOPS_EXEC", 0x20001b1, 0xff,
		     NEED_ALWAYS, 2),
	[E_GE3] = GP("UOPS_EXECUTED.CYCLES_GE_3_UOPS_EXEC", 0x30001b1, 0xff,
		     NEED_ALWAYS, 2),
	[E_ISSUED] = GP("UOPS_ISSUED.ANY", 0x10e, 0xff, NEED_ALWAYS, 1),
	[E_RETIRE_SLOTS] = GP("UOPS_RETIRED.RETIRE_SLOTS", 0x2c2, 0xff,
			      NEED_ALWAYS, 1),
};

enum {
	N_FE, N_BS, N_BE, N_RET,
	N_FL, N_FB, N_BM, N_MC, N_MB, N_CB, N_HEAVY, N_LIGHT,
	N_BR_RESTEERS, N_DSB_SW, N_ICACHE, N_ITLB, N_LCP, N_MS_SW,
	N_DSB, N_MITE,
	N_DIVIDER, N_PORTS,
	N_DRAM, N_L1, N_L2, N_L3, N_STORE,
	N_MSEQ,
	N_FP_ARITH,
	NR_NODES
};

/* Thresholds: perf's MetricThreshold "tma_x > value". */
static const struct tma_node bdw_nodes[NR_NODES] = {
	TMA_NODES_L1_L2,
	TMA_NODES_L3_FRONTEND,
	TMA_L3_DIVIDER,
	TMA_L3_PORTS,
	TMA_L3_DRAM,
	TMA_L3_CACHES,
	TMA_L3_MSEQ,
	TMA_L3_FP_ARITH,
};

/*
 * perf's MetricExpr, operator by operator and left to right, so that the
 * rounding is the same as perf's evaluator.
 */
static void bdw_eval(const struct tma_input *in, double *o)
{
	const double *e = in->ev;
	double clks, core_clks, slots, ipc, uoppi, rec, ge, rs, l3_frac;
	double x87, fp_scalar, fp_vector;

	/* tma_info_thread_clks, and core clocks for #core_wide < 1 */
	clks = e[E_THREAD];
	core_clks = dv(clks, 2) * (1 + dv(e[E_ONE_THREAD], e[E_REF_XCLK]));
	slots = 4 * core_clks;
	ipc = dv(e[E_INST], clks);
	uoppi = dv(e[E_RETIRE_SLOTS], e[E_INST]);

	/* level 1 */
	o[N_FE] = dv(e[E_NOT_DELIV], slots);
	rec = in->smt ? dv(e[E_RECOVERY_ANY], 2) : e[E_RECOVERY];
	o[N_BS] = dv(e[E_ISSUED] - e[E_RETIRE_SLOTS] + 4 * rec, slots);
	o[N_RET] = dv(e[E_RETIRE_SLOTS], slots);
	o[N_BE] = 1 - (o[N_FE] + o[N_BS] + o[N_RET]);

	/* level 2 */
	o[N_FL] = dv(4 * e[E_NOT_DELIV_C0], slots);
	o[N_FB] = o[N_FE] - o[N_FL];
	o[N_BM] = dv(e[E_BR_MISP], e[E_BR_MISP] + e[E_MC_COUNT]) * o[N_BS];
	o[N_MC] = o[N_BS] - o[N_BM];
	/* shared by tma_memory_bound and tma_ports_utilization */
	ge = sel(gt(ipc, 1.8), e[E_GE3], e[E_GE2]);
	rs = sel(gt(o[N_FL], 0.1), e[E_RS_EMPTY], 0);
	o[N_MB] = dv(e[E_STALLS_MEM] + e[E_SB],
		     e[E_STALLS_TOTAL] + e[E_GE1] - ge - rs + e[E_SB]) *
		  o[N_BE];
	o[N_CB] = o[N_BE] - o[N_MB];
	o[N_MSEQ] = dv(dv(e[E_RETIRE_SLOTS], e[E_ISSUED]) * e[E_MS_UOPS],
		       slots);
	o[N_HEAVY] = o[N_MSEQ];
	o[N_LIGHT] = o[N_RET] - o[N_HEAVY];

	/* level 3: frontend */
	o[N_BR_RESTEERS] = dv(12 * (e[E_BR_MISP] + e[E_MC_COUNT] +
				    e[E_BACLEARS]), clks);
	o[N_DSB_SW] = dv(e[E_DSB2MITE], clks);
	o[N_ICACHE] = dv(e[E_ICACHE], clks);
	o[N_ITLB] = dv(14 * e[E_STLB_HIT] + e[E_ITLB_WALK_DUR_C1] +
		       7 * e[E_WALK_DONE], clks);
	o[N_LCP] = dv(e[E_LCP], clks);
	o[N_MS_SW] = dv(2 * e[E_MS_SWITCHES], clks);
	o[N_DSB] = dv(dv(e[E_DSB_ANY] - e[E_DSB_4], core_clks), 2);
	o[N_MITE] = dv(dv(e[E_MITE_ANY] - e[E_MITE_4], core_clks), 2);

	/* level 3: backend (the "+ SB - SB" is perf's, kept for rounding) */
	o[N_DIVIDER] = dv(e[E_FPU_DIV], core_clks);
	o[N_PORTS] = dv(e[E_STALLS_TOTAL] + e[E_GE1] - ge - rs + e[E_SB] -
			e[E_SB] - e[E_STALLS_MEM], clks);
	l3_frac = dv(e[E_L3_HIT], e[E_L3_HIT] + 7 * e[E_L3_MISS]);
	o[N_DRAM] = dv((1 - l3_frac) * e[E_STALLS_L2], clks);
	o[N_L1] = mx(dv(e[E_STALLS_MEM] - e[E_STALLS_L1D], clks), 0);
	o[N_L2] = dv(e[E_STALLS_L1D] - e[E_STALLS_L2], clks);
	o[N_L3] = dv(l3_frac * e[E_STALLS_L2], clks);
	o[N_STORE] = dv(e[E_SB], clks);

	/* level 3: retiring; tma_x87_use etc. are level-4 helpers */
	x87 = dv(e[E_X87] * uoppi, e[E_RETIRE_SLOTS]);
	fp_scalar = dv(e[E_FP_SCALAR], e[E_RETIRE_SLOTS]);
	fp_vector = dv(e[E_FP_VECTOR], e[E_RETIRE_SLOTS]);
	o[N_FP_ARITH] = x87 + fp_scalar + fp_vector;
}

static const struct model_match bdx_match[] = { INTEL_6(0x4f) };
static const struct model_match bdw_match[] = {
	INTEL_6(0x3d), INTEL_6(0x47),
};

const struct model model_broadwellx = {
	.name = "broadwellx",
	.desc = "Broadwell-X / Xeon E5 v4 (CPUID 6-4F)",
	.gp_smt_on = 4,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = bdw_events,
	.nr_events = NR_EVENTS,
	.nodes = bdw_nodes,
	.nr_nodes = NR_NODES,
	.eval = bdw_eval,
	MODEL_MATCHES(bdx_match),
	.pmu = "cpu",
	.pmu_name = "broadwell",
	INTEL_IPC,
};

const struct model model_broadwell = {
	.name = "broadwell",
	.desc = "Broadwell client (CPUID 6-3D, 6-47)",
	.gp_smt_on = 4,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = bdw_events,
	.nr_events = NR_EVENTS,
	.nodes = bdw_nodes,
	.nr_nodes = NR_NODES,
	.eval = bdw_eval,
	MODEL_MATCHES(bdw_match),
	.pmu = "cpu",
	.pmu_name = "broadwell",
	INTEL_IPC,
};
