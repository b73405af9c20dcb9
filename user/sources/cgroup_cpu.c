// SPDX-License-Identifier: GPL-2.0
/*
 * A task's cgroup CPU limit, for the verdict's "throttled by its cgroup's
 * CPU limit": the group's path, the limit and how long the group was
 * throttled, from the cpu controller's files. Both hierarchies: v1 (a
 * "cpu" controller line in /proc/TID/cgroup; cpu.cfs_quota_us,
 * cpu.cfs_period_us, cpu.stat throttled_time in ns) and v2 (the "0::"
 * line; cpu.max "QUOTA PERIOD" or "max PERIOD", cpu.stat throttled_usec).
 * The limit may sit on an ancestor: the nearest group with one is named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sources/cgroup_cpu.h"
#include "support/readfile.h"

/* Where hierarchy @v2 (or v1's cpu controller) is mounted; 0 or -1. */
static int cgroup_mount(bool v2, char *mnt, size_t len)
{
	char line[1024], root[512], point[512], fstype[64], opts[512];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - ");

		if (!dash ||
		    sscanf(line, "%*s %*s %*s %511s %511s", root, point) != 2 ||
		    sscanf(dash + 3, "%63s %*s %511s", fstype, opts) != 2)
			continue;
		if (v2 && !strcmp(fstype, "cgroup2"))
			found = 0;
		/* v1: "cpu" among the super options (cpu, or cpu,cpuacct) */
		if (!v2 && !strcmp(fstype, "cgroup")) {
			char *o, *save = NULL;

			for (o = strtok_r(opts, ",", &save); o;
			     o = strtok_r(NULL, ",", &save))
				if (!strcmp(o, "cpu"))
					found = 0;
		}
		if (!found)
			snprintf(mnt, len, "%s", point);
	}
	fclose(f);
	return found;
}

/* @tid's group in the v1 cpu hierarchy, else its v2 group; 0 or -1. */
static int task_group(__u32 tid, bool *v2, char *path, size_t len)
{
	char file[64], line[1024];
	int found = -1;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%u/cgroup", tid);
	f = fopen(file, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'),
		     *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *ctl, *o, *save = NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		line[strcspn(line, "\n")] = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		ctl = c1 + 1;
		if (!*ctl && found) { /* v2, unless v1's cpu comes */
			snprintf(path, len, "%s", c2 + 1);
			*v2 = true;
			found = 0;
			continue;
		}
		for (o = strtok_r(ctl, ",", &save); o;
		     o = strtok_r(NULL, ",", &save))
			if (!strcmp(o, "cpu")) {
				snprintf(path, len, "%s", c2 + 1);
				*v2 = false;
				fclose(f);
				return 0;
			}
	}
	fclose(f);
	return found;
}

/* The one-line file @name of group @dir; -1 if unreadable or empty. */
static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char path[1100 + 32];	/* a group's dir (cgroup_cpu_limit) and @name */

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return read_small(path, buf, len) || !buf[0] ? -1 : 0;
}

/* cpu.stat's @key ("throttled_time", "throttled_usec"); -1 without. */
static long long stat_value(const char *dir, const char *key)
{
	char path[1100], k[64];
	long long v, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpu.stat", dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

/* The limit of group @dir: quota and period in us; false: none. */
static bool group_limit(const char *dir, bool v2, long long *quota,
			long long *period)
{
	char a[64], b[64];

	if (v2) {
		if (read_line(dir, "cpu.max", a, sizeof(a)) ||
		    sscanf(a, "%63s %lld", b, period) != 2 || !strcmp(b, "max"))
			return false;
		*quota = atoll(b);
		return *quota > 0;
	}
	if (read_line(dir, "cpu.cfs_quota_us", a, sizeof(a)) ||
	    read_line(dir, "cpu.cfs_period_us", b, sizeof(b)))
		return false;
	*quota = atoll(a);
	*period = atoll(b);
	return *quota > 0 && *period > 0;
}

int cgroup_cpu_limit(__u32 tid, struct cgroup_cpu *out)
{
	char mnt[512], dir[1100];
	bool v2 = false;
	char *slash;

	memset(out, 0, sizeof(*out));
	if (task_group(tid, &v2, out->path, sizeof(out->path)) ||
	    cgroup_mount(v2, mnt, sizeof(mnt)))
		return -1;
	out->v2 = v2;
	/* the nearest group up the tree that has a limit */
	for (;;) {
		snprintf(dir, sizeof(dir), "%s%s", mnt, out->path);
		if (group_limit(dir, v2, &out->quota_us, &out->period_us))
			break;
		slash = strrchr(out->path, '/');
		if (!slash || slash == out->path)
			return -1;
		*slash = '\0';
	}
	out->throttled_ns = v2 ? stat_value(dir, "throttled_usec") * 1000
			       : stat_value(dir, "throttled_time");
	return 0;
}

const char *cgroup_cpu_describe(__u32 tid, char *buf, size_t len)
{
	struct cgroup_cpu c;

	if (cgroup_cpu_limit(tid, &c))
		return NULL;
	snprintf(buf, len, "%s, %.0f%% of a CPU (%s %lld/%lld us)%s", c.path,
		 100.0 * (double)c.quota_us / (double)c.period_us,
		 c.v2 ? "cpu.max" : "cpu.cfs_quota_us/cpu.cfs_period_us",
		 c.quota_us, c.period_us, "");
	if (c.throttled_ns >= 0) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, ", throttled %.2f s in all",
			 (double)c.throttled_ns / 1e9);
	}
	return buf;
}
