// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf command line, in perf's spirit (-p, -t, -a, -- CMD, -I, -x, -j):
 * getopt. What each subcommand then takes is subcommands.c's, the usage
 * usage.c's.
 */
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
	OPT_NO_CHILDREN,
	OPT_MAX_TASKS,
	OPT_SOCK_MAX,
	OPT_GRAPH,
	OPT_WAKEUPS,
	OPT_SAMPLED_WAKEUPS,
	OPT_NO_WAKEUPS,
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
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
	{ "sock-max", required_argument, NULL, OPT_SOCK_MAX },
	{ "graph", required_argument, NULL, OPT_GRAPH },
	{ "wakeups", no_argument, NULL, OPT_WAKEUPS },
	{ "sampled-wakeups", no_argument, NULL, OPT_SAMPLED_WAKEUPS },
	{ "no-wakeups", no_argument, NULL, OPT_NO_WAKEUPS },
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

int options_add_graph_input(struct options *o, const char *name,
			    size_t name_len, const char *file, char *err,
			    size_t len)
{
	if (o->nr_graph_in >= OPT_MAX_HOSTS)
		return options_fail(err, len,
				    "more than %d reports; join at most %d hosts at once",
				    OPT_MAX_HOSTS, OPT_MAX_HOSTS);
	snprintf(o->graph_in[o->nr_graph_in].name,
		 sizeof(o->graph_in[0].name), "%.*s", (int)name_len, name);
	o->graph_in[o->nr_graph_in++].file = file;
	return 0;
}

int options_fail(char *err, size_t len, const char *fmt, ...)
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
		return options_fail(err, len, "%s list too long; give at most %d ids",
				    what, OPT_MAX_TARGETS);
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_long(tok, 1, INT_MAX, &v))
			return options_fail(err, len,
					    "-%c: invalid %s '%s'; give positive numbers separated by commas, e.g. -%c 1234,1240",
					    what[0] == 'p' ? 'p' : 't', what, tok,
					    what[0] == 'p' ? 'p' : 't');
		if (*nr >= OPT_MAX_TARGETS)
			return options_fail(err, len, "too many %ss; give at most %d",
					    what, OPT_MAX_TARGETS);
		ids[(*nr)++] = (pid_t)v;
	}
	if (!*nr)
		return options_fail(err, len, "empty %s list; give e.g. -%c 1234", what,
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
	o->sock_max = TDBPF_SOCK_MAX_DEFAULT;
	o->listen_max_series = LISTEN_DEFAULT_MAX_SERIES;
	o->from = o->to = -1;
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
			return options_fail(err, len,
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
					":p:t:aid:I:x:jo:l:vhVe:" :
						       "+:p:t:aid:I:x:jo:l:vhVe:",
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
				return options_fail(err, len,
						    "too many -e options; give at most %d, each with events separated by commas",
						    OPT_MAX_EVENT_ARGS);
			o->events[o->nr_events++] = optarg;
			break;
		case 'd':
			errno = 0;
			d = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(d) ||
			    d <= 0 || d > OPT_MAX_DURATION_S)
				return options_fail(err, len,
						    "-d: invalid duration '%s'; give seconds > 0 and at most %d (365 days), e.g. -d 10 or -d 0.5",
						    optarg, OPT_MAX_DURATION_S);
			o->duration = d;
			break;
		case 'I':
			if (parse_long(optarg, 1, OPT_MAX_INTERVAL_MS, &v))
				return options_fail(err, len,
						    "-I: invalid interval '%s'; give milliseconds >= 1 and at most %d (one day), e.g. -I 1000",
						    optarg, OPT_MAX_INTERVAL_MS);
			o->interval_ms = v;
			break;
		case 'x':
			if (!*optarg || strchr(optarg, '\n'))
				return options_fail(err, len,
						    "-x: invalid separator; give one or more characters, e.g. -x ,");
			o->sep = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'o':
			if (!*optarg)
				return options_fail(err, len,
						    "-o: empty output file name; give -o FILE");
			o->output = optarg;
			break;
		case 'l':
			if (parse_long(optarg, 1, 3, &v))
				return options_fail(err, len,
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
				return options_fail(err, len,
						    "empty graph file name; give --graph FILE.dot");
			o->graph = optarg;
			break;
		case OPT_WAKEUPS:
			o->wakeups_mode = WAKEUPS_ALL;
			o->wakeups_given |= 1u << WAKEUPS_ALL;
			break;
		case OPT_SAMPLED_WAKEUPS:
			o->wakeups_mode = WAKEUPS_SAMPLED;
			o->wakeups_given |= 1u << WAKEUPS_SAMPLED;
			break;
		case OPT_NO_WAKEUPS:
			o->wakeups_mode = WAKEUPS_OFF;
			o->wakeups_given |= 1u << WAKEUPS_OFF;
			break;
		case OPT_SORT:
			for (i = 0; i < SORT_NR; i++)
				if (!strcmp(optarg, sort_names[i]))
					break;
			if (i == SORT_NR) {
				char keys[128];

				join_names(keys, sizeof(keys), sort_names,
					   SORT_NR, ", ", " or ");
				return options_fail(err, len,
						    "--sort: unknown sort key '%s'; use %s",
						    optarg, keys);
			}
			o->sort = (enum sort_key)i;
			o->sort_given = true;
			break;
		case OPT_TOP:
			if (parse_long(optarg, 1, INT_MAX, &v))
				return options_fail(err, len,
						    "invalid --top '%s'; give a number of rows >= 1",
						    optarg);
			o->top = (int)v;
			break;
		case OPT_MODEL:
			if (!*optarg)
				return options_fail(err, len,
						    "--model: the model name is empty; give one, e.g. --model software (tdbpf list names this machine's)");
			o->model = optarg;
			break;
		case OPT_SMT:
			if (!strcmp(optarg, "on"))
				o->smt = 1;
			else if (!strcmp(optarg, "off"))
				o->smt = 0;
			else
				return options_fail(err, len,
						    "invalid --smt '%s'; use --smt on or --smt off",
						    optarg);
			break;
		case OPT_CHILDREN:
			o->children = true;
			break;
		case OPT_NO_CHILDREN:
		case 'i':
			o->no_children = true;
			break;
		case OPT_MAX_TASKS:
			if (parse_long(optarg, TDBPF_MAX_TASKS_MIN,
				       TDBPF_MAX_TASKS_MAX, &v))
				return options_fail(err, len,
						    "invalid --max-tasks '%s'; give %d to %d",
						    optarg, TDBPF_MAX_TASKS_MIN,
						    TDBPF_MAX_TASKS_MAX);
			o->max_tasks = v;
			break;
		case OPT_SOCK_MAX:
			if (parse_long(optarg, 16, 1 << 22, &v))
				return options_fail(err, len,
						    "invalid --sock-max '%s'; give 16 to %d",
						    optarg, 1 << 22);
			o->sock_max = v;
			break;
		case OPT_LISTEN: {
			struct listen_addr a;
			char msg[256];

			if (listen_parse_addr(optarg, &a, msg, sizeof(msg)))
				return options_fail(err, len, "%s", msg);
			o->listen = optarg;
			break;
		}
		case OPT_LISTEN_LABELS:
			if (listen_parse_labels(optarg, &o->listen_labels))
				return options_fail(err, len,
						    "invalid --listen-labels '%s'; give pid, tid, pid,tid or none",
						    optarg);
			seen_listen_opt = "--listen-labels";
			break;
		case OPT_LISTEN_MAX_SERIES:
			if (parse_long(optarg, 1, LISTEN_MAX_SERIES_LIMIT, &v))
				return options_fail(err, len,
						    "invalid --listen-max-series '%s'; give 1 to %d",
						    optarg, LISTEN_MAX_SERIES_LIMIT);
			o->listen_max_series = v;
			seen_listen_opt = "--listen-max-series";
			break;
		case OPT_FROM:
		case OPT_TO:
			if (parse_long(optarg, 0, INT_MAX, &v))
				return options_fail(err, len,
						    "invalid --%s '%s'; give an interval number >= 0, as the recording numbers them (\"interval\")",
						    c == OPT_FROM ? "from" : "to", optarg);
			*(c == OPT_FROM ? &o->from : &o->to) = v;
			break;
		case OPT_RECORD:
			if (!*optarg)
				return options_fail(err, len,
						    "empty --record file name; give --record FILE");
			o->record = optarg;
			break;
		case OPT_HOST: {
			const char *eq = strchr(optarg, '=');

			if (o->cmd != CMD_GRAPH)
				return options_fail(err, len,
						    "--host names a report's host for tdbpf graph; drop it here");
			if (!eq || eq == optarg || !eq[1])
				return options_fail(err, len,
						    "--host '%s': give NAME=FILE, e.g. --host db-3=db-3.json",
						    optarg);
			if (eq - optarg >= (long)sizeof(o->graph_in[0].name))
				return options_fail(err, len,
						    "--host: the name is longer than %zu bytes; give a shorter NAME",
						    sizeof(o->graph_in[0].name) - 1);
			if (options_add_graph_input(o, optarg,
						    (size_t)(eq - optarg), eq + 1,
						    err, len))
				return -1;
			break;
		}
		case OPT_PROMETHEUS:
		case OPT_RANGE:
		case OPT_MATCH:
			if (o->cmd != CMD_GRAPH)
				return options_fail(err, len,
						    "--prometheus, --range and --match are tdbpf graph's; drop them here");
			if (!*optarg)
				return options_fail(err, len, "empty %s; see tdbpf --help",
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
			return options_fail(err, len,
					    "option %s needs an argument; see tdbpf --help",
					    argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return options_fail(err, len,
						    "unknown option '-%c'; see tdbpf --help",
						    optopt);
			return options_fail(err, len,
					    "unknown or incomplete option '%s'; see tdbpf --help",
					    argv[optind - 1]);
		}
	}

	if (o->cmd != CMD_TRACE && (o->listen || seen_listen_opt))
		return options_fail(err, len,
				    "--listen serves a tracing run; drop it, or trace with -p/-t/-a/-- COMMAND");
	if (seen_listen_opt && !o->listen)
		return options_fail(err, len,
				    "%s shapes the /metrics of --listen; add --listen [ADDR:]PORT",
				    seen_listen_opt);
	return sc->check(o, argc, argv, optind, err, len);
}
