/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sockets of the processes in a task table, read from /proc: their
 * TCP and UDP flows as each process's network namespace sees them.
 */
#ifndef TDBPF_FLOWS_PROC_H
#define TDBPF_FLOWS_PROC_H

#include "sums/flows.h"
#include "sums/tasks.h"

/*
 * Fill @out with the established, listening (TCP) and connected (UDP)
 * sockets of every process with a live row in @t. A process gone
 * meanwhile, or one whose /proc we may not read, has none. 0 or -ENOMEM.
 */
int flows_collect(struct flow_table *out, const struct task_table *t);
/* The pids of @t's live rows, sorted (repeats kept); *@nr of them. */
__u32 *flows_task_pids(const struct task_table *t, size_t *nr);
/*
 * flows_collect() for the sorted @pids (repeats skipped): what the
 * /proc peer reader (peer_reader.h) runs with its overrides.
 */
int flows_read_pids(struct flow_table *out, const __u32 *pids, size_t nr);

#endif /* TDBPF_FLOWS_PROC_H */
