/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the report tests share (test_report*.c): a software-model plan
 * and rows built by hand, a strict JSON parser, and decoding a row as the
 * writers do. Include after <cmocka.h> and analysis/report.h.
 */
#ifndef TDBPF_REPORT_HELPERS_H
#define TDBPF_REPORT_HELPERS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "analysis/report.h"
#include "json_get.h"
#include "unit_helpers.h"

/* The software model in one group led by its first event (slot = event). */
void sw_plan(struct event_plan *p);

struct task_row *add(struct task_table *t, __u32 tid, const char *comm,
		     __u64 on, __u64 rq, __u64 off);

void set_ctr(struct task_row *r, int slot, __u64 v, __u64 ena, __u64 run);

json_object *parse_strict(const char *s);

int count_lines(const char *s);

/* Decode @tid's row into @d, as the writers do. */
const struct task_decoded *by_tid(const struct report *rep, __u32 tid,
				  struct task_decoded *d);

/* Two groups; the second ran 3% of its enabled time. */
void mux_plan(struct event_plan *p);

/*
 * mux_plan() in @p and a new table @t of one task @tid @comm, on CPU for
 * 1000 ns and nothing else: its row, for the test's counts.
 */
struct task_row *mux_task(struct event_plan *p, struct task_table *t, __u32 tid,
			  const char *comm);

/*
 * What a report test holds: a plan, a task table, their report, and the
 * task last decoded of it.
 */
struct report_fix {
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	struct task_decoded dec;
};

/* @fx's report of its table and plan (report_build()'s other arguments). */
void fix_build(struct report_fix *fx, int level, __u64 window_ns,
	       enum sort_key sort, int top);

/* Task @tid of @fx's report, decoded into @fx->dec. */
const struct task_decoded *fix_task(struct report_fix *fx, __u32 tid);

/* @fx's report and table freed. */
void fix_free(struct report_fix *fx);

#endif /* TDBPF_REPORT_HELPERS_H */
