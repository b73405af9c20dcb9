// SPDX-License-Identifier: GPL-2.0
/*
 * One host's report from a JSON report or recording (host_input.h): the
 * sums and plan as `tdbpf report` rebuilds them (replay.c), and what
 * only the graph needs: the host's name and window's end, graph.edges[]
 * (each edge a waker slot of its wakee; a socket's peer on another host
 * kept as its address, "endpoint") and sockets[].
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "sources/host_input.h"
#include "sources/replay.h"
#include "sums/waits.h"
#include "support/error.h"

static json_object *member(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

static bool get_u64(json_object *o, const char *key, __u64 *out)
{
	json_object *v = member(o, key, json_type_int);

	if (!v || json_object_get_int64(v) < 0)
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

static int parse_edges(json_object *obj, struct host_report *h, char *err,
		       size_t len)
{
	json_object *g = member(obj, "graph", json_type_object), *edges;
	size_t i, n;

	if (!g || !(edges = member(g, "edges", json_type_array))) {
		error_set(err, len,
			 "the report has no wait-for graph (traced with --no-wakeups, or recorded by a tdbpf that left it out of --record files); trace the host again with wakeups, the default");
		return -1;
	}
	n = json_object_array_length(edges);
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(edges, i), *v;
		struct host_edge he;
		__u64 wakee, waker;
		const char *name;
		bool holds;

		memset(&he, 0, sizeof(he));
		v = member(e, "waker_comm", json_type_string);
		if (!v || !get_u64(e, "wakee_tid", &wakee) ||
		    !get_u64(e, "waker_tid", &waker) ||
		    !get_u64(e, "wakeups", &he.wakeups) ||
		    !get_u64(e, "wait_ns", &he.wait_ns)) {
			error_set(err, len,
				 "graph.edges[%zu] lacks wakee_tid, waker_tid, waker_comm, wakeups or wait_ns; give a report written by tdbpf -j",
				 i);
			return -1;
		}
		name = json_object_get_string(v);
		he.wakee_tid = (__u32)wakee;
		/* "cpu": run-queue time charged to the CPU's holder */
		v = member(e, "kind", json_type_string);
		holds = v && !strcmp(json_object_get_string(v), "cpu");
		v = member(e, "endpoint", json_type_string);
		if (v) {
			if (!flow_end_parse(json_object_get_string(v),
					    &he.endpoint)) {
				error_set(err, len,
					 "graph.edges[%zu].endpoint is not ADDRESS:PORT; give a report written by tdbpf -j",
					 i);
				return -1;
			}
			he.remote = true;
		} else if (holds) {
			/*
			 * cpu-limit, cpu-unseen by name; else a task by tid
			 * (one outside the report: the join's cpu-other)
			 */
			he.kind = waker_kind_by_name(name);
			if (he.kind != TDBPF_HOLDER_LIMIT &&
			    he.kind != TDBPF_HOLDER_UNSEEN) {
				he.waker_tid = (__u32)waker;
				he.kind = waker ? TDBPF_HOLDER_TASK :
						  TDBPF_HOLDER_OTHER;
			}
		} else if (waker) {
			he.waker_tid = (__u32)waker;
			he.kind = TDBPF_WAKER_TASK;
		} else {
			he.kind = waker_kind_by_name(name);
			/* the join counts it again from off-CPU time */
			if (he.kind == WAKER_UNSEEN)
				continue;
		}
		if (host_add_edge(h, &he))
			return -ENOMEM;
	}
	return 0;
}

static int parse_host(json_object *obj, const char *name,
		      struct host_report *h, char *err, size_t len)
{
	struct replay_report rr;

	replay_report_init(&rr);
	if (replay_parse(obj, &rr, err, len)) {
		replay_report_free(&rr);
		return -1;
	}
	/* moved: @rr is not freed */
	h->plan = rr.plan;
	h->tasks = rr.tasks;
	h->flows = rr.flows;
	h->duration_ns = rr.duration_ns;
	h->end_ns = rr.end_ns;
	if (name) {
		snprintf(h->name, sizeof(h->name), "%s", name);
	} else if (rr.host[0]) {
		snprintf(h->name, sizeof(h->name), "%s", rr.host);
	} else {
		error_set(err, len,
			 "the report names no host; give --host NAME=FILE");
		return -1;
	}
	return parse_edges(obj, h, err, len);
}

int host_read_file(const char *path, const char *name, struct host_report *h,
		   char *err, size_t len)
{
	json_object *obj, *whole = NULL, *last = NULL;
	struct replay_reader rd;
	struct stat st;
	char msg[512];
	bool multi;
	long line;
	FILE *f;
	int got, rc;

	f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (f && !fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		f = NULL;
		errno = EISDIR;
	}
	if (!f) {
		error_set(err, len,
			 "cannot read it: %s; give a file written by tdbpf -j or --record",
			 strerror(errno));
		return -1;
	}
	if (replay_reader_init(&rd, f)) {
		if (f != stdin)
			fclose(f);
		error_set(err, len, "out of memory");
		return -1;
	}
	while ((got = replay_next(&rd, &obj, &line, &multi, msg,
				  sizeof(msg))) > 0) {
		json_object *iv;

		if (last)
			json_object_put(last);
		last = obj;
		/* a recording's whole-run report has no "interval" */
		if (!json_object_object_get_ex(obj, "interval", &iv)) {
			if (whole)
				json_object_put(whole);
			whole = json_object_get(obj);
		}
	}
	replay_reader_free(&rd);
	if (f != stdin)
		fclose(f);
	if (got < 0) {
		error_set(err, len, "%s", msg);
		rc = -1;
	} else if (!last) {
		error_set(err, len,
			 "no report in it; give a file written by tdbpf -j or --record");
		rc = -1;
	} else {
		rc = parse_host(whole ? whole : last, name, h, err, len);
	}
	if (whole)
		json_object_put(whole);
	if (last)
		json_object_put(last);
	return rc;
}
