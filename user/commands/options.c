// SPDX-License-Identifier: GPL-2.0
/* tdbpf command line, in perf's spirit (-p, -t, -a, -- CMD, -I, -x, -j). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands/options.h"
#include "outputs/listen_opts.h"
#include "support/text.h"
#include "tdbpf.h"

enum {
	OPT_PER_NAME = 256,
	OPT_SORT,
	OPT_TOP,
	OPT_MODEL,
	OPT_SMT,
	OPT_CHILDREN,
	OPT_MAX_TASKS,
	OPT_GRAPH,
	OPT_WAKEUPS,
	OPT_LISTEN,
	OPT_LISTEN_LABELS,
	OPT_LISTEN_MAX_SERIES,
	OPT_FROM,
	OPT_TO,
	OPT_RECORD,
	OPT_HOST,
	OPT_PROMETHEUS,
	OPT_RANGE,
	OPT_MATCH,
};

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "event", required_argument, NULL, 'e' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "interval", required_argument, NULL, 'I' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "json", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "level", required_argument, NULL, 'l' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "per-name", no_argument, NULL, OPT_PER_NAME },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "model", required_argument, NULL, OPT_MODEL },
	{ "smt", required_argument, NULL, OPT_SMT },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
	{ "graph", required_argument, NULL, OPT_GRAPH },
	{ "wakeups", no_argument, NULL, OPT_WAKEUPS },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "listen-labels", required_argument, NULL, OPT_LISTEN_LABELS },
	{ "listen-max-series", required_argument, NULL, OPT_LISTEN_MAX_SERIES },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
	{ "range", required_argument, NULL, OPT_RANGE },
	{ "match", required_argument, NULL, OPT_MATCH },
	{ NULL, 0, NULL, 0 },
};

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	/*
	 * The message quotes the user's argument: a newline or an escape
	 * sequence in it must not split the line or drive the terminal.
	 */
	text_printable(err, len, err, NULL, 0);
	return -1;
}

/* A whole decimal number in [min, max]; no sign games, no trailing junk. */
static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_ids(const char *arg, pid_t *ids, int *nr, const char *what,
		     char *err, size_t len)
{
	char buf[1024], *tok, *save = NULL;
	long v;

	if (strlen(arg) >= sizeof(buf))
		return fail(err, len, "%s list too long; give at most %d ids",
			    what, OPT_MAX_TARGETS);
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_long(tok, 1, INT_MAX, &v))
			return fail(err, len,
				    "-%c: invalid %s '%s'; give positive numbers separated by commas, e.g. -%c 1234,1240",
				    what[0] == 'p' ? 'p' : 't', what, tok,
				    what[0] == 'p' ? 'p' : 't');
		if (*nr >= OPT_MAX_TARGETS)
			return fail(err, len, "too many %ss; give at most %d",
				    what, OPT_MAX_TARGETS);
		ids[(*nr)++] = (pid_t)v;
	}
	if (!*nr)
		return fail(err, len, "empty %s list; give e.g. -%c 1234", what,
			    what[0] == 'p' ? 'p' : 't');
	return 0;
}

const char *const sort_names[SORT_NR] = {
	[SORT_CPU] = "cpu",	    [SORT_RUNQ] = "runq",
	[SORT_OFFCPU] = "offcpu",   [SORT_TID] = "tid",
	[SORT_COMM] = "comm",	    [SORT_SWITCHES] = "switches",
};

static void defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->cmd = CMD_TRACE;
	o->smt = -1;
	o->sort = SORT_CPU;
	o->max_tasks = TDBPF_MAX_TASKS_DEFAULT;
	o->listen_max_series = LISTEN_DEFAULT_MAX_SERIES;
	o->from = o->to = -1;
}

/* ---- subcommands: each checks what it takes ------------------------ */

static const struct subcommand *find_subcommand(const char *word);
static int no_events(const struct options *o, const char *cmd, char *err,
		     size_t len);

/* -p/-t/-a/-- COMMAND: what to trace, and options that go together. */
static int check_trace(struct options *o, int argc, char **argv, int optind,
		       char *err, size_t len)
{
	int n;

	if (optind < argc) {
		/*
		 * "--" ends options; anything left is the command to launch.
		 * A subcommand's name there, without "--", was meant as the
		 * subcommand: say where it goes rather than run a program.
		 */
		if (strcmp(argv[optind - 1], "--") &&
		    find_subcommand(argv[optind]))
			return fail(err, len,
				    "'%s' is a command: put it first (tdbpf %s [options]); to launch a program named %s, put -- before it",
				    argv[optind], argv[optind], argv[optind]);
		o->argv = &argv[optind];
	}
	n = (o->nr_pids > 0) + (o->nr_tids > 0) + o->all + (o->argv != NULL);
	if (n == 0)
		return fail(err, len,
			    "nothing to trace; give -p PID, -t TID, -a, or -- COMMAND (see tdbpf --help)");
	if (n > 1)
		return fail(err, len,
			    "-p, -t, -a and -- COMMAND exclude each other; give only one of them");
	if (o->sep && o->json)
		return fail(err, len,
			    "-x (CSV) and -j (JSON) exclude each other; pick one");
	if (o->children && !o->nr_pids && !o->argv)
		return fail(err, len,
			    "--children follows processes forked by -p or -- COMMAND targets; add one of them");
	/* the graph is made of wakeups */
	if (o->graph)
		o->wakeups = true;
	if (o->from >= 0 || o->to >= 0)
		return fail(err, len,
			    "--from and --to pick intervals of a recording; use them with tdbpf report FILE");
	if (o->record && o->output && !strcmp(o->record, o->output))
		return fail(err, len,
			    "--record and -o name the same file '%s'; give two files",
			    o->record);
	return 0;
}

/* top: the targets of a trace; the screen is the output. */
static int check_top(struct options *o, int argc, char **argv, int optind,
		     char *err, size_t len)
{
	if (check_trace(o, argc, argv, optind, err, len))
		return -1;
	if ((o->sep || o->json) && !o->output)
		return fail(err, len,
			    "top draws on the terminal; -x and -j are for the final report: add -o FILE");
	if (!o->interval_ms)
		o->interval_ms = 1000;
	return 0;
}

/* report: one recording, and nothing that only tracing takes. */
static int check_report(struct options *o, int argc, char **argv, int optind,
			char *err, size_t len)
{
	if (optind < argc)
		o->input = argv[optind++];
	if (optind < argc)
		return fail(err, len,
			    "report takes one recording, got '%s' too; give FILE or - for stdin",
			    argv[optind]);
	if (!o->input)
		return fail(err, len,
			    "report needs a recording; give the FILE that tdbpf -j -o FILE wrote");
	if (o->nr_pids || o->nr_tids || o->all || o->duration > 0 ||
	    o->interval_ms || o->children || o->model || o->smt >= 0 ||
	    o->record)
		return fail(err, len,
			    "report reads a recording; drop -p/-t/-a/-d/-I/--children/--model/--smt/--record");
	if (o->sep && o->json)
		return fail(err, len,
			    "-x (CSV) and -j (JSON) exclude each other; pick one");
	if (o->from >= 0 && o->to >= 0 && o->from > o->to)
		return fail(err, len,
			    "--from %ld is after --to %ld; give --from <= --to",
			    o->from, o->to);
	/* without --sort, rows keep the order the live run printed */
	if (!o->sort_given)
		o->sort = SORT_NONE;
	return no_events(o, "report", err, len);
}

static int add_graph_input(struct options *o, const char *name,
			   size_t name_len, const char *file, char *err,
			   size_t len)
{
	if (o->nr_graph_in >= OPT_MAX_HOSTS)
		return fail(err, len, "more than %d reports; join at most %d hosts at once",
			    OPT_MAX_HOSTS, OPT_MAX_HOSTS);
	snprintf(o->graph_in[o->nr_graph_in].name,
		 sizeof(o->graph_in[0].name), "%.*s", (int)name_len, name);
	o->graph_in[o->nr_graph_in++].file = file;
	return 0;
}

/* graph: reports from several hosts, nothing that only tracing takes. */
static int check_graph(struct options *o, int argc, char **argv, int optind,
		       char *err, size_t len)
{
	for (; optind < argc; optind++)
		if (add_graph_input(o, "", 0, argv[optind], err, len))
			return -1;
	if (o->prometheus && o->nr_graph_in)
		return fail(err, len,
			    "graph reads either reports or --prometheus; give one of them");
	if ((o->range || o->match) && !o->prometheus)
		return fail(err, len,
			    "--range and --match select series of --prometheus URL; add it, or drop them");
	if (!o->nr_graph_in && !o->prometheus)
		return fail(err, len,
			    "graph needs the hosts' reports; give FILE... (written by tdbpf --wakeups -j or --record), --host NAME=FILE, or --prometheus URL");
	if (o->prometheus && !o->range)
		o->range = "5m";
	if (o->nr_pids || o->nr_tids || o->all || o->duration > 0 ||
	    o->interval_ms || o->children || o->model || o->smt >= 0 ||
	    o->record || o->from >= 0 || o->to >= 0)
		return fail(err, len,
			    "graph joins reports already written; drop -p/-t/-a/-d/-I/--children/--model/--smt/--record/--from/--to");
	if (o->per_name)
		return fail(err, len,
			    "graph names its nodes host/process/thread and does not fold them; drop --per-name");
	if (o->sep && o->json)
		return fail(err, len,
			    "-x (CSV) and -j (JSON) exclude each other; pick one");
	o->wakeups = true;
	return no_events(o, "graph", err, len);
}

/* -e counts while tracing: list and decode have nothing to count */
static int no_events(const struct options *o, const char *cmd, char *err,
		     size_t len)
{
	if (o->nr_events)
		return fail(err, len,
			    "-e names events to count while tracing; drop it from %s",
			    cmd);
	return 0;
}

static int check_list(struct options *o, int argc, char **argv, int optind,
		      char *err, size_t len)
{
	if (no_events(o, "list", err, len))
		return -1;
	if (optind < argc)
		return fail(err, len,
			    "unexpected argument '%s' to list; use tdbpf %s",
			    argv[optind], subcommands[CMD_LIST].synopsis);
	return 0;
}

static int check_decode(struct options *o, int argc, char **argv,
			int optind, char *err, size_t len)
{
	if (optind < argc)
		o->input = argv[optind++];
	if (optind < argc)
		return fail(err, len,
			    "decode takes one input file, got '%s' too; give FILE or - for stdin",
			    argv[optind]);
	if (!o->model)
		return fail(err, len,
			    "decode needs --model M; see 'tdbpf list --help' for the models");
	if (o->nr_pids || o->nr_tids || o->all)
		return fail(err, len,
			    "decode reads counts from a file; drop -p/-t/-a");
	return no_events(o, "decode", err, len);
}

/* Indexed by enum command; -V is an option, not a word. */
const struct subcommand subcommands[] = {
	[CMD_TRACE] = { CMD_TRACE, NULL,
			"[options] -p PID[,PID] | -t TID[,TID] | -a | -- COMMAND [ARGS]",
			false, false, check_trace },
	[CMD_LIST] = { CMD_LIST, "list",
		       "list [--model M] [--smt on|off] [-l N] [-j]", false,
		       false, check_list },
	[CMD_DECODE] = { CMD_DECODE, "decode",
			 "decode --model M [--smt on|off] [-l N] [-j] [FILE|-]",
			 false, false, check_decode },
	[CMD_REPORT] = { CMD_REPORT, "report",
			 "report [-x SEP|-j] [--per-name] [--sort KEY] [--top N] [-l N] [--from N] [--to N] FILE|-",
			 false, false, check_report },
	[CMD_TOP] = { CMD_TOP, "top",
		      "top [-I MS] [--per-name] [--sort KEY] [options] -p PID | -t TID | -a | -- COMMAND",
		      false, false, check_top },
	[CMD_GRAPH] = { CMD_GRAPH, "graph",
			"graph [-x SEP|-j] [--graph FILE.dot] [--sort KEY] [--top N] [--host NAME=FILE]... [FILE...] | --prometheus URL [--range DUR] [--match SEL]",
			false, false, check_graph },
	[CMD_HELP] = { CMD_HELP, "help", NULL, true, true, NULL },
	[CMD_VERSION] = { CMD_VERSION, NULL, NULL, true, true, NULL },
};

static const struct subcommand *find_subcommand(const char *word)
{
	int i;

	for (i = 0; i < CMD_NR; i++)
		if (subcommands[i].name && !strcmp(subcommands[i].name, word))
			return &subcommands[i];
	return NULL;
}

/* "'list', 'decode', ": the words a user is told about */
static void subcommand_names(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < CMD_NR && n < len; i++)
		if (subcommands[i].name && !subcommands[i].hidden)
			n += (size_t)snprintf(buf + n, len - n, "'%s', ",
					      subcommands[i].name);
}

void join_names(char *buf, size_t len, const char *const *names, int n,
		const char *sep, const char *last)
{
	size_t used = 0;
	int i;

	if (!len)
		return;
	buf[0] = 0;
	for (i = 0; i < n; i++) {
		const char *pre = !i ? "" : i == n - 1 ? last : sep;
		int w = snprintf(buf + used, len - used, "%s%s", pre, names[i]);

		if (w < 0 || (size_t)w >= len - used)
			return;	/* cut: the buffer ends in a whole name */
		used += (size_t)w;
	}
}

int parse_options(int argc, char **argv, struct options *o, char *err,
		  size_t len)
{
	const struct subcommand *sc = &subcommands[CMD_TRACE];
	const char *seen_listen_opt = NULL;
	double d;
	char *end;
	long v;
	int c, i, first = 1;

	defaults(o);
	if (argc > 1 && argv[1][0] != '-') {
		sc = find_subcommand(argv[1]);
		if (!sc) {
			char names[256];

			subcommand_names(names, sizeof(names));
			return fail(err, len,
				    "unknown command '%s'; use %sor -p/-t/-a/-- COMMAND to trace (see tdbpf --help)",
				    argv[1], names);
		}
		o->cmd = sc->id;
		first = 2;
	}
	if (!sc->check)		/* help: nothing more to read */
		return 0;

	/* getopt keeps state between calls: reset it fully (glibc) */
	optind = 0;
	opterr = 0;
	argc -= first - 1;
	argv += first - 1;
	/*
	 * "+": stop at the first operand, so -- COMMAND's own options stay
	 * its own; a recording is a file, so options may follow it.
	 */
	while ((c = getopt_long(argc, argv,
				o->cmd == CMD_REPORT || o->cmd == CMD_GRAPH ?
					":p:t:ad:I:x:jo:l:vhVe:" :
						       "+:p:t:ad:I:x:jo:l:vhVe:",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_ids(optarg, o->pids, &o->nr_pids, "pid", err,
				      len))
				return -1;
			break;
		case 't':
			if (parse_ids(optarg, o->tids, &o->nr_tids, "tid", err,
				      len))
				return -1;
			break;
		case 'a':
			o->all = true;
			break;
		case 'e':
			/* parsed later against sysfs and tracefs (evsel.c) */
			if (o->nr_events >= OPT_MAX_EVENT_ARGS)
				return fail(err, len,
					    "too many -e options; give at most %d, each with events separated by commas",
					    OPT_MAX_EVENT_ARGS);
			o->events[o->nr_events++] = optarg;
			break;
		case 'd':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(d) ||
			    d <= 0 || d > 365 * 86400.0)
				return fail(err, len,
					    "-d: invalid duration '%s'; give seconds > 0, e.g. -d 10 or -d 0.5",
					    optarg);
			o->duration = d;
			break;
		case 'I':
			if (parse_long(optarg, 1, 86400000L, &v))
				return fail(err, len,
					    "-I: invalid interval '%s'; give milliseconds >= 1, e.g. -I 1000",
					    optarg);
			o->interval_ms = v;
			break;
		case 'x':
			if (!*optarg || strchr(optarg, '\n'))
				return fail(err, len,
					    "-x: invalid separator; give one or more characters, e.g. -x ,");
			o->sep = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'o':
			if (!*optarg)
				return fail(err, len,
					    "-o: empty output file name; give -o FILE");
			o->output = optarg;
			break;
		case 'l':
			if (parse_long(optarg, 1, 3, &v))
				return fail(err, len,
					    "-l: invalid level '%s'; give 1, 2 or 3",
					    optarg);
			o->level = (int)v;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			o->cmd = CMD_HELP;
			return 0;
		case 'V':
			o->cmd = CMD_VERSION;
			return 0;
		case OPT_PER_NAME:
			o->per_name = true;
			break;
		case OPT_GRAPH:
			if (!*optarg)
				return fail(err, len,
					    "empty graph file name; give --graph FILE.dot");
			o->graph = optarg;
			break;
		case OPT_WAKEUPS:
			o->wakeups = true;
			break;
		case OPT_SORT:
			for (i = 0; i < SORT_NR; i++)
				if (!strcmp(optarg, sort_names[i]))
					break;
			if (i == SORT_NR) {
				char keys[128];

				join_names(keys, sizeof(keys), sort_names,
					   SORT_NR, ", ", " or ");
				return fail(err, len,
					    "--sort: unknown sort key '%s'; use %s",
					    optarg, keys);
			}
			o->sort = (enum sort_key)i;
			o->sort_given = true;
			break;
		case OPT_TOP:
			if (parse_long(optarg, 1, INT_MAX, &v))
				return fail(err, len,
					    "invalid --top '%s'; give a number of rows >= 1",
					    optarg);
			o->top = (int)v;
			break;
		case OPT_MODEL:
			if (!*optarg)
				return fail(err, len,
					    "--model: the model name is empty; give one, e.g. --model software (tdbpf list names this machine's)");
			o->model = optarg;
			break;
		case OPT_SMT:
			if (!strcmp(optarg, "on"))
				o->smt = 1;
			else if (!strcmp(optarg, "off"))
				o->smt = 0;
			else
				return fail(err, len,
					    "invalid --smt '%s'; use --smt on or --smt off",
					    optarg);
			break;
		case OPT_CHILDREN:
			o->children = true;
			break;
		case OPT_MAX_TASKS:
			if (parse_long(optarg, TDBPF_MAX_TASKS_MIN,
				       TDBPF_MAX_TASKS_MAX, &v))
				return fail(err, len,
					    "invalid --max-tasks '%s'; give %d to %d",
					    optarg, TDBPF_MAX_TASKS_MIN,
					    TDBPF_MAX_TASKS_MAX);
			o->max_tasks = v;
			break;
		case OPT_LISTEN: {
			struct listen_addr a;
			char msg[256];

			if (listen_parse_addr(optarg, &a, msg, sizeof(msg)))
				return fail(err, len, "%s", msg);
			o->listen = optarg;
			break;
		}
		case OPT_LISTEN_LABELS:
			if (listen_parse_labels(optarg, &o->listen_labels))
				return fail(err, len,
					    "invalid --listen-labels '%s'; give pid, tid, pid,tid or none",
					    optarg);
			seen_listen_opt = "--listen-labels";
			break;
		case OPT_LISTEN_MAX_SERIES:
			if (parse_long(optarg, 1, LISTEN_MAX_SERIES_LIMIT, &v))
				return fail(err, len,
					    "invalid --listen-max-series '%s'; give 1 to %d",
					    optarg, LISTEN_MAX_SERIES_LIMIT);
			o->listen_max_series = v;
			seen_listen_opt = "--listen-max-series";
			break;
		case OPT_FROM:
		case OPT_TO:
			if (parse_long(optarg, 0, INT_MAX, &v))
				return fail(err, len,
					    "invalid --%s '%s'; give an interval number >= 0, as the recording numbers them (\"interval\")",
					    c == OPT_FROM ? "from" : "to", optarg);
			*(c == OPT_FROM ? &o->from : &o->to) = v;
			break;
		case OPT_RECORD:
			if (!*optarg)
				return fail(err, len,
					    "empty --record file name; give --record FILE");
			o->record = optarg;
			break;
		case OPT_HOST: {
			const char *eq = strchr(optarg, '=');

			if (o->cmd != CMD_GRAPH)
				return fail(err, len,
					    "--host names a report's host for tdbpf graph; drop it here");
			if (!eq || eq == optarg || !eq[1])
				return fail(err, len,
					    "--host '%s': give NAME=FILE, e.g. --host db-3=db-3.json",
					    optarg);
			if (eq - optarg >= (long)sizeof(o->graph_in[0].name))
				return fail(err, len,
					    "--host: the name is longer than %zu bytes; give a shorter NAME",
					    sizeof(o->graph_in[0].name) - 1);
			if (add_graph_input(o, optarg, (size_t)(eq - optarg),
					    eq + 1, err, len))
				return -1;
			break;
		}
		case OPT_PROMETHEUS:
		case OPT_RANGE:
		case OPT_MATCH:
			if (o->cmd != CMD_GRAPH)
				return fail(err, len,
					    "--prometheus, --range and --match are tdbpf graph's; drop them here");
			if (!*optarg)
				return fail(err, len,
					    "empty %s; see tdbpf --help",
					    c == OPT_PROMETHEUS ? "--prometheus URL" :
					    c == OPT_RANGE	? "--range" :
								  "--match");
			if (c == OPT_PROMETHEUS)
				o->prometheus = optarg;
			else if (c == OPT_RANGE)
				o->range = optarg;
			else
				o->match = optarg;
			break;
		case ':':
			return fail(err, len,
				    "option %s needs an argument; see tdbpf --help",
				    argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return fail(err, len,
					    "unknown option '-%c'; see tdbpf --help",
					    optopt);
			return fail(err, len,
				    "unknown or incomplete option '%s'; see tdbpf --help",
				    argv[optind - 1]);
		}
	}

	if (o->cmd != CMD_TRACE && (o->listen || seen_listen_opt))
		return fail(err, len,
			    "--listen serves a tracing run; drop it, or trace with -p/-t/-a/-- COMMAND");
	if (seen_listen_opt && !o->listen)
		return fail(err, len,
			    "%s shapes the /metrics of --listen; add --listen [ADDR:]PORT",
			    seen_listen_opt);
	return sc->check(o, argc, argv, optind, err, len);
}

void print_usage(FILE *f)
{
	const char *lead = "usage:";
	int i;

	for (i = 0; i < CMD_NR; i++) {
		if (!subcommands[i].synopsis)
			continue;
		fprintf(f, "%-6s tdbpf %s\n", lead, subcommands[i].synopsis);
		lead = "";
	}
	fputs("\n"
	      "Per-task TopDown and scheduling breakdown, attributed at sched_switch.\n"
	      "\n"
	      "  -p, --pid PID[,PID]    trace every thread of these processes\n"
	      "  -t, --tid TID[,TID]    trace these threads only\n"
	      "  -a, --all-cpus         trace every task on the machine\n"
	      "  -e, --event EVENT[,EVENT...]  also count these, in perf's syntax\n"
	      "                         (cpu-clock, sched:sched_switch, rNNNN,\n"
	      "                         pmu/term=val/, {a,b}); alone, without\n"
	      "                         --model, only these\n"
	      "  -- COMMAND [ARGS]      launch COMMAND (as the sudo user) and trace it\n"
	      "      --children         also follow processes the targets fork\n"
	      "  -d, --duration SECS    stop after SECS seconds\n"
	      "  -I, --interval MS      print a report every MS milliseconds\n"
	      "  -x, --field-separator SEP  CSV output, perf stat -x style\n"
	      "  -j, --json             JSON output (one object per line with -I)\n"
	      "  -o, --output FILE      write the report to FILE\n"
	      "      --per-name         one row per thread name, instance numbers folded\n",
	      f);
	/* the keys from their table; the first is the default */
	fprintf(f, "      --sort KEY         %s (default)", sort_names[0]);
	for (i = 1; i < SORT_NR; i++)
		fprintf(f, ", %s", sort_names[i]);
	fputs("\n"
	      "      --top N            show the N first rows\n"
	      "      --model M          CPU model instead of detection (tdbpf list)\n"
	      "      --smt on|off       SMT state instead of detection\n"
	      "  -l, --level N          TMA level 1-3 (default: deepest of the model)\n",
	      f);
	fprintf(f, "      --max-tasks N      tasks held at once (default %d)\n",
		TDBPF_MAX_TASKS_DEFAULT);
	fprintf(f, "      --listen [ADDR:]PORT  serve Prometheus /metrics (ADDR default 127.0.0.1)\n"
		   "      --listen-labels L  pid, tid or pid,tid labels on the series (default none)\n"
		   "      --listen-max-series N  label sets before the rest go to 'other' (default %d)\n",
		LISTEN_DEFAULT_MAX_SERIES);
	fputs("      --graph FILE.dot   write the wait-for graph (Graphviz DOT)\n"
	      "      --wakeups          trace wakeups: who waits on whom, the graph's\n"
	      "                         bottleneck (on with --graph)\n"
	      "      --record FILE      also write every report, every row, as JSON\n"
	      "                         for tdbpf report FILE\n"
	      "      --from N, --to N   report: intervals N.. and ..N of an -I recording\n"
	      "      --host NAME=FILE   graph: FILE is host NAME's report\n"
	      "      --prometheus URL   graph: the hosts' series from this Prometheus\n"
	      "      --range DUR        graph: the window, a PromQL duration (default 5m)\n"
	      "      --match SEL        graph: label matchers of the series, job=\"tdbpf\"\n"
	      "  -v, --verbose          say what is being set up\n"
	      "  -h, --help             this text\n"
	      "  -V, --version          version\n"
	      "\n"
	      "Stops on Ctrl-C, SIGTERM, -d expiry or when every target exited, and\n"
	      "always prints what it gathered.\n",
	      f);
}
