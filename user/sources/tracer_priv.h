/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer's own state, for its two halves alone: tracer.c sets the
 * counters and BPF programs up and tears them down, tracer_collect.c
 * reads the per-task sums they keep (tracer_sample.c: the windows;
 * sock_hooks.c: which socket programs load). Nothing else sees the
 * skeleton.
 */
#ifndef TDBPF_TRACER_PRIV_H
#define TDBPF_TRACER_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <bpf/libbpf.h>
#include "tdbpf.h"		/* the skeleton's .bss is a struct tdbpf_filter */
#include "sources/counters.h"
#include "sources/jvm_probe.h"
#include "sources/span_probes.h"
#include "sources/tracer.h"
#include "sums/tasks.h"
#include "sums/wait_share.h"
#include "tdbpf.skel.h"

/* Task iterator records read per read(): a seq_file buffer's worth. */
#define ITER_BATCH	2048

/* sampled: the windows' programs and state (tracer_sample.c) */
#define SAMPLE_MAX_PROGS	20

struct sampler {
	struct bpf_program *progs[SAMPLE_MAX_PROGS];
	struct bpf_link *links[SAMPLE_MAX_PROGS];
	size_t nr;
	pthread_t thread;
	pthread_mutex_t lock;	/* @stop, and the thread's sleeps */
	pthread_cond_t cond;
	bool running, stop;
	__u32 gen;		/* the last window's number */
	int err;		/* an attach failed: no more windows */
	__u64 open_at;		/* the open window's start; 0: none */
	__u64 seen_ns;		/* closed windows' time, summed */
};

/* Start and stop the windows' thread: 0 or -errno. */
int sampler_start(struct tracer *t);
void sampler_stop(struct tracer *t);
/* The time the windows covered so far (closed ones). */
__u64 sampler_seen_ns(struct tracer *t);

struct tracer {
	struct tracer_conf c;
	struct tdbpf_bpf *skel;
	struct counters ctr;
	int ncpu;
	bool *online;
	int tasks_fd, stats_fd, exited_fd, flush_fd, dead_wakes_fd;
	struct bpf_link *iter;		/* task iterator: live tasks' sums */
	struct task_table archive;	/* exited tasks, deleted from the map */
	struct tdbpf_task *vals;	/* one entry: scratch for a record */
	struct tdbpf_wake wake;		/* a dead task's waker state */
	bool detached;
	bool read_free;			/* sums read from the tasks (BPF) */
	bool no_sockets;		/* the socket hooks failed to load */
	unsigned int kf;		/* the kernel's features (kfeatures.h) */
	struct bpf_program *switch_prog; /* the sched_switch program */
	__u32 fold_key;			/* next key of a folded exited row */
	struct sampler sample;		/* sampled wakeups */
	struct wait_share shares;	/* sampled: estimates so far */
	struct jvm_probe jvm;		/* hotspot:thread__start links */
	/* every process seen so far: its cgroup, read once (cgroups.h) */
	struct cgroup_table cgroups;
	struct span_probes spans;	/* --span's links */
};

/* Charge what runs on every CPU up to now (tracer_collect.c). */
void tracer_flush_cpus(struct tracer *t);

#endif /* TDBPF_TRACER_PRIV_H */
