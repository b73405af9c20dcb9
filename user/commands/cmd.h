/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each subcommand runs (subcommands.c's subcommands[] says which runs
 * for which word, beside its parsing and checks). Each returns the exit code:
 * 0, 1 for a runtime error, 2 for a usage error; errors are one line on
 * stderr through errorf().
 */
#ifndef TDBPF_CMD_H
#define TDBPF_CMD_H

#include <stdio.h>
#include "analysis/graph.h"
#include "commands/options.h"
#include "model/detect.h"
#include "model/model.h"
#include "sources/targets.h"
#include "support/error.h"

int cmd_trace(const struct options *o, FILE *out);	/* cmd_trace.c */
int cmd_list(const struct options *o, FILE *out);	/* cmd_list.c */
int cmd_list_events(const struct options *o, FILE *out); /* cmd_list_events.c */
int cmd_decode(const struct options *o, FILE *out);	/* cmd_decode.c */
int cmd_report(const struct options *o, FILE *out);	/* cmd_report.c */
/* graph of one report (o->input): its whole run as live, DOT on @dot */
int cmd_report_graph(const struct options *o, FILE *out, FILE *dot);
int cmd_selftest(const struct options *o, FILE *out);	/* cmd_selftest.c */
int cmd_graph(const struct options *o, FILE *out);	/* cmd_graph.c */
int cmd_help(const struct options *o, FILE *out);	/* usage.c */
int cmd_version(const struct options *o, FILE *out);	/* version.c */

/* Shared by the commands (cmd_common.c). */
/* The model named @name, or NULL after an error listing models[]. */
const struct model *find_model_or_say(const char *name);
/* GP counters for @m: the detected budget when @m is this machine's. */
int gp_budget(const struct model *m, bool smt, const struct detect_info *d);
/*
 * The -e events into @plan after the model's, each refused before
 * tracing if this machine cannot count it (cmd_trace.c). 0, or the exit
 * status with @err: 2 for what the command line says wrong, 1 for what
 * this machine cannot do.
 */
struct event_plan;
int cmd_add_events(const struct options *o, struct event_plan *plan,
		   char *err, size_t len);
/* @asked (0: none) within the model's levels. */
int level_for(const struct model *m, int asked);
/* The targets @o names (-p, -t, -a), for sources/targets.c. */
void target_ids_of(struct target_ids *ids, const struct options *o);
/* A live run's names of tasks not traced, from /proc (live_lookups.c) */
extern const struct graph_lookups live_lookups;

#endif /* TDBPF_CMD_H */
