// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output, streamed: one document, each task decoded and written in
 * turn, so that 10,000 tasks never sit in memory as one tree.
 *
 * {
 *   "model": "software", "level": 0, "smt": false,
 *   "duration_ns": 5000000000,
 *   "interval": 3,                 only in interval reports (-I)
 *   "lost": { "map_full": 0, "read_errors": 0,
 *             "unseen_switch_ins": 0, "wakers", "wakeups_missed",
 *             "sockets_unresolved": socket wakes whose peer was not
 *             told, "sockets_evicted": flows pushed out of the socket
 *             registry (--sock-max) },  slices charged whose switch-in
 *                                  no sched_switch event showed: their
 *                                  counts are extrapolated (uncounted_ns)
 *   "nr_total": 14,                tasks before --top
 *   "nr_processes": 3,             processes those tasks are of
 *   "host": "db-3",                the tracing host's name (gethostname;
 *                                  tdbpf graph names its nodes by it)
 *   "end_ns": integer,             CLOCK_REALTIME when the report was
 *                                  read: its window is the duration_ns
 *                                  before (tdbpf graph checks that
 *                                  hosts' windows agree)
 *   "graph": {                     with wakeups traced (docs/graph.md):
 *     "blocked_ns",                the blocked tasks' time that led
 *                                  to some task (the shares' whole),
 *     "sampled": { "scale": 10,    sampled: the windows are 1/scale
 *       "windows_ns",              of the time (their time so far);
 *       "wakeups_seen" },          the wakeups seen in them (the
 *                                  sample's size) share out each task's
 *                                  exact blocked and run-queue time
 *     "edges": [ { "waker_tid", "waker_comm", "kind" ("wakeup": the
 *                  waker ended blocked time; "cpu": it held the CPU the
 *                  wakee waited for, run-queue time; waker_tid a
 *                  holder's outside the targets), "wakee_tid",
 *                  "wakee_comm", "wakeups", "wait_ns",
 *                  "longest_wait_ns": the longest of the waits, when
 *                  known (0 not: an interval's that did not grow),
 *                  "waker_pid": a socket's peer in another process,
 *                  "endpoint": "ip:port", a peer on another host or
 *                  network namespace } ],
 *     "bottleneck": [ { "tid", "comm", "nr_tasks", "hot_tid" and
 *                  "hot_comm" (--per-name, a node of several: its task
 *                  of most on-CPU + run-queue time), "share" (of
 *                  blocked_ns, 0..1), "busy" (of its time not waiting
 *                  on a task, 0..1), "sources", "reason" } ] best first,
 *                  (a node's comm, waker_comm and wakee_comm are the
 *                  names it shows: a task's whole name where it has one)
 *     "tied": the first N candidates too close to tell apart,
 *     "names": [ { "tid", "comm" } ], "cpu_limits": [ { "tid",
 *                  "limit" } ]     what the live run looked up for the
 *                                  verdict's reasons (a CPU holder
 *                                  outside the targets, a cgroup's CPU
 *                                  limit), so that a replay says the same
 *   },
 *   "sockets": [ { "pid", "comm",  with wakeups traced: the traced
 *                  "proto": "tcp"|"udp", processes' sockets, each one
 *                  "state": "established"|"listen", half of a flow
 *                  "local": "ip:port", as this host sees it (the other
 *                  "remote": "ip:port" } ], side sees it reversed;
 *                                  docs/graph.md, "Across hosts")
 *   "groups": [ [EVENT, ...] ],    the counter groups as programmed,
 *                                  leader first; their concatenation is
 *                                  the order of "values" below
 *   "not_supported": [ { "event", "reason" } ]  only when some -e event
 *                                  is one this machine cannot count
 *                                  (perf's <not supported>): a group of
 *                                  its own, its "counters" value null
 *   "tasks": [ {
 *     "tid": 1234, "pid": 1230,    tid 0 for a folded row of several
 *     "comm": "worker-1",          tasks, pid 0 when they differ
 *     "name": "Map -> Filter (2/3)#0",  only where a runtime names the
 *                                  task longer than its comm (a JVM's
 *                                  thread name; folded: joined)
 *     "cgroup": "/docker/ID",      its process's, when known (read once)
 *     "container_id": ID,          64 hex digits, "container_runtime"
 *     "pod_uid": UID,              and the pod's: only when the cgroup
 *                                  path names them (sources/cgroup_path.h)
 *     "on_cpu_ns", "runq_wait_ns", "off_cpu_ns": integers,
 *     "switches": voluntary + involuntary,
 *     "voluntary", "involuntary", "migrations": integers,
 *     "exited": bool,
 *     "nr_tasks": N,               only for folded rows (--per-name)
 *     "uncounted_ns": integer,     on-CPU time in slices whose switch-in
 *                                  was unseen (running at attach, or a
 *                                  switch the kernel did not trace): no
 *                                  counter was read for it; it lowers
 *                                  coverage as multiplexing does
 *     "window_gap_ns": integer,    on-CPU time the kernel charged outside
 *                                  the windows the counters counted
 *                                  (switch-in to switch-out tracepoint),
 *                                  signed: > 0 for a task whose slices
 *                                  it dates from the wakeup that queued
 *                                  it, < 0 for one whose last moments it
 *                                  charges to a wakee that preempted it;
 *                                  0 without counters (docs/accuracy.md)
 *     "softirq_ns": integer,       softirqs run while it was current
 *                                  (--wakeups; part of on_cpu_ns)
 *     "coverage": 0..1,            min running/enabled over the groups,
 *                                  6 decimals
 *     "low_coverage": bool,
 *     "sched": "-" | "CPU-starved" | "blocked" | "idle",
 *     "counters": { EVENT: scaled count, in the event's raw unit
 *                   (cpu-clock in ns), to the nearest whole count; null
 *                   when never counted },
 *     "raw": { "values": [ ... ],  per event, in "groups" order,
 *              "enabled": [ ... ], per group: the leader's times,
 *              "running": [ ... ] },  which its members share
 *                                  the unscaled sums every other number
 *                                  of the task is derived from, so that
 *                                  `tdbpf report` decodes a recording
 *                                  exactly as the live run did
 *     "metrics": { tma_NAME: percent (value * 100, not clamped), to 6
 *                  decimals; null when not computable }
 *                                  only when the model decodes,
 *     "bottleneck": what the table's BOTTLENECK column says,
 *     "waits_on": [ { "tid", "comm", "kind", "wait_ns", "wakeups", "pid"
 *                  of a socket's peer not traced } ] largest
 *                  first, with wakeups traced
 *     "waits": [ [kind, tid, tgid, wakeups, wait_ns, longest_us] ]  with wakeups
 *                                  traced: the task's waker slots as
 *                                  summed (kind: enum tdbpf_waker_kind),
 *                                  which `tdbpf report` builds the graph
 *                                  from again, as the live run did
 *   } ]
 * }
 *
 * Pretty (-j) puts one member per line, indented by depth; interval
 * reports (-I) put the whole document on one line.
 *
 * Thread names can hold any byte, and JSON must be valid UTF-8: each
 * byte that does not belong to a valid UTF-8 sequence becomes U+FFFD,
 * control characters are escaped. NaN and infinities have no JSON
 * spelling: they become null. A scaled count is an extrapolation and a
 * metric a ratio of such counts: printing them to 17 digits would claim a
 * precision they do not have, and formatting every double so (about 1 us
 * each) made a report of 10,000 multiplexed tasks take over a second.
 * So counts print rounded to whole counts and fractions to 6 decimals,
 * both exactly as printf's "%.0f" and "%.6f" round (fmt_fixed()), the
 * fractions without trailing zeros. Counts past 2^53, where a double no
 * longer holds every integer, print with the fewest of 15 to 17
 * significant digits that read back as the same double. `tdbpf decode
 * -j` keeps every metric's exact value (jw_double()). tdbpf never calls
 * setlocale(): the decimal point is '.'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/graph.h"
#include "analysis/report.h"
#include "analysis/report_ahead.h"
#include "outputs/sink.h"
#include "sums/cgroups.h"
#include "sums/flows.h"
#include "support/array.h"
#include "support/json.h"

/* the waker's keys: plain in a task's waits_on, prefixed in the graph */
struct waker_keys {
	const char *tid, *comm, *pid;
};

static const struct waker_keys waits_on_keys = { "tid", "comm", "pid" };
static const struct waker_keys edge_keys = { "waker_tid", "waker_comm",
					     "waker_pid" };

/*
 * An edge's waker: tid, comm and kind, "cpu" for a hold (run-queue time
 * while the waker held the CPU); pid for a socket's peer in a process
 * outside the graph. The keys are constants: this runs per edge of each
 * of 10,000 tasks, where formatting them showed in a profile.
 */
static void write_waker(struct jw *w, const struct graph *g,
			const struct graph_edge *e, const struct waker_keys *k)
{
	jw_u64(w, k->tid, e->waker >= 0 ? g->nodes[e->waker].tid : e->ext_tid);
	jw_str(w, k->comm, graph_waker_name(g, e));
	jw_str(w, "kind", graph_edge_holds(e) ? "cpu" : "wakeup");
	if (e->ext_pid)
		jw_u64(w, k->pid, e->ext_pid);
}

/* A task's waits by waker, largest first (the graph's node of @r). */
static void write_waits_on(struct jw *w, const struct report *rep,
			   const struct task_row *r)
{
	const struct graph *g = rep->graph;
	int n = graph_node_of(g, r), i;

	jw_open(w, "waits_on", '[');
	for (i = 0; n >= 0 && i < g->nodes[n].nr_in; i++) {
		const struct graph_edge *e = &g->edges[g->nodes[n].first_in + i];

		jw_open(w, NULL, '{');
		write_waker(w, g, e, &waits_on_keys);
		jw_u64(w, "wait_ns", e->wait_ns);
		jw_u64(w, "wakeups", e->wakeups);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/* A task's waker slots as summed: what a replay builds the graph from. */
static void write_waits(struct jw *w, const struct report *rep,
			const struct task_row *r)
{
	const struct tdbpf_wait *ws;
	uint64_t v[6];
	int n, i;

	if (!rep->tasks || !rep->tasks->waits)
		return;
	ws = tasks_waits(rep->tasks, r, &n);
	jw_open(w, "waits", '[');
	for (i = 0; i < n; i++) {
		/* an interval's slot with nothing new says nothing */
		if (ws[i].kind == TDBPF_WAKER_NONE ||
		    (!ws[i].wakeups && !ws[i].wait_ns))
			continue;
		v[0] = ws[i].kind;
		v[1] = ws[i].tid;
		v[2] = ws[i].tgid;
		v[3] = ws[i].wakeups;
		v[4] = ws[i].wait_ns;
		v[5] = ws[i].longest_us;
		jw_u64_list(w, NULL, v, 6, sizeof(v[0]));
	}
	jw_close(w, ']');
}

/*
 * The names the verdict's reasons looked up outside the graph (the
 * holders of ranked nodes' CPUs, their cgroups' limits): a replay has
 * no /proc of the run to ask.
 */
static void write_names(struct jw *w, const struct report *rep)
{
	const struct graph *g = rep->graph;
	char buf[640];
	const char *s;
	int i, j, pass;

	for (pass = 0; pass < 2; pass++) {
		jw_open(w, pass ? "cpu_limits" : "names", '[');
		for (i = 0; i < rep->nr_verdict; i++) {
			const struct graph_node *n = &g->nodes[rep->verdict[i].node];

			for (j = 0; j < n->nr_in; j++) {
				const struct graph_edge *e =
					&g->edges[n->first_in + j];
				__u32 tid = pass ? n->tid : e->ext_tid;

				if (e->kind != (pass ? TDBPF_HOLDER_LIMIT :
						       TDBPF_HOLDER_OTHER) ||
				    !tid)
					continue;
				s = pass ? graph_cpu_limit(g, tid, buf,
							   sizeof(buf)) :
					   graph_tid_name(g, tid, buf,
							  sizeof(buf));
				if (!s)
					continue;
				jw_open(w, NULL, '{');
				jw_u64(w, "tid", tid);
				jw_str(w, pass ? "limit" : "comm", s);
				jw_close(w, '}');
			}
		}
		jw_close(w, ']');
	}
}

/* The traced processes' sockets: the halves of their flows. */
static void write_sockets(struct jw *w, const struct flow_table *t)
{
	char buf[FLOW_END_STR];
	size_t i;

	jw_open(w, "sockets", '[');
	for (i = 0; i < t->nr; i++) {
		const struct sock_flow *f = &t->v[i];

		jw_open(w, NULL, '{');
		jw_u64(w, "pid", f->pid);
		jw_str(w, "comm", f->comm);
		jw_str(w, "proto", f->proto);
		jw_str(w, "state", flow_state_str(f->state));
		flow_end_str(&f->local, buf, sizeof(buf));
		jw_str(w, "local", buf);
		flow_end_str(&f->remote, buf, sizeof(buf));
		jw_str(w, "remote", buf);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/* The wait-for graph: every edge, and the candidates best first. */
static const char *const edge_counts[] = {
	"wakeups", "wait_ns", "longest_wait_ns",
};

static void write_graph(struct jw *w, const struct report *rep)
{
	const struct graph *g = rep->graph;
	const struct span_row *sp;
	struct waker_share ws;
	double share;
	int i;

	jw_open(w, "graph", '{');
	jw_u64(w, "blocked_ns", (uint64_t)g->blocked_ns);
	if (rep->lost.wake_scale) {
		jw_obj(w, "sampled");
		jw_u64(w, "scale", rep->lost.wake_scale);
		jw_u64(w, "windows_ns", rep->lost.sampled_ns);
		jw_u64(w, "wakeups_seen", rep->lost.sampled_wakeups);
		jw_obj_end(w);
	}
	jw_open(w, "edges", '[');
	for (i = 0; i < g->nr_edges; i++) {
		const struct graph_edge *e = &g->edges[i];
		const struct graph_node *to = &g->nodes[e->wakee];
		const uint64_t c[ARRAY_SIZE(edge_counts)] = {
			e->wakeups, e->wait_ns, e->longest_ns,
		};

		jw_open(w, NULL, '{');
		write_waker(w, g, e, &edge_keys);
		if (e->ext_name[0])
			jw_str(w, "endpoint", e->ext_name);
		jw_u64(w, "wakee_tid", to->tid);
		jw_str(w, "wakee_comm", to->name);
		jw_u64s(w, edge_counts, c, ARRAY_SIZE(c));
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "bottleneck", '[');
	for (i = 0; i < rep->nr_verdict; i++) {
		const struct graph_node *n = &g->nodes[rep->verdict[i].node];

		jw_open(w, NULL, '{');
		jw_u64(w, "tid", n->tid);
		jw_str(w, "comm", n->name);
		jw_int(w, "nr_tasks", n->nr_tasks);
		if (!n->tid && n->hot_tid) {
			jw_u64(w, "hot_tid", n->hot_tid);
			jw_str(w, "hot_comm", n->hot_name);
		}
		jw_num(w, "share", graph_share(g, rep->verdict[i].node), 6);
		jw_num(w, "busy", n->busy, 6);
		jw_int(w, "sources", n->nr_sources);
		jw_str(w, "reason", rep->verdict[i].reason);
		if (rep->verdict[i].alone)
			jw_bool(w, "alone", true);
		sp = report_top_span(rep, rep->verdict[i].node, &share);
		if (sp) {
			jw_str(w, "span", sp->name);
			jw_num(w, "span_share", share, 6);
			jw_str(w, "span_of",
			       report_span_blocked(rep, rep->verdict[i].node) ?
				       "blocked" : "on_cpu");
		}
		sp = rep->verdict[i].alone ? NULL :
			report_waker_span(rep, rep->verdict[i].node, &ws);
		if (sp) {
			jw_str(w, "waker_span", sp->name);
			jw_num(w, "waker_span_of_spans", ws.of_spans, 6);
			if (!isnan(ws.of_all))
				jw_num(w, "waker_span_share", ws.of_all, 6);
		}
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_int(w, "tied", g->nr_tied);
	write_names(w, rep);
	jw_close(w, '}');
}

/*
 * The sums before scaling. Members of a group are scaled with their
 * leader's times (report.c), so one enabled/running pair per group is
 * all a reader needs to redo the decode.
 */
static void write_raw(struct jw *w, const struct event_plan *p,
		      const struct task_row *r)
{
	uint64_t t[MODEL_MAX_GROUPS];
	int n = p->nr < TDBPF_MAX_EVENTS ? p->nr : TDBPF_MAX_EVENTS, g;

	jw_obj(w, "raw");
	jw_u64_list(w, "values", &r->ctr[0].value, (size_t)n,
		    sizeof(r->ctr[0]));
	for (g = 0; g < p->nr_groups && g < MODEL_MAX_GROUPS; g++)
		t[g] = r->ctr[p->leader[g]].enabled;
	jw_u64_list(w, "enabled", t, (size_t)g, sizeof(t[0]));
	for (g = 0; g < p->nr_groups && g < MODEL_MAX_GROUPS; g++)
		t[g] = r->ctr[p->leader[g]].running;
	jw_u64_list(w, "running", t, (size_t)g, sizeof(t[0]));
	jw_obj_end(w);
}

/* The plan's groups by event name, in slot order (raw's order). */
static void write_groups(struct jw *w, const struct event_plan *p)
{
	int s, g = -1;

	jw_arr(w, "groups");
	for (s = 0; s < p->nr && s < TDBPF_MAX_EVENTS; s++) {
		if (p->group[s] != g) {
			if (g >= 0)
				jw_arr_end(w);
			g = p->group[s];
			jw_arr(w, NULL);
		}
		jw_str(w, NULL, p->evd[s]->name);
	}
	if (g >= 0)
		jw_arr_end(w);
	jw_arr_end(w);
}

/*
 * The -e events this machine could not count (perf's <not supported>):
 * their "counters" are null, and here is why, so that a reader (and a
 * replay) tells them from an event that was counted but never ran.
 */
static void write_unsupported(struct jw *w, const struct event_plan *p)
{
	int s, n = 0;

	for (s = 0; s < p->nr && s < TDBPF_MAX_EVENTS; s++)
		n += p->evd[s]->kind == EV_UNSUP;
	if (!n)
		return;
	jw_arr(w, "not_supported");
	for (s = 0; s < p->nr && s < TDBPF_MAX_EVENTS; s++) {
		if (p->evd[s]->kind != EV_UNSUP)
			continue;
		jw_obj(w, NULL);
		jw_str(w, "event", p->evd[s]->name);
		jw_str(w, "reason", p->evd[s]->why ? p->evd[s]->why : "");
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

/* A task's own members, in the order written (keyed once per report). */
enum task_key {
	K_TID, K_PID, K_COMM, K_NAME, K_CGROUP, K_CONTAINER, K_RUNTIME,
	K_POD, K_ON, K_RUNQ, K_OFF, K_SWITCHES, K_VOL, K_INVOL,
	K_MIGR, K_EXITED, K_NR_TASKS, K_UNCOUNTED, K_GAP, K_SOFTIRQ,
	K_COVERAGE, K_LOW,
	K_SCHED,
	K_COUNTERS, K_METRICS, K_BOTTLENECK, K_NR
};

static const char *const task_keys[K_NR] = {
	[K_TID] = "tid", [K_PID] = "pid", [K_COMM] = "comm",
	[K_NAME] = "name",
	[K_CGROUP] = "cgroup", [K_CONTAINER] = "container_id",
	[K_RUNTIME] = "container_runtime", [K_POD] = "pod_uid",
	[K_ON] = "on_cpu_ns", [K_RUNQ] = "runq_wait_ns",
	[K_OFF] = "off_cpu_ns", [K_SWITCHES] = "switches",
	[K_VOL] = "voluntary", [K_INVOL] = "involuntary",
	[K_MIGR] = "migrations", [K_EXITED] = "exited",
	[K_NR_TASKS] = "nr_tasks", [K_UNCOUNTED] = "uncounted_ns",
	[K_GAP] = "window_gap_ns",
	[K_SOFTIRQ] = "softirq_ns",
	[K_COVERAGE] = "coverage", [K_LOW] = "low_coverage",
	[K_SCHED] = "sched", [K_COUNTERS] = "counters",
	[K_METRICS] = "metrics", [K_BOTTLENECK] = "bottleneck",
};

/* The report's member names, and their prefixes once first used. */
struct json_ctx {
	const struct event_plan *plan;
	const char *ctr_names[TDBPF_MAX_EVENTS];
	int ctr_slot[TDBPF_MAX_EVENTS];	/* the plan slot of each */
	int nr_ctr;
	const char *node_names[MODEL_MAX_NODES];
	int node_idx[MODEL_MAX_NODES];
	int nr_node;
	struct jw_keys task, ctr, node;
	bool built_task, built_ctr, built_node, failed;
};

/*
 * Key @k's prefix, built on first use at the depth it is used (out of
 * memory: false, and the caller writes the member the slow way).
 */
static bool keyed(struct jw *w, struct json_ctx *x, struct jw_keys *keys,
		  bool *built, const char *const *names, int n)
{
	if (!*built && !x->failed) {
		x->failed = jw_keys_build(keys, w, names, n) != 0;
		*built = !x->failed;
	}
	return *built;
}

/* @v's @n numbers under @names, through their prefixes once built */
static void keyed_nums(struct jw *w, struct json_ctx *x, struct jw_keys *keys,
		       bool *built, const char *const *names, const double *v,
		       int n, int prec)
{
	int i;

	if (keyed(w, x, keys, built, names, n)) {
		jw_nums_keyed(w, keys, v, n, prec);
		return;
	}
	for (i = 0; i < n; i++)
		jw_num(w, names[i], v[i], prec);
}

/* jw_member(), from the prefixes when they are there */
static inline void task_member(struct jw *w, const struct json_ctx *x,
			       enum task_key k)
{
	if (x->built_task)
		jw_key(w, &x->task, k);
	else
		jw_member(w, task_keys[k]);
}

static void task_u64(struct jw *w, const struct json_ctx *x,
		     enum task_key k, uint64_t v)
{
	task_member(w, x, k);
	ob_u64(&w->o, v, 0);
}

static void task_bool(struct jw *w, const struct json_ctx *x,
		      enum task_key k, bool v)
{
	task_member(w, x, k);
	ob_puts(&w->o, v ? "true" : "false");
}

static void task_str(struct jw *w, const struct json_ctx *x,
		     enum task_key k, const char *v)
{
	task_member(w, x, k);
	jw_string(w, v);
}

/* jw_obj(@w, key @k): the member, then the brace opened */
static void task_obj(struct jw *w, const struct json_ctx *x,
		     enum task_key k)
{
	task_member(w, x, k);
	ob_putc(&w->o, '{');
	w->depth++;
	w->first = true;
}

/* The cgroup of @r's process and its container and pod, where known. */
static void write_cgroup(struct jw *w, const struct json_ctx *x,
			 const struct report *rep, const struct task_row *r)
{
	const struct task_cgroup *c;

	c = rep->cgroups ? cgroups_find(rep->cgroups, r->pid) : NULL;
	if (!c || !c->path[0])
		return;
	task_str(w, x, K_CGROUP, c->path);
	if (c->id[0]) {
		task_str(w, x, K_CONTAINER, c->id);
		task_str(w, x, K_RUNTIME, c->runtime);
	}
	if (c->pod[0])
		task_str(w, x, K_POD, c->pod);
}

static void write_task(struct jw *w, struct json_ctx *x,
		       const struct report *rep, const struct task_decoded *d)
{
	const struct task_row *r = d->row;
	/* a task's counters, then its metrics, in the order written */
	double v[TDBPF_MAX_EVENTS > MODEL_MAX_NODES ? TDBPF_MAX_EVENTS :
						      MODEL_MAX_NODES];
	int s, i;

	jw_obj(w, NULL);
	keyed(w, x, &x->task, &x->built_task, task_keys, K_NR);
	task_u64(w, x, K_TID, r->tid);
	task_u64(w, x, K_PID, r->pid);
	task_str(w, x, K_COMM, r->comm);
	if (r->name)
		task_str(w, x, K_NAME, r->name);
	write_cgroup(w, x, rep, r);
	task_u64(w, x, K_ON, r->sched.on_cpu_ns);
	task_u64(w, x, K_RUNQ, r->sched.runq_wait_ns);
	task_u64(w, x, K_OFF, r->sched.off_cpu_ns);
	task_u64(w, x, K_SWITCHES, r->sched.nvcsw + r->sched.nivcsw);
	task_u64(w, x, K_VOL, r->sched.nvcsw);
	task_u64(w, x, K_INVOL, r->sched.nivcsw);
	task_u64(w, x, K_MIGR, r->sched.migrations);
	task_bool(w, x, K_EXITED, r->exited);
	if (r->nr_tasks > 1) {
		task_member(w, x, K_NR_TASKS);
		ob_i64(&w->o, r->nr_tasks);
	}
	task_u64(w, x, K_UNCOUNTED, r->sched.uncounted_ns);
	task_member(w, x, K_GAP);
	ob_i64(&w->o, r->sched.window_gap_ns);
	task_u64(w, x, K_SOFTIRQ, r->sched.softirq_ns);
	if (x->built_task)
		jw_num_keyed(w, &x->task, K_COVERAGE, d->coverage, 6);
	else
		jw_num(w, task_keys[K_COVERAGE], d->coverage, 6);
	task_bool(w, x, K_LOW, d->low_coverage);
	task_str(w, x, K_SCHED, sched_verdict_str(d->sched));

	task_obj(w, x, K_COUNTERS);
	for (s = 0; s < x->nr_ctr; s++)
		v[s] = d->ev[x->ctr_slot[s]];
	keyed_nums(w, x, &x->ctr, &x->built_ctr, x->ctr_names, v, x->nr_ctr,
		   0);
	jw_obj_end(w);
	/* -e alone too: a recording of it is replayed from these */
	if (x->plan && x->plan->nr)
		write_raw(w, x->plan, r);

	if (d->has_tma) {
		task_obj(w, x, K_METRICS);
		for (i = 0; i < x->nr_node; i++)
			v[i] = d->tma.val[x->node_idx[i]] * 100;
		keyed_nums(w, x, &x->node, &x->built_node, x->node_names, v,
			   x->nr_node, 6);
		jw_obj_end(w);
	}
	task_str(w, x, K_BOTTLENECK, d->bottleneck);
	if (rep->graph) {
		write_waits_on(w, rep, r);
		write_waits(w, rep, r);
	}
	jw_obj_end(w);
}

/*
 * --span: each span of a task shown (folded with it under --per-name),
 * as "worker-1/enrich", its sums and rates: entries per second of the
 * window and of its own on-CPU time; its counters by the plan's names.
 */
static const char *const span_counts[] = {
	"entries", "on_cpu_ns", "runq_wait_ns", "blocked_ns", "faults",
	"woke", "woke_wait_ns",
};

static void write_spans(struct jw *w, const struct report *rep)
{
	const struct event_plan *p = rep->plan;
	double secs = rep->duration_ns / 1e9;
	char name[80];
	size_t i;
	int k;

	jw_arr(w, "spans");
	for (i = 0; i < rep->spans->nr; i++) {
		const struct span_row *s = &rep->spans->row[i];
		const struct tdbpf_span_sums *v = &s->s;
		const uint64_t c[ARRAY_SIZE(span_counts)] = {
			v->entries, v->on_cpu_ns, v->runq_ns,
			span_blocked_ns(v), v->faults, v->woke, v->woke_ns,
		};
		double cpu = v->on_cpu_ns / 1e9;

		snprintf(name, sizeof(name), "%s/%s", s->comm, s->name);
		jw_obj(w, NULL);
		jw_str(w, "name", name);
		jw_str(w, "span", s->name);
		jw_u64(w, "tid", s->tid);
		jw_u64(w, "pid", s->tgid);
		jw_str(w, "comm", s->comm);
		jw_int(w, "nr_tasks", s->nr_tasks);
		jw_u64s(w, span_counts, c, ARRAY_SIZE(c));
		jw_num(w, "entries_per_s", secs > 0 ? v->entries / secs : 0, 3);
		jw_num(w, "entries_per_cpu_s", cpu > 0 ? v->entries / cpu : 0,
		       3);
		jw_obj(w, "counters");
		for (k = 0; p && k < p->nr; k++) {
			double x = span_slot(p, k, v);

			if (isfinite(x))
				jw_num(w, p->evd[k]->name, x, 0);
		}
		jw_obj_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
}

void report_write_json(FILE *f, const struct report *rep, bool line)
{
	const struct event_plan *p = rep->plan;
	const struct model *m = p ? p->model : NULL;
	struct json_ctx ctx, *x = &ctx;
	const struct task_decoded *d;
	struct report_ahead a;
	struct jw w;
	size_t k;
	int i;

	/* the members each task repeats: the plan's slots, the tree's nodes */
	memset(x, 0, sizeof(*x));
	x->plan = p;
	if (p)
		plan_display_order(p, x->ctr_slot);
	for (i = 0; p && i < p->nr && i < TDBPF_MAX_EVENTS; i++)
		x->ctr_names[x->nr_ctr++] = p->evd[x->ctr_slot[i]]->name;
	for (i = 0; m && i < m->nr_nodes && i < MODEL_MAX_NODES; i++)
		if (m->nodes[i].level <= rep->level) {
			x->node_idx[x->nr_node] = i;
			x->node_names[x->nr_node++] = m->nodes[i].name;
		}
	jw_init(&w, f, !line);
	jw_obj(&w, NULL);
	jw_str(&w, "model", p && p->model ? p->model->name : "none");
	jw_int(&w, "level", rep->level);
	jw_bool(&w, "smt", p && p->smt);
	jw_u64(&w, "duration_ns", rep->duration_ns);
	if (rep->interval >= 0)
		jw_int(&w, "interval", rep->interval);
	jw_obj(&w, "lost");
	for (k = 0; k < nr_lost_keys; k++)
		jw_u64(&w, lost_keys[k].name, lost_value(&rep->lost, k));
	jw_obj_end(&w);
	jw_int(&w, "nr_total", rep->nr_total);
	jw_int(&w, "nr_processes", rep->nr_procs);
	if (rep->host && rep->host[0])
		jw_str(&w, "host", rep->host);
	if (rep->wall_ns)
		jw_u64(&w, "end_ns", rep->wall_ns);
	if (rep->graph)
		write_graph(&w, rep);
	if (rep->graph && rep->flows)
		write_sockets(&w, rep->flows);
	if (p && p->nr) {
		write_groups(&w, p);
		write_unsupported(&w, p);
	}

	jw_arr(&w, "tasks");
	report_ahead_start(&a, rep);
	while ((d = report_ahead_next(&a)))
		write_task(&w, x, rep, d);
	report_ahead_stop(&a);
	jw_arr_end(&w);
	if (rep->spans)
		write_spans(&w, rep);
	jw_obj_end(&w);
	jw_end(&w);
	jw_keys_free(&x->task);
	jw_keys_free(&x->ctr);
	jw_keys_free(&x->node);
}

static void json_write(struct sink *s, const struct report *rep)
{
	/* a series of interval reports is JSON lines */
	report_write_json(s->f, rep, s->intervals);
}

const struct sink_ops sink_json = {
	.name = "json",
	.write = json_write,
};
