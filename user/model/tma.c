// SPDX-License-Identifier: GPL-2.0
/*
 * Model-independent TMA decode: evaluate a model's tree, mark the nodes
 * over perf's thresholds, and follow the largest flagged node down to the
 * bottleneck, as toplev marks it with "<==".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "model/tma.h"

static int node_index(const struct model *m, const char *name)
{
	int i;

	for (i = 0; i < m->nr_nodes; i++)
		if (!strcmp(m->nodes[i].name, name))
			return i;
	return -1;
}

/* value > threshold, as perf compares: NAN is never over */
static bool above(const struct model *m, const double *val, int i)
{
	return val[i] > m->nodes[i].thresh;
}

/* per thread: reports decode ahead on a worker (report_ahead.c) */
_Thread_local bool tma_strict;

/*
 * perf computes a metric only when every event its formula names was
 * counted (both branches of a condition on data; #SMT_on is folded); our
 * formulas follow perf's max() and "if", which can swallow a NAN input.
 * So the unmeasured events are found with a strict evaluation (tma_expr.h:
 * NAN goes through everything, x / 0 is 0): a node that is NAN there
 * needs an unmeasured event and is not computable. Every other node has
 * perf's value, evaluated with the unmeasured events set to anything,
 * since it does not use them.
 */
static void eval_missing(const struct model *m, const double *ev, bool smt,
			 double *val)
{
	double tmp[MODEL_MAX_EVENTS], strict[MODEL_MAX_NODES];
	struct tma_input in = { .ev = tmp, .smt = smt };
	int i, missing = 0;

	for (i = 0; i < m->nr_events; i++) {
		tmp[i] = ev[i];
		if (isnan(ev[i])) {
			tmp[i] = 0;
			missing++;
		}
	}
	m->eval(&in, val);
	if (!missing)
		return;
	tma_strict = true;
	in.ev = ev;
	m->eval(&in, strict);
	tma_strict = false;
	for (i = 0; i < m->nr_nodes; i++)
		if (isnan(strict[i]))
			val[i] = NAN;
}

/*
 * @s appended to the path at @off, cut as snprintf() cuts; the new
 * offset, at most the path's size. Per task of a report: snprintf()'s
 * format parsing was most of the descent's cost.
 */
static int path_cat(char *path, int off, const char *s)
{
	const int size = (int)sizeof(((struct tma_result *)0)->path);
	int n = (int)strlen(s), k;

	if (off < size) {
		k = n < size - 1 - off ? n : size - 1 - off;
		memcpy(path + off, s, (size_t)k);
		path[off + k] = '\0';
	}
	return off + n < size ? off + n : size;
}

void tma_decode(const struct model *m, const double *ev, bool smt, int level,
		struct tma_result *r)
{
	int i, j, lvl, cur, best, off;

	for (i = 0; i < MODEL_MAX_NODES; i++) {
		r->val[i] = NAN;
		r->over[i] = false;
	}
	r->bottleneck = -1;
	r->path[0] = '\0';
	if (!m->eval || m->nr_nodes <= 0 || m->nr_nodes > MODEL_MAX_NODES ||
	    m->nr_events > MODEL_MAX_EVENTS)
		return;
	if (level > m->max_level)
		level = m->max_level;

	eval_missing(m, ev, smt, r->val);

	/*
	 * perf's thresholds: "node > t & (parent's threshold)", so parents
	 * are decided first, level by level; some do not repeat the parent's
	 * (thresh_alone), some are also met by another node's (or_over:
	 * retiring is "> 0.7 | heavy_operations > 0.1"). Decided on the
	 * whole tree, before the level cut, as perf does.
	 */
	for (lvl = 1; lvl <= m->max_level; lvl++) {
		for (i = 0; i < m->nr_nodes; i++) {
			const struct tma_node *n = &m->nodes[i];

			if (n->level != lvl)
				continue;
			r->over[i] = above(m, r->val, i) &&
				     (n->parent < 0 || n->thresh_alone ||
				      r->over[n->parent]);
			j = n->or_over ? node_index(m, n->or_over) : -1;
			if (j >= 0 && above(m, r->val, j))
				r->over[i] = true;
		}
	}
	for (i = 0; i < m->nr_nodes; i++) {
		if (m->nodes[i].level > level) {
			r->val[i] = NAN;
			r->over[i] = false;
		}
	}

	/* Descend through the largest flagged child at each level. */
	cur = -1;
	off = 0;
	for (;;) {
		best = -1;
		for (i = 0; i < m->nr_nodes; i++) {
			/* a metric beside the tree is no step of the path */
			if (m->nodes[i].parent != cur || !r->over[i] ||
			    m->nodes[i].aside)
				continue;
			if (best < 0 || r->val[i] > r->val[best])
				best = i;
		}
		if (best < 0)
			break;
		if (cur >= 0)
			off = path_cat(r->path, off, ".");
		off = path_cat(r->path, off, m->nodes[best].label);
		cur = best;
		r->bottleneck = best;
	}
}

void tma_decode_plan(const struct event_plan *plan, const double *slot,
		     int level, struct tma_result *r)
{
	double ev[MODEL_MAX_EVENTS];
	int i;

	for (i = 0; i < MODEL_MAX_EVENTS; i++)
		ev[i] = NAN;
	for (i = 0; i < plan->nr && i < TDBPF_MAX_EVENTS; i++)
		if (plan->ev[i] >= 0 && plan->ev[i] < MODEL_MAX_EVENTS)
			ev[plan->ev[i]] = slot[i];
	tma_decode(plan->model, ev, plan->smt, level, r);
}
