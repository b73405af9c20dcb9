/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer: everything that knows about the BPF object, the perf
 * counters and the kernel's task sums sits behind this interface.
 *
 *   tracer_open()     open the plan's counters on every CPU, load and
 *                     attach the BPF programs, fill the target filter
 *   tracer_collect()  charge running tasks up to now (flush on every
 *                     CPU), read live tasks (task iterator) and dead ones
 *                     (exit queue), and the loss counters: a snapshot
 *   tracer_settle()   before the last collect: let exited tasks be freed
 *   tracer_watch()    drain exited tasks out of the BPF map every
 *                     TRACER_DRAIN_MS from an event loop, so churn
 *                     never fills it (tracer_drain() does it once)
 *   tracer_detach()   stop charging (before the final report)
 *   tracer_close()    free everything; nothing stays pinned
 *
 * Sums are cumulative from the open: a report over a window subtracts an
 * earlier snapshot (snapshot_diff()). Any number of consumers may
 * collect (the run driver on -I, a /metrics scrape, a live screen's
 * repaint); each collect is a consistent read of everything so far.
 *
 * Adding a BPF program or map (e.g. the sched_waking program and its
 * edges map): put it in a file of its job under bpf/ (a new job: a
 * new file, one line in the Makefile's BPF_SRC; a map shared with other
 * files in bpf/shared.bpf.h) with autoload off, add a
 * flag to struct tracer_conf, turn autoload on in tracer.c's open when
 * the flag is set, size its map there, and read it in tracer_collect()
 * (tracer_collect.c) into a new member of struct snapshot. Nothing
 * outside tracer.c, tracer_collect.c, tracer_sample.c, sock_hooks.c
 * (the socket hooks' choice) and tracer_priv.h sees the skeleton.
 */
#ifndef TDBPF_TRACER_H
#define TDBPF_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "model/model.h"
#include "sources/peer_reader.h"
#include "sources/sock_hooks.h"
#include "sources/thread_names.h"
#include "sums/snapshot.h"

struct tracer;

/*
 * The default graph: the wakeup programs run SAMPLE_WINDOW_MS of every
 * SAMPLE_PERIOD_MS, at random (tracer_sample.c); the waits they see are
 * scaled by the ratio, TRACER_SAMPLE_SCALE. --wakeups: every wakeup.
 */
#define SAMPLE_WINDOW_MS	50
#define SAMPLE_PERIOD_MS	500
#define TRACER_SAMPLE_SCALE	(SAMPLE_PERIOD_MS / SAMPLE_WINDOW_MS)

/* What to trace. Exactly one of pids, tids, all, child is set. */
struct tracer_targets {
	const pid_t *pids;	/* -p: every thread of these tgids */
	int nr_pids;
	const pid_t *tids;	/* -t: these threads only */
	int nr_tids;
	bool all;		/* -a: every task but the idle ones */
	pid_t child;		/* -- COMMAND: its pid (a tgid), else 0 */
	bool children;		/* --children: follow forks of tracked tgids */
};

struct tracer_conf {
	/* the counters to program; extra events (-e) are plan slots too */
	const struct event_plan *plan;
	struct tracer_targets targets;
	long max_tasks;		/* tasks held at once (--max-tasks) */
	long sock_max;		/* flows in the socket registry (--sock-max) */
	bool wakeups;		/* sched_waking: who ended each wait */
	bool sampled;		/* ... in windows only (sampled: the default) */
	bool verbose;		/* libbpf's messages, a setup line */
	/* the first kind of socket hook tried (TDBPF_SOCK_HOOKS) */
	enum sock_hook_kind sock_hooks;
	/* features taken as missing (TDBPF_KERNEL_LACKS, kfeatures.h) */
	unsigned int kernel_lacks;
	/*
	 * whole thread names given to the rows at each collect, and where
	 * the JVMs' thread__start probe adds those of threads started
	 * later (jvm_probe.h); NULL: none, no probe
	 */
	struct thread_names *names;
	/* --span: the span sources (span_probes.h), and the command's path */
	const char *const *spans;
	int nr_spans;
	const char *exe;
	/* with wakeups: the sockets' /proc reads, NULL: tdbpf's own */
	struct peer_reader *peers;
};

/*
 * Open counters, load and attach; on return every CPU has a baseline
 * reading. Returns NULL with @err holding one line (problem; fix).
 */
struct tracer *tracer_open(const struct tracer_conf *c, char *err,
			   size_t errlen);

/*
 * Fill @out (reset first) with every task's sums up to now and the loss
 * counters. 0, or -errno with @out holding what was read.
 */
int tracer_collect(struct tracer *t, struct snapshot *out);
/*
 * tracer_collect() for a /metrics scrape: no report interval ends with
 * it, so sampled waits with no window since the last split wait for
 * one (sums/wait_share.h).
 */
int tracer_collect_scrape(struct tracer *t, struct snapshot *out);

/*
 * Before a last collect: wait up to @max_ms for the tasks that exited to
 * be freed, so that their sums hold all their exit (read-free; the kernel
 * frees a task an RCU grace period after its last switch, 10-30 ms here).
 * One never freed (a zombie no one reaps) is reported as of its exit.
 * With a program at each switch, and @targets_gone (the command or every
 * -p target has exited): for every task with sums to be handed over. A
 * thread is unhashed before its last switch, so its process can be
 * reaped while it still runs: its sums reach the exit queue only at that
 * switch, and a collect before it would miss the thread whole.
 */
void tracer_settle(struct tracer *t, int max_ms, bool targets_gone);

/*
 * What a last report waits for exited tasks at most: a few grace periods
 * on a quiet machine (10-30 ms); on a loaded one (load average 13 on 2
 * CPUs) 250 ms was not always enough, and the exit was missing
 */
#define TRACER_SETTLE_MS	1000

/* Move tasks that exited from the BPF map into the tracer's archive. */
void tracer_drain(struct tracer *t);

/* How often tracer_watch() drains: exits are queued in BPF until then. */
#define TRACER_DRAIN_MS	100

struct loop;
/*
 * The tracer's own sources in @l: a timer that drains every
 * TRACER_DRAIN_MS (first at once). Whatever runs a loop with a tracer
 * (a run, a live screen) calls it once. 0 or -errno.
 */
int tracer_watch(struct tracer *t, struct loop *l);

/*
 * Trace process @tgid from its next slice too (-G: a process that joined
 * the cgroup from outside); with --children its forks are followed as
 * the targets' are. 0, or -ERANGE for an id no kernel gives.
 */
int tracer_track(struct tracer *t, pid_t tgid);

/*
 * Read the cgroups of processes @pids now, those not read yet (a report
 * reads each process's at its first collect; -G knows its members
 * earlier, on each tick, and some are gone by the next collect).
 */
int tracer_see_processes(struct tracer *t, const pid_t *pids, size_t nr);

/* Detach the programs: nothing more is charged. Idempotent. */
void tracer_detach(struct tracer *t);

/* Run time of one BPF program, as the kernel counts it. */
struct tracer_prog_stat {
	const char *name;
	__u64 run_ns;
	__u64 run_cnt;
};

/*
 * The run time of up to @max of the tracer's programs into @out; their
 * number, 0 while kernel.bpf_stats_enabled is 0 (nothing is counted).
 */
int tracer_prog_stats(const struct tracer *t, struct tracer_prog_stat *out,
		      int max);

/*
 * Fold the exited tasks the tracer holds into one row per process and
 * folded name, less what @base holds for them (archive_fold()). Only for
 * a consumer that has counted every exited task of the last collect (a
 * /metrics scrape): their own rows are gone after this.
 */
int tracer_fold_exited(struct tracer *t, struct task_table *base);

/*
 * Whether libbpf message @msg is the verifier giving up on a program
 * for its size (its million instructions, or too many branches to
 * follow): loading it fails with E2BIG, as a map too large does.
 */
bool tracer_verifier_gave_up(const char *msg);

/* Free the tracer (NULL is fine); counters closed after the programs. */
void tracer_close(struct tracer *t);
/*
 * --children: is a process the targets forked (and the tracer follows)
 * still alive? For targets.followed_alive (@tracer: a struct tracer).
 */
bool tracer_followed_alive(void *tracer);

#endif /* TDBPF_TRACER_H */
