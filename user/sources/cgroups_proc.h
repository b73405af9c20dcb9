/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroups of the processes in a task table, read from
 * /proc/PID/cgroup once per process (cgroup_path.h parses them).
 */
#ifndef TDBPF_CGROUPS_PROC_H
#define TDBPF_CGROUPS_PROC_H

#include <stddef.h>
#include <sys/types.h>
#include "sums/cgroups.h"
#include "sums/tasks.h"

/*
 * Give every process of @t that @known lacks an entry, read from
 * @proc/PID/cgroup ("/proc"); one gone meanwhile gets an empty one, so
 * that it is never read again. A pid the kernel gives again later keeps
 * its first process's entry, as the rows of both are one pid's. Leaves
 * @known sorted. 0 or -ENOMEM.
 */
int cgroups_collect(struct cgroup_table *known, const struct task_table *t,
		    const char *proc);
/*
 * The same for processes @pids (-G: a cgroup's members, read on each
 * tick), so that one gone before the next collect still has its cgroup.
 */
int cgroups_collect_pids(struct cgroup_table *known, const pid_t *pids,
			 size_t nr, const char *proc);

#endif /* TDBPF_CGROUPS_PROC_H */
