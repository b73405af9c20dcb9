// SPDX-License-Identifier: GPL-2.0
/* Container ids and pod UIDs in cgroup paths (cgroup_path.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "sources/cgroup_path.h"

#define ID_HEX	64
#define UID_LEN	36

static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A UUID, its dashes maybe underscores (a systemd slice's spelling). */
static bool is_uid(const char *s)
{
	int i;

	for (i = 0; i < UID_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-' && s[i] != '_')
				return false;
		} else if (!is_hex(s + i, 1)) {
			return false;
		}
	}
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t l = strlen(suf);

	return n >= l && !memcmp(s + n - l, suf, l);
}

/* "podUID" or "...-podUID": the pod's UID, dashes restored, into @c. */
static void take_pod(const char *s, size_t n, struct task_cgroup *c)
{
	const char *u = s + n - UID_LEN;
	int i;

	if (n < UID_LEN + 3 || memcmp(u - 3, "pod", 3) || !is_uid(u))
		return;
	if (n > UID_LEN + 3 && u[-4] != '-')
		return;
	for (i = 0; i < UID_LEN; i++)
		c->pod[i] = u[i] == '_' ? '-' : u[i];
	c->pod[UID_LEN] = 0;
}

/* Which runtime names its container's cgroup PREFIX-ID (or just ID). */
static const char *runtime_of(const char *pre, size_t n, const char *parent,
			      size_t pn)
{
	static const struct { const char *pre, *name; } known[] = {
		{ "docker", "docker" },
		{ "cri-containerd", "containerd" },
		{ "containerd", "containerd" },
		{ "crio", "cri-o" },
		{ "libpod", "podman" },
	};
	size_t i;

	if (!n) {
		pre = parent;
		n = pn;
		if (n >= 6 && !memcmp(pre, "libpod", 6))
			return "podman";
		if (n > 3 && !memcmp(pre, "pod", 3))
			return "cri";
	}
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strlen(known[i].pre) == n && !memcmp(pre, known[i].pre, n))
			return known[i].name;
	return "";
}

/* "[PREFIX-]ID": the container of component @s (@parent before it). */
static void take_id(const char *s, size_t n, const char *parent, size_t pn,
		    struct task_cgroup *c)
{
	const char *id = s + n - ID_HEX;
	size_t pre;

	if (n < ID_HEX || !is_hex(id, ID_HEX))
		return;
	if (n > ID_HEX && id[-1] != '-')
		return;
	pre = n > ID_HEX ? n - ID_HEX - 1 : 0;
	/* a runtime's monitor of the container, not the container */
	if (ends_with(s, pre, "conmon"))
		return;
	memcpy(c->id, id, ID_HEX);
	c->id[ID_HEX] = 0;
	snprintf(c->runtime, sizeof(c->runtime), "%s",
		 runtime_of(s, pre, parent, pn));
}

void cgroup_parse_path(const char *path, struct task_cgroup *c)
{
	const char *p = path, *parent = "";
	size_t pn = 0;

	c->id[0] = c->runtime[0] = c->pod[0] = 0;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (ends_with(p, n, ".scope") || ends_with(p, n, ".slice"))
			n -= 6;
		if (n) {
			take_pod(p, n, c);
			take_id(p, n, parent, pn, c);
			parent = p;
			pn = n;
		}
		p += strcspn(p, "/");
		p += *p == '/';
	}
}

/*
 * How much a line's path is worth: a container, then not the root (a
 * v1 host may keep one controller's hierarchy alone), then v2, then
 * systemd's.
 */
static int rank(const char *hier, const char *ctrl, const char *path)
{
	struct task_cgroup t;
	int r = 0;

	cgroup_parse_path(path, &t);
	if (t.id[0])
		r += 8;
	if (strcmp(path, "/"))
		r += 4;
	if (!strcmp(hier, "0") && !*ctrl)
		r += 2;
	else if (!strcmp(ctrl, "name=systemd"))
		r += 1;
	return r;
}

void cgroup_parse_proc(const char *text, struct task_cgroup *c)
{
	char line[4200], best[CGROUP_PATH_LEN];	/* PATH_MAX and more */
	const char *p = text;
	int top = -1;

	best[0] = 0;
	while (*p) {
		size_t n = strcspn(p, "\n");
		char *ctrl, *path;
		int r;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
		ctrl = strchr(line, ':');
		path = ctrl ? strchr(ctrl + 1, ':') : NULL;
		if (!path)
			continue;
		*ctrl++ = 0;
		*path++ = 0;
		r = rank(line, ctrl, path);
		/* the first of equal rank: v1 lists its hierarchies in order */
		if (r > top) {
			top = r;
			snprintf(best, sizeof(best), "%s", path);
		}
	}
	snprintf(c->path, sizeof(c->path), "%s", best);
	cgroup_parse_path(best, c);
}
