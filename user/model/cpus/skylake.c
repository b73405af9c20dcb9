// SPDX-License-Identifier: GPL-2.0
/*
 * Skylake: Skylake-SP (skylakex, SKX, CPUID 6-55 steppings 0-4), Cascade
 * Lake (cascadelakex, CLX, 6-55 steppings 5 and up) and the client parts
 * (skylake, SKL, also Kaby/Coffee/Comet Lake: 6-4E, 6-5E, 6-8E, 6-9E, 6-A5,
 * 6-A6). No PERF_METRICS: every node comes from generic events, as on
 * Broadwell. perf's skx-, clx- and skl-metrics.json agree on every L1-L3
 * formula except that CLX adds tma_pmm_bound (persistent memory, 0 with
 * #has_pmem = 0) and SKL names its FP vector event FP_ARITH_INST_RETIRED.VECTOR
 * where SKX writes the same encoding as a umask override.
 *
 * The formulas are perf's MetricExpr for per-task counting: #core_wide = 0,
 * #has_pmem = 0, #SMT_on from the input. With #core_wide = 0 core clocks are
 * estimated from this thread's clocks and ONE_THREAD_ACTIVE / REF_XCLK, so
 * the only #SMT_on branch left is the recovery term of Bad Speculation and
 * Backend Bound (INT_MISC.RECOVERY_CYCLES_ANY / 2, or RECOVERY_CYCLES).
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
	E_FP_VECTOR,		/* the one event SKX and SKL name apart */
	E_ICACHE_C1E,
	E_FB_FULL_C1,
	E_ONE_THREAD,
	E_REF_XCLK,
	E_THREAD,
	E_THREAD_ANY,
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
	E_EXE_BOUND_0,
	E_FP_SCALAR,
	E_ICACHE_DATA,
	E_ICACHE_TAG,
	E_MITE_4,
	E_MITE_ANY,
	E_DSB_ANY,
	E_DSB_OK,
	E_MS_SWITCHES,
	E_MS_UOPS,
	E_NOT_DELIV,
	E_NOT_DELIV_C0,
	E_INST,
	E_CLEARS_COUNT,
	E_CLEAR_RESTEER,
	E_RECOVERY,
	E_RECOVERY_ANY,
	E_MC_COUNT,
	E_MC_MO,
	E_MEM_INST,
	E_FB_HIT,
	E_L1_MISS,
	E_L2_HIT,
	E_SCOREBOARD,
	E_UE_THREAD,
	E_UE_X87,
	E_ISSUED,
	E_MACRO_FUSED,
	E_RETIRE_SLOTS,
	NR_SKX_EVENTS,
	/* Cascade Lake only: tma_pmm_bound's, needed with #has_pmem only */
	E_LOCAL_DRAM = NR_SKX_EVENTS,
	E_REMOTE_DRAM,
	E_REMOTE_FWD,
	E_REMOTE_HITM,
	E_REMOTE_PMM,
	E_LOCAL_PMM,
	NR_CLX_EVENTS
};

/*
 * perf's JSON gives every Skylake core event the counters "0,1,2,3", the
 * SMT-on view. The kernel (intel_skl_event_constraints) lets all of them
 * use all 8 counters with SMT off except MEM_INST_RETIRED.* (0xd0),
 * MEM_LOAD_RETIRED.* (0xd1) and a few others never used here: those stay
 * on counters 0-3 (LOW4).
 */
#define ANY	0xff
#define LOW4	0x0f

#define GP(n, cfg, mask, nd, lvl)					\
	{ .name = n, .type = PERF_TYPE_RAW, .config = cfg,		\
	  .kind = EV_GP, .counters = mask, .fixed = -1, .need = nd,	\
	  .level = lvl }
#define FIXED(n, cfg, idx, nd, lvl)					\
	{ .name = n, .type = PERF_TYPE_RAW, .config = cfg,		\
	  .kind = EV_FIXED, .fixed = idx, .need = nd, .level = lvl }

/* Encodings, counters and "needed when" from tma-events.md (perf JSON). */
#define SKL_EVENTS							\
	[E_DIV_ACTIVE] = GP("ARITH.DIVIDER_ACTIVE", 0x1000114, ANY,	\
			    NEED_ALWAYS, 3),				\
	[E_BACLEARS] = GP("BACLEARS.ANY", 0x1e6, ANY, NEED_ALWAYS, 3),	\
	[E_BR_INST] = GP("BR_INST_RETIRED.ALL_BRANCHES", 0xc4, ANY,	\
			 NEED_ALWAYS, 3),				\
	[E_BR_MISP] = GP("BR_MISP_RETIRED.ALL_BRANCHES", 0xc5, ANY,	\
			 NEED_ALWAYS, 2),				\
	[E_ICACHE_C1E] = GP("cpu@ICACHE_16B.IFDATA_STALL,cmask=1,edge@",	\
			    0x1040480, ANY, NEED_ALWAYS, 3),		\
	[E_FB_FULL_C1] = GP("cpu@L1D_PEND_MISS.FB_FULL,cmask=1@",	\
			    0x1000248, ANY, NEED_ALWAYS, 3),		\
	[E_ONE_THREAD] = GP("CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", 0x23c, \
			    ANY, NEED_ALWAYS, 1),			\
	[E_REF_XCLK] = GP("CPU_CLK_UNHALTED.REF_XCLK", 0x13c, ANY,	\
			  NEED_ALWAYS, 1),				\
	[E_THREAD] = FIXED("CPU_CLK_UNHALTED.THREAD", 0x3c, 1,		\
			   NEED_ALWAYS, 1),				\
	/* only in the #core_wide = 1 branch: system-wide counting */	\
	[E_THREAD_ANY] = FIXED("CPU_CLK_UNHALTED.THREAD_ANY", 0x20003c, 1, \
			       NEED_NEVER, 1),				\
	[E_STALLS_L1D] = GP("CYCLE_ACTIVITY.STALLS_L1D_MISS", 0xc000ca3,	\
			    ANY, NEED_ALWAYS, 3),			\
	[E_STALLS_L2] = GP("CYCLE_ACTIVITY.STALLS_L2_MISS", 0x50005a3,	\
			   ANY, NEED_ALWAYS, 3),			\
	[E_STALLS_L3] = GP("CYCLE_ACTIVITY.STALLS_L3_MISS", 0x60006a3,	\
			   ANY, NEED_ALWAYS, 3),			\
	[E_STALLS_MEM] = GP("CYCLE_ACTIVITY.STALLS_MEM_ANY", 0x140014a3,	\
			    ANY, NEED_ALWAYS, 2),			\
	[E_STALLS_TOTAL] = GP("CYCLE_ACTIVITY.STALLS_TOTAL", 0x40004a3,	\
			      ANY, NEED_ALWAYS, 2),			\
	[E_LCP] = GP("DECODE.LCP", 0x187, ANY, NEED_ALWAYS, 3),		\
	[E_DSB2MITE] = GP("DSB2MITE_SWITCHES.PENALTY_CYCLES", 0x2ab, ANY, \
			  NEED_ALWAYS, 3),				\
	[E_PORTS_1] = GP("EXE_ACTIVITY.1_PORTS_UTIL", 0x2a6, ANY,	\
			 NEED_ALWAYS, 2),				\
	[E_PORTS_2] = GP("EXE_ACTIVITY.2_PORTS_UTIL", 0x4a6, ANY,	\
			 NEED_ALWAYS, 2),				\
	[E_BOUND_STORES] = GP("EXE_ACTIVITY.BOUND_ON_STORES", 0x40a6, ANY, \
			      NEED_ALWAYS, 2),				\
	[E_EXE_BOUND_0] = GP("EXE_ACTIVITY.EXE_BOUND_0_PORTS", 0x1a6, ANY, \
			     NEED_ALWAYS, 3),				\
	[E_FP_SCALAR] = GP("FP_ARITH_INST_RETIRED.SCALAR", 0x3c7, ANY,	\
			   NEED_ALWAYS, 3),				\
	[E_ICACHE_DATA] = GP("ICACHE_16B.IFDATA_STALL", 0x480, ANY,	\
			     NEED_ALWAYS, 3),				\
	[E_ICACHE_TAG] = GP("ICACHE_TAG.STALLS", 0x483, ANY, NEED_ALWAYS, 3), \
	[E_MITE_4] = GP("IDQ.ALL_MITE_CYCLES_4_UOPS", 0x4002479, ANY,	\
			NEED_ALWAYS, 3),				\
	[E_MITE_ANY] = GP("IDQ.ALL_MITE_CYCLES_ANY_UOPS", 0x1002479, ANY, \
			  NEED_ALWAYS, 3),				\
	[E_DSB_ANY] = GP("IDQ.DSB_CYCLES_ANY", 0x1001879, ANY,		\
			 NEED_ALWAYS, 3),				\
	[E_DSB_OK] = GP("IDQ.DSB_CYCLES_OK", 0x4001879, ANY, NEED_ALWAYS, 3), \
	[E_MS_SWITCHES] = GP("IDQ.MS_SWITCHES", 0x1043079, ANY,		\
			     NEED_ALWAYS, 3),				\
	[E_MS_UOPS] = GP("IDQ.MS_UOPS", 0x3079, ANY, NEED_ALWAYS, 3),	\
	[E_NOT_DELIV] = GP("IDQ_UOPS_NOT_DELIVERED.CORE", 0x19c, ANY,	\
			   NEED_ALWAYS, 1),				\
	[E_NOT_DELIV_C0] =						\
		GP("IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE",	\
		   0x400019c, ANY, NEED_ALWAYS, 2),			\
	[E_INST] = FIXED("INST_RETIRED.ANY", 0xc0, 0, NEED_ALWAYS, 1),	\
	[E_CLEARS_COUNT] = GP("INT_MISC.CLEARS_COUNT", 0x104010d, ANY,	\
			      NEED_ALWAYS, 3),				\
	[E_CLEAR_RESTEER] = GP("INT_MISC.CLEAR_RESTEER_CYCLES", 0x800d,	\
			       ANY, NEED_ALWAYS, 3),			\
	[E_RECOVERY] = GP("INT_MISC.RECOVERY_CYCLES", 0x10d, ANY,	\
			  NEED_SMT_OFF, 1),				\
	[E_RECOVERY_ANY] = GP("INT_MISC.RECOVERY_CYCLES_ANY", 0x20010d,	\
			      ANY, NEED_SMT_ON, 1),			\
	[E_MC_COUNT] = GP("MACHINE_CLEARS.COUNT", 0x10401c3, ANY,	\
			  NEED_ALWAYS, 2),				\
	[E_MC_MO] = GP("MACHINE_CLEARS.MEMORY_ORDERING", 0x2c3, ANY,	\
		       NEED_ALWAYS, 3),					\
	[E_MEM_INST] = GP("MEM_INST_RETIRED.ANY", 0x83d0, LOW4,		\
			  NEED_ALWAYS, 3),				\
	[E_FB_HIT] = GP("MEM_LOAD_RETIRED.FB_HIT", 0x40d1, LOW4,	\
			NEED_ALWAYS, 3),				\
	[E_L1_MISS] = GP("MEM_LOAD_RETIRED.L1_MISS", 0x8d1, LOW4,	\
			 NEED_ALWAYS, 3),				\
	[E_L2_HIT] = GP("MEM_LOAD_RETIRED.L2_HIT", 0x2d1, LOW4,		\
			NEED_ALWAYS, 3),				\
	[E_SCOREBOARD] = GP("PARTIAL_RAT_STALLS.SCOREBOARD", 0x159, ANY,	\
			    NEED_ALWAYS, 3),				\
	[E_UE_THREAD] = GP("UOPS_EXECUTED.THREAD", 0x1b1, ANY,		\
			   NEED_ALWAYS, 3),				\
	[E_UE_X87] = GP("UOPS_EXECUTED.X87", 0x10b1, ANY, NEED_ALWAYS, 3), \
	[E_ISSUED] = GP("UOPS_ISSUED.ANY", 0x10e, ANY, NEED_ALWAYS, 1),	\
	[E_MACRO_FUSED] = GP("UOPS_RETIRED.MACRO_FUSED", 0x4c2, ANY,	\
			     NEED_ALWAYS, 2),				\
	[E_RETIRE_SLOTS] = GP("UOPS_RETIRED.RETIRE_SLOTS", 0x2c2, ANY,	\
			      NEED_ALWAYS, 1)

/* SKX and CLX: CLX's persistent-memory events follow SKX's 50 */
static const struct model_event skx_events[NR_CLX_EVENTS] = {
	SKL_EVENTS,
	[E_FP_VECTOR] = GP("cpu@FP_ARITH_INST_RETIRED.128B_PACKED_DOUBLE,"
			   "umask=0xfc@", 0xfcc7, ANY, NEED_ALWAYS, 3),
	[E_LOCAL_DRAM] = GP("MEM_LOAD_L3_MISS_RETIRED.LOCAL_DRAM", 0x1d3, ANY,
			    NEED_NEVER, 3),
	[E_REMOTE_DRAM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_DRAM", 0x2d3,
			     ANY, NEED_NEVER, 3),
	[E_REMOTE_FWD] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_FWD", 0x8d3, ANY,
			    NEED_NEVER, 3),
	[E_REMOTE_HITM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_HITM", 0x4d3,
			     ANY, NEED_NEVER, 3),
	[E_REMOTE_PMM] = GP("MEM_LOAD_L3_MISS_RETIRED.REMOTE_PMM", 0x10d3,
			    ANY, NEED_NEVER, 3),
	[E_LOCAL_PMM] = GP("MEM_LOAD_RETIRED.LOCAL_PMM", 0x80d1, LOW4,
			   NEED_NEVER, 3),
};

static const struct model_event skl_events[NR_SKX_EVENTS] = {
	SKL_EVENTS,
	[E_FP_VECTOR] = GP("FP_ARITH_INST_RETIRED.VECTOR", 0xfcc7, ANY,
			   NEED_ALWAYS, 3),
};

enum {
	N_FE, N_BS, N_BE, N_RET,
	N_FL, N_FB, N_BM, N_MC, N_MB, N_CB, N_HEAVY, N_LIGHT,
	N_BR_RESTEERS, N_DSB_SW, N_ICACHE, N_ITLB, N_LCP, N_MS_SW,
	N_DSB, N_MITE,
	N_OTHER_MISP, N_OTHER_NUKES,
	N_DIVIDER, N_PORTS, N_SERIALIZING,
	N_DRAM, N_L1, N_L2, N_L3, N_STORE,
	N_FEW_UOPS, N_MSEQ,
	N_FP_ARITH, N_FUSED, N_MEM_OPS, N_NON_FUSED, N_OTHER_LIGHT,
	NR_SKX_NODES,
	N_PMM = NR_SKX_NODES,	/* Cascade Lake only */
	NR_CLX_NODES
};

/* Thresholds: perf's MetricThreshold "tma_x > value". */
static const struct tma_node skl_nodes[NR_CLX_NODES] = {
	TMA_NODES_L1_L2,
	TMA_NODES_L3_FRONTEND,
	TMA_L3_OTHER_MISP,
	TMA_L3_OTHER_NUKES,
	TMA_L3_DIVIDER,
	TMA_L3_PORTS,
	TMA_L3_SERIALIZING,
	TMA_L3_DRAM,
	TMA_L3_CACHES,
	TMA_L3_FEW_UOPS,
	TMA_L3_MSEQ,
	TMA_L3_FP_ARITH,
	TMA_L3_FUSED,
	TMA_L3_MEM_OPS,
	TMA_L3_NON_FUSED,
	TMA_L3_OTHER_LIGHT,
	TMA_L3_PMM,
};

/*
 * perf's MetricExpr, operator by operator and left to right, so that the
 * rounding is the same as perf's evaluator. Writes every node of
 * skl_nodes[], Cascade Lake's tma_pmm_bound included (out[] is
 * MODEL_MAX_NODES long); it reads only the first NR_SKX_EVENTS events.
 */
static void skl_eval(const struct tma_input *in, double *o)
{
	const double *e = in->ev;
	double clks, core_clks, slots, rec, pp, pu0, l2_hits, x87;
	double fp_scalar, fp_vector;

	/* tma_info_thread_clks, and core clocks for #core_wide < 1 */
	clks = e[E_THREAD];
	core_clks = dv(clks, 2) * (1 + dv(e[E_ONE_THREAD], e[E_REF_XCLK]));
	slots = 4 * core_clks;

	/* level 1 */
	o[N_FE] = dv(e[E_NOT_DELIV], slots);
	rec = in->smt ? dv(e[E_RECOVERY_ANY], 2) : e[E_RECOVERY];
	o[N_BS] = dv(e[E_ISSUED] - e[E_RETIRE_SLOTS] + 4 * rec, slots);
	o[N_BE] = 1 - o[N_FE] - dv(e[E_ISSUED] + 4 * rec, slots);
	o[N_RET] = dv(e[E_RETIRE_SLOTS], slots);

	/* level 2 */
	o[N_FL] = dv(4 * e[E_NOT_DELIV_C0], slots);
	o[N_FB] = o[N_FE] - o[N_FL];
	o[N_BM] = dv(e[E_BR_MISP], e[E_BR_MISP] + e[E_MC_COUNT]) * o[N_BS];
	o[N_MC] = o[N_BS] - o[N_BM];
	/* shared by tma_memory_bound and tma_ports_utilization */
	pp = e[E_PORTS_1] + o[N_RET] * e[E_PORTS_2];
	o[N_MB] = dv(e[E_STALLS_MEM] + e[E_BOUND_STORES],
		     e[E_STALLS_TOTAL] + pp + e[E_BOUND_STORES]) * o[N_BE];
	o[N_CB] = o[N_BE] - o[N_MB];
	o[N_HEAVY] = dv(e[E_RETIRE_SLOTS] + e[E_MACRO_FUSED] - e[E_INST],
			slots);
	o[N_LIGHT] = o[N_RET] - o[N_HEAVY];

	/* level 3: frontend; tma_unknown_branches is a level-4 helper */
	o[N_BR_RESTEERS] = dv(e[E_CLEAR_RESTEER], clks) +
			   dv(9 * e[E_BACLEARS], clks);
	o[N_DSB_SW] = dv(e[E_DSB2MITE], clks);
	o[N_ICACHE] = dv(e[E_ICACHE_DATA] + 2 * e[E_ICACHE_C1E], clks);
	o[N_ITLB] = dv(e[E_ICACHE_TAG], clks);
	o[N_LCP] = dv(e[E_LCP], clks);
	o[N_MS_SW] = dv(2 * e[E_MS_SWITCHES], clks);
	o[N_DSB] = dv(dv(e[E_DSB_ANY] - e[E_DSB_OK], core_clks), 2);
	o[N_MITE] = dv(dv(e[E_MITE_ANY] - e[E_MITE_4], core_clks), 2);

	/* level 3: bad speculation */
	o[N_OTHER_MISP] = mx(o[N_BM] * (1 - dv(e[E_BR_MISP],
					       e[E_CLEARS_COUNT] -
					       e[E_MC_COUNT])), 0.0001);
	o[N_OTHER_NUKES] = mx(o[N_MC] * (1 - dv(e[E_MC_MO], e[E_MC_COUNT])),
			      0.0001);

	/* level 3: core bound; tma_ports_utilized_0 is a level-4 helper */
	o[N_DIVIDER] = dv(e[E_DIV_ACTIVE], clks);
	pu0 = dv(e[E_EXE_BOUND_0], clks);
	o[N_PORTS] = sel(lt(e[E_DIV_ACTIVE],
			    e[E_STALLS_TOTAL] - e[E_STALLS_MEM]),
			 dv(pu0 * clks + pp, clks), dv(pp, clks));
	o[N_SERIALIZING] = dv(e[E_SCOREBOARD], clks);

	/* level 3: memory bound (#has_pmem = 0 branches) */
	l2_hits = e[E_L2_HIT] * (1 + dv(e[E_FB_HIT], e[E_L1_MISS]));
	o[N_L2] = dv(l2_hits, l2_hits + e[E_FB_FULL_C1]) *
		  dv(e[E_STALLS_L1D] - e[E_STALLS_L2], clks);
	o[N_DRAM] = dv(e[E_STALLS_L3], clks) +
		    dv(e[E_STALLS_L1D] - e[E_STALLS_L2], clks) - o[N_L2];
	o[N_L1] = mx(dv(e[E_STALLS_MEM] - e[E_STALLS_L1D], clks), 0);
	o[N_L3] = dv(e[E_STALLS_L2] - e[E_STALLS_L3], clks);
	o[N_STORE] = dv(e[E_BOUND_STORES], clks);
	o[N_PMM] = 0;

	/* level 3: retiring; the x87/scalar/vector helpers are level 4 */
	o[N_MSEQ] = dv(dv(e[E_RETIRE_SLOTS], e[E_ISSUED]) * e[E_MS_UOPS],
		       slots);
	o[N_FEW_UOPS] = o[N_HEAVY] - o[N_MSEQ];
	x87 = dv(o[N_RET] * e[E_UE_X87], e[E_UE_THREAD]);
	fp_scalar = dv(e[E_FP_SCALAR], e[E_RETIRE_SLOTS]);
	fp_vector = dv(e[E_FP_VECTOR], e[E_RETIRE_SLOTS]);
	o[N_FP_ARITH] = x87 + fp_scalar + fp_vector;
	o[N_FUSED] = dv(o[N_LIGHT] * e[E_MACRO_FUSED], e[E_RETIRE_SLOTS]);
	o[N_MEM_OPS] = dv(o[N_LIGHT] * e[E_MEM_INST], e[E_INST]);
	o[N_NON_FUSED] = dv(o[N_LIGHT] * (e[E_BR_INST] - e[E_MACRO_FUSED]),
			    e[E_RETIRE_SLOTS]);
	o[N_OTHER_LIGHT] = mx(0, o[N_LIGHT] - (o[N_FP_ARITH] + o[N_MEM_OPS] +
					       o[N_FUSED] + o[N_NON_FUSED]));
}

/* perf's mapfile.csv: the stepping tells Cascade Lake from Skylake-SP */
static const struct model_match skx_match[] = {
	{ .vendor = VENDOR_INTEL, .family = 6, .model_lo = 0x55,
	  .model_hi = 0x55, .step_lo = 0, .step_hi = 4 },
};
static const struct model_match clx_match[] = {
	{ .vendor = VENDOR_INTEL, .family = 6, .model_lo = 0x55,
	  .model_hi = 0x55, .step_lo = 5, .step_hi = 0xf },
};
static const struct model_match skl_match[] = {
	INTEL_6(0x4e), INTEL_6(0x5e), INTEL_6(0x8e), INTEL_6(0x9e),
	INTEL_6(0xa5), INTEL_6(0xa6),
};

/* the kernel's one Skylake driver serves all three (intel_pmu_init) */
#define SKL_DETECT(match)						\
	MODEL_MATCHES(match), .pmu = "cpu", .pmu_name = "skylake", INTEL_IPC

const struct model model_skylakex = {
	.name = "skylakex",
	.desc = "Skylake-SP / Xeon Scalable 1st gen (CPUID 6-55, steppings 0-4)",
	.gp_smt_on = 4,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = skx_events,
	.nr_events = NR_SKX_EVENTS,
	.nodes = skl_nodes,
	.nr_nodes = NR_SKX_NODES,
	.eval = skl_eval,
	SKL_DETECT(skx_match),
};

const struct model model_cascadelakex = {
	.name = "cascadelakex",
	.desc = "Cascade Lake / Xeon Scalable 2nd gen (CPUID 6-55, "
		"steppings 5-F)",
	.gp_smt_on = 4,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = skx_events,
	.nr_events = NR_CLX_EVENTS,
	.nodes = skl_nodes,
	.nr_nodes = NR_CLX_NODES,
	.eval = skl_eval,
	SKL_DETECT(clx_match),
};

const struct model model_skylake = {
	.name = "skylake",
	.desc = "Skylake client, Kaby/Coffee/Comet Lake (CPUID 6-4E, 6-5E, "
		"6-8E, 6-9E, 6-A5, 6-A6)",
	.gp_smt_on = 4,
	.gp_smt_off = 8,
	.max_level = 3,
	.events = skl_events,
	.nr_events = NR_SKX_EVENTS,
	.nodes = skl_nodes,
	.nr_nodes = NR_SKX_NODES,
	.eval = skl_eval,	SKL_DETECT(skl_match),
};
