// SPDX-License-Identifier: GPL-2.0
/*
 * The subcommands (subcommands.h): the one command table, what each
 * takes once the options are read, and the command line read through
 * it. Pure, like the option table: fuzzed with it.
 */
#include <string.h>
#include "commands/cmd.h"
#include "commands/options.h"
#include "commands/subcommands.h"
#include "support/error.h"

static int no_events(const struct options *o, const char *cmd, char *err,
		     size_t len);

/* -p/-t/-a/-- COMMAND: what to trace, and options that go together. */
/*
 * -r N, as perf stat -r: the launched command N times, one report of
 * their means and spread; what needs one run's report is refused.
 */
static int check_repeat(const struct options *o, char *err, size_t len)
{
	if (o->repeat <= 1)
		return 0;
	if (!o->argv || o->argv_bounds)
		return error_set(err, len,
				 "-r runs a launched command again; give -- COMMAND alone, without -p/-t/-a/-G");
	if (o->interval_ms || o->record || o->graph || o->listen ||
	    o->nr_spans)
		return error_set(err, len,
				 "-r reports the runs' means; drop -I, --record, --graph, --listen and --span, or run once without -r");
	return 0;
}

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
			return error_set(err, len,
					 "'%s' is a command: put it first (tdbpf %s [options]); to launch a program named %s, put -- before it",
					 argv[optind], argv[optind], argv[optind]);
		o->argv = &argv[optind];
	}
	/* perf stat -a -G: -a there is the CPUs, -G the tasks on them */
	if (o->cgroup)
		o->all = false;
	n = (o->nr_pids > 0) + (o->nr_tids > 0) + o->all + (o->cgroup != NULL);
	/* as perf stat: a command beside -p/-t/-a only says how long */
	o->argv_bounds = n && o->argv;
	if (n == 0 && !o->argv)
		return error_set(err, len,
				 "nothing to trace; give -p PID, -t TID, -a, -G PATH, or -- COMMAND (see tdbpf --help)");
	if (n > 1)
		return error_set(err, len,
				 "-p, -t, -a and -G exclude each other; give only one of them");
	if (o->sep && o->json)
		return error_set(err, len,
				 "-x (CSV) and -j (JSON) exclude each other; pick one");
	if (o->children && !o->nr_pids && !o->argv)
		return error_set(err, len,
				 "--children follows processes forked by -p or -- COMMAND targets; add one of them");
	if (o->children && o->no_children)
		return error_set(err, len,
				 "--children and --no-children (-i) exclude each other; give one of them");
	/* as perf stat: a launched command is counted with what it forks */
	if (o->argv && !o->argv_bounds && !o->no_children)
		o->children = true;
	if (o->wakeups_given & (o->wakeups_given - 1))
		return error_set(err, len,
				 "--wakeups (every wakeup), --sampled-wakeups (those of windows, the default) and --no-wakeups (none) exclude each other; give one of them");
	/* the graph is made of wakeups */
	if (o->graph && o->wakeups_mode == WAKEUPS_OFF)
		return error_set(err, len,
				 "--graph writes the wait-for graph, which --no-wakeups turns off; drop one of them");
	o->wakeups = o->wakeups_mode != WAKEUPS_OFF;
	o->wakeups_sampled = o->wakeups_mode == WAKEUPS_SAMPLED;
	if (o->from >= 0 || o->to >= 0)
		return error_set(err, len,
				 "--from and --to pick intervals of a recording; use them with tdbpf report FILE");
	if (o->record && o->output && !strcmp(o->record, o->output))
		return error_set(err, len,
				 "--record and -o name the same file '%s'; give two files",
				 o->record);
	return check_repeat(o, err, len);
}

/* top: the targets of a trace; the screen is the output. */
static int check_top(struct options *o, int argc, char **argv, int optind,
		     char *err, size_t len)
{
	if (check_trace(o, argc, argv, optind, err, len))
		return -1;
	if (o->graph)
		return error_set(err, len,
				 "top draws its graph's verdict on the terminal and writes no --graph file; drop it, or write one with tdbpf --graph FILE.dot and the same targets");
	if ((o->sep || o->json) && !o->output)
		return error_set(err, len,
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
		return error_set(err, len,
				 "report takes one recording, got '%s' too; give FILE or - for stdin",
				 argv[optind]);
	if (!o->input)
		return error_set(err, len,
				 "report needs a recording; give the FILE that tdbpf -j -o FILE wrote");
	if (o->nr_pids || o->nr_tids || o->all || o->duration > 0 ||
	    o->interval_ms || o->children || o->no_children || o->model ||
	    o->smt >= 0 || o->record)
		return error_set(err, len,
				 "report reads a recording; drop -p/-t/-a/-d/-I/--children/--no-children/--model/--smt/--record");
	if (o->sep && o->json)
		return error_set(err, len,
				 "-x (CSV) and -j (JSON) exclude each other; pick one");
	if (o->from >= 0 && o->to >= 0 && o->from > o->to)
		return error_set(err, len,
				 "--from %ld is after --to %ld; give --from <= --to",
				 o->from, o->to);
	/* without --sort, rows keep the order the live run printed */
	if (!o->sort_given)
		o->sort = SORT_NONE;
	return no_events(o, "report", err, len);
}

/* -e counts while tracing: list and decode have nothing to count */
static int no_events(const struct options *o, const char *cmd, char *err,
		     size_t len)
{
	if (o->nr_events)
		return error_set(err, len,
				 "-e names events to count while tracing; drop it from %s",
				 cmd);
	if (o->nr_spans)
		return error_set(err, len,
				 "--span names operators to trace; drop it from %s",
				 cmd);
	return 0;
}

static int check_list(struct options *o, int argc, char **argv, int optind,
		      char *err, size_t len)
{
	if (no_events(o, "list", err, len))
		return -1;
	if (optind < argc)
		return error_set(err, len,
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
		return error_set(err, len,
				 "decode takes one input file, got '%s' too; give FILE or - for stdin",
				 argv[optind]);
	if (!o->model)
		return error_set(err, len,
				 "decode needs --model M; see 'tdbpf list --help' for the models");
	if (o->nr_pids || o->nr_tids || o->all)
		return error_set(err, len,
				 "decode reads counts from a file; drop -p/-t/-a");
	return no_events(o, "decode", err, len);
}

/* selftest traces its own workload: no targets, no command */
static int check_selftest(struct options *o, int argc, char **argv,
			  int optind, char *err, size_t len)
{
	if (optind < argc)
		return error_set(err, len,
				 "unexpected argument '%s' to selftest; use tdbpf %s",
				 argv[optind],
				 subcommands[CMD_SELFTEST].synopsis);
	if (o->nr_pids || o->nr_tids || o->all)
		return error_set(err, len,
				 "selftest traces its own threads; drop -p/-t/-a");
	return 0;
}

/* graph: reports from several hosts, nothing that only tracing takes. */
static int check_graph(struct options *o, int argc, char **argv, int optind,
		       char *err, size_t len)
{
	for (; optind < argc; optind++)
		if (options_add_graph_input(o, "", 0, argv[optind], err, len))
			return -1;
	if (o->prometheus && o->nr_graph_in)
		return error_set(err, len,
				 "graph reads either reports or --prometheus; give one of them");
	if ((o->range || o->match) && !o->prometheus)
		return error_set(err, len,
				 "--range and --match select series of --prometheus URL; add it, or drop them");
	if (!o->nr_graph_in && !o->prometheus)
		return error_set(err, len,
				 "graph needs the hosts' reports; give FILE... (written by tdbpf --wakeups -j or --record), --host NAME=FILE, or --prometheus URL");
	if (o->prometheus && !o->range)
		o->range = "5m";
	if (o->nr_pids || o->nr_tids || o->all || o->duration > 0 ||
	    o->interval_ms || o->children || o->no_children || o->model ||
	    o->smt >= 0 || o->record || o->from >= 0 || o->to >= 0)
		return error_set(err, len,
				 "graph joins reports already written; drop -p/-t/-a/-d/-I/--children/--no-children/--model/--smt/--record/--from/--to");
	if (o->per_name)
		return error_set(err, len,
				 "graph names its nodes host/process/thread and does not fold them; drop --per-name");
	if (o->sep && o->json)
		return error_set(err, len,
				 "-x (CSV) and -j (JSON) exclude each other; pick one");
	o->wakeups = true;
	return no_events(o, "graph", err, len);
}

/*
 * The fuzzers build the parser alone, without what the commands run
 * (libbpf and the rest): their entries' run is NULL there.
 */
#ifdef TDBPF_PARSE_ONLY
#define RUN(fn) NULL
#else
#define RUN(fn) fn
#endif

/*
 * The one command table, indexed by enum command: each subcommand's
 * word, synopsis, the option groups it takes, checks and what it runs.
 * -V is an option, not a word.
 */
const struct subcommand subcommands[] = {
	[CMD_TRACE] = {
		.id = CMD_TRACE,
		.synopsis = "[options] -p PID[,PID] | -t TID[,TID] | -a | -G PATH | -- COMMAND [ARGS]",
		.takes = OPTG_LISTEN | OPTG_CGROUP | OPTG_REPEAT,
		.check = check_trace, .run = RUN(cmd_trace),
	},
	[CMD_LIST] = {
		.id = CMD_LIST, .name = "list",
		.synopsis = "list [--model M] [--smt on|off] [-l N] [-j] | list --events [-j]",
		.summary = "the CPU models, and the events and TopDown tree of this machine's (or --model M's); --events: what -e takes here",
		.takes = OPTG_LIST,
		.check = check_list, .run = RUN(cmd_list),
	},
	[CMD_DECODE] = {
		.id = CMD_DECODE, .name = "decode",
		.synopsis = "decode --model M [--smt on|off] [-l N] [-j] [FILE|-]",
		.summary = "the TopDown tree of counts gathered elsewhere (EVENT VALUE lines, or perf stat -x, CSV)",
		.check = check_decode, .run = RUN(cmd_decode),
	},
	[CMD_REPORT] = {
		.id = CMD_REPORT, .name = "report",
		.synopsis = "report [-x SEP|-j] [--per-name] [--sort KEY] [--top N] [-l N] [--from N] [--to N] FILE|-",
		.summary = "a recording (--record, or tdbpf -j's output) printed again, as the live run printed it",
		.operands_anywhere = true,
		.check = check_report, .run = RUN(cmd_report),
	},
	/* the same targets as tracing, another driver (top.c) */
	[CMD_TOP] = {
		.id = CMD_TOP, .name = "top",
		.synopsis = "top [-I MS] [--per-name] [--sort KEY] [options] -p PID | -t TID | -a | -G PATH | -- COMMAND",
		.summary = "a live full-screen view, redrawn every -I milliseconds (keys: q quits, s sorts, f folds names, p pauses, h helps)",
		.takes = OPTG_CGROUP,
		.check = check_top, .run = RUN(cmd_trace),
	},
	[CMD_SELFTEST] = {
		.id = CMD_SELFTEST, .name = "selftest",
		.synopsis = "selftest [--model M] [-e EVENT[,EVENT...]] [-v]",
		.summary = "checks what tdbpf charges each thread against the kernel's own per-thread counts, here",
		.check = check_selftest, .run = RUN(cmd_selftest),
	},
	[CMD_GRAPH] = {
		.id = CMD_GRAPH, .name = "graph",
		.synopsis = "graph [-x SEP|-j] [--graph FILE.dot] [--sort KEY] [--top N] [--host NAME=FILE]... [FILE...] | --prometheus URL [--range DUR] [--match SEL]",
		.summary = "one wait-for graph and its verdict from several hosts' reports, or their series in Prometheus",
		.operands_anywhere = true, .takes = OPTG_GRAPH,
		.check = check_graph, .run = RUN(cmd_graph),
	},
	[CMD_HELP] = {
		.id = CMD_HELP, .name = "help", .hidden = true,
		.stdout_only = true, .run = RUN(cmd_help),
	},
	[CMD_VERSION] = {
		.id = CMD_VERSION, .hidden = true, .stdout_only = true,
		.run = RUN(cmd_version),
	},
};

const struct subcommand *find_subcommand(const char *word)
{
	int i;

	for (i = 0; i < CMD_NR; i++)
		if (subcommands[i].name && !strcmp(subcommands[i].name, word))
			return &subcommands[i];
	return NULL;
}

/* "'list', 'decode', ": the words a user is told about */
void subcommand_names(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < CMD_NR && n < len; i++)
		if (subcommands[i].name && !subcommands[i].hidden)
			n += (size_t)snprintf(buf + n, len - n, "'%s', ",
					      subcommands[i].name);
}

/* The subcommand @argv[1] names; tracing if it is an option. */
static const struct subcommand *command_of(int argc, char **argv,
					   char *err, size_t len)
{
	const struct subcommand *sc;
	char names[256];

	if (argc <= 1 || argv[1][0] == '-')
		return &subcommands[CMD_TRACE];
	sc = find_subcommand(argv[1]);
	if (!sc) {
		subcommand_names(names, sizeof(names));
		error_set(err, len,
			  "unknown command '%s'; use %sor -p/-t/-a/-- COMMAND to trace (see tdbpf --help)",
			  argv[1], names);
	}
	return sc;
}

int parse_options(int argc, char **argv, struct options *o, char *err,
		  size_t len)
{
	const struct subcommand *sc = command_of(argc, argv, err, len);
	int first = sc && sc->name ? 2 : 1, optind;

	options_defaults(o, CMD_TRACE);
	if (!sc)
		return -1;
	o->cmd = sc->id;
	if (!sc->check)		/* help: nothing more to read */
		return 0;
	argc -= first - 1;
	argv += first - 1;
	optind = options_read(argc, argv, o, sc->takes, sc->operands_anywhere,
			      err, len);
	if (optind < 0)
		return -1;
	if (o->cmd != sc->id)	/* -h, -V */
		return 0;
	if (!(sc->takes & OPTG_LISTEN) && (o->listen || o->listen_shaper))
		return error_set(err, len,
				 "--listen serves a tracing run; drop it, or trace with -p/-t/-a/-- COMMAND");
	if (o->listen_shaper && !o->listen)
		return error_set(err, len,
				 "--%s shapes the /metrics of --listen; add --listen [ADDR:]PORT",
				 o->listen_shaper);
	return sc->check(o, argc, argv, optind, err, len);
}
