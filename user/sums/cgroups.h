/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The traced processes' cgroups: each process's cgroup path and, where
 * the path carries them, its container's id and runtime and its pod's
 * UID. Like the flows, this is state, not a sum: a snapshot holds one
 * entry per process of its rows, read once per process (at first sight)
 * and kept after it exits, and intervals never subtract them.
 */
#ifndef TDBPF_CGROUPS_H
#define TDBPF_CGROUPS_H

#include <stddef.h>
#include <linux/types.h>

/*
 * A Kubernetes systemd path is about 210 bytes; longer ones are cut
 * (the container id is taken before the cut).
 */
#define CGROUP_PATH_LEN		384
#define CGROUP_ID_LEN		65	/* 64 hex digits */
#define CGROUP_POD_LEN		37	/* a UUID */
#define CGROUP_RUNTIME_LEN	12

struct task_cgroup {
	__u32 pid;			/* tgid */
	char path[CGROUP_PATH_LEN];	/* "" when unknown */
	char id[CGROUP_ID_LEN];		/* container id, "" for none */
	char runtime[CGROUP_RUNTIME_LEN];	/* "podman", ... */
	char pod[CGROUP_POD_LEN];	/* pod UID, "" for none */
};

struct cgroup_table {
	struct task_cgroup *v;		/* by pid after cgroups_sort() */
	size_t nr, cap;
	size_t sorted;			/* v[0..sorted) in pid order */
};

void cgroups_init(struct cgroup_table *t);
void cgroups_reset(struct cgroup_table *t);
void cgroups_free(struct cgroup_table *t);
/* A copy of @c at the end of @t; -ENOMEM. Unsorted until cgroups_sort(). */
int cgroups_add(struct cgroup_table *t, const struct task_cgroup *c);
/* Put @t in pid order, a pid's first entry kept: cgroups_find() needs it. */
void cgroups_sort(struct cgroup_table *t);
/* @pid's entry, or NULL (also for pid 0: a folded row of processes). */
const struct task_cgroup *cgroups_find(const struct cgroup_table *t,
				       __u32 pid);
/* @dst = @src. 0 or -ENOMEM. */
int cgroups_copy(struct cgroup_table *dst, const struct cgroup_table *src);
/* Does any entry of @t name a container? (The table's column.) */
int cgroups_nr_containers(const struct cgroup_table *t);

#endif /* TDBPF_CGROUPS_H */
