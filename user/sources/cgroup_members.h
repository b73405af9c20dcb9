/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes of one cgroup and the cgroups below it (-G PATH), read
 * from cgroupfs: where PATH is, and which processes it holds now. The
 * tracer follows forks itself; a process put into the cgroup from
 * outside (podman exec, a runtime's new container in a pod's slice) is
 * found by reading it again.
 */
#ifndef TDBPF_CGROUP_MEMBERS_H
#define TDBPF_CGROUP_MEMBERS_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

struct cgroup_members {
	char dir[PATH_MAX];	/* the cgroup's directory in cgroupfs */
	pid_t *pids;		/* the last reading: every process */
	size_t nr, cap;
};

/*
 * Find @path: a cgroupfs directory ("/sys/fs/cgroup/memory/docker/ID"),
 * or a path as /proc/PID/cgroup names it ("/docker/ID"), looked for in
 * the cgroup mounts @mountinfo lists ("/proc/self/mountinfo"): cgroup
 * v2's first, then name=systemd's, then each v1 controller's. 0, or
 * -ENOENT with @err saying where it looked.
 */
int cgroup_members_open(struct cgroup_members *m, const char *path,
			const char *mountinfo, char *err, size_t len);
/* Read the processes of @m's cgroup and those below it. 0 or -errno. */
int cgroup_members_read(struct cgroup_members *m);
void cgroup_members_free(struct cgroup_members *m);

#endif /* TDBPF_CGROUP_MEMBERS_H */
