/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Target liveness: a run stops when every target has exited. Processes
 * (-p, the launched command) are watched through pidfds in the event
 * loop; threads (-t), and processes where no pidfd could be had, are
 * polled on the loop's tick. -a never ends this way.
 */
#ifndef TDBPF_TARGETS_H
#define TDBPF_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "sources/launch.h"
#include "support/loop.h"

#define TARGETS_MAX 64

/* What the command line names: -p processes, -t threads, or -a. */
struct target_ids {
	pid_t pids[TARGETS_MAX];
	int nr_pids;
	pid_t tids[TARGETS_MAX];
	int nr_tids;
	bool all;
	bool cgroup;		/* -G: a cgroup's tasks, until stopped */
};

struct targets {
	struct target_ids ids;
	struct launch *child;		/* -- COMMAND, or NULL */
	bool gone[TARGETS_MAX];		/* -p targets whose pidfd fired */
	bool watched[TARGETS_MAX];	/* -p targets with a pidfd source */
	/*
	 * --children: is a process the targets forked still alive (the
	 * tracer follows them)? NULL without. The run goes on while one
	 * is, said once when the targets themselves are gone.
	 */
	bool (*followed_alive)(void *ctx);
	void *followed_ctx;
	bool said_followed;
};

/*
 * Watch @ids (and @child) in @l: a pidfd source for each process where
 * the kernel gives one (LOOP_PRIO_STOP); where none (an old kernel) the
 * tick polls it. Call targets_alive() on every tick.
 */
void targets_watch(struct targets *t, struct loop *l,
		   const struct target_ids *ids, struct launch *child);
/*
 * Is any target left? Polls the ones without a pidfd (threads, old
 * kernels) and reaps an exited child.
 */
bool targets_alive(struct targets *t);
/* Thread (or process) @id exists and is not a zombie. */
bool targets_id_alive(pid_t id);
/*
 * How many threads @ids (and the launched @child, if > 0) have now, from
 * /proc: the rows a report will hold, at least.
 */
size_t targets_threads(const struct target_ids *ids, pid_t child);

/*
 * The process (thread group) of thread @id, from /proc/ID/status; @id
 * itself when unknown. /proc/TID opens for any thread, leader or not.
 */
pid_t targets_tgid(pid_t id);

/*
 * The name of any task on this host by tid (/proc/TID/comm), into @buf;
 * NULL when it is gone. For the verdict's holders of the CPU outside the
 * targets (graph_lookups.tid_name, live).
 */
const char *targets_comm(__u32 tid, char *buf, size_t len);
/*
 * The name of process @tgid (/proc/TGID/comm, its first line) into
 * @buf; "" when it is gone. For /metrics' processes not traced.
 */
void targets_process_name(__u32 tgid, char *buf, size_t len);

/*
 * Why tdbpf cannot trace from here, or NULL: BPF sees the kernel's thread
 * ids, /proc and -p those of the PID namespace tdbpf runs in, and in a
 * container (docker without --pid=host, systemd-nspawn) they differ.
 * NULL too when it cannot tell.
 */
const char *targets_pid_ns_problem(void);

#endif /* TDBPF_TARGETS_H */
