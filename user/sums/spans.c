// SPDX-License-Identifier: GPL-2.0
/* The span table (spans.h): rows by (thread, span), subtracted, folded. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdio.h>
#include "model/model.h"
#include "sums/spans.h"
#include "sums/tasks.h"
#include "support/array.h"

void spans_init(struct span_table *t)
{
	memset(t, 0, sizeof(*t));
}

void spans_reset(struct span_table *t)
{
	t->nr = 0;
}

void spans_free(struct span_table *t)
{
	free(t->row);
	spans_init(t);
}

/* a run has tens of spans a thread: a scan is cheaper than an index */
static struct span_row *find(const struct span_table *t, __u32 tid,
			     __u64 id, const char *name, const char *comm)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		struct span_row *r = &t->row[i];

		if (r->tid == tid &&
		    (name ? !strcmp(r->name, name) && !strcmp(r->comm, comm) :
			    r->id == id))
			return r;
	}
	return NULL;
}

static struct span_row *append(struct span_table *t)
{
	struct span_row *r;

	if (array_grow(&t->row, &t->cap, t->nr, sizeof(*t->row), 32))
		return NULL;
	r = &t->row[t->nr++];
	memset(r, 0, sizeof(*r));
	r->nr_tasks = 1;
	return r;
}

struct span_row *spans_get(struct span_table *t, __u32 tid, __u32 tgid,
			   __u64 id)
{
	struct span_row *r = find(t, tid, id, NULL, NULL);

	if (r)
		return r;
	r = append(t);
	if (r) {
		r->tid = tid;
		r->tgid = tgid;
		r->id = id;
	}
	return r;
}

int spans_copy(struct span_table *dst, const struct span_table *src)
{
	spans_reset(dst);
	if (array_copy(&dst->row, &dst->cap, src->row, src->nr,
		       sizeof(*src->row)))
		return -ENOMEM;
	dst->nr = src->nr;
	return 0;
}

static void sums_sub(struct tdbpf_span_sums *d,
		     const struct tdbpf_span_sums *b)
{
	__u64 *dv = (__u64 *)d;
	const __u64 *bv = (const __u64 *)b;
	size_t i;

	/* every field a counter that only grows */
	for (i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		dv[i] = dv[i] > bv[i] ? dv[i] - bv[i] : 0;
}

void spans_sub(struct span_table *cur, const struct span_table *base)
{
	size_t i;

	for (i = 0; base && i < cur->nr; i++) {
		struct span_row *r = &cur->row[i];
		const struct span_row *b = find(base, r->tid, r->id, NULL,
						NULL);

		if (b)
			sums_sub(&r->s, &b->s);
	}
}

static void sums_add(struct tdbpf_span_sums *d,
		     const struct tdbpf_span_sums *s)
{
	__u64 *dv = (__u64 *)d;
	const __u64 *sv = (const __u64 *)s;
	size_t i;

	for (i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		dv[i] += sv[i];
}

int spans_fold(const struct span_table *in, const struct task_table *tasks,
	       bool per_name, struct span_table *out)
{
	char comm[TDBPF_COMM_LEN + 2];
	size_t i;

	spans_reset(out);
	for (i = 0; i < in->nr; i++) {
		const struct span_row *s = &in->row[i];
		const struct task_row *tr = tasks_find(tasks, s->tid);
		struct span_row *r = NULL;

		/* a replayed table is not indexed: the recorded name */
		snprintf(comm, sizeof(comm), "%s",
			 tr ? tr->comm : s->comm[0] ? s->comm : "?");
		if (per_name) {
			fold_name(tr ? tr->comm : s->comm[0] ? s->comm : "?",
				  comm, sizeof(comm));
			r = find(out, 0, 0, s->name, comm);
		}
		if (r) {
			r->nr_tasks++;
			sums_add(&r->s, &s->s);
			continue;
		}
		r = append(out);
		if (!r)
			return -ENOMEM;
		*r = *s;
		memcpy(r->comm, comm, sizeof(r->comm));
		if (per_name)
			r->tid = 0;
	}
	return 0;
}

bool span_is_of(const struct span_row *s, __u32 tid, const char *key)
{
	if (s->tid || tid)
		return s->tid == tid;
	return !strcmp(key, s->comm);
}

bool span_of(const struct span_row *s, const struct task_row *r)
{
	char key[TDBPF_COMM_LEN + 2];

	fold_name(r->comm, key, sizeof(key));
	return span_is_of(s, r->tid, key);
}

double span_slot(const struct event_plan *p, int slot,
		 const struct tdbpf_span_sums *s)
{
	const struct model_event *e = p->evd[slot];

	if (e->kind == EV_UNSUP)
		return NAN;
	/* a counter's slot is its index in BPF's (a replayed plan's too) */
	if (e->kind != EV_TASK)
		return slot < TDBPF_MAX_EVENTS ? (double)s->ctr[slot] : NAN;
	if (e->config1 == TF_ON_CPU)
		return (double)s->on_cpu_ns;
	if (e->config1 == TF_FAULTS)
		return (double)s->faults;
	return NAN;
}
