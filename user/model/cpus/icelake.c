// SPDX-License-Identifier: GPL-2.0
/*
 * Ice Lake: server (icelakex, ICX, CPUID 6-6A/6-6C) and client (icelake,
 * ICL, 6-7D/6-7E). Level 1 comes from the PERF_METRICS register: TOPDOWN.SLOTS
 * (fixed counter 3) leads a group with the four topdown-* metric events, and
 * the kernel reports each as slots attributed to that category. Levels 2-3
 * add generic events. The two parts differ only in one level-3 node: ICX has
 * tma_pmm_bound (persistent memory; 0 when #has_pmem = 0), ICL has tma_lsd.
 *
 * The formulas are perf's MetricExpr (icx-metrics.json, icl-metrics.json)
 * for per-task counting: #core_wide = 0, #has_pmem = 0, #SMT_on from input.
 */
#include <linux/perf_event.h>
#include "model/cpus/intel.h"
#include "model/cpus/tma_tree.h"
#include "model/model.h"
#include "model/tma_expr.h"

enum {
	E_DIV_ACTIVE,
	E_BACLEARS,
	E_BR_INST,
	E_BR_MISP,
	E_PORTS_0,
	E_DEC0_C1,
	E_DISTRIBUTED,
	E_THREAD,
	E_STALLS_L1D,
	E_STALLS_L2,
	E_STALLS_L3,
	E_STALLS_MEM,
	E_STALLS_TOTAL,
	E_LCP,
	E_DSB2MITE,
	E_PORTS_1,
	E_PORTS_2,
	E_BOUND_STORES,
	E_FP_SCALAR,
	E_FP_VECTOR,
	E_ICACHE_DATA,
	E_ICACHE_TAG,
	E_DSB_ANY,
	E_DSB_OK,
	E_MITE_ANY,
	E_MITE_OK,
	E_MITE_UOPS,
	E_MS_SWITCHES,
	E_MS_UOPS,
	E_NOT_DELIV_C0,
	E_INST,
	E_CLEARS_COUNT,
	E_CLEAR_RESTEER,
	E_UOP_DROPPING,
	E_FB_FULL,
	E_MC_COUNT,
	E_MC_MO,
	E_MEM_INST,
	E_FB_HIT,
	E_L1_MISS,
	E_L2_HIT,
	E_SCOREBOARD,
	E_TD_BAD_SPEC,
	E_TD_BE,
	E_TD_FE,
	E_TD_RET,
	E_SLOTS,
	E_DEC0,
	E_UE_THREAD,
	E_UE_X87,
	E_ISSUED,
	E_RET_SLOTS,
	E_COMMON_END,
	/* icelakex only: the #has_pmem > 0 branch of tma_pmm_bound */
	E_LOCAL_DRAM = E_COMMON_END,
	E_REMOTE_DRAM,
	E_REMOTE_FWD,
	E_REMOTE_HITM,
	E_REMOTE_PMM,
	E_LOCAL_PMM,
	NR_ICX_EVENTS,
	/* icelake only: tma_lsd */
	E_LSD_ACTIVE = E_COMMON_END,
	E_LSD_OK,
	NR_ICL_EVENTS,
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
#define ICL_COMMON_EVENTS						\
	[E_DIV_ACTIVE] = GP("ARITH.DIVIDER_ACTIVE", 0x1000914, 0xff,	\
			    NEED_ALWAYS, 3),				\
	[E_BACLEARS] = GP("BACLEARS.ANY", 0x1e6, 0x0f, NEED_ALWAYS, 3),	\
	[E_BR_INST] = GP("BR_INST_RETIRED.ALL_BRANCHES", 0xc4, 0xff,	\
			 NEED_ALWAYS, 3),				\
	[E_BR_MISP] = GP("BR_MISP_RETIRED.ALL_BRANCHES", 0xc5, 0xff,	\
			 NEED_ALWAYS, 2),				\
	[E_PORTS_0] = GP("cpu@EXE_ACTIVITY.3_PORTS_UTIL,umask=0x80@",	\
			 0x80a6, 0xff, NEED_ALWAYS, 3),			\
	[E_DEC0_C1] = GP("cpu@UOPS_DECODED.DEC0,cmask=1@", 0x1000156,	\
			 0x0f, NEED_ALWAYS, 2),				\
	[E_DISTRIBUTED] = GP("CPU_CLK_UNHALTED.DISTRIBUTED", 0x2ec, 0xff, \
			     NEED_SMT_ON, 1),				\
	[E_THREAD] = FIXED("CPU_CLK_UNHALTED.THREAD", 0x3c, 1, 1),	\
	[E_STALLS_L1D] = GP("CYCLE_ACTIVITY.STALLS_L1D_MISS", 0xc000ca3, \
			    0x0f, NEED_ALWAYS, 3),			\
	[E_STALLS_L2] = GP("CYCLE_ACTIVITY.STALLS_L2_MISS", 0x50005a3,	\
			   0x0f, NEED_ALWAYS, 3),			\
	[E_STALLS_L3] = GP("CYCLE_ACTIVITY.STALLS_L3_MISS", 0x60006a3,	\
			   0x0f, NEED_ALWAYS, 3),			\
	[E_STALLS_MEM] = GP("CYCLE_ACTIVITY.STALLS_MEM_ANY", 0x140014a3, \
			    0xff, NEED_ALWAYS, 2),			\
	[E_STALLS_TOTAL] = GP("CYCLE_ACTIVITY.STALLS_TOTAL", 0x40004a3,	\
			      0xff, NEED_ALWAYS, 2),			\
	[E_LCP] = GP("DECODE.LCP", 0x187, 0x0f, NEED_ALWAYS, 3),	\
	[E_DSB2MITE] = GP("DSB2MITE_SWITCHES.PENALTY_CYCLES", 0x2ab,	\
			  0x0f, NEED_ALWAYS, 3),			\
	[E_PORTS_1] = GP("EXE_ACTIVITY.1_PORTS_UTIL", 0x2a6, 0xff,	\
			 NEED_ALWAYS, 2),				\
	[E_PORTS_2] = GP("EXE_ACTIVITY.2_PORTS_UTIL", 0x4a6, 0xff,	\
			 NEED_ALWAYS, 2),				\
	[E_BOUND_STORES] = GP("EXE_ACTIVITY.BOUND_ON_STORES", 0x20040a6, \
			      0xff, NEED_ALWAYS, 2),			\
	[E_FP_SCALAR] = GP("FP_ARITH_INST_RETIRED.SCALAR", 0x3c7, 0xff,	\
			   NEED_ALWAYS, 3),				\
	[E_FP_VECTOR] = GP("FP_ARITH_INST_RETIRED.VECTOR", 0xfcc7, 0xff, \
			   NEED_ALWAYS, 3),				\
	[E_ICACHE_DATA] = GP("ICACHE_DATA.STALLS", 0x480, 0x0f,		\
			     NEED_ALWAYS, 3),				\
	[E_ICACHE_TAG] = GP("ICACHE_TAG.STALLS", 0x483, 0x0f,		\
			    NEED_ALWAYS, 3),				\
	[E_DSB_ANY] = GP("IDQ.DSB_CYCLES_ANY", 0x1000879, 0x0f,		\
			 NEED_ALWAYS, 3),				\
	[E_DSB_OK] = GP("IDQ.DSB_CYCLES_OK", 0x5000879, 0x0f,		\
			NEED_ALWAYS, 3),				\
	[E_MITE_ANY] = GP("IDQ.MITE_CYCLES_ANY", 0x1000479, 0x0f,	\
			  NEED_ALWAYS, 3),				\
	[E_MITE_OK] = GP("IDQ.MITE_CYCLES_OK", 0x5000479, 0x0f,		\
			 NEED_ALWAYS, 3),				\
	[E_MITE_UOPS] = GP("IDQ.MITE_UOPS", 0x479, 0x0f, NEED_ALWAYS, 2), \
	[E_MS_SWITCHES] = GP("IDQ.MS_SWITCHES", 0x1043079, 0x0f,	\
			     NEED_ALWAYS, 3),				\
	[E_MS_UOPS] = GP("IDQ.MS_UOPS", 0x3079, 0x0f, NEED_ALWAYS, 2),	\
	[E_NOT_DELIV_C0] =						\
		GP("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE",	\
		   0x500019c, 0xff, NEED_ALWAYS, 2),			\
	[E_INST] = FIXED("INST_RETIRED.ANY", 0xc0, 0, 1),		\
	[E_CLEARS_COUNT] = GP("INT_MISC.CLEARS_COUNT", 0x104010d, 0xff,	\
			      NEED_ALWAYS, 1),				\
	[E_CLEAR_RESTEER] = GP("INT_MISC.CLEAR_RESTEER_CYCLES", 0x800d,	\
			       0xff, NEED_ALWAYS, 3),			\
	[E_UOP_DROPPING] = GP("INT_MISC.UOP_DROPPING", 0x100d, 0xff,	\
			      NEED_ALWAYS, 1),				\
	[E_FB_FULL] = GP("L1D_PEND_MISS.FB_FULL_PERIODS", 0x1040248,	\
			 0x0f, NEED_ALWAYS, 3),				\
	[E_MC_COUNT] = GP("MACHINE_CLEARS.COUNT", 0x10401c3, 0xff,	\
			  NEED_ALWAYS, 2),				\
	[E_MC_MO] = GP("MACHINE_CLEARS.MEMORY_ORDERING", 0x2c3, 0xff,	\
		       NEED_ALWAYS, 3),					\
	[E_MEM_INST] = GP("MEM_INST_RETIRED.ANY", 0x83d0, 0x0f,		\
			  NEED_ALWAYS, 3),				\
	[E_FB_HIT] = GP("MEM_LOAD_RETIRED.FB_HIT", 0x40d1, 0x0f,	\
			NEED_ALWAYS, 3),				\
	[E_L1_MISS] = GP("MEM_LOAD_RETIRED.L1_MISS", 0x8d1, 0x0f,	\
			 NEED_ALWAYS, 3),				\
	[E_L2_HIT] = GP("MEM_LOAD_RETIRED.L2_HIT", 0x2d1, 0x0f,		\
			NEED_ALWAYS, 3),				\
	[E_SCOREBOARD] = GP("RESOURCE_STALLS.SCOREBOARD", 0x2a2, 0xff,	\
			    NEED_ALWAYS, 3),				\
	INTEL_TD_L1,							\
	[E_DEC0] = GP("UOPS_DECODED.DEC0", 0x156, 0x0f, NEED_ALWAYS, 2), \
	[E_UE_THREAD] = GP("UOPS_EXECUTED.THREAD", 0x1b1, 0xff,		\
			   NEED_ALWAYS, 3),				\
	[E_UE_X87] = GP("UOPS_EXECUTED.X87", 0x10b1, 0xff, NEED_ALWAYS, 3), \
	[E_ISSUED] = GP("UOPS_ISSUED.ANY", 0x10e, 0xff, NEED_ALWAYS, 2), \
	[E_RET_SLOTS] = GP("UOPS_RETIRED.SLOTS", 0x2c2, 0xff, NEED_ALWAYS, 2)

static const struct model_event icx_events[NR_ICX_EVENTS] = {
	ICL_COMMON_EVENTS,
	/* needed only with persistent memory, which we assume absent */
	[E_LOCAL_DRAM] = GP("MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", 0x1d3,
			    0x0f, NEED_NEVER, 3),
	[E_REMOTE_DRAM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM", 0x2d3,
			     0x0f, NEED_NEVER, 3),
	[E_REMOTE_FWD] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", 0x8d3,
			    0x0f, NEED_NEVER, 3),
	[E_REMOTE_HITM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", 0x4d3,
			     0x0f, NEED_NEVER, 3),
	[E_REMOTE_PMM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_PMM", 0x10d3,
			    0x0f, NEED_NEVER, 3),
	[E_LOCAL_PMM] = GP("MEM_LOAD_RETIRED.LOCAL_PMM", 0x80d1, 0x0f,
			   NEED_NEVER, 3),
};

static const struct model_event icl_events[NR_ICL_EVENTS] = {
	ICL_COMMON_EVENTS,
	[E_LSD_ACTIVE] = GP("LSD.CYCLES_ACTIVE", 0x10001a8, 0x0f,
			    NEED_ALWAYS, 3),
	[E_LSD_OK] = GP("LSD.CYCLES_OK", 0x50001a8, 0x0f, NEED_ALWAYS, 3),
};

enum {
	N_FE, N_BS, N_BE, N_RET,
	N_FL, N_FB, N_BM, N_MC, N_MB, N_CB, N_HEAVY, N_LIGHT,
	N_BR_RESTEERS, N_DSB_SW, N_ICACHE, N_ITLB, N_LCP, N_MS_SW,
	N_DSB, N_MITE,
	N_OTHER_MISP, N_OTHER_NUKES,
	N_DIVIDER, N_PORTS, N_SERIALIZING,
	N_DRAM, N_L1, N_L2, N_L3, N_STORE,
	N_MSEQ, N_FEW_UOPS,
	N_FP_ARITH, N_MEM_OPS, N_BR_INSTR, N_OTHER_LIGHT,
	N_SPECIFIC,	/* tma_pmm_bound (ICX) or tma_lsd (ICL) */
	NR_NODES
};

/* Thresholds: perf's MetricThreshold "tma_x > value". */
#define ICL_COMMON_NODES						\
	TMA_NODES_L1_L2,							\
	TMA_NODES_L3_FRONTEND,						\
	TMA_L3_OTHER_MISP,						\
	TMA_L3_OTHER_NUKES,						\
	TMA_L3_DIVIDER,							\
	TMA_L3_PORTS,							\
	TMA_L3_SERIALIZING,						\
	TMA_L3_DRAM,							\
	TMA_L3_CACHES,							\
	TMA_L3_MSEQ,							\
	TMA_L3_FEW_UOPS,						\
	TMA_L3_FP_ARITH,						\
	TMA_L3_MEM_OPS,							\
	[N_BR_INSTR] = TMA_NODE("tma_branch_instructions", "Branch_Instr",	\
				N_LIGHT, 3, 0.1, false),			\
	TMA_L3_OTHER_LIGHT

static const struct tma_node icx_nodes[NR_NODES] = {
	ICL_COMMON_NODES,
	[N_SPECIFIC] = TMA_NODE("tma_pmm_bound", "PMM", N_MB, 3, 0.1,
				false),
};

static const struct tma_node icl_nodes[NR_NODES] = {
	ICL_COMMON_NODES,
	[N_SPECIFIC] = TMA_NODE("tma_lsd", "LSD", N_FB, 3, 0.15, false),
};

/*
 * The nodes both parts share, as perf's MetricExpr, operator by operator
 * and left to right so that rounding matches perf's evaluator.
 */
static void icl_common_eval(const struct tma_input *in, double *o,
			    double *core_clks_out)
{
	const double *e = in->ev;
	double slots, clks, core_clks, sum, pp, pu0, l2_hits, l1d_l2;
	double x87, fp_scalar, fp_vector;

	slots = e[E_SLOTS];
	clks = e[E_THREAD];
	core_clks = in->smt ? e[E_DISTRIBUTED] : clks;
	*core_clks_out = core_clks;
	sum = e[E_TD_FE] + e[E_TD_BAD_SPEC] + e[E_TD_RET] + e[E_TD_BE];

	/* level 1 */
	o[N_FE] = dv(e[E_TD_FE], sum) - dv(e[E_UOP_DROPPING], slots);
	o[N_BE] = dv(e[E_TD_BE], sum) + dv(5 * e[E_CLEARS_COUNT], slots);
	o[N_RET] = dv(e[E_TD_RET], sum) + 0 * slots;
	o[N_BS] = mx(1 - (o[N_FE] + o[N_BE] + o[N_RET]), 0);

	/* level 2 */
	o[N_FL] = dv(5 * e[E_NOT_DELIV_C0] - e[E_UOP_DROPPING], slots);
	o[N_FB] = mx(0, o[N_FE] - o[N_FL]);
	o[N_BM] = dv(e[E_BR_MISP], e[E_BR_MISP] + e[E_MC_COUNT]) * o[N_BS];
	o[N_MC] = mx(0, o[N_BS] - o[N_BM]);
	pp = e[E_PORTS_1] + o[N_RET] * e[E_PORTS_2];
	o[N_MB] = dv(e[E_STALLS_MEM] + e[E_BOUND_STORES],
		     e[E_STALLS_TOTAL] + pp + e[E_BOUND_STORES]) * o[N_BE];
	o[N_CB] = mx(0, o[N_BE] - o[N_MB]);
	o[N_MSEQ] = dv(dv(e[E_RET_SLOTS], e[E_ISSUED]) * e[E_MS_UOPS], slots);
	o[N_HEAVY] = o[N_MSEQ] + dv(o[N_RET] * (e[E_DEC0] - e[E_DEC0_C1]),
				    e[E_MITE_UOPS]);
	o[N_LIGHT] = mx(0, o[N_RET] - o[N_HEAVY]);

	/* level 3: frontend; tma_unknown_branches is a level-4 helper */
	o[N_BR_RESTEERS] = dv(e[E_CLEAR_RESTEER], clks) +
			   dv(10 * e[E_BACLEARS], clks);
	o[N_DSB_SW] = dv(e[E_DSB2MITE], clks);
	o[N_ICACHE] = dv(e[E_ICACHE_DATA], clks);
	o[N_ITLB] = dv(e[E_ICACHE_TAG], clks);
	o[N_LCP] = dv(e[E_LCP], clks);
	o[N_MS_SW] = dv(3 * e[E_MS_SWITCHES], clks);
	o[N_DSB] = dv(dv(e[E_DSB_ANY] - e[E_DSB_OK], core_clks), 2);
	o[N_MITE] = dv(dv(e[E_MITE_ANY] - e[E_MITE_OK], core_clks), 2);

	/* level 3: bad speculation */
	o[N_OTHER_MISP] = mx(o[N_BM] * (1 - dv(e[E_BR_MISP],
					       e[E_CLEARS_COUNT] -
					       e[E_MC_COUNT])), 0.0001);
	o[N_OTHER_NUKES] = mx(o[N_MC] * (1 - dv(e[E_MC_MO], e[E_MC_COUNT])),
			      0.0001);

	/* level 3: core bound; tma_ports_utilized_0 is a level-4 helper */
	o[N_DIVIDER] = dv(e[E_DIV_ACTIVE], clks);
	pu0 = dv(e[E_PORTS_0], clks);
	o[N_PORTS] = sel(lt(e[E_DIV_ACTIVE],
			    e[E_STALLS_TOTAL] - e[E_STALLS_MEM]),
			 dv(pu0 * clks + pp, clks), dv(pp, clks));
	o[N_SERIALIZING] = dv(e[E_SCOREBOARD], clks);

	/* level 3: memory bound (#has_pmem = 0 branch of tma_dram_bound) */
	l2_hits = e[E_L2_HIT] * (1 + dv(e[E_FB_HIT], e[E_L1_MISS]));
	l1d_l2 = dv(e[E_STALLS_L1D] - e[E_STALLS_L2], clks);
	o[N_L2] = dv(l2_hits, l2_hits + e[E_FB_FULL]) * l1d_l2;
	o[N_DRAM] = dv(e[E_STALLS_L3], clks) + l1d_l2 - o[N_L2];
	o[N_L1] = mx(dv(e[E_STALLS_MEM] - e[E_STALLS_L1D], clks), 0);
	o[N_L3] = dv(e[E_STALLS_L2] - e[E_STALLS_L3], clks);
	o[N_STORE] = dv(e[E_BOUND_STORES], clks);

	/* level 3: retiring; x87/scalar/vector are level-4 helpers */
	o[N_FEW_UOPS] = o[N_HEAVY] - o[N_MSEQ];
	x87 = dv(o[N_RET] * e[E_UE_X87], e[E_UE_THREAD]);
	fp_scalar = dv(e[E_FP_SCALAR], o[N_RET] * slots);
	fp_vector = dv(e[E_FP_VECTOR], o[N_RET] * slots);
	o[N_FP_ARITH] = x87 + fp_scalar + fp_vector;
	o[N_MEM_OPS] = dv(o[N_LIGHT] * e[E_MEM_INST], e[E_INST]);
	o[N_BR_INSTR] = dv(o[N_LIGHT] * e[E_BR_INST], o[N_RET] * slots);
	o[N_OTHER_LIGHT] = mx(0, o[N_LIGHT] - (o[N_FP_ARITH] + o[N_MEM_OPS] +
					       o[N_BR_INSTR]));
}

static void icx_eval(const struct tma_input *in, double *o)
{
	double core_clks;

	icl_common_eval(in, o, &core_clks);
	/* perf: "... if #has_pmem > 0 else 0"; no persistent memory */
	o[N_SPECIFIC] = 0;
}

static void icl_eval(const struct tma_input *in, double *o)
{
	const double *e = in->ev;
	double core_clks;

	icl_common_eval(in, o, &core_clks);
	o[N_SPECIFIC] = dv(dv(e[E_LSD_ACTIVE] - e[E_LSD_OK], core_clks), 2);
}

static const struct model_match icx_match[] = {
	INTEL_6(0x6a), INTEL_6(0x6c),
};
static const struct model_match icl_match[] = {
	INTEL_6(0x7d), INTEL_6(0x7e),
};
static const char *const icl_pmu_events[] = { INTEL_TOPDOWN_L1_EVENTS, NULL };

const struct model model_icelakex = {
	.name = "icelakex",
	.desc = "Ice Lake server / Xeon 3rd gen (CPUID 6-6A, 6-6C)",
	.gp_smt_on = 8,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = icx_events,
	.nr_events = NR_ICX_EVENTS,
	.nodes = icx_nodes,
	.nr_nodes = NR_NODES,
	.eval = icx_eval,
	MODEL_MATCHES(icx_match),
	.pmu = "cpu",
	.pmu_name = "icelake",
	.pmu_events = icl_pmu_events,
	INTEL_IPC,
};

const struct model model_icelake = {
	.name = "icelake",
	.desc = "Ice Lake client (CPUID 6-7D, 6-7E)",
	.gp_smt_on = 8,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = icl_events,
	.nr_events = NR_ICL_EVENTS,
	.nodes = icl_nodes,
	.nr_nodes = NR_NODES,
	.eval = icl_eval,
	MODEL_MATCHES(icl_match),
	.pmu = "cpu",
	.pmu_name = "icelake",
	.pmu_events = icl_pmu_events,
	INTEL_IPC,
};
