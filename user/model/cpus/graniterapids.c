// SPDX-License-Identifier: GPL-2.0
/*
 * Granite Rapids (graniterapids, GNR, Xeon 6 with P-cores, CPUID 6-AD and
 * 6-AE). PERF_METRICS as on Sapphire Rapids: TOPDOWN.SLOTS leads the
 * eight topdown-* metric events, so levels 1 and 2 come from one group.
 * Level 3 differs from SPR: six branch-mispredict nodes by branch type,
 * tma_ms (microcode sequencer bandwidth) under Fetch Bandwidth,
 * tma_l3_miss_bound and tma_cxl_mem_bound (0 without CXL memory) in place
 * of DRAM and PMM, and new port and MS formulas. The L1/L2 formulas no
 * longer add perf's "+ 0 * tma_info_thread_slots".
 *
 * The formulas are perf's MetricExpr (gnr-metrics.json of Linux v7.3.4:
 * v6.12 has no GNR metrics, see SOURCES.md) for per-task counting:
 * #core_wide = 0, #has_pmem = 0, #SMT_on from the input.
 */
#include <linux/perf_event.h>
#include "model/cpus/intel.h"
#include "model/cpus/tma_tree.h"
#include "model/model.h"
#include "model/tma_expr.h"

enum {
	E_DIV_ACTIVE,
	E_BR_INST,
	E_BR_MISP,
	E_MISP_COND_NT,
	E_MISP_COND_TK,
	E_MISP_INDIRECT,
	E_MISP_IND_CALL,
	E_MISP_RET,
	E_MS_C1_EDGE,
	E_MS_C1,
	E_C02,
	E_DISTRIBUTED,
	E_THREAD,
	E_STALLS_TOTAL,
	E_LCP,
	E_DSB2MITE,
	E_AMX_BUSY,
	E_PORTS_1,
	E_PORTS_2_3,
	E_BOUND_LOADS,
	E_BOUND_STORES,
	E_EXE_BOUND_0,
	E_FP_SCALAR,
	E_FP_VECTOR,
	E_FP2_SCALAR,
	E_FP2_VECTOR,
	E_ICACHE_DATA,
	E_ICACHE_TAG,
	E_DSB_ANY,
	E_DSB_OK,
	E_MITE_ANY,
	E_MITE_OK,
	E_MS_CYCLES_ANY,
	E_INST,
	E_MACRO_FUSED,
	E_CLEARS_COUNT,
	E_CLEAR_RESTEER,
	E_UNKNOWN_BRANCH,
	E_UOP_DROPPING,
	E_IV_ADD_128,
	E_IV_ADD_256,
	E_IV_MUL_256,
	E_IV_VNNI_128,
	E_IV_VNNI_256,
	E_MC_COUNT,
	E_MC_MO,
	E_MA_L1D,
	E_MA_L2,
	E_MA_L3,
	E_MEM_UOP,
	E_SCOREBOARD,
	E_TD_BAD_SPEC,
	E_TD_BE,
	E_TD_BR_MISP,
	E_TD_FE,
	E_TD_FETCH_LAT,
	E_TD_HEAVY,
	E_TD_MEM,
	E_TD_RET,
	E_SLOTS,
	E_UE_THREAD,
	E_UE_X87,
	E_ISSUED,
	E_UOPS_MS,
	E_RET_SLOTS,
	/* tma_cxl_mem_bound's, needed with #has_pmem only: never */
	E_LOCAL_DRAM,
	E_REMOTE_CXL,
	E_REMOTE_DRAM,
	E_REMOTE_FWD,
	E_REMOTE_HITM,
	E_FB_HIT,
	E_L1_MISS,
	E_LOCAL_CXL,
	NR_EVENTS
};

#define GP(n, cfg, mask, nd, lvl)					\
	{ .name = n, .type = PERF_TYPE_RAW, .config = cfg,		\
	  .kind = EV_GP, .counters = mask, .fixed = -1, .need = nd,	\
	  .level = lvl }
#define FIXED(n, cfg, idx, lvl)						\
	{ .name = n, .type = PERF_TYPE_RAW, .config = cfg,		\
	  .kind = EV_FIXED, .fixed = idx, .need = NEED_ALWAYS,		\
	  .level = lvl }
/* the common case: any of the 8 counters, needed at level 3 */
#define L3(n, cfg)	GP(n, cfg, 0xff, NEED_ALWAYS, 3)
/* frontend and memory-stall events: counters 0-3 only */
#define L3_LOW(n, cfg)	GP(n, cfg, 0x0f, NEED_ALWAYS, 3)
#define PMEM(n, cfg)	GP(n, cfg, 0x0f, NEED_NEVER, 3)

/* Encodings, counters and "needed when" from tma-events.md (perf JSON). */
static const struct model_event gnr_events[NR_EVENTS] = {
	[E_DIV_ACTIVE] = L3("ARITH.DIV_ACTIVE", 0x10009b0),
	[E_BR_INST] = L3("BR_INST_RETIRED.ALL_BRANCHES", 0xc4),
	[E_BR_MISP] = L3("BR_MISP_RETIRED.ALL_BRANCHES", 0xc5),
	[E_MISP_COND_NT] = L3("BR_MISP_RETIRED.COND_NTAKEN", 0x10c5),
	[E_MISP_COND_TK] = L3("BR_MISP_RETIRED.COND_TAKEN", 0x1c5),
	[E_MISP_INDIRECT] = L3("BR_MISP_RETIRED.INDIRECT", 0x80c5),
	[E_MISP_IND_CALL] = L3("BR_MISP_RETIRED.INDIRECT_CALL", 0x2c5),
	[E_MISP_RET] = L3("BR_MISP_RETIRED.RET", 0x8c5),
	[E_MS_C1_EDGE] = INTEL_GP_FE("cpu@UOPS_RETIRED.MS,cmask=1,edge@",
				     0x10404c2, 0x8, 3),
	[E_MS_C1] = INTEL_GP_FE("cpu@UOPS_RETIRED.MS,cmask=1@", 0x10004c2,
				0x8, 3),
	[E_C02] = L3("CPU_CLK_UNHALTED.C02", 0x20ec),
	[E_DISTRIBUTED] = GP("CPU_CLK_UNHALTED.DISTRIBUTED", 0x2ec, 0xff,
			     NEED_SMT_ON, 1),
	[E_THREAD] = FIXED("CPU_CLK_UNHALTED.THREAD", 0x3c, 1, 1),
	[E_STALLS_TOTAL] = L3("CYCLE_ACTIVITY.STALLS_TOTAL", 0x40004a3),
	[E_LCP] = L3_LOW("DECODE.LCP", 0x187),
	[E_DSB2MITE] = L3_LOW("DSB2MITE_SWITCHES.PENALTY_CYCLES", 0x261),
	[E_AMX_BUSY] = L3("EXE.AMX_BUSY", 0x2b7),
	[E_PORTS_1] = L3("EXE_ACTIVITY.1_PORTS_UTIL", 0x2a6),
	[E_PORTS_2_3] = L3("EXE_ACTIVITY.2_3_PORTS_UTIL", 0xca6),
	[E_BOUND_LOADS] = L3("EXE_ACTIVITY.BOUND_ON_LOADS", 0x50021a6),
	[E_BOUND_STORES] = L3("EXE_ACTIVITY.BOUND_ON_STORES", 0x20040a6),
	[E_EXE_BOUND_0] = L3("EXE_ACTIVITY.EXE_BOUND_0_PORTS", 0x80a6),
	[E_FP_SCALAR] = L3("FP_ARITH_INST_RETIRED.SCALAR", 0x3c7),
	[E_FP_VECTOR] = L3("FP_ARITH_INST_RETIRED.VECTOR", 0xfcc7),
	[E_FP2_SCALAR] = L3("FP_ARITH_INST_RETIRED2.SCALAR", 0x3cf),
	[E_FP2_VECTOR] = L3("FP_ARITH_INST_RETIRED2.VECTOR", 0x1ccf),
	[E_ICACHE_DATA] = L3_LOW("ICACHE_DATA.STALLS", 0x480),
	[E_ICACHE_TAG] = L3_LOW("ICACHE_TAG.STALLS", 0x483),
	[E_DSB_ANY] = L3_LOW("IDQ.DSB_CYCLES_ANY", 0x1000879),
	[E_DSB_OK] = L3_LOW("IDQ.DSB_CYCLES_OK", 0x6000879),
	[E_MITE_ANY] = L3_LOW("IDQ.MITE_CYCLES_ANY", 0x1000479),
	[E_MITE_OK] = L3_LOW("IDQ.MITE_CYCLES_OK", 0x6000479),
	[E_MS_CYCLES_ANY] = L3_LOW("IDQ.MS_CYCLES_ANY", 0x1002079),
	[E_INST] = FIXED("INST_RETIRED.ANY", 0xc0, 0, 1),
	[E_MACRO_FUSED] = L3("INST_RETIRED.MACRO_FUSED", 0x10c0),
	[E_CLEARS_COUNT] = L3("INT_MISC.CLEARS_COUNT", 0x10401ad),
	[E_CLEAR_RESTEER] = L3("INT_MISC.CLEAR_RESTEER_CYCLES", 0x80ad),
	[E_UNKNOWN_BRANCH] = INTEL_GP_FE("INT_MISC.UNKNOWN_BRANCH_CYCLES",
					 0x40ad, 0x7, 3),
	[E_UOP_DROPPING] = GP("INT_MISC.UOP_DROPPING", 0x10ad, 0xff,
			      NEED_ALWAYS, 1),
	[E_IV_ADD_128] = L3("INT_VEC_RETIRED.ADD_128", 0x3e7),
	[E_IV_ADD_256] = L3("INT_VEC_RETIRED.ADD_256", 0xce7),
	[E_IV_MUL_256] = L3("INT_VEC_RETIRED.MUL_256", 0x80e7),
	[E_IV_VNNI_128] = L3("INT_VEC_RETIRED.VNNI_128", 0x10e7),
	[E_IV_VNNI_256] = L3("INT_VEC_RETIRED.VNNI_256", 0x20e7),
	[E_MC_COUNT] = L3("MACHINE_CLEARS.COUNT", 0x10401c3),
	[E_MC_MO] = L3("MACHINE_CLEARS.MEMORY_ORDERING", 0x2c3),
	[E_MA_L1D] = L3_LOW("MEMORY_ACTIVITY.STALLS_L1D_MISS", 0x3000347),
	[E_MA_L2] = L3_LOW("MEMORY_ACTIVITY.STALLS_L2_MISS", 0x5000547),
	[E_MA_L3] = L3_LOW("MEMORY_ACTIVITY.STALLS_L3_MISS", 0x9000947),
	[E_MEM_UOP] = L3("MEM_UOP_RETIRED.ANY", 0x3e5),
	[E_SCOREBOARD] = L3("RESOURCE_STALLS.SCOREBOARD", 0x2a2),
	INTEL_TD_L1,
	INTEL_TD_L2,
	[E_UE_THREAD] = L3("UOPS_EXECUTED.THREAD", 0x1b1),
	[E_UE_X87] = L3("UOPS_EXECUTED.X87", 0x10b1),
	[E_ISSUED] = L3("UOPS_ISSUED.ANY", 0x1ae),
	[E_UOPS_MS] = INTEL_GP_FE("UOPS_RETIRED.MS", 0x4c2, 0x8, 3),
	[E_RET_SLOTS] = L3("UOPS_RETIRED.SLOTS", 0x2c2),
	[E_LOCAL_DRAM] = PMEM("MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", 0x1d3),
	[E_REMOTE_CXL] = PMEM("MEM_LOAD_L3_MISS_RETIRED.REMOTE_CXL_MEM",
			      0x10d3),
	[E_REMOTE_DRAM] = PMEM("MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM", 0x2d3),
	[E_REMOTE_FWD] = PMEM("MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", 0x8d3),
	[E_REMOTE_HITM] = PMEM("MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", 0x4d3),
	[E_FB_HIT] = PMEM("MEM_LOAD_RETIRED.FB_HIT", 0x40d1),
	[E_L1_MISS] = PMEM("MEM_LOAD_RETIRED.L1_MISS", 0x8d1),
	[E_LOCAL_CXL] = PMEM("MEM_LOAD_RETIRED.LOCAL_CXL_MEM", 0x80d1),
};

enum {
	N_FE, N_BS, N_BE, N_RET,
	N_FL, N_FB, N_BM, N_MC, N_MB, N_CB, N_HEAVY, N_LIGHT,
	N_BR_RESTEERS, N_DSB_SW, N_ICACHE, N_ITLB, N_LCP, N_MS_SW,
	N_DSB, N_MITE, N_MS,
	N_COND_NT, N_COND_TK, N_IND_CALL, N_IND_JUMP, N_OTHER_MISP,
	N_RET_MISP, N_OTHER_NUKES,
	N_AMX, N_DIVIDER, N_PORTS, N_SERIALIZING,
	N_CXL, N_L1, N_L2, N_L3, N_L3_MISS, N_STORE,
	N_FEW_UOPS, N_MSEQ,
	N_FP_ARITH, N_FUSED, N_INT_OPS, N_MEM_OPS, N_NON_FUSED, N_OTHER_LIGHT,
	NR_NODES
};

/* Thresholds: perf's MetricThreshold "tma_x > value". */
static const struct tma_node gnr_nodes[NR_NODES] = {
	TMA_NODES_L1_L2,
	TMA_NODES_L3_FRONTEND,
	[N_MS] = TMA_NODE("tma_ms", "MS", N_FB, 3, 0.05, false),
	[N_COND_NT] = TMA_NODE("tma_cond_nt_mispredicts", "Cond_NT_Mispred",
			       N_BM, 3, 0.05, false),
	[N_COND_TK] = TMA_NODE("tma_cond_tk_mispredicts", "Cond_TK_Mispred",
			       N_BM, 3, 0.05, false),
	[N_IND_CALL] = TMA_NODE("tma_ind_call_mispredicts", "Ind_Call_Mispred",
				N_BM, 3, 0.05, false),
	[N_IND_JUMP] = TMA_NODE("tma_ind_jump_mispredicts", "Ind_Jump_Mispred",
				N_BM, 3, 0.05, false),
	TMA_L3_OTHER_MISP,
	[N_RET_MISP] = TMA_NODE("tma_ret_mispredicts", "Ret_Mispred", N_BM, 3,
				0.05, false),
	TMA_L3_OTHER_NUKES,
	TMA_L3_AMX,
	TMA_L3_DIVIDER,
	TMA_L3_PORTS,
	TMA_L3_SERIALIZING,
	[N_CXL] = TMA_NODE("tma_cxl_mem_bound", "CXL_Mem", N_MB, 3, 0.1,
			   false),
	[N_L3_MISS] = TMA_NODE("tma_l3_miss_bound", "L3_Miss", N_MB, 3, 0.1,
			       false),
	TMA_L3_CACHES,
	TMA_L3_FEW_UOPS,
	TMA_L3_MSEQ,
	TMA_L3_FP_ARITH,
	TMA_L3_FUSED,
	TMA_L3_INT_OPS,
	TMA_L3_MEM_OPS,
	TMA_L3_NON_FUSED,
	TMA_L3_OTHER_LIGHT,
};

/* perf's MetricExpr, operator by operator and left to right. */
static void gnr_eval(const struct tma_input *in, double *o)
{
	const double *e = in->ev;
	double slots, clks, core_clks, sum, ret_slots, pp, pu0, x87;
	double fp_scalar, fp_vector, iv128, iv256, ms_per_uop;

	slots = e[E_SLOTS];
	clks = e[E_THREAD];
	core_clks = in->smt ? e[E_DISTRIBUTED] : clks;
	sum = e[E_TD_FE] + e[E_TD_BAD_SPEC] + e[E_TD_RET] + e[E_TD_BE];

	/* level 1 */
	o[N_FE] = dv(e[E_TD_FE], sum) - dv(e[E_UOP_DROPPING], slots);
	o[N_BE] = dv(e[E_TD_BE], sum);
	o[N_RET] = dv(e[E_TD_RET], sum);
	o[N_BS] = mx(1 - (o[N_FE] + o[N_BE] + o[N_RET]), 0);

	/* level 2: all from PERF_METRICS */
	o[N_FL] = dv(e[E_TD_FETCH_LAT], sum) - dv(e[E_UOP_DROPPING], slots);
	o[N_FB] = mx(0, o[N_FE] - o[N_FL]);
	o[N_BM] = dv(e[E_TD_BR_MISP], sum);
	o[N_MC] = mx(0, o[N_BS] - o[N_BM]);
	o[N_MB] = dv(e[E_TD_MEM], sum);
	o[N_CB] = mx(0, o[N_BE] - o[N_MB]);
	o[N_HEAVY] = dv(e[E_TD_HEAVY], sum);
	o[N_LIGHT] = mx(0, o[N_RET] - o[N_HEAVY]);

	/* level 3: frontend; tma_unknown_branches is a level-4 helper */
	o[N_BR_RESTEERS] = dv(e[E_CLEAR_RESTEER], clks) +
			   dv(e[E_UNKNOWN_BRANCH], clks);
	o[N_DSB_SW] = dv(e[E_DSB2MITE], clks);
	o[N_ICACHE] = dv(e[E_ICACHE_DATA], clks);
	o[N_ITLB] = dv(e[E_ICACHE_TAG], clks);
	o[N_LCP] = dv(e[E_LCP], clks);
	ms_per_uop = dv(e[E_RET_SLOTS], e[E_ISSUED]);
	o[N_MS_SW] = dv(dv(3 * e[E_MS_C1_EDGE], ms_per_uop), clks);
	o[N_DSB] = dv(dv(e[E_DSB_ANY] - e[E_DSB_OK], core_clks), 2);
	o[N_MITE] = dv(dv(e[E_MITE_ANY] - e[E_MITE_OK], core_clks), 2);
	o[N_MS] = dv(dv(mx(e[E_MS_CYCLES_ANY], dv(e[E_MS_C1], ms_per_uop)),
			core_clks), 2.4);

	/* level 3: bad speculation */
	o[N_COND_NT] = dv(e[E_MISP_COND_NT], e[E_BR_MISP]) * o[N_BM];
	o[N_COND_TK] = dv(e[E_MISP_COND_TK], e[E_BR_MISP]) * o[N_BM];
	o[N_IND_CALL] = dv(e[E_MISP_IND_CALL], e[E_BR_MISP]) * o[N_BM];
	o[N_IND_JUMP] = mx(dv(e[E_MISP_INDIRECT] - e[E_MISP_IND_CALL],
			      e[E_BR_MISP]) * o[N_BM], 0);
	o[N_OTHER_MISP] = mx(o[N_BM] * (1 - dv(e[E_BR_MISP],
					       e[E_CLEARS_COUNT] -
					       e[E_MC_COUNT])), 0.0001);
	o[N_RET_MISP] = dv(e[E_MISP_RET], e[E_BR_MISP]) * o[N_BM];
	o[N_OTHER_NUKES] = mx(o[N_MC] * (1 - dv(e[E_MC_MO], e[E_MC_COUNT])),
			      0.0001);

	/* level 3: core bound; tma_ports_utilized_0, tma_c02_wait: L4 */
	o[N_AMX] = dv(e[E_AMX_BUSY], core_clks);
	o[N_DIVIDER] = dv(e[E_DIV_ACTIVE], clks);
	pu0 = dv(mx(e[E_EXE_BOUND_0] - e[E_SCOREBOARD], 0), clks);
	pp = e[E_PORTS_1] + o[N_RET] * e[E_PORTS_2_3];
	o[N_PORTS] = sel(lt(e[E_DIV_ACTIVE],
			    e[E_STALLS_TOTAL] - e[E_BOUND_LOADS]),
			 dv(pu0 * clks + pp, clks), dv(pp, clks));
	o[N_SERIALIZING] = dv(e[E_SCOREBOARD], clks) + dv(e[E_C02], clks);

	/* level 3: memory bound (#has_pmem = 0 branches) */
	o[N_CXL] = 0;
	o[N_L1] = mx(dv(e[E_BOUND_LOADS] - e[E_MA_L1D], clks), 0);
	o[N_L2] = dv(e[E_MA_L1D] - e[E_MA_L2], clks);
	o[N_L3] = dv(e[E_MA_L2] - e[E_MA_L3], clks);
	o[N_L3_MISS] = dv(e[E_MA_L3], clks);
	o[N_STORE] = dv(e[E_BOUND_STORES], clks);

	/* level 3: retiring; the vector/x87 helpers are level 4 */
	o[N_MSEQ] = dv(e[E_UOPS_MS], slots);
	o[N_FEW_UOPS] = mx(0, o[N_HEAVY] - o[N_MSEQ]);
	ret_slots = o[N_RET] * slots;
	x87 = dv(o[N_RET] * e[E_UE_X87], e[E_UE_THREAD]);
	fp_scalar = dv(e[E_FP_SCALAR] + e[E_FP2_SCALAR], ret_slots);
	fp_vector = dv(e[E_FP_VECTOR] + e[E_FP2_VECTOR], ret_slots);
	o[N_FP_ARITH] = x87 + fp_scalar + fp_vector;
	o[N_FUSED] = dv(o[N_LIGHT] * e[E_MACRO_FUSED], ret_slots);
	iv128 = dv(e[E_IV_ADD_128] + e[E_IV_VNNI_128], ret_slots);
	iv256 = dv(e[E_IV_ADD_256] + e[E_IV_MUL_256] + e[E_IV_VNNI_256],
		   ret_slots);
	o[N_INT_OPS] = iv128 + iv256;
	o[N_MEM_OPS] = dv(o[N_LIGHT] * e[E_MEM_UOP], ret_slots);
	o[N_NON_FUSED] = dv(o[N_LIGHT] * (e[E_BR_INST] - e[E_MACRO_FUSED]),
			    ret_slots);
	o[N_OTHER_LIGHT] = mx(0, o[N_LIGHT] - (o[N_FP_ARITH] + o[N_INT_OPS] +
					       o[N_MEM_OPS] + o[N_FUSED] +
					       o[N_NON_FUSED]));
}

static const struct model_match gnr_match[] = {
	INTEL_6(0xad), INTEL_6(0xae),
};
static const char *const gnr_pmu_events[] = {
	INTEL_TOPDOWN_L1_EVENTS, INTEL_TOPDOWN_L2_EVENTS, NULL,
};

/*
 * Kernels before "perf/x86/intel: Add a distinct name for Granite
 * Rapids" (July 2024, marked for stable) call GNR's driver
 * "sapphire_rapids" and may program its frontend MSR (config1) with SPR's
 * rules: such a kernel gets the software model, with one line saying so.
 */
const struct model model_graniterapids = {
	.name = "graniterapids",
	.desc = "Granite Rapids / Xeon 6 P-cores (CPUID 6-AD, 6-AE)",
	.gp_smt_on = 8,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = gnr_events,
	.nr_events = NR_EVENTS,
	.nodes = gnr_nodes,
	.nr_nodes = NR_NODES,
	.eval = gnr_eval,
	MODEL_MATCHES(gnr_match),
	.pmu = "cpu",
	.pmu_name = "granite_rapids",
	.pmu_events = gnr_pmu_events,
	INTEL_IPC,
};
