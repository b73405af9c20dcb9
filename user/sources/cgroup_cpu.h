/* SPDX-License-Identifier: GPL-2.0 */
/* A task's cgroup CPU limit, v1 or v2 (see cgroup_cpu.c). */
#ifndef TDBPF_CGROUP_CPU_H
#define TDBPF_CGROUP_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct cgroup_cpu {
	char path[512]; /* the group with the limit, from its root */
	bool v2;
	long long quota_us, period_us;
	long long throttled_ns; /* the group's, since it was made; -1 */
};

/* @tid's nearest group with a CPU limit; -1 when none (or it is gone). */
int cgroup_cpu_limit(__u32 tid, struct cgroup_cpu *out);

/*
 * "/sg, 20% of a CPU (cpu.cfs_quota_us/cpu.cfs_period_us 20000/100000
 * us), throttled 1.23 s in all" into @buf; NULL when no limit.
 */
const char *cgroup_cpu_describe(__u32 tid, char *buf, size_t len);

#endif /* TDBPF_CGROUP_CPU_H */
