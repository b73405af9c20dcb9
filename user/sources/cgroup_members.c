// SPDX-License-Identifier: GPL-2.0
/* A cgroup's processes, from cgroupfs (cgroup_members.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sources/cgroup_members.h"
#include "support/error.h"
#include "support/array.h"

/* Does @dir hold a cgroup.procs file (is it a cgroup)? */
static bool is_cgroup(const char *dir)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	return !access(p, R_OK);
}

/*
 * How early a mount is tried: cgroup v2 (0), name=systemd (1), a v1
 * controller (2); -1 for no cgroup mount. @mnt gets its mount point.
 */
static int mount_rank(char *line, char *mnt, size_t len)
{
	char *f[6], *sep, *save = NULL, *p = line;
	int i;

	sep = strstr(line, " - ");
	if (!sep)
		return -1;
	*sep = 0;
	for (i = 0; i < 6 && (f[i] = strtok_r(p, " ", &save)); i++)
		p = NULL;
	if (i < 5)
		return -1;
	snprintf(mnt, len, "%s", f[4]);
	sep += 3;
	if (!strncmp(sep, "cgroup2 ", 8))
		return 0;
	if (strncmp(sep, "cgroup ", 7))
		return -1;
	return strstr(sep, "name=systemd") ? 1 : 2;
}

/* The first mount of rank @want that holds @path, into @m->dir. */
static bool find_in(struct cgroup_members *m, const char *path, FILE *f,
		    int want)
{
	char line[4096], mnt[PATH_MAX];

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (mount_rank(line, mnt, sizeof(mnt)) != want)
			continue;
		while (*path == '/')
			path++;
		if (snprintf(m->dir, sizeof(m->dir), "%s/%s", mnt, path) >=
		    (int)sizeof(m->dir))
			continue;
		if (is_cgroup(m->dir))
			return true;
	}
	return false;
}

int cgroup_members_open(struct cgroup_members *m, const char *path,
			const char *mountinfo, char *err, size_t len)
{
	FILE *f;
	int r;

	memset(m, 0, sizeof(*m));
	if (path[0] == '/' && strlen(path) < sizeof(m->dir) &&
	    is_cgroup(path)) {
		snprintf(m->dir, sizeof(m->dir), "%s", path);
		return 0;
	}
	f = fopen(mountinfo, "re");
	for (r = 0; f && r < 3; r++)
		if (find_in(m, path, f, r)) {
			fclose(f);
			return 0;
		}
	if (f)
		fclose(f);
	m->dir[0] = 0;
	error_set(err, len,
		 "-G %s: no such cgroup in any cgroup mount of %s; give a path as /proc/PID/cgroup prints it (/docker/ID, /machine.slice/libpod-ID.scope) or a directory under /sys/fs/cgroup (in a container: the host's, mounted there read-only)",
		 path, mountinfo);
	return -ENOENT;
}

static int add_pid(struct cgroup_members *m, pid_t pid)
{
	if (array_grow(&m->pids, &m->cap, m->nr, sizeof(*m->pids), 64))
		return -ENOMEM;
	m->pids[m->nr++] = pid;
	return 0;
}

/* @dir's cgroup.procs, then each cgroup below it, depth first. */
static int read_dir(struct cgroup_members *m, const char *dir, int depth)
{
	char p[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	FILE *f;
	long pid;
	int err = 0;

	snprintf(p, sizeof(p), "%s/cgroup.procs", dir);
	f = fopen(p, "re");
	while (f && !err && fscanf(f, "%ld", &pid) == 1)
		err = add_pid(m, (pid_t)pid);
	if (f)
		fclose(f);
	/* a cgroup tree deeper than this is a loop or an attack */
	dp = depth < 32 ? opendir(dir) : NULL;
	while (dp && !err && (d = readdir(dp))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, d->d_name) >=
		    (int)sizeof(p))
			continue;
		err = read_dir(m, p, depth + 1);
	}
	if (dp)
		closedir(dp);
	return err;
}

int cgroup_members_read(struct cgroup_members *m)
{
	m->nr = 0;
	return read_dir(m, m->dir, 0);
}

void cgroup_members_free(struct cgroup_members *m)
{
	free(m->pids);
	m->pids = NULL;
	m->nr = m->cap = 0;
}
