/* SPDX-License-Identifier: GPL-2.0 */
/* Command line: parsed without side effects, so it can be tested and fuzzed. */
#ifndef TDBPF_OPTIONS_H
#define TDBPF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "report.h"

#define OPT_MAX_TARGETS	64
#define OPT_MAX_EVENT_ARGS	16	/* -e options; each holds many events */

enum command {
	CMD_TRACE,
	CMD_LIST,
	CMD_DECODE,
	CMD_HELP,
	CMD_VERSION,
};

struct options {
	enum command cmd;
	pid_t pids[OPT_MAX_TARGETS];
	int nr_pids;
	pid_t tids[OPT_MAX_TARGETS];
	int nr_tids;
	bool all;
	char **argv;		/* -- COMMAND [ARGS], NULL-terminated */
	double duration;	/* seconds, 0 = until stopped */
	long interval_ms;	/* 0 = no interval reports */
	const char *sep;	/* -x: CSV separator */
	bool json;
	const char *output;
	bool per_name;
	enum sort_key sort;
	int top;		/* 0 = all */
	const char *model;	/* NULL = detect */
	int smt;		/* -1 = detect, 0 off, 1 on */
	int level;		/* 0 = deepest the model has */
	bool children;
	long max_tasks;
	const char *input;	/* decode: FILE or "-" */
	const char *events[OPT_MAX_EVENT_ARGS];	/* -e EVENT[,EVENT...] */
	int nr_events;
	bool verbose;
};

/*
 * Parse argv into @o. Returns 0, or -1 with @err holding one line naming
 * the problem and the fix (no "tdbpf: " prefix).
 */
int parse_options(int argc, char **argv, struct options *o, char *err,
		  size_t errlen);
void print_usage(FILE *f);

#endif /* TDBPF_OPTIONS_H */
