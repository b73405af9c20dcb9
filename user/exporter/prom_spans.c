// SPDX-License-Identifier: GPL-2.0
/*
 * Span series of /metrics (prom.h), with --span: each (thread, span)'s
 * sums as increments since the last scrape (as prom.c counts the tasks'),
 * on the series of its thread's task series labels and span="NAME". The
 * label sets are bounded twice: the task series are (--listen-max-series,
 * folded thread names), and the span series are at most max_series too,
 * the rest summed in one `other`.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/prom_table.h"

static int by_tid(const void *a, const void *b)
{
	const struct span_row *x = *(const struct span_row *const *)a;
	const struct span_row *y = *(const struct span_row *const *)b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

int prom_spans_begin(struct prom_state *st)
{
	const struct span_table *t = st->span_cur;
	const struct span_row **v;
	size_t i;

	free(st->span_by_tid);
	st->span_by_tid = NULL;
	if (!t || !t->nr)
		return 0;
	v = malloc(t->nr * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < t->nr; i++)
		v[i] = &t->row[i];
	qsort(v, t->nr, sizeof(*v), by_tid);
	st->span_by_tid = v;
	return 0;
}

/* The series past max_series: the task series `other`'s label names */
static struct prom_span *other_of(struct prom_state *st)
{
	char l[128];

	if (!st->span_other) {
		snprintf(l, sizeof(l), "comm=\"other\",thread=\"other\"%s%s,span=\"other\"",
			 st->labels & (LISTEN_LABEL_PID | LISTEN_LABEL_TID) ?
				 ",pid=\"\"" :
				 "",
			 st->labels & LISTEN_LABEL_TID ? ",tid=\"\"" : "");
		st->span_other = prom_lset_new(l, sizeof(*st->span_other));
	}
	return st->span_other;
}

/* The span series of @labels, or `other` past max_series; NULL: no memory */
static struct prom_span *span_get(struct prom_state *st, const char *labels)
{
	void *e;

	if (prom_lset_get(&st->spans, labels, sizeof(struct prom_span),
			  st->max_series, &e))
		return NULL;
	return e ? e : other_of(st);
}

static __u64 inc(__u64 cur, __u64 last)
{
	return cur > last ? cur - last : 0;
}

/*
 * Span row @c's increment since @last into @s, @last its base for the
 * next. Blocked time is off-CPU time less a run-queue wait that may still
 * be under way: the most counted is kept, as prom.c keeps a task's.
 */
static void span_add(struct prom_span *s, const struct span_row *c,
		     struct span_row *last)
{
	__u64 b = span_blocked_ns(&c->s), lb = span_blocked_ns(&last->s);

	s->entries += inc(c->s.entries, last->s.entries);
	s->on_cpu_ns += inc(c->s.on_cpu_ns, last->s.on_cpu_ns);
	s->runq_wait_ns += inc(c->s.runq_ns, last->s.runq_ns);
	s->blocked_ns += inc(b, lb);
	s->woke += inc(c->s.woke, last->s.woke);
	s->woke_ns += inc(c->s.woke_ns, last->s.woke_ns);
	last->s = c->s;
	if (b < lb)
		last->s.off_ns = c->s.runq_ns + lb;
}

int prom_spans_update(struct prom_state *st, const struct task_row *r,
		      const struct prom_series *s)
{
	const struct span_table *t = st->span_cur;
	size_t lo = 0, hi = t && st->span_by_tid ? t->nr : 0, mid;
	char labels[1024], *p;
	size_t n;

	/* the first row of @r's tid */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (st->span_by_tid[mid]->tid < r->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; t && st->span_by_tid && lo < t->nr &&
	       st->span_by_tid[lo]->tid == r->tid;
	     lo++) {
		const struct span_row *c = st->span_by_tid[lo];
		struct span_row *last = spans_get(&st->span_last, c->tid,
						  c->tgid, c->id);
		struct prom_span *x;

		if (!last)
			return -ENOMEM;
		n = strlen(s->labels);
		/* 3 bytes an escaped byte (prom_esc_label()) */
		if (n + 16 + 3 * TDBPF_SPAN_NAME > sizeof(labels)) {
			x = other_of(st);
		} else {
			memcpy(labels, s->labels, n);
			p = labels + n;
			p += sprintf(p, ",span=\"");
			p = prom_esc_label(p, c->name);
			memcpy(p, "\"", 2);
			x = span_get(st, labels);
		}
		if (!x)
			return -ENOMEM;
		span_add(x, c, last);
	}
	return 0;
}

void prom_spans_free(struct prom_state *st)
{
	prom_lset_free(&st->spans);
	prom_lset_entry_free(st->span_other);
	free(st->span_by_tid);
	spans_free(&st->span_last);
}
