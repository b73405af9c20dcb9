// SPDX-License-Identifier: GPL-2.0
/* The tdbpf objects in the kernel, before and after a run (bpf_objects.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "bpf_objects.h"
#include "json_get.h"
#include "proc.h"

#define BPFTOOL		"/usr/sbin/bpftool"

struct objset {
	unsigned int id[4096];
	int nr;
};

static bool in_set(const struct objset *s, unsigned int id)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->id[i] == id)
			return true;
	return false;
}

static void set_add(struct objset *s, unsigned int id)
{
	if (s->nr < (int)(sizeof(s->id) / sizeof(s->id[0])) && !in_set(s, id))
		s->id[s->nr++] = id;
}

/* The names tdbpf's maps get (bpf/shared.bpf.h), as bpftool shows them. */
static bool tdbpf_map_name(const char *n)
{
	static const char *const names[] = { "counters", "cpu_state", "tasks",
					     "filter",	 "stats",     "exited",
					     "zero_task" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(n, names[i]))
			return true;
	return !strncmp(n, "tdbpf_", 6);
}

static json_object *bpftool_json(const char *what)
{
	char *argv[] = { BPFTOOL, "-j", (char *)what, "show", NULL };
	json_object *doc = NULL;
	char *out = NULL;

	if (run(argv, &out, 30) == 0)
		doc = json_tokener_parse(out);
	free(out);
	return doc;
}

/*
 * Every tdbpf object now in the kernel: programs named tdbpf_*, links to
 * them, maps with tdbpf's map names. @kind 0 progs, 1 links, 2 maps.
 */
static void tdbpf_objects(struct objset sets[3])
{
	json_object *progs = bpftool_json("prog"), *links = bpftool_json("link");
	json_object *maps = bpftool_json("map"), *o;
	struct objset ours = { .nr = 0 };
	size_t i;

	for (i = 0; i < 3; i++)
		sets[i].nr = 0;
	for (i = 0; progs && i < json_object_array_length(progs); i++) {
		o = json_object_array_get_idx(progs, i);
		if (!strncmp(jstr(o, "name") ?: "", "tdbpf_", 6)) {
			set_add(&sets[0], (unsigned int)jint(o, "id"));
			set_add(&ours, (unsigned int)jint(o, "id"));
		}
	}
	for (i = 0; links && i < json_object_array_length(links); i++) {
		o = json_object_array_get_idx(links, i);
		if (in_set(&ours, (unsigned int)jint(o, "prog_id")))
			set_add(&sets[1], (unsigned int)jint(o, "id"));
	}
	for (i = 0; maps && i < json_object_array_length(maps); i++) {
		o = json_object_array_get_idx(maps, i);
		if (tdbpf_map_name(jstr(o, "name") ?: ""))
			set_add(&sets[2], (unsigned int)jint(o, "id"));
	}
	json_object_put(progs);
	json_object_put(links);
	json_object_put(maps);
}

struct id_scan {
	const char *const *keys;
	int n;
	void (*add)(void *ctx, int k, unsigned int id);
	void *ctx;
};

/* One fd's description, @path (/proc/PID/fdinfo/FD): its keys' lines. */
static void scan_fdinfo(const char *path, const char *fd, void *ctx)
{
	const struct id_scan *s = ctx;
	FILE *in = fopen(path, "r");
	unsigned int id;
	char line[256];
	int k;

	(void)fd;
	if (!in)
		return;
	while (fgets(line, sizeof(line), in))
		for (k = 0; k < s->n; k++)
			if (!strncmp(line, s->keys[k], strlen(s->keys[k])) &&
			    sscanf(line + strlen(s->keys[k]), "%u", &id) == 1)
				s->add(s->ctx, k, id);
	fclose(in);
}

void held_bpf_ids(const char *const *keys, int n,
		  void (*add)(void *ctx, int k, unsigned int id), void *ctx)
{
	struct id_scan s = { keys, n, add, ctx };

	proc_each("fdinfo", scan_fdinfo, &s);
}

static void add_to_set(void *ctx, int k, unsigned int id)
{
	set_add(&((struct objset *)ctx)[k], id);
}

/* Objects held through an fd by a live process (another tdbpf running). */
static void held_objects(struct objset sets[3])
{
	static const char *const keys[3] = { "prog_id:", "link_id:", "map_id:" };
	int k;

	for (k = 0; k < 3; k++)
		sets[k].nr = 0;
	held_bpf_ids(keys, 3, add_to_set, sets);
}

static struct objset before[3];

static bool have_bpftool(void)
{
	if (access(BPFTOOL, X_OK)) {
		print_message("no %s: the left-behind check is skipped\n",
			      BPFTOOL);
		return false;
	}
	return true;
}

void objects_before(void)
{
	if (have_bpftool())
		tdbpf_objects(before);
}

/* The kernel frees programs after an RCU grace period: up to 3 s. */
void assert_nothing_left(void)
{
	static const char *const kind[3] = { "program", "link", "map" };
	struct objset now[3], held[3];
	int tries, k, i, left = 0;

	if (!have_bpftool())
		return;
	for (tries = 0; tries < 30; tries++) {
		tdbpf_objects(now);
		held_objects(held);
		left = 0;
		for (k = 0; k < 3; k++)
			for (i = 0; i < now[k].nr; i++)
				if (!in_set(&before[k], now[k].id[i]) &&
				    !in_set(&held[k], now[k].id[i]))
					left++;
		if (!left)
			return;
		usleep(100000);
	}
	for (k = 0; k < 3; k++)
		for (i = 0; i < now[k].nr; i++)
			if (!in_set(&before[k], now[k].id[i]) &&
			    !in_set(&held[k], now[k].id[i]))
				print_error("left behind: BPF %s id %u\n",
					    kind[k], now[k].id[i]);
	fail();
}
