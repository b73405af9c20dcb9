/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A writer's walk over the report's tasks, decoded in order
 * (report_ahead.c): start, next until NULL, stop. Where it pays, a second
 * thread decodes ahead of the writer; the tasks and bytes are the same.
 */
#ifndef TDBPF_REPORT_AHEAD_H
#define TDBPF_REPORT_AHEAD_H

#include <stdbool.h>
#include "analysis/report.h"

struct report_ahead {
	const struct report *rep;
	int next;			/* the writer's next task */
	bool threaded;			/* a worker decodes ahead */
	int seen_done;			/* tasks the worker had decoded */
	struct task_decoded one;	/* decoded in the writer's thread */
};

/* fewest tasks worth a decoding thread; 0: always one (tests) */
extern int report_ahead_min;
void report_ahead_start(struct report_ahead *a, const struct report *rep);
const struct task_decoded *report_ahead_next(struct report_ahead *a);
/* after the last task, or to leave early */
void report_ahead_stop(struct report_ahead *a);

#endif /* TDBPF_REPORT_AHEAD_H */
