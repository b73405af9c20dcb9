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

#define TMA_NODES_L1_L2							\
	[N_FE] = { "tma_frontend_bound", "Frontend", -1, 1, 0.15, false,	\
		   .column = "FRONTEND%" },					\
	[N_BS] = { "tma_bad_speculation", "Bad_Spec", -1, 1, 0.15, false,	\
		   .column = "BADSPEC%" },					\
	[N_BE] = { "tma_backend_bound", "Backend", -1, 1, 0.2, false,	\
		   .column = "BACKEND%" },					\
	/* perf: "tma_retiring > 0.7 | tma_heavy_operations > 0.1" */	\
	[N_RET] = { "tma_retiring", "Retiring", -1, 1, 0.7, false,		\
		    .column = "RETIRE%", .or_over = "tma_heavy_operations" }, \
	[N_FL] = { "tma_fetch_latency", "Fetch_Lat", N_FE, 2, 0.1, false },	\
	[N_FB] = { "tma_fetch_bandwidth", "Fetch_BW", N_FE, 2, 0.2, true },	\
	[N_BM] = { "tma_branch_mispredicts", "Branch_Mispred", N_BS, 2, 0.1,	\
		   false },						\
	[N_MC] = { "tma_machine_clears", "Machine_Clears", N_BS, 2, 0.1,	\
		   false },						\
	[N_MB] = { "tma_memory_bound", "Memory", N_BE, 2, 0.2, false },	\
	[N_CB] = { "tma_core_bound", "Core", N_BE, 2, 0.1, false },		\
	[N_HEAVY] = { "tma_heavy_operations", "Heavy_Ops", N_RET, 2, 0.1,	\
		      true },						\
	[N_LIGHT] = { "tma_light_operations", "Light_Ops", N_RET, 2, 0.6,	\
		      true }

#define TMA_NODES_L3_FRONTEND						\
	[N_BR_RESTEERS] = { "tma_branch_resteers", "Branch_Resteers", N_FL, \
			    3, 0.05, false },				\
	[N_DSB_SW] = { "tma_dsb_switches", "DSB_Switches", N_FL, 3, 0.05,	\
		       false },						\
	[N_ICACHE] = { "tma_icache_misses", "ICache_Misses", N_FL, 3, 0.05,	\
		       false },						\
	[N_ITLB] = { "tma_itlb_misses", "ITLB_Misses", N_FL, 3, 0.05, false }, \
	[N_LCP] = { "tma_lcp", "LCP", N_FL, 3, 0.05, false },		\
	[N_MS_SW] = { "tma_ms_switches", "MS_Switches", N_FL, 3, 0.05, false }, \
	[N_DSB] = { "tma_dsb", "DSB", N_FB, 3, 0.15, false },		\
	[N_MITE] = { "tma_mite", "MITE", N_FB, 3, 0.1, false }

/*
 * Level-3 nodes found under the same parent, with the same label and
 * threshold, in several models: one line each in a model's table.
 */
#define TMA_L3_OTHER_MISP						\
	[N_OTHER_MISP] = { "tma_other_mispredicts", "Other_Mispred", N_BM,	\
			   3, 0.05, false }
#define TMA_L3_OTHER_NUKES						\
	[N_OTHER_NUKES] = { "tma_other_nukes", "Other_Nukes", N_MC, 3, 0.05, \
			    false }
#define TMA_L3_AMX							\
	[N_AMX] = { "tma_amx_busy", "AMX_Busy", N_CB, 3, 0.5, false }
#define TMA_L3_DIVIDER							\
	[N_DIVIDER] = { "tma_divider", "Divider", N_CB, 3, 0.2, false }
#define TMA_L3_PORTS							\
	[N_PORTS] = { "tma_ports_utilization", "Ports_Util", N_CB, 3, 0.15,	\
		      false }
#define TMA_L3_SERIALIZING						\
	[N_SERIALIZING] = { "tma_serializing_operation", "Serializing",	\
			    N_CB, 3, 0.1, false }
#define TMA_L3_DRAM							\
	[N_DRAM] = { "tma_dram_bound", "DRAM", N_MB, 3, 0.1, false }
#define TMA_L3_PMM							\
	[N_PMM] = { "tma_pmm_bound", "PMM", N_MB, 3, 0.1, false }
/* L1, L2, L3 and store bound: every model of levels 1-3 has them */
#define TMA_L3_CACHES							\
	[N_L1] = { "tma_l1_bound", "L1", N_MB, 3, 0.1, false },		\
	[N_L2] = { "tma_l2_bound", "L2", N_MB, 3, 0.05, false },		\
	[N_L3] = { "tma_l3_bound", "L3", N_MB, 3, 0.05, false },		\
	[N_STORE] = { "tma_store_bound", "Store", N_MB, 3, 0.2, false }
#define TMA_L3_MSEQ							\
	[N_MSEQ] = { "tma_microcode_sequencer", "Microcode_Seq", N_HEAVY, 3, \
		     0.05, false }
#define TMA_L3_FEW_UOPS							\
	[N_FEW_UOPS] = { "tma_few_uops_instructions", "Few_Uops", N_HEAVY, 3, \
			 0.05, false }
#define TMA_L3_FP_ARITH							\
	[N_FP_ARITH] = { "tma_fp_arith", "FP_Arith", N_LIGHT, 3, 0.2, false }
#define TMA_L3_FUSED							\
	[N_FUSED] = { "tma_fused_instructions", "Fused", N_LIGHT, 3, 0.1,	\
		      false }
#define TMA_L3_INT_OPS							\
	[N_INT_OPS] = { "tma_int_operations", "Int_Ops", N_LIGHT, 3, 0.1,	\
			false }
#define TMA_L3_MEM_OPS							\
	[N_MEM_OPS] = { "tma_memory_operations", "Memory_Ops", N_LIGHT, 3,	\
			0.1, false }
#define TMA_L3_NON_FUSED						\
	[N_NON_FUSED] = { "tma_non_fused_branches", "Non_Fused_Branches",	\
			  N_LIGHT, 3, 0.1, false }
#define TMA_L3_OTHER_LIGHT						\
	[N_OTHER_LIGHT] = { "tma_other_light_ops", "Other_Light_Ops",	\
			    N_LIGHT, 3, 0.3, false }

#endif /* TDBPF_TMA_TREE_H */
