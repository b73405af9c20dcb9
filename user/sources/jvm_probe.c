// SPDX-License-Identifier: GPL-2.0
/* hotspot:thread__start on the JVMs tdbpf traces (jvm_probe.h). */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "sources/jvm_attach.h"
#include "sources/jvm_probe.h"
#include "tdbpf.h"

static bool attach_one(struct jvm_probe *jp, struct bpf_program *prog,
		       pid_t pid, const char *path)
{
	struct bpf_link *l;

	if (jp->nr >= JVM_PROBE_MAX_LINKS)
		return false;
	l = bpf_program__attach_usdt(prog, pid, path, "hotspot",
				     "thread__start", NULL);
	if (!l)
		return false;
	jp->link[jp->nr++] = l;
	return true;
}

/* Every installed JDK's libjvm.so, once each (symlinked names share it). */
static void attach_installed(struct jvm_probe *jp, struct bpf_program *prog)
{
	struct stat seen[JVM_PROBE_MAX_LINKS];
	int nr = 0, i;
	size_t k;
	glob_t g;

	if (glob("/usr/lib/jvm/*/lib/server/libjvm.so", 0, NULL, &g))
		return;
	for (k = 0; k < g.gl_pathc && nr < JVM_PROBE_MAX_LINKS; k++) {
		if (stat(g.gl_pathv[k], &seen[nr]))
			continue;
		for (i = 0; i < nr && (seen[i].st_ino != seen[nr].st_ino ||
				       seen[i].st_dev != seen[nr].st_dev); i++)
			;
		if (i == nr && attach_one(jp, prog, -1, g.gl_pathv[k]))
			nr++;
	}
	globfree(&g);
}

bool jvm_probe_wanted(const int *pids, int nr_pids, bool any)
{
	char path[PATH_MAX + 32];
	bool found = false;
	glob_t g;
	int i;

	for (i = 0; i < nr_pids && !found; i++)
		found = jvm_libjvm_path(pids[i], path, sizeof(path));
	if (!found && any &&
	    !glob("/usr/lib/jvm/*/lib/server/libjvm.so", 0, NULL, &g)) {
		found = g.gl_pathc > 0;
		globfree(&g);
	}
	return found;
}

int jvm_probe_attach(struct jvm_probe *jp, struct bpf_program *prog,
		     const int *pids, int nr_pids, bool any)
{
	char path[PATH_MAX + 32];
	int i;

	for (i = 0; i < nr_pids; i++)
		if (jvm_libjvm_path(pids[i], path, sizeof(path)))
			attach_one(jp, prog, pids[i], path);
	if (any)
		attach_installed(jp, prog);
	return jp->nr;
}

void jvm_probe_detach(struct jvm_probe *jp)
{
	int i;

	for (i = 0; i < jp->nr; i++)
		bpf_link__destroy(jp->link[i]);
	jp->nr = 0;
}

int jvm_probe_collect(int fd, struct thread_names *n)
{
	static __u32 keys[TDBPF_JNAMES_MAX];
	struct tdbpf_jname v;
	__u32 key, *prev = NULL;
	int nr = 0, i, e = 0;

	while (nr < TDBPF_JNAMES_MAX &&
	       !bpf_map_get_next_key(fd, prev, &key)) {
		keys[nr] = key;
		prev = &keys[nr++];
	}
	for (i = 0; i < nr && !e; i++) {
		if (bpf_map_lookup_elem(fd, &keys[i], &v))
			continue;
		if (v.len >= TDBPF_JNAME_LEN)
			v.len = TDBPF_JNAME_LEN - 1;
		v.name[v.len] = 0;
		e = thread_names_add(n, v.tgid, keys[i], v.name);
		/* kept here now: the map holds only those started since */
		bpf_map_delete_elem(fd, &keys[i]);
	}
	return e;
}
