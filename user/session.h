/* SPDX-License-Identifier: GPL-2.0 */
/* One tracing run: open counters, load/attach, loop, flush, report, stop. */
#ifndef TDBPF_SESSION_H
#define TDBPF_SESSION_H

#include <stdio.h>
#include "model.h"
#include "options.h"

/*
 * Trace what @o asks for with the counters of @plan, writing reports to
 * @out. Returns the process exit code; errors are printed as one line.
 */
int session_run(const struct options *o, const struct event_plan *plan,
		FILE *out);

/* Write one report of @t (folded with --per-name) in the chosen format. */
int session_report(const struct options *o, const struct event_plan *plan,
		   const struct task_table *t, __u64 duration_ns, int interval,
		   const __u64 *stats, FILE *out);

#endif /* TDBPF_SESSION_H */
