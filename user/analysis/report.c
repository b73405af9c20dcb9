// SPDX-License-Identifier: GPL-2.0
/*
 * Turn a task table into a report: sort and cut the rows, then, as a
 * writer reaches each task, scale its counter sums, measure how much of
 * its time the counter groups really counted (coverage), judge its
 * scheduling, decode its TMA tree, and pick the one line that BOTTLENECK
 * prints. The writers only format what report_decode_task() gives them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/graph.h"
#include "analysis/report.h"
#include "analysis/scale.h"
#include "support/outbuf.h"
#include "support/text.h"

static double share(__u64 part, const struct task_row *r)
{
	double life = (double)r->sched.on_cpu_ns + (double)r->sched.runq_wait_ns +
		      (double)r->sched.off_cpu_ns;

	return life > 0 ? 100.0 * (double)part / life : 0;
}

static void decode_counts(struct task_decoded *d, const struct event_plan *plan)
{
	const struct task_row *row = d->row;
	int g;

	d->coverage = 1.0;
	if (!plan)
		return;
	scale_slots(plan, row->ctr, d->ev);
	/*
	 * A group that was never enabled did not miss anything (the task
	 * did not run); it does not lower coverage.
	 */
	for (g = 0; g < plan->nr_groups; g++) {
		int l = plan->leader[g];
		const struct tdbpf_count *c;
		double cov;

		if (l < 0 || l >= plan->nr)
			continue;
		c = &row->ctr[l];
		if (!c->enabled || c->running >= c->enabled)
			continue;
		cov = (double)c->running / (double)c->enabled;
		if (cov < d->coverage)
			d->coverage = cov;
	}
	d->low_coverage = d->coverage < REPORT_MIN_COVERAGE;
}

static void decode_tma(struct task_decoded *d, const struct event_plan *plan,
		       int level)
{
	const struct model *m = plan ? plan->model : NULL;

	if (!m || m->max_level <= 0 || level <= 0)
		return;
	tma_decode_plan(plan, d->ev, level, &d->tma);
	d->has_tma = true;
}

/*
 * @s appended at @b + @len (@b holds @n bytes) as snprintf(@b + @len,
 * @n - @len, "%s", @s) would, nothing when there is no room; the length
 * snprintf() would report for the whole. Every task's verdict is built
 * from such pieces: without format parsing per piece.
 */
static int cat(char *b, size_t n, int len, const char *s)
{
	size_t sl = strlen(s), k;

	if (len >= 0 && (size_t)len < n) {
		k = n - 1 - (size_t)len;
		if (k > sl)
			k = sl;
		memcpy(b + len, s, k);
		b[len + k] = '\0';
	}
	return len + (int)sl;
}

/*
 * "@what N%)", N as "%.0f" prints @pct. Most tasks of a big process
 * sleep: printf's float conversion here was a tenth of the report time.
 */
static int with_pct(char *b, size_t n, const char *what, double pct)
{
	char num[FMT_FIXED_LEN];
	int len;

	fmt_fixed(num, sizeof(num), pct, 0);
	len = cat(b, n, 0, what);
	len = cat(b, n, len, num);
	return cat(b, n, len, "%)");
}

static void decode_bottleneck(struct task_decoded *d)
{
	const struct task_row *r = d->row;
	char *b = d->bottleneck;
	size_t n = sizeof(d->bottleneck);
	int len;

	switch (d->sched) {
	case SCHED_STARVED:
		len = with_pct(b, n, "CPU-starved (runq ",
			       share(r->sched.runq_wait_ns, r));
		break;
	case SCHED_BLOCKED:
		len = with_pct(b, n, "blocked (off-CPU ",
			       share(r->sched.off_cpu_ns, r));
		break;
	case SCHED_IDLE:
		len = cat(b, n, 0, "idle");
		break;
	case SCHED_NONE:
	default:
		if (d->has_tma && d->tma.bottleneck >= 0 && d->tma.path[0]) {
			len = cat(b, n, 0, d->tma.path);
			d->mark_at = len < (int)n ? len : (int)n - 1;
		} else if (!d->has_tma)
			/* it mostly runs; without a PMU we cannot say why */
			len = cat(b, n, 0, "on-CPU (no PMU breakdown)");
		else
			len = cat(b, n, 0, "-");
		break;
	}
	if (d->low_coverage && len > 0 && (size_t)len < n) {
		char num[FMT_FIXED_LEN];

		/* exactly printf's "%.0f" */
		fmt_fixed(num, sizeof(num), d->coverage * 100, 0);
		len = cat(b, n, len, " (low coverage ");
		len = cat(b, n, len, num);
		cat(b, n, len, "%)");
	}
}

/* Ties by tid, then folded rows (tid 0) by name: stable output. */
static int cmp_tie(__u32 ta, const char *ca, __u32 tb, const char *cb)
{
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return strcmp(ca, cb);
}

/* SORT_COMM: by name, then as cmp_tie(). */
static int cmp_by_name(const void *pa, const void *pb)
{
	const struct task_row *a = *(const struct task_row *const *)pa;
	const struct task_row *b = *(const struct task_row *const *)pb;
	int c = strcmp(task_name(a), task_name(b));

	return c ? c : cmp_tie(a->tid, a->comm, b->tid, b->comm);
}

/*
 * A row's place in a numeric sort: its key and tid beside it, so that
 * sorting 10,000 rows reads 160 KiB in order instead of following a
 * pointer into a table of megabytes at every comparison.
 */
struct sort_ent {
	__u64 key;
	const struct task_row *r;
	__u32 tid;
};

static __u64 sort_value(const struct task_row *r, enum sort_key sort)
{
	switch (sort) {
	case SORT_CPU:
		return r->sched.on_cpu_ns;
	case SORT_RUNQ:
		return r->sched.runq_wait_ns;
	case SORT_OFFCPU:
		return r->sched.off_cpu_ns;
	case SORT_SWITCHES:
		return r->sched.nvcsw + r->sched.nivcsw;
	default:
		return 0;
	}
}

/* The other keys: key down, then as cmp_tie() (SORT_TID: key 0). */
static int cmp_ents(const void *pa, const void *pb)
{
	const struct sort_ent *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	return cmp_tie(a->tid, a->r->comm, b->tid, b->r->comm);
}

static int sort_rows(const struct task_row **rows, size_t n,
		     enum sort_key sort)
{
	struct sort_ent *e;
	size_t i;

	if (sort == SORT_COMM) {
		qsort(rows, n, sizeof(*rows), cmp_by_name);
		return 0;
	}
	e = malloc((n ? n : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		e[i].key = sort_value(rows[i], sort);
		e[i].tid = rows[i]->tid;
		e[i].r = rows[i];
	}
	qsort(e, n, sizeof(*e), cmp_ents);
	for (i = 0; i < n; i++)
		rows[i] = e[i].r;
	free(e);
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The processes the tasks are of: what a launched command forked shows
 * here (the header says how many were followed). 0 when out of memory.
 */
static int count_procs(const struct task_row **rows, size_t n)
{
	__u32 *pids = malloc((n ? n : 1) * sizeof(*pids));
	size_t i;
	int nr = 0;

	if (!pids)
		return 0;
	for (i = 0; i < n; i++)
		pids[i] = rows[i]->pid;
	qsort(pids, n, sizeof(*pids), cmp_pid);
	for (i = 0; i < n; i++)
		nr += !i || pids[i] != pids[i - 1];
	free(pids);
	return nr;
}

int report_build(struct report *rep, const struct task_table *t,
		 const struct event_plan *plan, int level, __u64 duration_ns,
		 enum sort_key sort, int top)
{
	const struct task_row **rows;
	size_t i, n = t->nr;

	memset(rep, 0, sizeof(*rep));
	rep->plan = plan;
	rep->tasks = t;
	rep->duration_ns = duration_ns;
	rep->interval = -1;
	rep->nr_total = (int)n;
	if (plan && plan->model && plan->model->max_level > 0) {
		if (level <= 0)
			level = plan->level;
		if (level > plan->model->max_level)
			level = plan->model->max_level;
	} else {
		level = 0;
	}
	rep->level = level;

	/*
	 * Every sort key is a raw field: sort and cut the rows, and leave
	 * decoding to the writers, one task at a time.
	 */
	rows = malloc((n ? n : 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		rows[i] = tasks_row(t, i);
	rep->nr_procs = count_procs(rows, n);
	if (sort != SORT_NONE && sort_rows(rows, n, sort)) {
		free(rows);
		return -ENOMEM;
	}
	if (top > 0 && (size_t)top < n)
		n = top;
	rep->rows = rows;
	rep->nr = (int)n;
	return 0;
}

void report_decode_task(const struct report *rep, int i, struct task_decoded *d)
{
	const struct event_plan *plan = rep->plan;

	/*
	 * The rows are read in sorted order, scattered over a table of
	 * megabytes: ask for the next one now, so that it is in the cache
	 * when its turn comes (its first load was a sixth of a report).
	 */
	if (i + 1 < rep->nr) {
		const char *n = (const char *)rep->rows[i + 1];
		size_t len = sizeof(struct task_row) +
			     (plan ? (size_t)plan->nr : 0) *
				     sizeof(struct tdbpf_count),
		       off;

		for (off = 0; off < len; off += 64)
			__builtin_prefetch(n + off);
	}
	report_decode_row(rep, rep->rows[i], d);
}

/* verdict @k: node @n, reasoned with the TMA path of its row @row */
static void word_verdict(struct report *rep, int k, int n,
			 const struct task_row *row)
{
	const char *path = NULL;
	struct task_decoded d;

	if (row) {
		report_decode_row(rep, row, &d);
		if (d.has_tma && d.tma.bottleneck >= 0 && d.tma.path[0])
			path = d.tma.path;
	}
	rep->verdict[k].node = n;
	rep->verdict[k].alone = false;
	graph_reason(rep->graph, n, path, rep->verdict[k].reason,
		     sizeof(rep->verdict[k].reason));
}

/*
 * --span, and no task waits on another for 1% of its blocked time or
 * more (one thread runs a whole GStreamer pipeline): the task with spans
 * that runs the most, CPU-bound (it runs, or waits for a CPU), is where
 * the time goes, and its operator says why.
 */
static void set_alone(struct report *rep, const struct task_table *t)
{
	const struct graph *g = rep->graph;
	const struct task_row *row = NULL;
	int i, best = -1;
	double share;
	size_t j;

	for (i = 0; i < g->nr_nodes; i++) {
		const struct graph_node *c = &g->nodes[i];

		if (c->role != ROLE_RUNNING && c->role != ROLE_STARVED)
			continue;
		if (best >= 0 && c->on_cpu_ns <= g->nodes[best].on_cpu_ns)
			continue;
		if (report_top_span(rep, i, &share))
			best = i;
	}
	if (best < 0)
		return;
	for (j = 0; j < t->nr && !row; j++)
		if (graph_node_of(g, tasks_row(t, j)) == best)
			row = tasks_row(t, j);
	word_verdict(rep, 0, best, row);
	rep->verdict[0].alone = true;
	rep->nr_verdict = 1;
}

void report_set_graph(struct report *rep, const struct graph *g,
		      const struct task_table *t)
{
	const struct task_row *row_of[REPORT_MAX_VERDICTS] = { NULL };
	int k, n, nr = g->nr_rank < REPORT_MAX_VERDICTS ? g->nr_rank :
						       REPORT_MAX_VERDICTS,
		  left = nr;
	size_t i;

	rep->graph = g;
	rep->nr_verdict = 0;
	/*
	 * nothing ranked, or a first candidate no task sends 1% of its
	 * blocked time (a main thread's few waits for a pipeline's start)
	 */
	if (rep->spans && (!nr || !g->nodes[g->rank[0]].nr_sources)) {
		set_alone(rep, t);
		if (rep->nr_verdict)
			return;
	}
	/*
	 * The first row of each ranked node, in one pass: a pass per
	 * node was most of a report of 10,000 threads when the ranked
	 * ones came last.
	 */
	for (i = 0; i < t->nr && left; i++) {
		n = graph_node_of(g, tasks_row(t, i));
		for (k = 0; k < nr; k++) {
			if (g->rank[k] == n && !row_of[k]) {
				row_of[k] = tasks_row(t, i);
				left--;
			}
		}
	}
	for (k = 0; k < nr; k++) {
		word_verdict(rep, k, g->rank[k], row_of[k]);
		rep->nr_verdict++;
	}
}

void report_decode_row(const struct report *rep, const struct task_row *row,
		       struct task_decoded *d)
{
	const struct event_plan *plan = rep->plan;

	/*
	 * @d is reused: nothing of the previous task may show through.
	 * Field by field: ev[] past the plan's slots is never read and
	 * tma_decode() sets all of tma, so clearing the whole ~2 KiB per
	 * task was a tenth of a report's time.
	 */
	d->row = row;
	d->coverage = 1.0;
	d->low_coverage = false;
	d->on_cpu_pct = 0;
	d->has_tma = false;
	d->tma.bottleneck = -1;
	d->tma.path[0] = '\0';
	d->bottleneck[0] = '\0';
	d->mark_at = -1;
	decode_counts(d, plan);
	/* a folded row's share is its threads' mean, never N x 100 */
	if (rep->duration_ns)
		d->on_cpu_pct = 100.0 * (double)d->row->sched.on_cpu_ns /
				(double)rep->duration_ns /
				(row->nr_tasks > 1 ? row->nr_tasks : 1);
	d->sched = sched_judge(d->row->sched.on_cpu_ns,
			       d->row->sched.runq_wait_ns,
			       d->row->sched.off_cpu_ns);
	decode_tma(d, plan, rep->level);
	decode_bottleneck(d);
}

static int plan_slot(const struct event_plan *p, const char *name)
{
	int idx = model_event_index(p->model, name), s;

	if (idx < 0)
		return -1;
	for (s = 0; s < p->nr; s++)
		if (p->ev[s] == idx)
			return s;
	return -1;
}

void report_ipc_slots(const struct event_plan *p, int *inst, int *clk)
{
	*inst = *clk = -1;
	/* the model names them (NULL: no IPC for it) */
	if (!p || !p->model || !p->model->ipc_inst || !p->model->ipc_cycles)
		return;
	*inst = plan_slot(p, p->model->ipc_inst);
	*clk = plan_slot(p, p->model->ipc_cycles);
}

void report_free(struct report *rep)
{
	free(rep->rows);
	rep->rows = NULL;
	rep->nr = 0;
}

/* "enrich (tid 12)" or "parse-* (4 tasks)", at @buf + *@n. */
static void put_candidate(const struct graph *g, int node, char *buf,
			  size_t len, size_t *n)
{
	const struct graph_node *c = &g->nodes[node];
	char name[sizeof(c->name)];

	if (*n >= len)
		return;
	text_printable(name, sizeof(name), c->name, NULL, TEXT_ASCII);
	if (c->tid)
		*n += snprintf(buf + *n, len - *n, "%s (tid %u)", name, c->tid);
	else if (c->hot_tid) {
		char hot[sizeof(c->hot_name)];

		/* folded: which instance is hot is the question (skew) */
		text_printable(hot, sizeof(hot), c->hot_name, NULL,
			       TEXT_ASCII);
		*n += snprintf(buf + *n, len - *n,
			       "%s (%d tasks; hot: %s, tid %u)", name,
			       c->nr_tasks, hot, c->hot_tid);
	} else
		*n += snprintf(buf + *n, len - *n, "%s (%d tasks)", name,
			       c->nr_tasks);
}

bool report_span_blocked(const struct report *rep, int node)
{
	enum graph_role r = rep->graph->nodes[node].role;

	/* a CPU-bound verdict is about on-CPU time; a wait, blocked time */
	return r != ROLE_RUNNING && r != ROLE_STARVED;
}

/*
 * The waits that lead to a thread lead through it to its spans in
 * proportion to the time of that kind each holds (the waker's span at
 * the wakeup is not recorded): the largest share is the operator.
 */
const struct span_row *report_top_span(const struct report *rep, int node,
				       double *share)
{
	const struct graph_node *c = &rep->graph->nodes[node];
	const struct span_row *top = NULL;
	bool blocked = report_span_blocked(rep, node);
	double whole = (double)(blocked ? c->blocked_ns : c->on_cpu_ns);
	double best = 0, x;
	size_t i;

	for (i = 0; rep->spans && i < rep->spans->nr; i++) {
		const struct span_row *s = &rep->spans->row[i];

		if (!span_is_of(s, c->tid, c->key[0] ? c->key : c->name))
			continue;
		x = (double)(blocked ? span_blocked_ns(&s->s) :
				       s->s.on_cpu_ns);
		if (x > best) {
			best = x;
			top = s;
		}
	}
	*share = whole > 0 ? best / whole : 0;
	return *share > 0 ? top : NULL;
}

/*
 * The span of @node's threads that ended the most waits (it ran
 * innermost on the waker at the wakeup): the operator that hands the
 * work over, which need not be the one its time goes to (a thread's
 * spans run in turn). Its share of the waits its node's spans ended in
 * @w->of_spans; of all the waits of the graph's tasks the node ended in
 * @w->of_all, or NAN when sampled: those are estimates cut to each
 * waiter's blocked time, the spans' are not, so the ratio of the two,
 * @w->rough (at most 1), only tells a share too small to print. NULL:
 * none in a span.
 */
const struct span_row *report_waker_span(const struct report *rep, int node,
					 struct waker_share *w)
{
	const struct graph *g = rep->graph;
	const struct graph_node *c = &g->nodes[node];
	const struct span_row *top = NULL;
	double ended = 0, in_spans = 0;
	size_t i;
	int e;

	for (i = 0; rep->spans && i < rep->spans->nr; i++) {
		const struct span_row *s = &rep->spans->row[i];

		if (!span_is_of(s, c->tid, c->key[0] ? c->key : c->name))
			continue;
		in_spans += (double)s->s.woke_ns;
		if (!top || s->s.woke_ns > top->s.woke_ns)
			top = s;
	}
	if (!top || !top->s.woke_ns)
		return NULL;
	for (e = 0; e < g->nr_edges; e++)
		if (g->edges[e].waker == node &&
		    g->edges[e].kind == TDBPF_WAKER_TASK)
			ended += (double)g->edges[e].wait_ns;
	w->of_spans = (double)top->s.woke_ns / in_spans;
	w->rough = ended > 0 ? fmin(1.0, (double)top->s.woke_ns / ended) : 1;
	w->of_all = rep->lost.wake_scale ? NAN : w->rough;
	return top;
}

/*
 * "; in it: enrich 80% of their on-CPU time" for verdict @k, then the
 * span that ended its waits, at @buf + *@n
 */
static void put_span(const struct report *rep, int k, char *buf,
		     size_t len, size_t *n)
{
	int node = rep->verdict[k].node;
	const struct graph_node *c = &rep->graph->nodes[node];
	double share;
	const struct span_row *top = report_top_span(rep, node, &share);
	char name[sizeof(top->name)];
	struct waker_share w;

	if (!top || *n >= len)
		return;
	text_printable(name, sizeof(name), top->name, NULL, TEXT_ASCII);
	*n += snprintf(buf + *n, len - *n, "; in it: %s %.0f%% of %s %s time",
		       name, 100 * share, c->nr_tasks > 1 ? "their" : "its",
		       report_span_blocked(rep, node) ? "blocked" : "on-CPU");
	/* alone: no task waits on it for 1% of its time, nothing handed */
	if (rep->verdict[k].alone)
		return;
	top = report_waker_span(rep, node, &w);
	/* a share that rounds to 0% is nothing to say */
	if (!top || *n >= len || lround(100 * w.rough) < 1)
		return;
	text_printable(name, sizeof(name), top->name, NULL, TEXT_ASCII);
	*n += snprintf(buf + *n, len - *n, "; of the waits %s ended%s, %.0f%% in %s",
		       c->nr_tasks > 1 ? "they" : "it",
		       isnan(w.of_all) ? " in spans" : "",
		       100 * (isnan(w.of_all) ? w.of_spans : w.of_all), name);
}

void report_verdict_line(const struct report *rep, char *buf, size_t len)
{
	const struct graph *g = rep->graph;
	const struct graph_node *c;
	size_t n = 0;
	int i, tied;

	if (!rep->nr_verdict) {
		snprintf(buf, len, "bottleneck: none: no task waits on another");
		return;
	}
	tied = g->nr_tied < rep->nr_verdict ? g->nr_tied : rep->nr_verdict;
	if (tied < 2) {
		c = &g->nodes[rep->verdict[0].node];
		n = snprintf(buf, len, "bottleneck: ");
		put_candidate(g, rep->verdict[0].node, buf, len, &n);
		if (rep->verdict[0].alone && n < len)
			n += snprintf(buf + n, len - n,
				      ": %s; no task waits on another, it runs the most",
				      rep->verdict[0].reason);
		else if (n < len)
			n += snprintf(buf + n, len - n,
				      ": %s; %d %s waits lead to it (%.0f%% of their blocked time); busy %.0f%% of %s time",
				      rep->verdict[0].reason, c->nr_sources,
				      c->nr_sources == 1 ? "task's" : "tasks'",
				      100.0 * graph_share(g, rep->verdict[0].node),
				      100.0 * c->busy,
				      c->nr_tasks > 1 ? "their" : "its");
		put_span(rep, 0, buf, len, &n);
		return;
	}
	n = snprintf(buf, len, "bottleneck: a tie: ");
	for (i = 0; i < tied && n < len; i++) {
		if (i)
			n += snprintf(buf + n, len - n, " and ");
		put_candidate(g, rep->verdict[i].node, buf, len, &n);
		if (n < len)
			n += snprintf(buf + n, len - n, " %.0f%%",
				      100.0 * graph_share(g,
							  rep->verdict[i].node));
	}
	if (n < len)
		n += snprintf(buf + n, len - n,
			      " of the blocked time lead to each");
	for (i = 0; i < tied && n < len; i++) {
		char name[sizeof(g->nodes[0].name)];

		text_printable(name, sizeof(name),
			       g->nodes[rep->verdict[i].node].name, NULL,
			       TEXT_ASCII);
		n += snprintf(buf + n, len - n, "; %s: %s", name,
			      rep->verdict[i].reason);
		put_span(rep, i, buf, len, &n);
	}
}
