// SPDX-License-Identifier: GPL-2.0
/*
 * Arm Neoverse N1, N2, V1 and V2 (MIDR implementer 0x41, parts 0xD0C,
 * 0xD49, 0xD40, 0xD4F): perf's TopdownL1 (arm64/sbsa.json with the cores'
 * own overrides) over #slots issue slots per cycle, and its
 * Cycle_Accounting metrics (frontend/backend_stalled_cycles). N1 (Armv8.2,
 * no STALL_SLOT* events, no PMMIR) has only the latter.
 *
 * #slots is what perf reads from the PMU's caps/slots (PMMIR_EL1.SLOTS):
 * N2 5, V1 and V2 8. Each model fixes it, and detection refuses a PMU
 * that reports another. The N2/V2 formulas subtract CPU_CYCLES from
 * STALL_SLOT* on N2 r0p0-r0p2 only (an erratum: one slot too many per
 * cycle); neoverse-n2 is r0p3 and later, where they do not.
 *
 * Six event counters per core (PMCR_EL0.N) beside the cycle counter
 * PMCCNTR_EL0, which counts cpu_cycles; no SMT. inst_retired is not in
 * perf's formulas: it gives the table its IPC column, in the group that
 * the Cycle_Accounting events need anyway.
 *
 * perf's expressions multiply by 100; ours give the fraction. perf has no
 * MetricThreshold for them: the thresholds are those of the Intel TMA
 * level-1 node of the same name (frontend 0.15, bad speculation 0.15,
 * backend 0.2, retiring 0.7), and frontend and backend stalled cycles
 * 0.15 and 0.2 like frontend and backend bound.
 */
#include <linux/perf_event.h>
#include "model/model.h"
#include "model/tma_expr.h"

/*
 * TopdownL1's six events first, so that they share one group of six
 * counters and their ratios never mix multiplexed groups.
 */
enum {
	E_CYCLES,
	E_BR_MIS_PRED,
	E_OP_RETIRED,
	E_OP_SPEC,
	E_STALL_SLOT_BE,
	E_STALL_SLOT_FE,
	E_STALL_SLOT,
	E_INST,
	E_STALL_FE,
	E_STALL_BE,
	NR_EVENTS
};

/* N1: no STALL_SLOT* events, so no TopdownL1 */
enum { N1E_CYCLES, N1E_INST, N1E_STALL_FE, N1E_STALL_BE, NR_N1_EVENTS };

/* perf's lower-case names; config = the architected event number */
#define GP(n, code)							\
	{ .name = n, .type = PERF_TYPE_RAW, .config = code,		\
	  .kind = EV_GP, .counters = 0x3f, .fixed = -1,		\
	  .need = NEED_ALWAYS, .level = 1 }
/* the first cycles event of a group takes PMCCNTR_EL0 */
#define CYCLES								\
	{ .name = "cpu_cycles", .type = PERF_TYPE_RAW, .config = 0x11,	\
	  .kind = EV_FIXED, .fixed = 0, .need = NEED_ALWAYS, .level = 1 }

static const struct model_event neoverse_events[NR_EVENTS] = {
	[E_CYCLES] = CYCLES,
	[E_BR_MIS_PRED] = GP("br_mis_pred", 0x10),
	[E_OP_RETIRED] = GP("op_retired", 0x3a),
	[E_OP_SPEC] = GP("op_spec", 0x3b),
	[E_STALL_SLOT_BE] = GP("stall_slot_backend", 0x3d),
	[E_STALL_SLOT_FE] = GP("stall_slot_frontend", 0x3e),
	[E_STALL_SLOT] = GP("stall_slot", 0x3f),
	[E_INST] = GP("inst_retired", 0x08),
	[E_STALL_FE] = GP("stall_frontend", 0x23),
	[E_STALL_BE] = GP("stall_backend", 0x24),
};

static const struct model_event n1_events[NR_N1_EVENTS] = {
	[N1E_CYCLES] = CYCLES,
	[N1E_INST] = GP("inst_retired", 0x08),
	[N1E_STALL_FE] = GP("stall_frontend", 0x23),
	[N1E_STALL_BE] = GP("stall_backend", 0x24),
};

enum { N_FE, N_BS, N_BE, N_RET, N_FE_STALLED, N_BE_STALLED, NR_NODES };
enum { N1_FE_STALLED, N1_BE_STALLED, NR_N1_NODES };

#define L1(n, lbl, t, col)						\
	{ .name = n, .label = lbl, .parent = -1, .level = 1, .thresh = t, \
	  .column = col }
#define STALLED(n, lbl, t, col, side)					\
	{ .name = n, .label = lbl, .parent = -1, .level = 1, .thresh = t, \
	  .column = col, .aside = side }

static const struct tma_node topdown_nodes[NR_NODES] = {
	[N_FE] = L1("frontend_bound", "Frontend", 0.15, "FRONTEND%"),
	[N_BS] = L1("bad_speculation", "Bad_Spec", 0.15, "BADSPEC%"),
	[N_BE] = L1("backend_bound", "Backend", 0.2, "BACKEND%"),
	[N_RET] = L1("retiring", "Retiring", 0.7, "RETIRE%"),
	/* Cycle_Accounting beside TopdownL1: other units, not a split */
	[N_FE_STALLED] = STALLED("frontend_stalled_cycles", "Frontend_Stalled",
				 0.15, "FE-STALL%", true),
	[N_BE_STALLED] = STALLED("backend_stalled_cycles", "Backend_Stalled",
				 0.2, "BE-STALL%", true),
};

static const struct tma_node n1_nodes[NR_N1_NODES] = {
	[N1_FE_STALLED] = STALLED("frontend_stalled_cycles",
				  "Frontend_Stalled", 0.15, "FE-STALL%", false),
	[N1_BE_STALLED] = STALLED("backend_stalled_cycles", "Backend_Stalled",
				  0.2, "BE-STALL%", false),
};

/* Cycle_Accounting: ((STALL_FRONTEND / CPU_CYCLES) * 100) */
static void n1_eval(const struct tma_input *in, double *o)
{
	const double *e = in->ev;

	o[N1_FE_STALLED] = dv(e[N1E_STALL_FE], e[N1E_CYCLES]);
	o[N1_BE_STALLED] = dv(e[N1E_STALL_BE], e[N1E_CYCLES]);
}

static void stalled(const double *e, double *o)
{
	o[N_FE_STALLED] = dv(e[E_STALL_FE], e[E_CYCLES]);
	o[N_BE_STALLED] = dv(e[E_STALL_BE], e[E_CYCLES]);
}

/* neoverse-n2-v2/metrics.json, the r0p3-and-later (and V2) branch */
static void n2v2_eval(const struct tma_input *in, double *o, double slots)
{
	const double *e = in->ev;
	double cyc = e[E_CYCLES], used;

	o[N_FE] = dv(e[E_STALL_SLOT_FE], cyc * slots) -
		  dv(e[E_BR_MIS_PRED], cyc);
	used = 1 - dv(e[E_STALL_SLOT], cyc * slots);
	o[N_BS] = (1 - dv(e[E_OP_RETIRED], e[E_OP_SPEC])) * used +
		  dv(e[E_BR_MIS_PRED] * 4, cyc);
	o[N_BE] = dv(e[E_STALL_SLOT_BE], cyc * slots) -
		  dv(e[E_BR_MIS_PRED] * 3, cyc);
	o[N_RET] = dv(e[E_OP_RETIRED], e[E_OP_SPEC]) * used;
	stalled(e, o);
}

static void n2_eval(const struct tma_input *in, double *o)
{
	n2v2_eval(in, o, 5);
}

static void v2_eval(const struct tma_input *in, double *o)
{
	n2v2_eval(in, o, 8);
}

/*
 * neoverse-v1/metrics.json: its own frontend and bad speculation with a
 * literal 8 slots; sbsa.json's backend and retiring over #slots (8).
 */
static void v1_eval(const struct tma_input *in, double *o)
{
	const double *e = in->ev;
	double cyc = e[E_CYCLES];

	o[N_FE] = dv(e[E_STALL_SLOT_FE], cyc * 8) -
		  dv(e[E_BR_MIS_PRED] * 4, cyc);
	o[N_BS] = (1 - dv(e[E_OP_RETIRED], e[E_OP_SPEC])) *
		  (1 - dv(e[E_STALL_SLOT], cyc * 8)) +
		  dv(e[E_BR_MIS_PRED] * 4, cyc);
	o[N_BE] = dv(e[E_STALL_SLOT_BE], 8 * cyc);
	o[N_RET] = dv(e[E_OP_RETIRED], e[E_OP_SPEC]) *
		   (1 - dv(e[E_STALL_SLOT], 8 * cyc));
	stalled(e, o);
}

#define ARM_PART(p, rev)						\
	{ .vendor = VENDOR_ARM, .implementer = 0x41, .part = p,	\
	  .rev_lo = rev }

static const struct model_match n1_match[] = { ARM_PART(0xd0c, 0) };
/* r0p0-r0p2 need the other branch of perf's formulas: not this model */
static const struct model_match n2_match[] = { ARM_PART(0xd49, 0x03) };
static const struct model_match v1_match[] = { ARM_PART(0xd40, 0) };
static const struct model_match v2_match[] = { ARM_PART(0xd4f, 0) };

/*
 * The core PMU: armv8_pmuv3_0 under ACPI, armv8_neoverse_* from a device
 * tree (drivers/perf/arm_pmuv3.c); the same driver either way.
 */
#define NEOVERSE(nm, d, evs, nevs, nds, nnodes, fn, mt, sl)		\
	{ .name = nm, .desc = d, .gp_smt_on = 6, .gp_smt_off = 6,	\
	  .max_level = 1, .events = evs, .nr_events = nevs,		\
	  .nodes = nds, .nr_nodes = nnodes, .eval = fn,			\
	  MODEL_MATCHES(mt), .pmu = "armv8_*", .slots = sl,		\
	  .no_smt = true,							\
	  .ipc_inst = "inst_retired", .ipc_cycles = "cpu_cycles" }

const struct model model_neoverse_n1 =
	NEOVERSE("neoverse-n1", "Arm Neoverse N1 (MIDR part 0xD0C)",
		 n1_events, NR_N1_EVENTS, n1_nodes, NR_N1_NODES,
		 n1_eval, n1_match, 0);
const struct model model_neoverse_n2 =
	NEOVERSE("neoverse-n2", "Arm Neoverse N2 r0p3+ (MIDR part 0xD49), "
		 "5 slots", neoverse_events, NR_EVENTS, topdown_nodes,
		 NR_NODES, n2_eval, n2_match, 5);
const struct model model_neoverse_v1 =
	NEOVERSE("neoverse-v1", "Arm Neoverse V1 (MIDR part 0xD40), 8 slots",
		 neoverse_events, NR_EVENTS, topdown_nodes, NR_NODES,
		 v1_eval, v1_match, 8);
const struct model model_neoverse_v2 =
	NEOVERSE("neoverse-v2", "Arm Neoverse V2 (MIDR part 0xD4F), 8 slots",
		 neoverse_events, NR_EVENTS, topdown_nodes, NR_NODES,
		 v2_eval, v2_match, 8);
