/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the unit tests; include after <cmocka.h>. */
#ifndef TDBPF_UNIT_HELPERS_H
#define TDBPF_UNIT_HELPERS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/model.h"
#include "sums/spans.h"
#include "sums/tasks.h"
#include "sums/waits.h"
#include "has_all.h"

/*
 * @s a task @tid of process 100 named @comm, all else 0, and @ws (the
 * TDBPF_NR_WAITS slots a row is added with) empty: what a test fills.
 */
void task_blank(struct tdbpf_task *s, struct tdbpf_wait *ws, __u32 tid,
		const char *comm);

/* What was written to @f (a tmpfile), as a string; closes @f. */
char *slurp(FILE *f);

/* @m's plan at @level, SMT @smt, @gp counters, in @p: it must be made. */
void plan_ok(struct event_plan *p, const struct model *m, int level, bool smt,
	     int gp);

/*
 * All of @m's events in one group led by the first, slot i = event i, no
 * counter assigned: a plan without plan_events()'s fitting, so that a
 * test's slots are the model's own order.
 */
void one_group_plan(struct event_plan *p, const struct model *m);

#ifdef TDBPF_REPORT_H
#include "outputs/sink.h"

/* A report writer, picked by a test */
enum fmt { FMT_TABLE, FMT_CSV, FMT_JSON, FMT_JSON_LINE, NR_FMT };

/* What writer @fmt writes of @rep (CSV separated by @sep); caller frees. */
char *render_report(const struct report *rep, enum fmt fmt, const char *sep);
#endif

/* Row @r's slot of @w's waker set to @w's counts (added if new). */
void set_wait(struct task_table *t, struct task_row *r, struct tdbpf_wait w);

/* Span @id of task @tid of process @pid in @sp, named @name. */
struct span_row *span_named(struct span_table *sp, __u32 tid, __u32 pid,
			    __u64 id, const char *name);

/* A span of a test's table: span_named()'s key and name, and its sums. */
struct span_def {
	__u32 tid, pid;
	__u64 id;
	const char *name;
	struct tdbpf_span_sums s;
};

/* Each of the @n spans @d in @sp, its sums set (added if new). */
void spans_set(struct span_table *sp, const struct span_def *d, size_t n);

/*
 * The @n ints at @got are @want's, in order (@what: them, @file and @line:
 * the test's, on failure).
 */
void ints_are(const int *got, const int *want, int n, const char *what,
	      const char *file, int line);

/* INTS_ARE(array, want...): its first values are these */
#define INTS_ARE(got, ...)                                                 \
	do {                                                               \
		const int w_[] = { __VA_ARGS__ };                          \
		ints_are((got), w_, (int)(sizeof(w_) / sizeof(w_[0])),     \
			 #got, __FILE__, __LINE__);                        \
	} while (0)

#endif /* TDBPF_UNIT_HELPERS_H */
