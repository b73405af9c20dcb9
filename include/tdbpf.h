/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by the BPF programs (bpf/tdbpf.bpf.c) and user space.
 * Everything here is raw sums: nothing is scaled or divided in BPF.
 */
#ifndef TDBPF_H
#define TDBPF_H

/*
 * Counters programmed per CPU at once. Sapphire Rapids L1-L3 needs 59
 * events with SMT on (tma-events.md), Broadwell 39.
 */
#define TDBPF_MAX_EVENTS	64
#define TDBPF_COMM_LEN		16
#define TDBPF_MAX_CPUS		1024

/* One counter's delta, as bpf_perf_event_read_value() reports it. */
struct tdbpf_count {
	__u64 value;
	__u64 enabled;
	__u64 running;
};

enum tdbpf_task_flags {
	TDBPF_TASK_EXITED = 1,	/* sched_process_exit seen, or switched out dead */
};

/* Per-task sums, one hash entry per tid. */
struct tdbpf_task {
	__u32 tid;
	__u32 tgid;
	__u32 flags;
	__u32 last_cpu;
	char comm[TDBPF_COMM_LEN];
	__u64 on_cpu_ns;
	__u64 runq_wait_ns;	/* wakeup or preemption to switch-in */
	__u64 off_cpu_ns;	/* voluntary switch-out to wakeup */
	__u64 nvcsw;		/* voluntary switches */
	__u64 nivcsw;		/* involuntary (preempted) switches */
	__u64 migrations;
	__u64 slices;		/* switch-outs charged */
	/* state, not sums: timestamps of the current wait, 0 when none */
	__u64 sleep_ts;
	__u64 wait_ts;
	struct tdbpf_count ctr[TDBPF_MAX_EVENTS];
};

/* Per-CPU state: the task on this CPU and the readings at its switch-in. */
struct tdbpf_cpu {
	__u64 ts;		/* ktime of the last switch on this CPU */
	__u32 tid;		/* task that is running since ts */
	__u32 pad;
	__u64 valid;		/* bit i: prev[i] holds a good reading */
	struct tdbpf_count prev[TDBPF_MAX_EVENTS];
};

/* Losses and activity, summed over the per-CPU stats array. */
enum tdbpf_stat {
	TDBPF_STAT_READ_ERR,	/* bpf_perf_event_read_value failed */
	TDBPF_STAT_MAP_FULL,	/* a task could not be added to the map */
	TDBPF_STAT_SWITCHES,	/* switches with a tracked prev or next */
	TDBPF_STAT_UNTRACKED,	/* switches skipped by the early exit */
	TDBPF_NR_STATS,
};

/* What the BPF side tracks, set in rodata before load. */
enum tdbpf_track {
	TDBPF_TRACK_TGID,	/* tgids in the filter map (-p, -- CMD) */
	TDBPF_TRACK_TID,	/* tids in the filter map (-t) */
	TDBPF_TRACK_ALL,	/* every task except the idle tasks (-a) */
};

#endif /* TDBPF_H */
