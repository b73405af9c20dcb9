// SPDX-License-Identifier: GPL-2.0
/* The processes' cgroups from /proc (cgroups_proc.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sources/cgroup_path.h"
#include "sources/cgroups_proc.h"
#include "support/readfile.h"

/* @pid's /proc/PID/cgroup parsed into @c; an empty @c if unreadable. */
static void read_one(const char *proc, __u32 pid, struct task_cgroup *c)
{
	char path[64], buf[8192];

	memset(c, 0, sizeof(*c));
	c->pid = pid;
	snprintf(path, sizeof(path), "%s/%u/cgroup", proc, pid);
	if (read_head(path, buf, sizeof(buf)) <= 0)
		return;
	cgroup_parse_proc(buf, c);
}

/* @pid's entry in @known, read now if it has none (pid 0: none). */
static int add_new(struct cgroup_table *known, __u32 pid, const char *proc)
{
	struct task_cgroup c;

	if (!pid || cgroups_find(known, pid))
		return 0;
	read_one(proc, pid, &c);
	return cgroups_add(known, &c);
}

int cgroups_collect(struct cgroup_table *known, const struct task_table *t,
		    const char *proc)
{
	size_t i;
	int err = 0;

	/* a folded row (pid 0) is of processes already read */
	for (i = 0; i < t->nr && !err; i++)
		err = add_new(known, tasks_row(t, i)->pid, proc);
	if (known->sorted != known->nr)
		cgroups_sort(known);
	return err;
}

int cgroups_collect_pids(struct cgroup_table *known, const pid_t *pids,
			 size_t nr, const char *proc)
{
	size_t i;
	int err = 0;

	for (i = 0; i < nr && !err; i++)
		err = add_new(known, (__u32)pids[i], proc);
	if (known->sorted != known->nr)
		cgroups_sort(known);
	return err;
}
