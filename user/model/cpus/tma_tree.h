/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of perf's TMA tree that are the same, with the same labels and
 * MetricThreshold values, on every model of levels 1-3: levels 1 and 2,
 * and the level-3 nodes under Fetch Latency and Fetch Bandwidth; level 1
 * with the table's column headers. Then the level-3 nodes that several
 * models share, one macro each. The including model file defines the
 * N_* indices (its own node order).
 */
#ifndef TDBPF_TMA_TREE_H
#define TDBPF_TMA_TREE_H

/* a level-1 node and its table column */
#define TMA_L1(n, lbl, t, col)						\
	{ .name = n, .label = lbl, .parent = -1, .level = 1, .thresh = t, \
	  .column = col }

#define TMA_NODES_L1_L2							\
	[N_FE] = TMA_L1("tma_frontend_bound", "Frontend", 0.15, "FRONTEND%"), \
	[N_BS] = TMA_L1("tma_bad_speculation", "Bad_Spec", 0.15, "BADSPEC%"), \
	[N_BE] = TMA_L1("tma_backend_bound", "Backend", 0.2, "BACKEND%"),	\
	/* perf: "tma_retiring > 0.7 | tma_heavy_operations > 0.1" */	\
	[N_RET] = { .name = "tma_retiring", .label = "Retiring",	\
		    .parent = -1, .level = 1, .thresh = 0.7,		\
		    .column = "RETIRE%", .or_over = "tma_heavy_operations" }, \
	[N_FL] = TMA_NODE("tma_fetch_latency", "Fetch_Lat", N_FE, 2, 0.1,	\
			  false),					\
	[N_FB] = TMA_NODE("tma_fetch_bandwidth", "Fetch_BW", N_FE, 2, 0.2,	\
			  true),					\
	[N_BM] = TMA_NODE("tma_branch_mispredicts", "Branch_Mispred", N_BS,	\
			  2, 0.1, false),				\
	[N_MC] = TMA_NODE("tma_machine_clears", "Machine_Clears", N_BS, 2,	\
			  0.1, false),					\
	[N_MB] = TMA_NODE("tma_memory_bound", "Memory", N_BE, 2, 0.2, false), \
	[N_CB] = TMA_NODE("tma_core_bound", "Core", N_BE, 2, 0.1, false),	\
	[N_HEAVY] = TMA_NODE("tma_heavy_operations", "Heavy_Ops", N_RET, 2,	\
			     0.1, true),				\
	[N_LIGHT] = TMA_NODE("tma_light_operations", "Light_Ops", N_RET, 2,	\
			     0.6, true)

#define TMA_NODES_L3_FRONTEND						\
	[N_BR_RESTEERS] = TMA_NODE("tma_branch_resteers", "Branch_Resteers", \
				   N_FL, 3, 0.05, false),		\
	[N_DSB_SW] = TMA_NODE("tma_dsb_switches", "DSB_Switches", N_FL, 3,	\
			      0.05, false),				\
	[N_ICACHE] = TMA_NODE("tma_icache_misses", "ICache_Misses", N_FL, 3, \
			      0.05, false),				\
	[N_ITLB] = TMA_NODE("tma_itlb_misses", "ITLB_Misses", N_FL, 3, 0.05, \
			    false),					\
	[N_LCP] = TMA_NODE("tma_lcp", "LCP", N_FL, 3, 0.05, false),		\
	[N_MS_SW] = TMA_NODE("tma_ms_switches", "MS_Switches", N_FL, 3, 0.05, \
			     false),					\
	[N_DSB] = TMA_NODE("tma_dsb", "DSB", N_FB, 3, 0.15, false),		\
	[N_MITE] = TMA_NODE("tma_mite", "MITE", N_FB, 3, 0.1, false)

/*
 * Level-3 nodes found under the same parent, with the same label and
 * threshold, in several models: one line each in a model's table.
 */
#define TMA_L3_OTHER_MISP						\
	[N_OTHER_MISP] = TMA_NODE("tma_other_mispredicts", "Other_Mispred",	\
				  N_BM, 3, 0.05, false)
#define TMA_L3_OTHER_NUKES						\
	[N_OTHER_NUKES] = TMA_NODE("tma_other_nukes", "Other_Nukes", N_MC, 3, \
				   0.05, false)
#define TMA_L3_AMX							\
	[N_AMX] = TMA_NODE("tma_amx_busy", "AMX_Busy", N_CB, 3, 0.5, false)
#define TMA_L3_DIVIDER							\
	[N_DIVIDER] = TMA_NODE("tma_divider", "Divider", N_CB, 3, 0.2, false)
#define TMA_L3_PORTS							\
	[N_PORTS] = TMA_NODE("tma_ports_utilization", "Ports_Util", N_CB, 3, \
			     0.15, false)
#define TMA_L3_SERIALIZING						\
	[N_SERIALIZING] = TMA_NODE("tma_serializing_operation",		\
				   "Serializing", N_CB, 3, 0.1, false)
#define TMA_L3_DRAM							\
	[N_DRAM] = TMA_NODE("tma_dram_bound", "DRAM", N_MB, 3, 0.1, false)
#define TMA_L3_PMM							\
	[N_PMM] = TMA_NODE("tma_pmm_bound", "PMM", N_MB, 3, 0.1, false)
/* L1, L2, L3 and store bound: every model of levels 1-3 has them */
#define TMA_L3_CACHES							\
	[N_L1] = TMA_NODE("tma_l1_bound", "L1", N_MB, 3, 0.1, false),		\
	[N_L2] = TMA_NODE("tma_l2_bound", "L2", N_MB, 3, 0.05, false),	\
	[N_L3] = TMA_NODE("tma_l3_bound", "L3", N_MB, 3, 0.05, false),	\
	[N_STORE] = TMA_NODE("tma_store_bound", "Store", N_MB, 3, 0.2, false)
#define TMA_L3_MSEQ							\
	[N_MSEQ] = TMA_NODE("tma_microcode_sequencer", "Microcode_Seq",	\
			    N_HEAVY, 3, 0.05, false)
#define TMA_L3_FEW_UOPS							\
	[N_FEW_UOPS] = TMA_NODE("tma_few_uops_instructions", "Few_Uops",	\
				N_HEAVY, 3, 0.05, false)
#define TMA_L3_FP_ARITH							\
	[N_FP_ARITH] = TMA_NODE("tma_fp_arith", "FP_Arith", N_LIGHT, 3, 0.2, \
				false)
#define TMA_L3_FUSED							\
	[N_FUSED] = TMA_NODE("tma_fused_instructions", "Fused", N_LIGHT, 3,	\
			     0.1, false)
#define TMA_L3_INT_OPS							\
	[N_INT_OPS] = TMA_NODE("tma_int_operations", "Int_Ops", N_LIGHT, 3,	\
			       0.1, false)
#define TMA_L3_MEM_OPS							\
	[N_MEM_OPS] = TMA_NODE("tma_memory_operations", "Memory_Ops",	\
			       N_LIGHT, 3, 0.1, false)
#define TMA_L3_NON_FUSED						\
	[N_NON_FUSED] = TMA_NODE("tma_non_fused_branches",		\
				 "Non_Fused_Branches", N_LIGHT, 3, 0.1, false)
#define TMA_L3_OTHER_LIGHT						\
	[N_OTHER_LIGHT] = TMA_NODE("tma_other_light_ops", "Other_Light_Ops",	\
				   N_LIGHT, 3, 0.3, false)

#endif /* TDBPF_TMA_TREE_H */
