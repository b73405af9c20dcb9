/* SPDX-License-Identifier: GPL-2.0 */
/* One tracing run: open counters, load/attach, loop, flush, report, stop. */
#ifndef TDBPF_SESSION_H
#define TDBPF_SESSION_H

#include <stdio.h>
#include "model.h"
#include "options.h"

/*
 * Trace what @o asks for with the counters of @plan, writing reports to
 * @out (and the wait-for graph to @graph_out, or NULL). Returns the process exit code; errors are printed as one line.
 */
int session_run(const struct options *o, const struct event_plan *plan,
		FILE *out, FILE *graph_out);

/*
 * Write one report of @t (folded with --per-name) in the chosen format;
 * the final one (@interval -1) also writes the wait-for graph to
 * @graph_out (--graph), when not NULL.
 */
int session_report(const struct options *o, const struct event_plan *plan,
		   const struct task_table *t, __u64 duration_ns, int interval,
		   const __u64 *stats, FILE *out, FILE *graph_out);

#endif /* TDBPF_SESSION_H */
