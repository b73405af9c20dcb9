/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of perf's TMA tree that are the same, with the same labels and
 * MetricThreshold values, on every model of levels 1-3: levels 1 and 2,
 * and the level-3 nodes under Fetch Latency and Fetch Bandwidth; level 1
 * with the table's column headers. The including model file defines the
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

#endif /* TDBPF_TMA_TREE_H */
