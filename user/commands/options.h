/* SPDX-License-Identifier: GPL-2.0 */
/* Command line: parsed without side effects, so it can be tested and fuzzed. */
#ifndef TDBPF_OPTIONS_H
#define TDBPF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include "analysis/report.h"

#define OPT_MAX_TARGETS	64	/* -p/-t ids */
#define OPT_MAX_EVENT_ARGS	16	/* -e options; each holds many events */
#define OPT_MAX_SPAN_ARGS	8	/* --span options, a source each */
#define OPT_MAX_DURATION_S	31536000	/* -d: 365 days */
#define OPT_MAX_INTERVAL_MS	86400000	/* -I: one day */
#define OPT_MAX_HOSTS		64	/* graph: reports joined */
#define OPT_MAX_REPEAT		100	/* -r: runs of the command */

/*
 * Subcommands, indexed so: each has its entry in subcommands[]
 * (subcommands.h).
 */
enum command {
	CMD_TRACE,	/* the default: no subcommand word */
	CMD_LIST,
	CMD_DECODE,
	CMD_REPORT,	/* replay a -j recording */
	CMD_TOP,	/* live full-screen view */
	CMD_SELFTEST,	/* tdbpf against the kernel's own counters */
	CMD_GRAPH,	/* one wait-for graph from several hosts' reports */
	CMD_HELP,
	CMD_VERSION,
	CMD_NR,
};

struct options {
	enum command cmd;
	enum command help_for;	/* --help after a subcommand's name */
	pid_t pids[OPT_MAX_TARGETS];
	int nr_pids;
	pid_t tids[OPT_MAX_TARGETS];
	int nr_tids;
	bool all;
	const char *cgroup;	/* -G PATH: that cgroup's tasks */
	char **argv;		/* -- COMMAND [ARGS], NULL-terminated */
	/*
	 * The command only bounds the run (-p/-t/-a given with it, as perf
	 * stat -p PID -- sleep 5): launched, waited for, not traced.
	 */
	bool argv_bounds;
	double duration;	/* seconds, 0 = until stopped */
	int repeat;		/* -r N: runs of -- COMMAND, 0 = one */
	long interval_ms;	/* 0 = no interval reports */
	const char *sep;	/* -x: CSV separator */
	bool json;
	const char *output;
	bool per_name;
	enum sort_key sort;
	unsigned int table_cols;	/* -F: enum table_col, 0 = fit 120 */
	int top;		/* 0 = all */
	const char *model;	/* NULL = detect */
	int smt;		/* -1 = detect, 0 off, 1 on */
	int level;		/* 0 = deepest the model has */
	/*
	 * Follow forks: -- COMMAND does by default, as perf stat does;
	 * --no-children (-i) turns it off, --children turns it on for -p.
	 */
	bool children;
	bool no_children;
	long max_tasks;
	long sock_max;		/* --sock-max: socket registry flows */
	const char *graph;	/* --graph FILE.dot */
	/*
	 * sched_waking traced: the wait-for graph. On by default from the
	 * wakeups of windows, a tenth of the time (0.1% of a pinned
	 * ping-pong's CPU time; --sampled-wakeups says so); every wakeup
	 * with --wakeups (10-14%); none with --no-wakeups
	 * (docs/performance.md). check_trace() turns the mode into the
	 * two flags below; wakeups_given: the modes asked for, a bit each.
	 */
	enum { WAKEUPS_SAMPLED, WAKEUPS_ALL, WAKEUPS_OFF } wakeups_mode;
	unsigned int wakeups_given;
	bool wakeups;
	bool wakeups_sampled;
	const char *input;	/* decode, report: FILE or "-" */
	long from, to;		/* report: intervals picked, -1 = open end */
	bool sort_given;	/* --sort was on the command line */
	const char *record;	/* --record FILE: every report as JSON */
	const char *events[OPT_MAX_EVENT_ARGS];	/* -e EVENT[,EVENT...] */
	int nr_events;
	/* --span usdt[:PATH] | gstreamer | BINARY:FUNC[,...] (span_probes.h) */
	const char *spans[OPT_MAX_SPAN_ARGS];
	int nr_spans;
	bool verbose;
	bool quiet;		/* -q: no notes (the model's fallback) */
	bool list_events;	/* list --events: what -e takes here */
	const char *listen;	/* --listen ADDR:PORT, NULL = no /metrics */
	unsigned int listen_labels;	/* enum listen_labels */
	long listen_max_series;
	/* the last option given that shapes --listen's series, its name */
	const char *listen_shaper;
	/* graph: the reports, each named by --host NAME=FILE or itself */
	struct {
		char name[65];		/* "": the report's "host" */
		const char *file;
	} graph_in[OPT_MAX_HOSTS];
	int nr_graph_in;
	const char *prometheus;	/* graph --prometheus URL */
	const char *range;	/* --range: the window, "5m" */
	const char *match;	/* --match: label matchers */
};

/*
 * Options that only some subcommands take: each subcommand's entry says
 * which groups it takes (subcommands.c).
 */
enum option_group {
	OPTG_GRAPH = 1,		/* --host, --prometheus, --range, --match */
	OPTG_LISTEN = 2,	/* --listen and what shapes its series */
	OPTG_LIST = 4,		/* list --events */
	OPTG_CGROUP = 8,	/* -G: the tasks a tracing run or top takes */
	OPTG_REPEAT = 16,	/* -r N: a tracing run of -- COMMAND */
};

/* The sort keys' names, indexed by enum sort_key (SORT_NR of them). */
extern const char *const sort_names[];

/*
 * "a, b, c or d" (@last "or") from @n names, into @buf; for messages
 * that list choices from their table, so they cannot drift.
 */
void join_names(char *buf, size_t len, const char *const *names, int n,
		const char *sep, const char *last);

/* @o as no option sets it, for the subcommand @cmd. */
void options_defaults(struct options *o, enum command cmd);
/*
 * The options of @argv into @o (options.c's table), @argv[0] the word
 * before them. A subcommand takes the groups in @takes (enum
 * option_group); @anywhere: operands may come before options (a
 * recording is a file), else the first operand ends them (-- COMMAND's
 * own options stay its own). -h and -V set @o->cmd and stop. Returns
 * the index of the first operand, or -1 with @err (one line: problem;
 * fix).
 */
int options_read(int argc, char **argv, struct options *o,
		 unsigned int takes, bool anywhere, char *err, size_t len);
/*
 * graph: add report @file of host @name (@name_len bytes; 0: the name
 * the report gives). 0, or -1 with @err.
 */
int options_add_graph_input(struct options *o, const char *name,
			    size_t name_len, const char *file, char *err,
			    size_t len);

#endif /* TDBPF_OPTIONS_H */
