/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run driver: launch (-- COMMAND), open the tracer, then one event
 * loop until a signal, -d, the targets' exit or a closed output stops
 * it; interval reports on -I; the whole run's report at the end.
 */
#ifndef TDBPF_RUN_H
#define TDBPF_RUN_H

#include <stdio.h>
#include "commands/options.h"
#include "model/model.h"

/*
 * The process exit code; errors are printed as one line. @graph: the
 * --graph file (opened before tracing, closed here), or NULL.
 */
int run_trace(const struct options *o, const struct event_plan *plan,
	      FILE *out, FILE *graph);

#endif /* TDBPF_RUN_H */
