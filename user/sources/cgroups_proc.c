// SPDX-License-Identifier: GPL-2.0
/* The processes' cgroups from /proc (cgroups_proc.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sources/cgroup_path.h"
#include "sources/cgroups_proc.h"

/* @pid's /proc/PID/cgroup parsed into @c; an empty @c if unreadable. */
static void read_one(const char *proc, __u32 pid, struct task_cgroup *c)
{
	char path[64], buf[8192];
	ssize_t n;
	int fd;

	memset(c, 0, sizeof(*c));
	c->pid = pid;
	snprintf(path, sizeof(path), "%s/%u/cgroup", proc, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	cgroup_parse_proc(buf, c);
}

int cgroups_collect(struct cgroup_table *known, const struct task_table *t,
		    const char *proc)
{
	struct task_cgroup c;
	size_t i;
	int err = 0;

	for (i = 0; i < t->nr && !err; i++) {
		const struct task_row *r = tasks_row(t, i);

		/* a folded row (pid 0) is of processes already read */
		if (!r->pid || cgroups_find(known, r->pid))
			continue;
		read_one(proc, r->pid, &c);
		err = cgroups_add(known, &c);
	}
	if (known->sorted != known->nr)
		cgroups_sort(known);
	return err;
}
