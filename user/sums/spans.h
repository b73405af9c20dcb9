/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-side span table: one row per (thread, span) with the span's
 * sums as BPF charged them (--span), its name resolved, and a span's
 * rows folded across the threads that ran it (--per-name).
 */
#ifndef TDBPF_SPANS_H
#define TDBPF_SPANS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "tdbpf.h"

struct span_row {
	__u32 tid;		/* 0 in a folded row */
	__u32 tgid;
	__u64 id;
	int nr_tasks;		/* threads folded in (1 if none) */
	/* its thread's name (folded: the fold key, fold_name()) */
	char comm[TDBPF_COMM_LEN + 2];
	char name[TDBPF_SPAN_NAME];
	struct tdbpf_span_sums s;
};

struct span_table {
	struct span_row *row;
	size_t nr, cap;
};

void spans_init(struct span_table *t);
void spans_reset(struct span_table *t);
void spans_free(struct span_table *t);
/* The row of (@tid, @id), created zeroed if missing; NULL: no memory. */
struct span_row *spans_get(struct span_table *t, __u32 tid, __u32 tgid,
			   __u64 id);
/* @dst = @src */
int spans_copy(struct span_table *dst, const struct span_table *src);
/* @cur minus the rows of the same key in @base (NULL: none), in place */
void spans_sub(struct span_table *cur, const struct span_table *base);
struct task_table;
struct task_row;
struct event_plan;
/*
 * @out: the rows of @in with their threads' names from @tasks; with
 * @per_name one row per folded thread name and span name, tid 0.
 */
int spans_fold(const struct span_table *in, const struct task_table *tasks,
	       bool per_name, struct span_table *out);
/* Is @s a span of @r (by tid, or a folded row's by its fold key)? */
bool span_of(const struct span_row *s, const struct task_row *r);
/* ... of the task @tid, or (0) of the folded name @key (fold_name()) */
bool span_is_of(const struct span_row *s, __u32 tid, const char *key);
/* Plan slot @slot's count in span @s; NAN where a span has none */
double span_slot(const struct event_plan *p, int slot,
		 const struct tdbpf_span_sums *s);
/* a span's blocked time: off CPU less its run-queue wait */
static inline __u64 span_blocked_ns(const struct tdbpf_span_sums *s)
{
	return s->off_ns > s->runq_ns ? s->off_ns - s->runq_ns : 0;
}

#endif /* TDBPF_SPANS_H */
