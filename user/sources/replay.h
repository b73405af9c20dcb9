/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Replay: read back what `tdbpf -j` wrote (one pretty object for the
 * whole run, or with -I one object per line and interval, then one for
 * the run) and rebuild each report's task table and counter plan from
 * its raw sums, so that the same decode and the same sinks print it
 * again exactly as the live run did.
 */
#ifndef TDBPF_REPLAY_H
#define TDBPF_REPLAY_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "model/model.h"
#include "sums/cgroups.h"
#include "sums/flows.h"
#include "sums/snapshot.h"
#include "sums/tasks.h"

/* A name the live run looked up outside its graph (report_json.c). */
struct replay_name {
	__u32 pid, tid;		/* pid: a socket's peer; 0: by tid alone */
	bool limit;		/* a cgroup's CPU limit, not a comm */
	char text[640];
};

/* One report as recorded. */
struct replay_report {
	struct event_plan plan;		/* model, smt, level, groups */
	struct task_table tasks;	/* rows in the recorded order */
	__u64 duration_ns;
	int interval;			/* -1: the whole run */
	struct lost_stats lost;
	int nr_total;			/* tasks before the live run's --top */
	/* -e events, which no model describes: the plan points here */
	struct model_event user_ev[TDBPF_MAX_EVENTS];
	char user_names[TDBPF_MAX_EVENTS][128];
	char user_why[TDBPF_MAX_EVENTS][256];	/* "not_supported" reasons */
	/* the run's state, as written: "" / 0 / none when absent */
	char host[65];
	__u64 end_ns;
	struct flow_table flows;	/* sockets[] */
	struct cgroup_table cgroups;	/* the tasks' "cgroup", ... */
	struct span_table spans;	/* spans[], recorded with --span */
	/* recorded with wakeups: "graph", and the rows' "waits" */
	bool graph;
	struct replay_name *names;	/* peers, CPU holders, limits */
	size_t nr_names, cap_names;
};

void replay_report_init(struct replay_report *r);
/* The "spans" of report @obj into @out (none: empty): 0 or -ENOMEM */
int replay_parse_spans(json_object *obj, const struct event_plan *p,
		       struct span_table *out);
void replay_report_free(struct replay_report *r);

/*
 * Rebuild @r from one parsed report object. 0, or -1 with @err holding
 * "problem; fix" (no line number: the caller knows where it was), -2
 * when out of memory.
 */
int replay_parse(json_object *obj, struct replay_report *r, char *err,
		 size_t len);

/*
 * The live run's lookups (struct graph_lookups: a socket's peer, a task
 * by tid, a CPU limit), answered from the recording @r (a struct
 * replay_report): a replay has no /proc of the run.
 */
const char *replay_peer(const void *r, __u32 pid, __u32 tid, char *buf,
			size_t len);
const char *replay_tid_name(const void *r, __u32 tid, char *buf, size_t len);
const char *replay_cpu_limit(const void *r, __u32 tid, char *buf, size_t len);

/*
 * Reads report objects one by one from a stream, with line numbers, so
 * that a recording of any length is never held whole in memory.
 */
struct replay_reader {
	FILE *f;
	struct json_tokener *tok;
	char buf[65536];
	size_t len, off;
	long line;		/* line of buf[off], from 1 */
	long obj_line;		/* where the current object started */
	bool in_obj;		/* something but blanks fed since the last */
	bool multiline;		/* the current object spans lines */
	bool last_nl;		/* the last byte read ended a line */
	bool eof;
	size_t obj_bytes;	/* of the current object, fed so far */
};

/*
 * The largest report read back: json-c holds a whole object, at about
 * 14 times its text (an 88 MB report took 1.2 GB), so an endless line
 * must stop somewhere. 256 MiB is some 400,000 tasks of the software
 * model and 60,000 of a full hardware one; a larger recording of a run
 * is refused in one line saying this.
 */
#define REPLAY_MAX_REPORT_MIB	256

int replay_reader_init(struct replay_reader *r, FILE *f);
void replay_reader_free(struct replay_reader *r);
/*
 * The next object in *@obj (put it with json_object_put), its first line
 * in *@line and whether it spans lines in *@multiline. 1 for an object,
 * 0 at a clean end of file, -1 with @err ("line N: problem; fix"), -2
 * with @err when out of memory.
 */
int replay_next(struct replay_reader *r, json_object **obj, long *line,
		bool *multiline, char *err, size_t len);

#endif /* TDBPF_REPLAY_H */
