// SPDX-License-Identifier: GPL-2.0
/* Several hosts' reports as one graph (fleet.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/fleet.h"
#include "sums/waits.h"
#include "support/error.h"

static const char unresolved_note[] =
	"unresolved endpoint: no host's report has a socket for it (is that host's tdbpf running, and in the join?)";

static __u32 fleet_tid(int host, __u32 tid)
{
	return (__u32)host * FLEET_TID_STRIDE + tid;
}

static double secs(__u64 ns)
{
	return (double)ns / 1e9;
}

static bool same_plan(const struct event_plan *a, const struct event_plan *b)
{
	int i;

	if (a->model != b->model || a->level != b->level || a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->ev[i] != b->ev[i])
			return false;
	return true;
}

static const char *model_name(const struct event_plan *p)
{
	return p->model ? p->model->name : "none";
}

int fleet_check(const struct host_report *h, int n, char *err, size_t len)
{
	int i, j;
	size_t r;

	if (n > FLEET_MAX_HOSTS) {
		error_set(err, len, "%d reports; join at most %d hosts at once",
			 n, FLEET_MAX_HOSTS);
		return -1;
	}
	for (i = 0; i < n; i++)
		for (r = 0; r < h[i].tasks.nr; r++)
			if (!tasks_row(&h[i].tasks, r)->tid) {
				error_set(err, len,
					 "%s: the report folds threads by name (--per-name); join reports written without --per-name",
					 h[i].source);
				return -1;
			}
	for (i = 1; i < n; i++) {
		const struct host_report *a = &h[0], *b = &h[i];
		__u64 lo = a->duration_ns < b->duration_ns ? a->duration_ns :
							      b->duration_ns;
		__u64 hi = a->duration_ns ^ b->duration_ns ^ lo;

		if (!same_plan(&a->plan, &b->plan)) {
			error_set(err, len,
				 "%s (model %s, level %d) and %s (model %s, level %d) count different events; trace every host with the same --model, -l and -e",
				 a->source, model_name(&a->plan), a->plan.level,
				 b->source, model_name(&b->plan), b->plan.level);
			return -1;
		}
		if ((double)hi > 1.2 * (double)lo) {
			error_set(err, len,
				 "%s covers %.1f s and %s %.1f s: not the same window; join reports of one window (the same -d, started together)",
				 a->source, secs(a->duration_ns), b->source,
				 secs(b->duration_ns));
			return -1;
		}
		if (a->end_ns && b->end_ns) {
			__u64 sa = a->end_ns - a->duration_ns;
			__u64 sb = b->end_ns - b->duration_ns;
			__u64 s = sa > sb ? sa : sb;
			__u64 e = a->end_ns < b->end_ns ? a->end_ns : b->end_ns;

			/* clock skew moves a window by the skew: half slack */
			if (e <= s || e - s < lo / 2) {
				error_set(err, len,
					 "%s and %s cover windows %.0f s apart (by their hosts' clocks): not the same window; join reports of one run",
					 a->source, b->source,
					 secs(a->end_ns > b->end_ns ?
						      a->end_ns - b->end_ns :
						      b->end_ns - a->end_ns));
				return -1;
			}
		}
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (!strcmp(h[i].name, h[j].name)) {
				error_set(err, len,
					 "%s and %s both come from host '%s'; name them apart with --host NAME=FILE",
					 h[i].source, h[j].source, h[i].name);
				return -1;
			}
	return 0;
}

static size_t row_index(const struct task_table *t, const struct task_row *r)
{
	return (size_t)((const char *)r - t->mem) / t->row_size;
}

/* Room for @n labels and hosts by row. */
static int grow_rows(struct fleet *f, size_t n)
{
	int *h = realloc(f->host_of, n * sizeof(*h));
	char (*l)[GRAPH_NAME_LEN];

	if (!h)
		return -ENOMEM;
	f->host_of = h;
	l = realloc(f->label, n * sizeof(*l));
	if (!l)
		return -ENOMEM;
	f->label = l;
	return 0;
}

/*
 * Process @pid's name: its leader's row, else (a report whose leader row
 * is gone: it exited, or a filter left it out) the name its sockets were
 * listed under, else its pid.
 */
static const char *process_name(const struct host_report *h, __u32 pid,
				char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < h->tasks.nr; i++) {
		const struct task_row *r = tasks_row(&h->tasks, i);

		if (r->tid == pid)
			return r->comm;
	}
	for (i = 0; i < h->flows.nr; i++)
		if (h->flows.v[i].pid == pid && h->flows.v[i].comm[0])
			return h->flows.v[i].comm;
	snprintf(buf, len, "pid %u", pid);
	return buf;
}

static int copy_rows(struct fleet *f, int hi)
{
	const struct host_report *h = &f->hosts[hi];
	size_t i, idx;

	for (i = 0; i < h->tasks.nr; i++) {
		const struct task_row *src = tasks_row(&h->tasks, i);
		__u32 tid = fleet_tid(hi, src->tid);
		struct task_row *dst = tasks_get(&f->tasks, tid);
		char pbuf[32];

		if (!dst || tasks_copy_row(&f->tasks, dst, &h->tasks, src))
			return -ENOMEM;
		/*
		 * The row's own waker slots (a report's "waits", by its
		 * host's tids) out: join_edges() adds the same waits from
		 * graph.edges, moved into the fleet's tids and resolved
		 * across hosts; kept, each wait would count twice
		 */
		dst->w_nr = 0;
		dst->tid = tid;
		idx = row_index(&f->tasks, dst);
		if (grow_rows(f, f->tasks.nr))
			return -ENOMEM;
		f->host_of[idx] = hi;
		/* the thread by its whole name where its report has one */
		snprintf(f->label[idx], sizeof(f->label[idx]), "%.58s/%.17s/%.64s",
			 h->name,
			 h->pcomm ? h->pcomm[i] :
				    process_name(h, src->pid, pbuf,
						 sizeof(pbuf)),
			 task_name(src));
	}
	return 0;
}

/* The pid of @h's task @tid; 0 when the report does not list it. */
static __u32 pid_of(const struct fleet *f, int hi, __u32 tid)
{
	const struct task_row *r = tasks_find(&f->tasks, fleet_tid(hi, tid));

	return r ? r->pid : 0;
}

/*
 * The task of process @pid on host @k at the far end of the flow whose
 * end there is @far: the thread that waits on that flow itself, else
 * the one that ran most. 0: none listed.
 */
static __u32 task_at(const struct fleet *f, int k, __u32 pid,
		     const struct flow_end *far)
{
	const struct host_report *h = &f->hosts[k];
	__u64 best = 0;
	__u32 tid = 0;
	size_t i;

	for (i = 0; i < h->nr_edges; i++) {
		const struct host_edge *e = &h->edges[i];

		if (e->remote && flow_end_eq(&e->endpoint, far) &&
		    pid_of(f, k, e->wakee_tid) == pid && e->wait_ns >= best) {
			best = e->wait_ns;
			tid = e->wakee_tid;
		}
	}
	if (tid)
		return fleet_tid(k, tid);
	for (i = 0; i < h->tasks.nr; i++) {
		const struct task_row *r = tasks_row(&h->tasks, i);

		if (r->pid == pid && (!tid || r->sched.on_cpu_ns >= best)) {
			best = r->sched.on_cpu_ns;
			tid = r->tid;
		}
	}
	return tid ? fleet_tid(k, tid) : 0;
}

/* The row standing for an endpoint no report has: made once per address. */
static __u32 endpoint_row(struct fleet *f, const struct flow_end *ep)
{
	char addr[FLOW_END_STR], label[GRAPH_NAME_LEN];
	__u32 base = fleet_tid(f->nr_hosts, 0);
	struct task_row *r;
	size_t i, idx;

	flow_end_str(ep, addr, sizeof(addr));
	snprintf(label, sizeof(label), "unresolved %s", addr);
	for (i = 0; i < f->nr_endpoints; i++) {
		r = tasks_find(&f->tasks, base + (__u32)i + 1);
		if (r && !strcmp(f->label[row_index(&f->tasks, r)], label))
			return r->tid;
	}
	r = tasks_get(&f->tasks, base + (__u32)++f->nr_endpoints);
	if (!r)
		return 0;
	snprintf(r->comm, sizeof(r->comm), "unresolved");
	r->nr_tasks = 1;
	idx = row_index(&f->tasks, r);
	if (grow_rows(f, f->tasks.nr))
		return 0;
	f->host_of[idx] = f->nr_hosts;
	snprintf(f->label[idx], sizeof(f->label[idx]), "%s", label);
	return r->tid;
}

/*
 * The waker of @e, a wait of host @hi's task on the far end @e->endpoint
 * of a flow: see fleet.h. 0 only when out of memory.
 */
static __u32 resolve(struct fleet *f, int hi, const struct host_edge *e)
{
	const struct host_report *h = &f->hosts[hi];
	const struct flow_end *local = NULL;
	__u32 pid = pid_of(f, hi, e->wakee_tid), tid;
	size_t i;
	int k, pass;

	for (i = 0; i < h->flows.nr; i++)
		if (h->flows.v[i].pid == pid &&
		    flow_end_eq(&h->flows.v[i].remote, &e->endpoint))
			local = &h->flows.v[i].local;
	/* the flow reversed; without the wakee's own half, its far end */
	for (pass = local ? 0 : 1; pass < 2; pass++)
		for (k = 0; k < f->nr_hosts; k++) {
			const struct flow_table *ft = &f->hosts[k].flows;

			for (i = 0; i < ft->nr; i++) {
				const struct sock_flow *s = &ft->v[i];

				if (s->state != FLOW_ESTABLISHED ||
				    !flow_end_eq(&s->local, &e->endpoint) ||
				    (!pass && !flow_end_eq(&s->remote, local)))
					continue;
				tid = task_at(f, k, s->pid, &s->remote);
				if (tid) {
					if (k != hi)
						f->nr_joined++;
					return tid;
				}
			}
		}
	return endpoint_row(f, &e->endpoint);
}

static int add_wait(struct fleet *f, __u32 wakee, unsigned int kind,
		    __u32 waker, const struct host_edge *e)
{
	struct tdbpf_wait one = { .kind = kind, .tid = waker,
				  .wakeups = e->wakeups,
				  .wait_ns = e->wait_ns };
	struct task_row *r = tasks_find(&f->tasks, wakee);

	if (!r)
		return -ENOMEM;
	return tasks_add_waits(&f->tasks, r, &one, 1);
}

static int join_edges(struct fleet *f, int hi)
{
	const struct host_report *h = &f->hosts[hi];
	size_t i;

	for (i = 0; i < h->nr_edges; i++) {
		const struct host_edge *e = &h->edges[i];
		__u32 wakee = fleet_tid(hi, e->wakee_tid), waker;
		unsigned int kind = e->kind;

		if (!tasks_find(&f->tasks, wakee)) {
			f->nr_edges_dropped++;
			continue;
		}
		if (e->remote) {
			waker = resolve(f, hi, e);
			if (!waker)
				return -ENOMEM;
			kind = TDBPF_WAKER_TASK;
		} else if (e->waker_tid) {
			waker = fleet_tid(hi, e->waker_tid);
			/* a task this report does not list: another process */
			if (!tasks_find(&f->tasks, waker)) {
				waker = 0;
				kind = TDBPF_KIND_HOLDS(kind) ?
					       TDBPF_HOLDER_OTHER :
					       TDBPF_WAKER_PROCESS;
			}
		} else {
			waker = 0;
		}
		if (add_wait(f, wakee, kind, waker, e))
			return -ENOMEM;
	}
	return 0;
}

int fleet_join(struct fleet *f, const struct host_report *h, int n)
{
	int i, err = 0;

	memset(f, 0, sizeof(*f));
	f->hosts = h;
	f->nr_hosts = n;
	tasks_init(&f->tasks);
	err = tasks_set_layout(&f->tasks, n ? h[0].plan.nr : 0, true);
	f->cluster = calloc(n ? (size_t)n : 1, sizeof(*f->cluster));
	if (!f->cluster)
		err = -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		f->cluster[i] = h[i].name;
		err = copy_rows(f, i);
	}
	/* every host's rows first: an edge may lead to any of them */
	for (i = 0; i < n && !err; i++)
		err = join_edges(f, i);
	if (err)
		fleet_free(f);
	return err;
}

void fleet_name_graph(const struct fleet *f, struct graph *g)
{
	int i;

	g->clusters = f->cluster;
	g->nr_clusters = f->nr_hosts;
	for (i = 0; i < g->nr_nodes; i++) {
		struct graph_node *n = &g->nodes[i];
		const struct task_row *r = tasks_find(&f->tasks, n->tid);
		size_t idx;

		if (!r)
			continue;
		idx = row_index(&f->tasks, r);
		snprintf(n->name, sizeof(n->name), "%s", f->label[idx]);
		if (f->host_of[idx] < f->nr_hosts) {
			n->cluster = f->host_of[idx] + 1;
		} else {
			n->cluster = 0;
			n->note = unresolved_note;
		}
	}
}

void fleet_free(struct fleet *f)
{
	tasks_free(&f->tasks);
	free(f->host_of);
	free(f->label);
	free(f->cluster);
	memset(f, 0, sizeof(*f));
}
