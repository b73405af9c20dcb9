// SPDX-License-Identifier: GPL-2.0
/*
 * Read back `tdbpf -j` recordings (see report_json.c for the layout).
 *
 * What is rebuilt, and why: a report is rebuilt from what was measured,
 * never from what was derived. Each task's row gets its scheduling sums
 * (integers, exact) and its counters' raw sums (the "raw" member:
 * values per event, enabled and running per group) in the plan the
 * "groups" member describes. Everything else in the recording (scaled
 * counts, coverage, metrics, the verdict) is derived from those by
 * report.c and is ignored here: decoding the same integers with the
 * same code gives the same doubles, so every sink prints what the live
 * run printed, to the byte; the rounded values in the JSON could not
 * give that (a metric rounded to 6 decimals may print another last
 * digit at 1 decimal), nor the CSV's running times, nor --per-name
 * folding of raw sums as the live run folds them.
 *
 * json-c parses (Debian's, as the brief asks for parsing); one object
 * at a time through its incremental tokener, so a long -I recording is
 * streamed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include "sources/replay.h"
#include "support/array.h"
#include "support/text.h"
#include "support/error.h"

void replay_report_init(struct replay_report *r)
{
	memset(r, 0, sizeof(*r));
	tasks_init(&r->tasks);
	flows_init(&r->flows);
	cgroups_init(&r->cgroups);
	spans_init(&r->spans);
	r->interval = -1;
}

void replay_report_free(struct replay_report *r)
{
	tasks_free(&r->tasks);
	flows_free(&r->flows);
	cgroups_free(&r->cgroups);
	spans_free(&r->spans);
	free(r->names);
	r->names = NULL;
	r->nr_names = r->cap_names = 0;
}

/* ---- one report object ------------------------------------------------ */

static int bad(char *err, size_t len, const char *fmt, const char *a,
	       const char *b)
{
	error_set(err, len, fmt, a, b);
	/* it may quote the file's strings: one printable line */
	text_printable(err, len, err, NULL, 0);
	return -1;
}

static json_object *member(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* A whole number >= 0 (json-c keeps it exact up to 2^64-1). */
static int get_u64(json_object *o, const char *key, __u64 *out)
{
	json_object *v = member(o, key, json_type_int);

	/* a negative int64 is negative; past INT64_MAX json-c keeps a uint64 */
	if (!v || json_object_get_int64(v) < 0)
		return -1;
	*out = json_object_get_uint64(v);
	return 0;
}

static int u64_at(json_object *arr, size_t i, __u64 *out)
{
	json_object *v = json_object_array_get_idx(arr, i);

	if (!v || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return -1;
	*out = json_object_get_uint64(v);
	return 0;
}

/*
 * An -e event of slot @s, named @name: counted as the live run counted it
 * (evsel.c); only its name and unit show in a report. cpu-clock and
 * task-clock count ns and show msec, as perf's.
 */
static const struct model_event *user_event(struct replay_report *r, int s,
					    const char *name)
{
	struct model_event *e = &r->user_ev[s];
	size_t base = strcspn(name, ":/");

	snprintf(r->user_names[s], sizeof(r->user_names[s]), "%s", name);
	memset(e, 0, sizeof(*e));
	e->name = r->user_names[s];
	e->kind = EV_USER;
	e->fixed = -1;
	e->unit = (base == 9 && !strncmp(name, "cpu-clock", 9)) ||
			  (base == 10 && !strncmp(name, "task-clock", 10)) ?
			  "msec" :
			  "";
	return e;
}

/*
 * "not_supported": the -e events the live run could not count become
 * EV_UNSUP again, with their reasons, so that every sink says
 * <not supported> where the live run did.
 */
static void parse_unsupported(json_object *obj, struct replay_report *r)
{
	json_object *arr = member(obj, "not_supported", json_type_array);
	json_object *u, *ev, *why;
	size_t i;
	int s;

	for (i = 0; arr && i < json_object_array_length(arr); i++) {
		u = json_object_array_get_idx(arr, i);
		ev = member(u, "event", json_type_string);
		why = member(u, "reason", json_type_string);
		for (s = 0; ev && s < r->plan.nr; s++) {
			if (r->plan.ev[s] >= 0 ||
			    strcmp(r->user_names[s], json_object_get_string(ev)))
				continue;
			snprintf(r->user_why[s], sizeof(r->user_why[s]), "%s",
				 why ? json_object_get_string(why) : "");
			r->user_ev[s].kind = EV_UNSUP;
			r->user_ev[s].why = r->user_why[s];
		}
	}
}

/* The plan from "model", "smt", "level" and "groups". */
static int parse_plan(json_object *obj, struct replay_report *r, char *err,
		      size_t len)
{
	struct event_plan *p = &r->plan;
	json_object *v, *groups, *g;
	const struct model *m = NULL;
	const char *name;
	size_t gi, ei;
	int idx;

	memset(p, 0, sizeof(*p));
	v = member(obj, "model", json_type_string);
	if (!v)
		return bad(err, len, "no \"model\": not a tdbpf JSON report%s%s; give a file written by tdbpf -j",
			   "", "");
	/* "none": -e events alone */
	if (strcmp(json_object_get_string(v), "none")) {
		m = model_find(json_object_get_string(v));
		if (!m)
			return bad(err, len, "model '%s' is unknown to this tdbpf%s; replay it with the tdbpf that recorded it",
				   json_object_get_string(v), "");
	}
	p->model = m;
	v = member(obj, "smt", json_type_boolean);
	p->smt = v && json_object_get_boolean(v);
	v = member(obj, "level", json_type_int);
	if (!v || json_object_get_int(v) < 0 ||
	    json_object_get_int(v) > (m ? m->max_level : 0))
		return bad(err, len, "\"level\" missing or not a level of model %s%s; give a file written by tdbpf -j",
			   m ? m->name : "none", "");
	p->level = json_object_get_int(v);
	groups = member(obj, "groups", json_type_array);
	if (!groups)
		return bad(err, len, "no \"groups\": recorded by a tdbpf without raw sums%s%s; record it again with this one",
			   "", "");
	for (gi = 0; gi < json_object_array_length(groups); gi++) {
		g = json_object_array_get_idx(groups, gi);
		if (!json_object_is_type(g, json_type_array) ||
		    !json_object_array_length(g) ||
		    gi >= MODEL_MAX_GROUPS)
			return bad(err, len, "\"groups\" is not a list of event lists%s%s; give a file written by tdbpf -j",
				   "", "");
		p->leader[gi] = p->nr;
		p->nr_groups = (int)gi + 1;
		for (ei = 0; ei < json_object_array_length(g); ei++) {
			v = json_object_array_get_idx(g, ei);
			if (!v || !json_object_is_type(v, json_type_string) ||
			    !*(name = json_object_get_string(v)))
				return bad(err, len, "\"groups\" holds something that is not an event name%s%s; give a file written by tdbpf -j",
					   "", "");
			if (p->nr >= TDBPF_MAX_EVENTS)
				return bad(err, len, "more than the %s events tdbpf programs%s; give a file written by tdbpf -j",
					   "64", "");
			/* not the model's: an event given with -e */
			idx = m ? model_event_index(m, name) : -1;
			p->ev[p->nr] = idx;
			p->evd[p->nr] = idx >= 0 ? &m->events[idx] :
					user_event(r, p->nr, name);
			p->group[p->nr] = (int)gi;
			p->gp_idx[p->nr] = -1;
			p->nr++;
		}
	}
	parse_unsupported(obj, r);
	return 0;
}

/*
 * "waits": the row's waker slots, [kind, tid, tgid, wakeups, wait_ns,
 * longest_us]; a file from before the longest wait has five.
 */
static int parse_waits(json_object *t, struct task_table *tab,
		       struct task_row *row, const char *which, char *err,
		       size_t len)
{
	json_object *ws = member(t, "waits", json_type_array), *s;
	struct tdbpf_wait w;
	__u64 x[6];
	size_t i, k, nx;

	if (!ws || !tab->waits)
		return 0;
	for (i = 0; i < json_object_array_length(ws); i++) {
		s = json_object_array_get_idx(ws, i);
		nx = json_object_is_type(s, json_type_array) ?
			     json_object_array_length(s) : 0;
		x[5] = 0;
		for (k = 0; k < 5 || k < nx; k++)
			if ((nx != 5 && nx != 6) || u64_at(s, k, &x[k]) ||
			    ((k < 3 || k == 5) && x[k] > UINT32_MAX) ||
			    (k == 0 && x[k] >= TDBPF_NR_WAKER_KINDS))
				return bad(err, len, "task %s: \"waits\" holds something that is not [kind, tid, tgid, wakeups, wait_ns, longest_us]%s; give a file written by tdbpf -j",
					   which, "");
		memset(&w, 0, sizeof(w));
		w.kind = (__u32)x[0];
		w.tid = (__u32)x[1];
		w.tgid = (__u32)x[2];
		w.wakeups = x[3];
		w.wait_ns = x[4];
		w.longest_us = (__u32)x[5];
		if (tasks_add_waits(tab, row, &w, 1)) {
			bad(err, len, "out of memory for its waits%s%s; raise the memory limit (ulimit -v)",
			    "", "");
			return -2;
		}
	}
	return 0;
}

/* A task's "cgroup", "container_id", ... as its process's (the first). */
static int parse_cgroup(json_object *t, __u32 pid, struct cgroup_table *cg)
{
	static const struct { const char *key; size_t at, len; } keys[] = {
		{ "cgroup", offsetof(struct task_cgroup, path),
		  CGROUP_PATH_LEN },
		{ "container_id", offsetof(struct task_cgroup, id),
		  CGROUP_ID_LEN },
		{ "container_runtime", offsetof(struct task_cgroup, runtime),
		  CGROUP_RUNTIME_LEN },
		{ "pod_uid", offsetof(struct task_cgroup, pod),
		  CGROUP_POD_LEN },
	};
	struct task_cgroup c = { .pid = pid };
	json_object *v;
	size_t i;

	if (!pid || !member(t, "cgroup", json_type_string))
		return 0;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = member(t, keys[i].key, json_type_string);
		if (v)
			snprintf((char *)&c + keys[i].at, keys[i].len, "%s",
				 json_object_get_string(v));
	}
	return cgroups_add(cg, &c);
}

static int parse_task(json_object *t, const struct event_plan *p,
		      struct task_table *tab, struct cgroup_table *cg,
		      size_t n, char *err, size_t len)
{
	static const char *const keys[] = {
		"tid", "pid", "on_cpu_ns", "runq_wait_ns", "off_cpu_ns",
		"voluntary", "involuntary", "migrations", "uncounted_ns",
	};
	json_object *raw, *vals, *ena, *run, *v;
	__u64 x[ARRAY_SIZE(keys)], e, r;
	struct task_row *row;
	char which[32];
	size_t i;
	int s;

	snprintf(which, sizeof(which), "%zu", n);
	if (!json_object_is_type(t, json_type_object))
		return bad(err, len, "task %s is not an object%s; give a file written by tdbpf -j",
			   which, "");
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		if (get_u64(t, keys[i], &x[i]))
			return bad(err, len, "task %s: \"%s\" missing or not a whole number >= 0; give a file written by tdbpf -j",
				   which, keys[i]);
	/* ids are the kernel's 32 bits: 2^40 would show as another */
	if (x[0] > UINT32_MAX || x[1] > UINT32_MAX)
		return bad(err, len, "task %s: \"%s\" is over 2^32, no thread id; give a file written by tdbpf -j",
			   which, x[0] > UINT32_MAX ? "tid" : "pid");
	raw = member(t, "raw", json_type_object);
	if (!raw)
		return bad(err, len, "task %s has no raw sums (\"raw\"): recorded by an older tdbpf%s; record it again with this one",
			   which, "");
	vals = member(raw, "values", json_type_array);
	ena = member(raw, "enabled", json_type_array);
	run = member(raw, "running", json_type_array);
	if (!vals || !ena || !run ||
	    json_object_array_length(vals) != (size_t)p->nr ||
	    json_object_array_length(ena) != (size_t)p->nr_groups ||
	    json_object_array_length(run) != (size_t)p->nr_groups)
		return bad(err, len, "task %s: \"raw\" does not match \"groups\"%s; give a file written by tdbpf -j",
			   which, "");

	row = tasks_append(tab);
	if (!row) {
		bad(err, len, "out of memory for its tasks%s%s; raise the memory limit (ulimit -v)",
		    "", "");
		return -2;
	}
	row->tid = (__u32)x[0];
	row->pid = (__u32)x[1];
	row->sched.on_cpu_ns = x[2];
	row->sched.runq_wait_ns = x[3];
	row->sched.off_cpu_ns = x[4];
	row->sched.nvcsw = x[5];
	row->sched.nivcsw = x[6];
	row->sched.migrations = x[7];
	row->sched.uncounted_ns = x[8];
	/* recorded since the socket hooks; older recordings have none */
	if (!get_u64(t, "softirq_ns", &e))
		row->sched.softirq_ns = e;
	v = member(t, "comm", json_type_string);
	if (v)
		snprintf(row->comm, sizeof(row->comm), "%s",
			 json_object_get_string(v));
	/* the whole name the live run had (a JVM's), where it had one */
	v = member(t, "name", json_type_string);
	if ((v && !(row->name = names_intern(json_object_get_string(v)))) ||
	    parse_cgroup(t, row->pid, cg)) {
		bad(err, len, "out of memory for its tasks%s%s; raise the memory limit (ulimit -v)",
		    "", "");
		return -2;
	}
	v = member(t, "exited", json_type_boolean);
	row->exited = v && json_object_get_boolean(v);
	/* signed; a recording from before it has none: 0 */
	v = member(t, "window_gap_ns", json_type_int);
	row->sched.window_gap_ns = v ? json_object_get_int64(v) : 0;
	v = member(t, "nr_tasks", json_type_int);
	row->nr_tasks = v && json_object_get_int(v) > 1 ?
				json_object_get_int(v) : 1;
	for (s = 0; s < p->nr; s++) {
		int g = p->group[s];

		if (u64_at(vals, (size_t)s, &row->ctr[s].value) ||
		    u64_at(ena, (size_t)g, &e) || u64_at(run, (size_t)g, &r))
			return bad(err, len, "task %s: a raw sum is not a whole number >= 0%s; give a file written by tdbpf -j",
				   which, "");
		/* a counter runs only while enabled: the other way is no sum */
		if (r > e)
			return bad(err, len, "task %s: a group ran longer than it was enabled (\"running\" over \"enabled\")%s; give a file written by tdbpf -j",
				   which, "");
		/* members count with their leader: its times are theirs */
		row->ctr[s].enabled = e;
		row->ctr[s].running = r;
	}
	return parse_waits(t, tab, row, which, err, len);
}

/* sockets[]: the flow halves a run with wakeups wrote (report_json.c) */
static int parse_sockets(json_object *obj, struct flow_table *t, char *err,
			 size_t len)
{
	json_object *socks = member(obj, "sockets", json_type_array);
	char which[32];
	size_t i, n;

	flows_reset(t);
	if (!socks)
		return 0;
	n = json_object_array_length(socks);
	for (i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(socks, i), *v;
		json_object *l = member(s, "local", json_type_string);
		json_object *r = member(s, "remote", json_type_string);
		struct sock_flow f;
		__u64 pid;

		memset(&f, 0, sizeof(f));
		snprintf(which, sizeof(which), "%zu", i);
		if (!l || !r || get_u64(s, "pid", &pid) ||
		    !flow_end_parse(json_object_get_string(l), &f.local) ||
		    !flow_end_parse(json_object_get_string(r), &f.remote))
			return bad(err, len, "sockets[%s] lacks pid, or local/remote as ADDRESS:PORT%s; give a file written by tdbpf -j",
				   which, "");
		f.pid = (__u32)pid;
		if ((v = member(s, "comm", json_type_string)))
			snprintf(f.comm, sizeof(f.comm), "%s",
				 json_object_get_string(v));
		if ((v = member(s, "proto", json_type_string)))
			snprintf(f.proto, sizeof(f.proto), "%s",
				 json_object_get_string(v));
		if ((v = member(s, "state", json_type_string)))
			f.state = flow_state_parse(json_object_get_string(v));
		if (flows_add(t, &f))
			return bad(err, len, "out of memory%s%s", "", "");
	}
	return 0;
}

static int add_name(struct replay_report *r, __u32 pid, __u32 tid,
		    bool limit, const char *text)
{
	struct replay_name *n;

	if (array_grow(&r->names, &r->cap_names, r->nr_names,
		       sizeof(*r->names), 16))
		return -1;
	n = &r->names[r->nr_names++];
	n->pid = pid;
	n->tid = tid;
	n->limit = limit;
	snprintf(n->text, sizeof(n->text), "%s", text);
	return 0;
}

/*
 * A socket peer's name as the live run's lookup gave it: the edge's
 * "waker_comm" is "COMM (PID)" then, "pid PID" when it found none.
 */
static int peer_name(struct replay_report *r, json_object *e)
{
	json_object *c = member(e, "waker_comm", json_type_string);
	__u64 pid, tid;
	char suffix[32], comm[sizeof(r->names[0].text)];
	size_t n, k;

	if (!c || get_u64(e, "waker_pid", &pid) || get_u64(e, "waker_tid", &tid))
		return 0;
	snprintf(comm, sizeof(comm), "%s", json_object_get_string(c));
	snprintf(suffix, sizeof(suffix), " (%llu)", (unsigned long long)pid);
	n = strlen(comm);
	k = strlen(suffix);
	if (n <= k || strcmp(comm + n - k, suffix))
		return 0;
	comm[n - k] = 0;
	return add_name(r, (__u32)pid, (__u32)tid, false, comm);
}

/* "graph": that it was there, its sample, the names it looked up */
static int parse_graph(json_object *obj, struct replay_report *r)
{
	json_object *g = member(obj, "graph", json_type_object), *a, *e, *v;
	static const char *const lists[] = { "names", "cpu_limits" };
	__u64 x, tid;
	size_t i, l;

	r->nr_names = 0;
	r->graph = g != NULL;
	if (!g)
		return 0;
	v = member(g, "sampled", json_type_object);
	if (v && !get_u64(v, "scale", &x))
		r->lost.wake_scale = x;
	if (v && !get_u64(v, "windows_ns", &x))
		r->lost.sampled_ns = x;
	if (v && !get_u64(v, "wakeups_seen", &x))
		r->lost.sampled_wakeups = x;
	a = member(g, "edges", json_type_array);
	for (i = 0; a && i < json_object_array_length(a); i++)
		if (peer_name(r, json_object_array_get_idx(a, i)))
			return -1;
	for (l = 0; l < 2; l++) {
		a = member(g, lists[l], json_type_array);
		for (i = 0; a && i < json_object_array_length(a); i++) {
			e = json_object_array_get_idx(a, i);
			v = member(e, l ? "limit" : "comm", json_type_string);
			if (v && !get_u64(e, "tid", &tid) &&
			    add_name(r, 0, (__u32)tid, l,
				     json_object_get_string(v)))
				return -1;
		}
	}
	return 0;
}

static const char *find_name(const struct replay_report *r, __u32 pid,
			     __u32 tid, bool limit, char *buf, size_t len)
{
	size_t i;

	for (i = 0; r && i < r->nr_names; i++) {
		const struct replay_name *n = &r->names[i];

		if (n->pid == pid && n->tid == tid && n->limit == limit) {
			snprintf(buf, len, "%s", n->text);
			return buf;
		}
	}
	return NULL;
}

const char *replay_peer(const void *r, __u32 pid, __u32 tid, char *buf,
			size_t len)
{
	return pid ? find_name(r, pid, tid, false, buf, len) : NULL;
}

const char *replay_tid_name(const void *r, __u32 tid, char *buf, size_t len)
{
	return find_name(r, 0, tid, false, buf, len);
}

const char *replay_cpu_limit(const void *r, __u32 tid, char *buf, size_t len)
{
	return find_name(r, 0, tid, true, buf, len);
}

int replay_parse(json_object *obj, struct replay_report *r, char *err,
		 size_t len)
{
	json_object *tasks, *lost, *v;
	__u64 x;
	size_t i, k;

	if (!json_object_is_type(obj, json_type_object) ||
	    !member(obj, "tasks", json_type_array) ||
	    !member(obj, "duration_ns", json_type_int))
		return bad(err, len, "not a tdbpf JSON report (no \"tasks\" or \"duration_ns\")%s%s; give a file written by tdbpf -j",
			   "", "");
	if (parse_plan(obj, r, err, len))
		return -1;
	tasks_reset(&r->tasks);
	cgroups_reset(&r->cgroups);
	/* recorded with wakeups: rows have waker slots, as live */
	if (tasks_set_layout(&r->tasks, r->plan.nr,
			     member(obj, "graph", json_type_object) != NULL))
		return bad(err, len, "internal: table not empty%s%s", "", "");
	if (get_u64(obj, "duration_ns", &r->duration_ns))
		return bad(err, len, "\"duration_ns\" is not a whole number >= 0%s%s; give a file written by tdbpf -j",
			   "", "");
	v = member(obj, "interval", json_type_int);
	r->interval = v ? json_object_get_int(v) : -1;
	if (r->interval < -1)
		r->interval = -1;
	lost = member(obj, "lost", json_type_object);
	memset(&r->lost, 0, sizeof(r->lost));
	for (k = 0; lost && k < nr_lost_keys; k++)
		if (!get_u64(lost, lost_keys[k].name, &x))
			*lost_field(&r->lost, k) = x;
	if (parse_graph(obj, r))
		return bad(err, len, "out of memory%s%s; raise the memory limit (ulimit -v)",
			   "", "");
	tasks = member(obj, "tasks", json_type_array);
	for (i = 0; i < json_object_array_length(tasks); i++) {
		int e = parse_task(json_object_array_get_idx(tasks, i),
				   &r->plan, &r->tasks, &r->cgroups, i, err,
				   len);

		if (e)
			return e;
	}
	cgroups_sort(&r->cgroups);
	v = member(obj, "nr_total", json_type_int);
	r->nr_total = v ? json_object_get_int(v) : (int)r->tasks.nr;
	if (r->nr_total < (int)r->tasks.nr)
		r->nr_total = (int)r->tasks.nr;
	v = member(obj, "host", json_type_string);
	snprintf(r->host, sizeof(r->host), "%s",
		 v ? json_object_get_string(v) : "");
	if (get_u64(obj, "end_ns", &r->end_ns))
		r->end_ns = 0;
	if (replay_parse_spans(obj, &r->plan, &r->spans))
		return bad(err, len, "out of memory%s%s; raise the memory limit (ulimit -v)",
			   "", "");
	return parse_sockets(obj, &r->flows, err, len);
}

/* ---- the stream of objects ------------------------------------------ */

int replay_reader_init(struct replay_reader *r, FILE *f)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->line = 1;
	r->tok = json_tokener_new();
	return r->tok ? 0 : -ENOMEM;
}

void replay_reader_free(struct replay_reader *r)
{
	if (r->tok)
		json_tokener_free(r->tok);
	r->tok = NULL;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * More of the file into the buffer. 1 when there is more to read (or
 * it just ended), 0 at its end between reports, -1 with @err at its end
 * inside one, or when it cannot be read.
 */
static int refill(struct replay_reader *r, char *err, size_t len)
{
	if (r->eof || feof(r->f) || ferror(r->f)) {
		if (ferror(r->f)) {
			error_set(err, len, "line %ld: cannot read on: %s",
				 r->line, strerror(errno));
			return -1;
		}
		if (!r->in_obj)
			return 0;
		/* the last line with something on it */
		error_set(err, len,
			 "line %ld: the file ends inside the report that starts on line %ld: truncated (was tdbpf killed while writing?); the reports before it were printed",
			 r->line - (r->line > r->obj_line && r->last_nl),
			 r->obj_line);
		return -1;
	}
	r->len = fread(r->buf, 1, sizeof(r->buf), r->f);
	r->off = 0;
	if (!r->len)
		r->eof = true;
	else
		r->last_nl = r->buf[r->len - 1] == '\n';
	return 1;
}

/*
 * The blanks between reports skipped: 1 when the next report starts in
 * the buffer, 0 when the buffer ran out first, -1 with @err.
 */
static int start_report(struct replay_reader *r, char *err, size_t len)
{
	while (r->off < r->len && blank(r->buf[r->off]))
		if (r->buf[r->off++] == '\n')
			r->line++;
	if (r->off == r->len)
		return 0;
	if (!r->buf[r->off]) {
		error_set(err, len,
			 "line %ld: a NUL byte: not a tdbpf JSON recording; give a file written by tdbpf -j",
			 r->line);
		return -1;
	}
	r->in_obj = true;
	r->multiline = false;
	r->obj_line = r->line;
	r->obj_bytes = 0;
	return 1;
}

/* json-c ran out of memory in the report: say so, with the limit. -2. */
static int out_of_memory(const struct replay_reader *r, json_object *o,
			 char *err, size_t len)
{
	struct rlimit rl;
	char lim[64] = "";

	if (o)
		json_object_put(o);
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), " (ulimit -v is %llu KiB)",
			 (unsigned long long)rl.rlim_cur >> 10);
	error_set(err, len,
		 "line %ld: out of memory reading the report that starts on line %ld%s; raise the memory limit (ulimit -v)",
		 r->line, r->obj_line, lim);
	return -2;
}

/*
 * The lines of the @used bytes json-c read; a report is multi-line if
 * one ends inside it (@done: it ended in them, its trailing blanks not
 * in it).
 */
static void count_lines(struct replay_reader *r, size_t used, bool done)
{
	size_t end, i;

	/* json-c may eat blanks after the object: they are not in it */
	for (end = used; done && end && blank(r->buf[r->off + end - 1]);
	     end--)
		;
	for (i = 0; i < used; i++)
		if (r->buf[r->off + i] == '\n') {
			r->line++;
			r->multiline |= i < end;
		}
	r->off += used;
}

int replay_next(struct replay_reader *r, json_object **obj, long *line,
		bool *multiline, char *err, size_t len)
{
	enum json_tokener_error je;
	json_object *o;
	size_t used;
	int rc;

	*obj = NULL;
	for (;;) {
		if (r->off == r->len) {
			rc = refill(r, err, len);
			if (rc <= 0)
				return rc;
			continue;
		}
		if (!r->in_obj) {
			rc = start_report(r, err, len);
			if (rc < 0)
				return -1;
			if (!rc)
				continue;
		}
		if (r->obj_bytes > (size_t)REPLAY_MAX_REPORT_MIB << 20) {
			error_set(err, len,
				 "line %ld: the report that starts here is larger than %d MiB, more than tdbpf report reads (it holds a report whole, at many times its size); split the run into intervals (-I) when recording",
				 r->obj_line, REPLAY_MAX_REPORT_MIB);
			return -1;
		}
		/* json-c (0.16) drops what it could not allocate, silently */
		errno = 0;
		o = json_tokener_parse_ex(r->tok, r->buf + r->off,
					  (int)(r->len - r->off));
		je = json_tokener_get_error(r->tok);
		used = json_tokener_get_parse_end(r->tok);
		r->obj_bytes += used;
		if (errno == ENOMEM)
			return out_of_memory(r, o, err, len);
		count_lines(r, used, je == json_tokener_success);
		if (je == json_tokener_continue)
			continue;
		if (je != json_tokener_success) {
			error_set(err, len,
				 "line %ld: not a tdbpf JSON recording (%s); give a file written by tdbpf -j",
				 r->line, json_tokener_error_desc(je));
			return -1;
		}
		json_tokener_reset(r->tok);
		r->in_obj = false;
		*obj = o;
		*line = r->obj_line;
		*multiline = r->multiline;
		return 1;
	}
}
