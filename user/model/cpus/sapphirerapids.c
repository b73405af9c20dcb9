// SPDX-License-Identifier: GPL-2.0
/*
 * Sapphire Rapids (sapphirerapids, SPR, CPUID 6-8F) and Emerald Rapids
 * (emeraldrapids, EMR, 6-CF). As Ice Lake, plus the
 * four level-2 PERF_METRICS events (heavy-ops, br-mispredict, fetch-lat,
 * mem-bound), so levels 1 and 2 come from the SLOTS group alone. Two events
 * need the frontend MSR 0x3F7, passed in config1 (kernel format
 * "frontend").
 *
 * The formulas are perf's MetricExpr (spr-metrics.json) for per-task
 * counting: #core_wide = 0, #has_pmem = 0, #SMT_on from the input.
 * emr-metrics.json has the same L1-L3 formulas, events and counters
 * without tma_pmm_bound (no Optane on EMR; SPR's is 0 with #has_pmem = 0)
 * and with tma_dram_bound's #has_pmem = 0 branch alone: EMR is SPR's
 * tables cut before the persistent-memory events and node.
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
	E_PORTS_2C,
	E_RS_EMPTY_U1,
	E_MS_C1_EDGE,
	E_C02,
	E_DISTRIBUTED,
	E_THREAD,
	E_STALLS_TOTAL,
	E_LCP,
	E_DSB2MITE,
	E_AMX_BUSY,
	E_PORTS_1,
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
	NR_EMR_EVENTS,
	/* Sapphire Rapids only: tma_pmm_bound's, needed with #has_pmem only */
	E_LOCAL_DRAM = NR_EMR_EVENTS,
	E_REMOTE_DRAM,
	E_REMOTE_FWD,
	E_REMOTE_HITM,
	E_REMOTE_PMM,
	E_FB_HIT,
	E_L1_MISS,
	E_LOCAL_PMM,
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

/* Counter masks and "needed when" from tma-events.md (perf JSON). */
static const struct model_event spr_events[NR_EVENTS] = {
	[E_DIV_ACTIVE] = GP("ARITH.DIV_ACTIVE", 0x10009b0, 0xff,
			    NEED_ALWAYS, 3),
	[E_BR_INST] = GP("BR_INST_RETIRED.ALL_BRANCHES", 0xc4, 0xff,
			 NEED_ALWAYS, 3),
	[E_BR_MISP] = GP("BR_MISP_RETIRED.ALL_BRANCHES", 0xc5, 0xff,
			 NEED_ALWAYS, 3),
	[E_PORTS_2C] = GP("cpu@EXE_ACTIVITY.2_PORTS_UTIL,umask=0xc@", 0xca6,
			  0xff, NEED_ALWAYS, 3),
	[E_RS_EMPTY_U1] = GP("cpu@RS.EMPTY,umask=1@", 0x1a5, 0xff,
			     NEED_ALWAYS, 3),
	[E_MS_C1_EDGE] = INTEL_GP_FE("cpu@UOPS_RETIRED.MS,cmask=1,edge@",
				     0x10404c2, 0x8, 3),
	[E_C02] = GP("CPU_CLK_UNHALTED.C02", 0x20ec, 0xff, NEED_ALWAYS, 3),
	[E_DISTRIBUTED] = GP("CPU_CLK_UNHALTED.DISTRIBUTED", 0x2ec, 0xff,
			     NEED_SMT_ON, 1),
	[E_THREAD] = FIXED("CPU_CLK_UNHALTED.THREAD", 0x3c, 1, 1),
	[E_STALLS_TOTAL] = GP("CYCLE_ACTIVITY.STALLS_TOTAL", 0x40004a3, 0xff,
			      NEED_ALWAYS, 3),
	[E_LCP] = GP("DECODE.LCP", 0x187, 0x0f, NEED_ALWAYS, 3),
	[E_DSB2MITE] = GP("DSB2MITE_SWITCHES.PENALTY_CYCLES", 0x261, 0x0f,
			  NEED_ALWAYS, 3),
	[E_AMX_BUSY] = GP("EXE.AMX_BUSY", 0x2b7, 0xff, NEED_ALWAYS, 3),
	[E_PORTS_1] = GP("EXE_ACTIVITY.1_PORTS_UTIL", 0x2a6, 0xff,
			 NEED_ALWAYS, 3),
	[E_BOUND_LOADS] = GP("EXE_ACTIVITY.BOUND_ON_LOADS", 0x50021a6, 0xff,
			     NEED_ALWAYS, 3),
	[E_BOUND_STORES] = GP("EXE_ACTIVITY.BOUND_ON_STORES", 0x20040a6, 0xff,
			      NEED_ALWAYS, 3),
	[E_EXE_BOUND_0] = GP("EXE_ACTIVITY.EXE_BOUND_0_PORTS", 0x80a6, 0xff,
			     NEED_ALWAYS, 3),
	[E_FP_SCALAR] = GP("FP_ARITH_INST_RETIRED.SCALAR", 0x3c7, 0xff,
			   NEED_ALWAYS, 3),
	[E_FP_VECTOR] = GP("FP_ARITH_INST_RETIRED.VECTOR", 0xfcc7, 0xff,
			   NEED_ALWAYS, 3),
	[E_FP2_SCALAR] = GP("FP_ARITH_INST_RETIRED2.SCALAR", 0x3cf, 0xff,
			    NEED_ALWAYS, 3),
	[E_FP2_VECTOR] = GP("FP_ARITH_INST_RETIRED2.VECTOR", 0x1ccf, 0xff,
			    NEED_ALWAYS, 3),
	[E_ICACHE_DATA] = GP("ICACHE_DATA.STALLS", 0x480, 0x0f, NEED_ALWAYS, 3),
	[E_ICACHE_TAG] = GP("ICACHE_TAG.STALLS", 0x483, 0x0f, NEED_ALWAYS, 3),
	[E_DSB_ANY] = GP("IDQ.DSB_CYCLES_ANY", 0x1000879, 0x0f, NEED_ALWAYS, 3),
	[E_DSB_OK] = GP("IDQ.DSB_CYCLES_OK", 0x6000879, 0x0f, NEED_ALWAYS, 3),
	[E_MITE_ANY] = GP("IDQ.MITE_CYCLES_ANY", 0x1000479, 0x0f,
			  NEED_ALWAYS, 3),
	[E_MITE_OK] = GP("IDQ.MITE_CYCLES_OK", 0x6000479, 0x0f, NEED_ALWAYS, 3),
	[E_INST] = FIXED("INST_RETIRED.ANY", 0xc0, 0, 1),
	[E_MACRO_FUSED] = GP("INST_RETIRED.MACRO_FUSED", 0x10c0, 0xff,
			     NEED_ALWAYS, 3),
	[E_CLEARS_COUNT] = GP("INT_MISC.CLEARS_COUNT", 0x10401ad, 0xff,
			      NEED_ALWAYS, 3),
	[E_CLEAR_RESTEER] = GP("INT_MISC.CLEAR_RESTEER_CYCLES", 0x80ad, 0xff,
			       NEED_ALWAYS, 3),
	[E_UNKNOWN_BRANCH] = INTEL_GP_FE("INT_MISC.UNKNOWN_BRANCH_CYCLES",
					 0x40ad, 0x7, 3),
	[E_UOP_DROPPING] = GP("INT_MISC.UOP_DROPPING", 0x10ad, 0xff,
			      NEED_ALWAYS, 1),
	[E_IV_ADD_128] = GP("INT_VEC_RETIRED.ADD_128", 0x3e7, 0xff,
			    NEED_ALWAYS, 3),
	[E_IV_ADD_256] = GP("INT_VEC_RETIRED.ADD_256", 0xce7, 0xff,
			    NEED_ALWAYS, 3),
	[E_IV_MUL_256] = GP("INT_VEC_RETIRED.MUL_256", 0x80e7, 0xff,
			    NEED_ALWAYS, 3),
	[E_IV_VNNI_128] = GP("INT_VEC_RETIRED.VNNI_128", 0x10e7, 0xff,
			     NEED_ALWAYS, 3),
	[E_IV_VNNI_256] = GP("INT_VEC_RETIRED.VNNI_256", 0x20e7, 0xff,
			     NEED_ALWAYS, 3),
	[E_MC_COUNT] = GP("MACHINE_CLEARS.COUNT", 0x10401c3, 0xff,
			  NEED_ALWAYS, 3),
	[E_MC_MO] = GP("MACHINE_CLEARS.MEMORY_ORDERING", 0x2c3, 0xff,
		       NEED_ALWAYS, 3),
	[E_MA_L1D] = GP("MEMORY_ACTIVITY.STALLS_L1D_MISS", 0x3000347, 0x0f,
			NEED_ALWAYS, 3),
	[E_MA_L2] = GP("MEMORY_ACTIVITY.STALLS_L2_MISS", 0x5000547, 0x0f,
		       NEED_ALWAYS, 3),
	[E_MA_L3] = GP("MEMORY_ACTIVITY.STALLS_L3_MISS", 0x9000947, 0x0f,
		       NEED_ALWAYS, 3),
	/* needed only with persistent memory, which we assume absent */
	[E_LOCAL_DRAM] = GP("MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", 0x1d3, 0x0f,
			    NEED_NEVER, 3),
	[E_REMOTE_DRAM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM", 0x2d3,
			     0x0f, NEED_NEVER, 3),
	[E_REMOTE_FWD] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", 0x8d3, 0x0f,
			    NEED_NEVER, 3),
	[E_REMOTE_HITM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", 0x4d3,
			     0x0f, NEED_NEVER, 3),
	[E_REMOTE_PMM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_PMM", 0x10d3, 0x0f,
			    NEED_NEVER, 3),
	[E_FB_HIT] = GP("MEM_LOAD_RETIRED.FB_HIT", 0x40d1, 0x0f, NEED_NEVER, 3),
	[E_L1_MISS] = GP("MEM_LOAD_RETIRED.L1_MISS", 0x8d1, 0x0f,
			 NEED_NEVER, 3),
	[E_LOCAL_PMM] = GP("MEM_LOAD_RETIRED.LOCAL_PMM", 0x80d1, 0x0f,
			   NEED_NEVER, 3),
	[E_MEM_UOP] = GP("MEM_UOP_RETIRED.ANY", 0x3e5, 0xff, NEED_ALWAYS, 3),
	[E_SCOREBOARD] = GP("RESOURCE_STALLS.SCOREBOARD", 0x2a2, 0xff,
			    NEED_ALWAYS, 3),
	INTEL_TD_L1,
	INTEL_TD_L2,
	[E_UE_THREAD] = GP("UOPS_EXECUTED.THREAD", 0x1b1, 0xff, NEED_ALWAYS, 3),
	[E_UE_X87] = GP("UOPS_EXECUTED.X87", 0x10b1, 0xff, NEED_ALWAYS, 3),
	[E_ISSUED] = GP("UOPS_ISSUED.ANY", 0x1ae, 0xff, NEED_ALWAYS, 3),
	[E_UOPS_MS] = INTEL_GP_FE("UOPS_RETIRED.MS", 0x4c2, 0x8, 3),
	[E_RET_SLOTS] = GP("UOPS_RETIRED.SLOTS", 0x2c2, 0xff, NEED_ALWAYS, 3),
};

enum {
	N_FE, N_BS, N_BE, N_RET,
	N_FL, N_FB, N_BM, N_MC, N_MB, N_CB, N_HEAVY, N_LIGHT,
	N_BR_RESTEERS, N_DSB_SW, N_ICACHE, N_ITLB, N_LCP, N_MS_SW,
	N_DSB, N_MITE,
	N_OTHER_MISP, N_OTHER_NUKES,
	N_AMX, N_DIVIDER, N_PORTS, N_SERIALIZING,
	N_DRAM, N_L1, N_L2, N_L3, N_STORE,
	N_MSEQ, N_FEW_UOPS,
	N_FP_ARITH, N_FUSED, N_INT_OPS, N_MEM_OPS, N_NON_FUSED, N_OTHER_LIGHT,
	NR_EMR_NODES,
	N_PMM = NR_EMR_NODES,	/* Sapphire Rapids only */
	NR_NODES
};

/* Thresholds: perf's MetricThreshold "tma_x > value". */
static const struct tma_node spr_nodes[NR_NODES] = {
	TMA_NODES_L1_L2,
	TMA_NODES_L3_FRONTEND,
	TMA_L3_OTHER_MISP,
	TMA_L3_OTHER_NUKES,
	TMA_L3_AMX,
	TMA_L3_DIVIDER,
	TMA_L3_PORTS,
	TMA_L3_SERIALIZING,
	TMA_L3_DRAM,
	TMA_L3_CACHES,
	TMA_L3_MSEQ,
	TMA_L3_FEW_UOPS,
	TMA_L3_FP_ARITH,
	TMA_L3_FUSED,
	TMA_L3_INT_OPS,
	TMA_L3_MEM_OPS,
	TMA_L3_NON_FUSED,
	TMA_L3_OTHER_LIGHT,
	TMA_L3_PMM,
};

/*
 * perf's MetricExpr, operator by operator and left to right. Writes every
 * node of spr_nodes[] (out[] is MODEL_MAX_NODES long), tma_pmm_bound
 * included; never reads the persistent-memory events.
 */
static void spr_eval(const struct tma_input *in, double *o)
{
	const double *e = in->ev;
	double slots, clks, core_clks, sum, ret_slots, pp, pu0, x87;
	double fp_scalar, fp_vector, iv128, iv256;

	slots = e[E_SLOTS];
	clks = e[E_THREAD];
	core_clks = in->smt ? e[E_DISTRIBUTED] : clks;
	sum = e[E_TD_FE] + e[E_TD_BAD_SPEC] + e[E_TD_RET] + e[E_TD_BE];

	/* level 1 */
	o[N_FE] = dv(e[E_TD_FE], sum) - dv(e[E_UOP_DROPPING], slots);
	o[N_BE] = dv(e[E_TD_BE], sum) + 0 * slots;
	o[N_RET] = dv(e[E_TD_RET], sum) + 0 * slots;
	o[N_BS] = mx(1 - (o[N_FE] + o[N_BE] + o[N_RET]), 0);

	/* level 2: all from PERF_METRICS */
	o[N_FL] = dv(e[E_TD_FETCH_LAT], sum) - dv(e[E_UOP_DROPPING], slots);
	o[N_FB] = mx(0, o[N_FE] - o[N_FL]);
	o[N_BM] = dv(e[E_TD_BR_MISP], sum) + 0 * slots;
	o[N_MC] = mx(0, o[N_BS] - o[N_BM]);
	o[N_MB] = dv(e[E_TD_MEM], sum) + 0 * slots;
	o[N_CB] = mx(0, o[N_BE] - o[N_MB]);
	o[N_HEAVY] = dv(e[E_TD_HEAVY], sum) + 0 * slots;
	o[N_LIGHT] = mx(0, o[N_RET] - o[N_HEAVY]);

	/* level 3: frontend; tma_unknown_branches is a level-4 helper */
	o[N_BR_RESTEERS] = dv(e[E_CLEAR_RESTEER], clks) +
			   dv(e[E_UNKNOWN_BRANCH], clks);
	o[N_DSB_SW] = dv(e[E_DSB2MITE], clks);
	o[N_ICACHE] = dv(e[E_ICACHE_DATA], clks);
	o[N_ITLB] = dv(e[E_ICACHE_TAG], clks);
	o[N_LCP] = dv(e[E_LCP], clks);
	o[N_MS_SW] = dv(dv(3 * e[E_MS_C1_EDGE],
			   dv(e[E_RET_SLOTS], e[E_ISSUED])), clks);
	o[N_DSB] = dv(dv(e[E_DSB_ANY] - e[E_DSB_OK], core_clks), 2);
	o[N_MITE] = dv(dv(e[E_MITE_ANY] - e[E_MITE_OK], core_clks), 2);

	/* level 3: bad speculation */
	o[N_OTHER_MISP] = mx(o[N_BM] * (1 - dv(e[E_BR_MISP],
					       e[E_CLEARS_COUNT] -
					       e[E_MC_COUNT])), 0.0001);
	o[N_OTHER_NUKES] = mx(o[N_MC] * (1 - dv(e[E_MC_MO], e[E_MC_COUNT])),
			      0.0001);

	/* level 3: core bound; tma_ports_utilized_0, tma_c02_wait: L4 */
	o[N_AMX] = dv(e[E_AMX_BUSY], core_clks);
	o[N_DIVIDER] = dv(e[E_DIV_ACTIVE], clks);
	pu0 = dv(dv(e[E_EXE_BOUND_0] +
		    mx(e[E_RS_EMPTY_U1] - e[E_SCOREBOARD], 0), clks) *
		 (e[E_STALLS_TOTAL] - e[E_BOUND_LOADS]), clks);
	pp = e[E_PORTS_1] + o[N_RET] * e[E_PORTS_2C];
	o[N_PORTS] = sel(lt(e[E_DIV_ACTIVE],
			    e[E_STALLS_TOTAL] - e[E_BOUND_LOADS]),
			 dv(pu0 * clks + pp, clks), dv(pp, clks));
	o[N_SERIALIZING] = dv(e[E_SCOREBOARD], clks) + dv(e[E_C02], clks);

	/* level 3: memory bound (#has_pmem = 0 branches) */
	o[N_DRAM] = dv(e[E_MA_L3], clks);
	o[N_L1] = mx(dv(e[E_BOUND_LOADS] - e[E_MA_L1D], clks), 0);
	o[N_L2] = dv(e[E_MA_L1D] - e[E_MA_L2], clks);
	o[N_L3] = dv(e[E_MA_L2] - e[E_MA_L3], clks);
	o[N_PMM] = 0;
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

static const struct model_match spr_match[] = { INTEL_6(0x8f) };
static const char *const spr_pmu_events[] = {
	INTEL_TOPDOWN_L1_EVENTS, INTEL_TOPDOWN_L2_EVENTS, NULL,
};

const struct model model_sapphirerapids = {
	.name = "sapphirerapids",
	.desc = "Sapphire Rapids / Xeon 4th gen (CPUID 6-8F)",
	.gp_smt_on = 8,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = spr_events,
	.nr_events = NR_EVENTS,
	.nodes = spr_nodes,
	.nr_nodes = NR_NODES,
	.eval = spr_eval,
	MODEL_MATCHES(spr_match),
	.pmu = "cpu",
	.pmu_name = "sapphire_rapids",
	.pmu_events = spr_pmu_events,
	INTEL_IPC,
};

static const struct model_match emr_match[] = { INTEL_6(0xcf) };

/* the kernel drives EMR as SPR: same caps/pmu_name, same PERF_METRICS */
const struct model model_emeraldrapids = {
	.name = "emeraldrapids",
	.desc = "Emerald Rapids / Xeon 5th gen (CPUID 6-CF)",
	.gp_smt_on = 8,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = spr_events,
	.nr_events = NR_EMR_EVENTS,
	.nodes = spr_nodes,
	.nr_nodes = NR_EMR_NODES,
	.eval = spr_eval,
	MODEL_MATCHES(emr_match),
	.pmu = "cpu",
	.pmu_name = "sapphire_rapids",
	.pmu_events = spr_pmu_events,
	INTEL_IPC,
};
