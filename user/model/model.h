/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU models: their events, how they are packed into counter groups, and
 * their TMA tree. One file per model family under user/model/cpus/.
 */
#ifndef TDBPF_MODEL_H
#define TDBPF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "support/array.h"
#include "tdbpf.h"

#define MODEL_MAX_EVENTS	96	/* events a model may define */
#define MODEL_MAX_NODES		64	/* TMA nodes a model may define */
#define MODEL_MAX_GROUPS	TDBPF_MAX_EVENTS
#define GROUP_MAX_EVENTS	16

/* When an event is needed (the #SMT_on branches of perf's formulas). */
enum ev_need {
	NEED_ALWAYS = 0,
	NEED_SMT_ON,
	NEED_SMT_OFF,
	NEED_NEVER,		/* only in #core_wide=1 / #has_pmem=1 branches */
};

/* Where an event can count. */
enum ev_kind {
	EV_GP,		/* general-purpose counter, restricted by .counters */
	EV_FIXED,	/* fixed counter .fixed (INST_RETIRED.ANY, clocks) */
	EV_SLOTS,	/* TOPDOWN.SLOTS: fixed counter 3, leads metric group */
	EV_METRIC,	/* topdown-* read from PERF_METRICS, member of SLOTS */
	EV_SW,		/* software event (PERF_TYPE_SOFTWARE) */
	EV_TASK,	/* no counter: the task's own accounting, read at
			 * switch-out; .config1 says which (enum
			 * task_field), .type/.config the perf event it
			 * stands for */
	EV_USER,	/* named with -e (any perf_event_attr type) */
	EV_UNSUP,	/* named with -e, but this machine cannot count it
			 * (no such PMU): perf's <not supported>, a slot
			 * no counter fills, .why says why */
};

/* What an EV_TASK event reads from struct tdbpf_task. */
enum task_field {
	TF_ON_CPU,	/* se.sum_exec_runtime, ns: cpu-clock */
	TF_FAULTS,	/* min_flt + maj_flt: page-faults */
	TF_SWITCHES,	/* nvcsw + nivcsw: context-switches */
	TF_MIGRATIONS,	/* se.nr_migrations: cpu-migrations */
};

/* perf_event_attr exclude bits of an event (-e modifiers :u, :k) */
#define EVF_EXCL_USER	1
#define EVF_EXCL_KERNEL	2

struct model_event {
	const char *name;	/* as written in perf's MetricExpr, e.g.
				 * "UOPS_ISSUED.ANY", "topdown-retiring",
				 * "cpu@ITLB_MISSES.WALK_DURATION,cmask=1@"
				 * (escapes removed) */
	__u32 type;		/* PERF_TYPE_RAW or PERF_TYPE_SOFTWARE */
	__u64 config;		/* raw perf_event_attr.config */
	__u64 config1;		/* e.g. MSR 0x3F7 value on ICL/SPR, else 0 */
	__u64 config2;		/* -e pmu/config2=/ terms, else 0 */
	__u8 excl;		/* EVF_EXCL_* */
	enum ev_kind kind;
	__u8 counters;		/* EV_GP: bitmask of usable GP counters */
	__s8 fixed;		/* EV_FIXED/EV_SLOTS: fixed counter index */
	enum ev_need need;
	__u8 level;		/* shallowest TMA level (1-3) that needs it */
	const char *unit;	/* for software counters: "msec", "" */
	const char *why;	/* EV_UNSUP: the one line saying why */
};

struct tma_node {
	const char *name;	/* perf metric name, e.g. "tma_dram_bound" */
	const char *label;	/* short path element, e.g. "DRAM" */
	int parent;		/* index in nodes[], -1 for level 1 */
	int level;		/* 1..3 */
	double thresh;		/* perf MetricThreshold: value > thresh */
	bool thresh_alone;	/* perf's threshold does not repeat the
				 * parent's (fetch_bandwidth, heavy and light
				 * operations) */
	const char *column;	/* level 1: the table's column header,
				 * e.g. "RETIRE%"; NULL: the label */
	const char *or_over;	/* also over its threshold when this node
				 * is over its own (perf's "tma_retiring >
				 * 0.7 | tma_heavy_operations > 0.1"), NULL
				 * if none */
	bool aside;		/* a level-1 metric of its own group beside
				 * the tree (Arm's Cycle_Accounting next to
				 * TopdownL1): decoded and written to JSON
				 * and CSV, but no table column and never on
				 * the bottleneck path */
};

/* A node of the tree (designated, so a table states only what it sets) */
#define TMA_NODE(n, lbl, par, lvl, t, alone)				\
	{ .name = n, .label = lbl, .parent = par, .level = lvl,		\
	  .thresh = t, .thresh_alone = alone }

/* Inputs of a formula evaluation. */
struct tma_input {
	const double *ev;	/* scaled count per model event index; NAN when
				 * the event was not measured */
	bool smt;		/* #SMT_on */
};

enum cpu_vendor {
	VENDOR_NONE = 0,	/* the software model: any CPU */
	VENDOR_INTEL,		/* cpuinfo vendor_id GenuineIntel */
	VENDOR_AMD,		/* AuthenticAMD */
	VENDOR_ARM,		/* MIDR implementer 0x41 */
};

/*
 * The CPUs a model is for, as perf's mapfile.csv picks its tables: on x86
 * the CPUID vendor, family and ranges of models and steppings (both ends
 * included); on Arm the MIDR's implementer and part number, from
 * variant/revision rev_lo (variant << 4 | revision) on.
 */
struct model_match {
	enum cpu_vendor vendor;
	unsigned int family;		/* x86: CPUID family (6, 0x19, 0x1a) */
	unsigned int model_lo, model_hi; /* x86: CPUID model */
	unsigned int step_lo, step_hi;	/* x86: stepping */
	unsigned int implementer;	/* Arm: MIDR[31:24] */
	unsigned int part;		/* Arm: MIDR[15:4] */
	unsigned int rev_lo;		/* Arm: lowest variant << 4 | rev */
};

/* x86 family @f, models @lo..@hi, any stepping */
#define MATCH_X86(v, f, lo, hi)						\
	{ .vendor = v, .family = f, .model_lo = lo, .model_hi = hi,	\
	  .step_lo = 0, .step_hi = 0xf }

/* .match and .nr_match of a model from an array of struct model_match */
#define MODEL_MATCHES(a)						\
	.match = a, .nr_match = (int)ARRAY_SIZE(a)

struct model {
	const char *name;	/* "broadwellx", "icelake", "software", ... */
	const char *desc;
	int gp_smt_on;		/* GP counters per thread, SMT on */
	int gp_smt_off;
	int max_level;		/* deepest TMA level defined, 0 for software */
	const struct model_event *events;
	int nr_events;
	const struct tma_node *nodes;
	int nr_nodes;
	/*
	 * Compute every node's value as a fraction (perf's MetricExpr value,
	 * not clamped, not rounded). out[] is indexed like nodes[]; NAN where
	 * an input is missing or a division is by zero.
	 */
	void (*eval)(const struct tma_input *in, double *out);

	/* Detection (detect.c walks these; nr_match 0: never detected). */
	const struct model_match *match;
	int nr_match;
	const char *pmu;	/* the core PMU under event_source/devices:
				 * "cpu", or a prefix ending in '*'
				 * ("armv8_pmuv3*") */
	const char *pmu_name;	/* caps/pmu_name its driver must report, or
				 * NULL when the driver has none */
	const char *const *pmu_events;	/* NULL-terminated events/ entries
					 * the driver must expose, or NULL */
	int slots;		/* issue slots per cycle the formulas fix;
				 * checked against the PMU's caps/slots where
				 * it has one (Arm PMMIR_EL1.SLOTS); 0: none */

	bool no_smt;		/* cores without SMT (Neoverse): decode
				 * assumes SMT off */
	const char *gp_flag;	/* cpuinfo flag without which the PMU has
				 * only gp_legacy counters, or NULL */
	int gp_legacy;

	/* Report: the events whose ratio is the table's IPC column. */
	const char *ipc_inst;	/* NULL: no IPC column */
	const char *ipc_cycles;
};

/*
 * The events actually programmed and their groups. Slots
 * 0..nr_counters-1 are counters, in groups of contiguous slots led by
 * their first; the BPF program reads them. The slots after them are
 * EV_TASK events, one group, filled from the task's own accounting
 * (task_events.c), then EV_UNSUP ones, a group each, never filled.
 */
struct event_plan {
	const struct model *model;	/* NULL: only -e events */
	int level;
	bool smt;
	int gp;				/* GP counters available per group */
	int nr;				/* slots: report columns */
	int nr_counters;		/* of which counters: BPF slots */
	int ev[TDBPF_MAX_EVENTS];	/* model event index per slot, -1 for
					 * an -e event */
	const struct model_event *evd[TDBPF_MAX_EVENTS];	/* each slot's */
	int group[TDBPF_MAX_EVENTS];	/* group index per slot */
	int gp_idx[TDBPF_MAX_EVENTS];	/* GP counter assigned, -1 if none */
	int nr_groups;
	int leader[MODEL_MAX_GROUPS];	/* slot of each group's leader */
};

extern const struct model model_broadwellx;
extern const struct model model_broadwell;
extern const struct model model_icelakex;
extern const struct model model_icelake;
extern const struct model model_sapphirerapids;
extern const struct model model_skylakex;
extern const struct model model_cascadelakex;
extern const struct model model_skylake;
extern const struct model model_emeraldrapids;
extern const struct model model_graniterapids;
extern const struct model model_amdzen4;
extern const struct model model_amdzen5;
extern const struct model model_neoverse_n1;
extern const struct model model_neoverse_n2;
extern const struct model model_neoverse_v1;
extern const struct model model_neoverse_v2;
extern const struct model model_armv8;
extern const struct model model_software;

/* NULL-terminated list of all models, software last. */
extern const struct model *const models[];

const struct model *model_find(const char *name);
/*
 * "a, b, c": the names of every model, or with @tree only those with a
 * TopDown tree, for messages that list the choices.
 */
void model_names(char *buf, size_t len, bool tree);
/* Index of the event named @name (case-insensitive), -1 if none. */
int model_event_index(const struct model *m, const char *name);

/*
 * Pack the events that levels 1..@level need (with @smt) into groups that
 * fit @gp general counters each. Returns 0, or -1 with @err filled.
 */
int plan_events(const struct model *m, int level, bool smt, int gp,
		struct event_plan *plan, char *err, size_t errlen);
/*
 * Append @nr events @ev (EV_USER, kept by the caller for the plan's
 * life) as groups: @group[i] numbers each one's group, a group's events
 * contiguous, its first the leader. @plan may come from plan_events()
 * or be zeroed for -e alone (model NULL). Returns 0, or -1 with @err.
 */
int plan_add_events(struct event_plan *plan, const struct model_event *ev,
		    const int *group, int nr, char *err, size_t errlen);
/*
 * The slots in the order a report shows them: the model's events first,
 * in slot order, then the -e events as given (the slots themselves put
 * counters first, for the BPF program). Fills @order[plan->nr].
 */
void plan_display_order(const struct event_plan *plan, int *order);

#endif /* TDBPF_MODEL_H */
