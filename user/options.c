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
#include "options.h"

enum {
	OPT_PER_NAME = 256,
	OPT_SORT,
	OPT_TOP,
	OPT_MODEL,
	OPT_SMT,
	OPT_CHILDREN,
	OPT_MAX_TASKS,
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
	{ NULL, 0, NULL, 0 },
};

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	/*
	 * The message quotes the user's argument: a newline or an escape
	 * sequence in it must not split the line or drive the terminal.
	 */
	for (p = err; len && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
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

static const char *const sort_names[] = {
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
	o->max_tasks = 65536;
}

int parse_options(int argc, char **argv, struct options *o, char *err,
		  size_t len)
{
	double d;
	char *end;
	long v;
	int c, i, first = 1;

	defaults(o);
	if (argc > 1 && argv[1][0] != '-') {
		if (!strcmp(argv[1], "list"))
			o->cmd = CMD_LIST;
		else if (!strcmp(argv[1], "decode"))
			o->cmd = CMD_DECODE;
		else if (!strcmp(argv[1], "help"))
			o->cmd = CMD_HELP;
		else
			return fail(err, len,
				    "unknown command '%s'; use 'list', 'decode', or -p/-t/-a/-- COMMAND to trace (see tdbpf --help)",
				    argv[1]);
		first = 2;
	}
	if (o->cmd == CMD_HELP)
		return 0;

	/* getopt keeps state between calls: reset it fully (glibc) */
	optind = 0;
	opterr = 0;
	argc -= first - 1;
	argv += first - 1;
	while ((c = getopt_long(argc, argv, "+:p:t:ad:I:x:jo:l:vhVe:", long_opts,
				NULL)) != -1) {
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
		case OPT_SORT:
			for (i = 0; i < (int)(sizeof(sort_names) /
					       sizeof(sort_names[0]));
			     i++)
				if (!strcmp(optarg, sort_names[i]))
					break;
			if (i == (int)(sizeof(sort_names) /
				       sizeof(sort_names[0])))
				return fail(err, len,
					    "--sort: unknown sort key '%s'; use cpu, runq, offcpu, tid, comm or switches",
					    optarg);
			o->sort = (enum sort_key)i;
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
					    "--model: the model name is empty; give one, e.g. --model software (tdbpf --help names them)");
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
			if (parse_long(optarg, 16, 4194304, &v))
				return fail(err, len,
					    "invalid --max-tasks '%s'; give 16 to 4194304",
					    optarg);
			o->max_tasks = v;
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

	/* getopt needs an argument for -x etc.: a missing one shows up here */
	if (o->cmd == CMD_DECODE) {
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
		if (o->nr_events)
			return fail(err, len,
				    "-e names events to count while tracing; drop it from decode");
		return 0;
	}
	if (o->cmd == CMD_LIST) {
		if (o->nr_events)
			return fail(err, len,
				    "-e names events to count while tracing; drop it from list");
		if (optind < argc)
			return fail(err, len,
				    "unexpected argument '%s' to list; use tdbpf list [--model M] [--smt on|off] [-l N] [-j]",
				    argv[optind]);
		return 0;
	}

	if (optind < argc) {
		/*
		 * "--" ends options; anything left is the command to launch.
		 * A subcommand's name there, without "--", was meant as the
		 * subcommand: say where it goes rather than run a program.
		 */
		if (strcmp(argv[optind - 1], "--") &&
		    (!strcmp(argv[optind], "list") ||
		     !strcmp(argv[optind], "decode") ||
		     !strcmp(argv[optind], "help")))
			return fail(err, len,
				    "'%s' is a command: put it first (tdbpf %s [options]); to launch a program named %s, put -- before it",
				    argv[optind], argv[optind], argv[optind]);
		o->argv = &argv[optind];
	}
	i = (o->nr_pids > 0) + (o->nr_tids > 0) + o->all + (o->argv != NULL);
	if (i == 0)
		return fail(err, len,
			    "nothing to trace; give -p PID, -t TID, -a, or -- COMMAND (see tdbpf --help)");
	if (i > 1)
		return fail(err, len,
			    "-p, -t, -a and -- COMMAND exclude each other; give only one of them");
	if (o->sep && o->json)
		return fail(err, len,
			    "-x (CSV) and -j (JSON) exclude each other; pick one");
	if (o->children && !o->nr_pids && !o->argv)
		return fail(err, len,
			    "--children follows processes forked by -p or -- COMMAND targets; add one of them");
	return 0;
}

void print_usage(FILE *f)
{
	fputs("usage: tdbpf [options] -p PID[,PID] | -t TID[,TID] | -a | -- COMMAND [ARGS]\n"
	      "       tdbpf list [--model M] [--smt on|off] [-l N] [-j]\n"
	      "       tdbpf decode --model M [--smt on|off] [-l N] [-j] [FILE|-]\n"
	      "\n"
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
	      "      --per-name         one row per thread name, instance numbers folded\n"
	      "      --sort KEY         cpu (default), runq, offcpu, tid, comm, switches\n"
	      "      --top N            show the N first rows\n"
	      "      --model M          CPU model instead of detection (tdbpf list):\n"
	      "                         broadwellx, broadwell, icelakex, icelake,\n"
	      "                         sapphirerapids, software\n"
	      "      --smt on|off       SMT state instead of detection\n"
	      "  -l, --level N          TMA level 1-3 (default: deepest of the model)\n"
	      "      --max-tasks N      tasks held at once (default 65536)\n"
	      "  -v, --verbose          say what is being set up\n"
	      "  -h, --help             this text\n"
	      "  -V, --version          version\n"
	      "\n"
	      "Stops on Ctrl-C, SIGTERM, -d expiry or when every target exited, and\n"
	      "always prints what it gathered.\n",
	      f);
}
