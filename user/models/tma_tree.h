/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Levels 1 and 2 of perf's TMA tree: the same twelve nodes, labels and
 * MetricThreshold values on every model of levels 1-3. The including
 * model file defines the N_* indices (its own node order).
 */
#ifndef TDBPF_TMA_TREE_H
#define TDBPF_TMA_TREE_H

#define TMA_NODES_L1_L2							\
	[N_FE] = { "tma_frontend_bound", "Frontend", -1, 1, 0.15, false },	\
	[N_BS] = { "tma_bad_speculation", "Bad_Spec", -1, 1, 0.15, false },	\
	[N_BE] = { "tma_backend_bound", "Backend", -1, 1, 0.2, false },	\
	[N_RET] = { "tma_retiring", "Retiring", -1, 1, 0.7, false },		\
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

#endif /* TDBPF_TMA_TREE_H */
