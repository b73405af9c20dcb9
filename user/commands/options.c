// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf's options, in perf's spirit (-p, -t, -a, -- CMD, -I, -x, -j): one
 * table of descriptors, each an option's names, the field it sets and
 * how, read by getopt_long. Which subcommand takes what, and the
 * command line as a whole, are subcommands.c's; the usage is usage.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands/options.h"
#include "outputs/sink.h"
#include "exporter/listen_opts.h"
#include "sources/span_spec.h"
#include "support/array.h"
#include "support/error.h"
#include "tdbpf.h"

struct opt_desc;
/* Set what @d says from @arg (NULL: no argument). 0, 1 to stop, or -1. */
typedef int (*opt_set_fn)(struct options *o, const struct opt_desc *d,
			  const char *arg, char *err, size_t len);

struct opt_desc {
	const char *name;	/* --NAME */
	int letter;		/* -L, or 0 */
	int has_arg;		/* no_argument, required_argument */
	opt_set_fn set;
	size_t off, size;	/* the field of struct options it sets */
	long lo, hi;		/* a number's bounds; a mode's value */
	/* the complaint, a format of (argument, lo, hi) */
	const char *msg;
	/* an option of a group (enum option_group) a subcommand may not take */
	unsigned int group;
	const char *refuse;	/* said at once, if the subcommand does not */
};

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

static void *field(struct options *o, const struct opt_desc *d)
{
	return (char *)o + d->off;
}

static int set_flag(struct options *o, const struct opt_desc *d,
		    const char *arg, char *err, size_t len)
{
	(void)arg, (void)err, (void)len;
	*(bool *)field(o, d) = true;
	return 0;
}

/* A number in [lo, hi] into an int or a long field. */
static int set_number(struct options *o, const struct opt_desc *d,
		      const char *arg, char *err, size_t len)
{
	long v;

	if (parse_long(arg, d->lo, d->hi, &v))
		return error_set(err, len, d->msg, arg, d->lo, d->hi);
	if (d->size == sizeof(int))
		*(int *)field(o, d) = (int)v;
	else
		*(long *)field(o, d) = v;
	return 0;
}

/* A file name or a word that must not be empty. */
static int set_string(struct options *o, const struct opt_desc *d,
		      const char *arg, char *err, size_t len)
{
	if (!*arg)
		return error_set(err, len, "%s", d->msg);
	*(const char **)field(o, d) = arg;
	return 0;
}

/* -h, -V: the subcommand they name, and nothing more to read. */
static int set_command(struct options *o, const struct opt_desc *d,
		       const char *arg, char *err, size_t len)
{
	(void)arg, (void)err, (void)len;
	/* tdbpf top --help: top's usage, as perf top -h gives perf top's */
	if (d->lo == CMD_HELP)
		o->help_for = o->cmd;
	o->cmd = (enum command)d->lo;
	return 1;
}

/* --wakeups, --sampled-wakeups, --no-wakeups: a mode each. */
static int set_wakeups(struct options *o, const struct opt_desc *d,
		       const char *arg, char *err, size_t len)
{
	(void)arg, (void)err, (void)len;
	o->wakeups_mode = d->lo;
	o->wakeups_given |= 1u << d->lo;
	return 0;
}

/* -p, -t: ids separated by commas. */
static int set_ids(struct options *o, const struct opt_desc *d,
		   const char *arg, char *err, size_t len)
{
	bool pid = d->letter == 'p';
	pid_t *ids = pid ? o->pids : o->tids;
	int *nr = pid ? &o->nr_pids : &o->nr_tids;
	const char *what = d->name;
	char buf[1024], *tok, *save = NULL;
	long v;

	if (strlen(arg) >= sizeof(buf))
		return error_set(err, len, "%s list too long; give at most %d ids",
				 what, OPT_MAX_TARGETS);
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (parse_long(tok, 1, INT_MAX, &v))
			return error_set(err, len,
					 "-%c: invalid %s '%s'; give positive numbers separated by commas, e.g. -%c 1234,1240",
					 d->letter, what, tok, d->letter);
		if (*nr >= OPT_MAX_TARGETS)
			return error_set(err, len, "too many %ss; give at most %d",
					 what, OPT_MAX_TARGETS);
		ids[(*nr)++] = (pid_t)v;
	}
	if (!*nr)
		return error_set(err, len, "empty %s list; give e.g. -%c 1234",
				 what, d->letter);
	return 0;
}

/* -e: parsed later against sysfs and tracefs (evsel.c) */
static int set_event(struct options *o, const struct opt_desc *d,
		     const char *arg, char *err, size_t len)
{
	(void)d;
	if (o->nr_events >= OPT_MAX_EVENT_ARGS)
		return error_set(err, len,
				 "too many -e options; give at most %d, each with events separated by commas",
				 OPT_MAX_EVENT_ARGS);
	o->events[o->nr_events++] = arg;
	return 0;
}

/* --span: its form checked now, its binary at the attach */
static int set_span(struct options *o, const struct opt_desc *d,
		    const char *arg, char *err, size_t len)
{
	(void)d;
	if (o->nr_spans >= OPT_MAX_SPAN_ARGS)
		return error_set(err, len,
				 "too many --span options; give at most %d, each with functions separated by commas",
				 OPT_MAX_SPAN_ARGS);
	if (span_spec_check(arg, err, len))
		return -1;
	o->spans[o->nr_spans++] = arg;
	return 0;
}

static int set_duration(struct options *o, const struct opt_desc *d,
			const char *arg, char *err, size_t len)
{
	char *end;
	double v;

	(void)d;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= 0 ||
	    v > OPT_MAX_DURATION_S)
		return error_set(err, len,
				 "-d: invalid duration '%s'; give seconds > 0 and at most %d (365 days), e.g. -d 10 or -d 0.5",
				 arg, OPT_MAX_DURATION_S);
	o->duration = v;
	return 0;
}

static int set_separator(struct options *o, const struct opt_desc *d,
			 const char *arg, char *err, size_t len)
{
	(void)d;
	if (!*arg || strchr(arg, '\n'))
		return error_set(err, len,
				 "-x: invalid separator; give one or more characters, e.g. -x ,");
	o->sep = arg;
	return 0;
}

const char *const sort_names[SORT_NR] = {
	[SORT_CPU] = "cpu",	    [SORT_RUNQ] = "runq",
	[SORT_OFFCPU] = "offcpu",   [SORT_TID] = "tid",
	[SORT_COMM] = "comm",	    [SORT_SWITCHES] = "switches",
};

static int set_sort(struct options *o, const struct opt_desc *d,
		    const char *arg, char *err, size_t len)
{
	char keys[128];
	int i;

	(void)d;
	for (i = 0; i < SORT_NR; i++)
		if (!strcmp(arg, sort_names[i]))
			break;
	if (i == SORT_NR) {
		join_names(keys, sizeof(keys), sort_names, SORT_NR, ", ",
			   " or ");
		return error_set(err, len,
				 "--sort: unknown sort key '%s'; use %s", arg,
				 keys);
	}
	o->sort = (enum sort_key)i;
	o->sort_given = true;
	return 0;
}

/* -F's names, a bit each of enum table_col (outputs/sink.h) in order */
static const char *const column_names[] = {
	"cpu", "runq", "sw", "migr", "tma", "ipc", "events", "waits",
	"container",
};

/*
 * -F/--columns cpu,runq,...: the table's optional columns, exactly
 * those ("all": every one); TID, COMM, ON-CPU, OFF-CPU and BOTTLENECK
 * are always shown.
 */
static int set_columns(struct options *o, const struct opt_desc *d,
		       const char *arg, char *err, size_t len)
{
	char names[160];
	const char *p = arg;
	size_t n, i;

	(void)d;
	o->table_cols = 0;
	while (*p) {
		n = strcspn(p, ",");
		for (i = 0; i < sizeof(column_names) / sizeof(column_names[0]);
		     i++)
			if (n == strlen(column_names[i]) &&
			    !strncmp(p, column_names[i], n))
				break;
		if (n == 3 && !strncmp(p, "all", 3))
			o->table_cols |= TCOL_ALL;
		else if (i < sizeof(column_names) / sizeof(column_names[0]))
			o->table_cols |= 1u << i;
		else
			break;
		p += n + (p[n] == ',');
	}
	if (*p || !o->table_cols) {
		join_names(names, sizeof(names), column_names,
			   (int)(sizeof(column_names) / sizeof(column_names[0])),
			   ",", ",");
		return error_set(err, len,
				 "-F: unknown column in '%s'; give some of %s, or all (TID, COMM, ON-CPU, OFF-CPU and BOTTLENECK are always shown)",
				 arg, names);
	}
	return 0;
}

static int set_smt(struct options *o, const struct opt_desc *d,
		   const char *arg, char *err, size_t len)
{
	(void)d;
	if (!strcmp(arg, "on"))
		o->smt = 1;
	else if (!strcmp(arg, "off"))
		o->smt = 0;
	else
		return error_set(err, len,
				 "invalid --smt '%s'; use --smt on or --smt off",
				 arg);
	return 0;
}

static int set_listen(struct options *o, const struct opt_desc *d,
		      const char *arg, char *err, size_t len)
{
	struct listen_addr a;
	char msg[256];

	(void)d;
	if (listen_parse_addr(arg, &a, msg, sizeof(msg)))
		return error_set(err, len, "%s", msg);
	o->listen = arg;
	return 0;
}

static int set_listen_labels(struct options *o, const struct opt_desc *d,
			     const char *arg, char *err, size_t len)
{
	if (listen_parse_labels(arg, &o->listen_labels))
		return error_set(err, len,
				 "invalid --listen-labels '%s'; give pid, tid, pid,tid or none",
				 arg);
	o->listen_shaper = d->name;
	return 0;
}

static int set_listen_series(struct options *o, const struct opt_desc *d,
			     const char *arg, char *err, size_t len)
{
	if (set_number(o, d, arg, err, len))
		return -1;
	o->listen_shaper = d->name;
	return 0;
}

/* --host NAME=FILE: a report and the host it is from. */
static int set_host(struct options *o, const struct opt_desc *d,
		    const char *arg, char *err, size_t len)
{
	const char *eq = strchr(arg, '=');

	(void)d;
	if (!eq || eq == arg || !eq[1])
		return error_set(err, len,
				 "--host '%s': give NAME=FILE, e.g. --host db-3=db-3.json",
				 arg);
	if (eq - arg >= (long)sizeof(o->graph_in[0].name))
		return error_set(err, len,
				 "--host: the name is longer than %zu bytes; give a shorter NAME",
				 sizeof(o->graph_in[0].name) - 1);
	return options_add_graph_input(o, arg, (size_t)(eq - arg), eq + 1,
				       err, len);
}

#define FIELD(f)	.off = offsetof(struct options, f), \
			.size = sizeof(((struct options *)0)->f)
#define FLAG(n, l, f)	{ .name = n, .letter = l, .set = set_flag, FIELD(f) }
#define NUMBER(n, l, f, min, max, m) \
	{ .name = n, .letter = l, .has_arg = required_argument, \
	  .set = set_number, FIELD(f), .lo = min, .hi = max, .msg = m }
#define STRING(n, l, f, m) \
	{ .name = n, .letter = l, .has_arg = required_argument, \
	  .set = set_string, FIELD(f), .msg = m }
#define ARG(n, l, fn) \
	{ .name = n, .letter = l, .has_arg = required_argument, .set = fn }
#define MODE(n, fn, v)	{ .name = n, .set = fn, .lo = v }
#define PROM_ONLY	"--prometheus, --range and --match are tdbpf graph's; drop them here"

/*
 * Every option; --help (usage.c) says what each means. A number's
 * complaint is a format of (argument, lo, hi). The order is getopt's
 * long option table's.
 */
static const struct opt_desc opts[] = {
	ARG("pid", 'p', set_ids),
	ARG("event", 'e', set_event),
	ARG("span", 0, set_span),
	ARG("tid", 't', set_ids),
	FLAG("all-cpus", 'a', all),
	{ .name = "cgroup", .letter = 'G', .has_arg = required_argument,
	  .set = set_string, FIELD(cgroup),
	  .msg = "-G: empty cgroup path; give -G PATH, e.g. -G /docker/ID (as /proc/PID/cgroup names it)",
	  .group = OPTG_CGROUP,
	  .refuse = "-G chooses the tasks to trace; drop it here" },
	ARG("duration", 'd', set_duration),
	{ .name = "repeat", .letter = 'r', .has_arg = required_argument,
	  .set = set_number, FIELD(repeat), .lo = 1, .hi = OPT_MAX_REPEAT,
	  .msg = "-r: invalid number of runs '%s'; give %ld to %ld, e.g. -r 5",
	  .group = OPTG_REPEAT,
	  .refuse = "-r runs a launched command again; use it with tdbpf -r N -- COMMAND" },
	NUMBER("interval", 'I', interval_ms, 1, OPT_MAX_INTERVAL_MS,
	       "-I: invalid interval '%s'; give milliseconds >= %ld and at most %ld (one day), e.g. -I 1000"),
	ARG("field-separator", 'x', set_separator),
	FLAG("json", 'j', json),
	STRING("output", 'o', output,
	       "-o: empty output file name; give -o FILE"),
	NUMBER("level", 'l', level, 1, 3,
	       "-l: invalid level '%s'; give 1, 2 or 3"),
	FLAG("verbose", 'v', verbose),
	FLAG("quiet", 'q', quiet),
	{ .name = "events", .set = set_flag, FIELD(list_events),
	  .group = OPTG_LIST,
	  .refuse = "--events lists what -e takes: tdbpf list --events" },
	{ .name = "help", .letter = 'h', .set = set_command, .lo = CMD_HELP },
	{ .name = "version", .letter = 'V', .set = set_command,
	  .lo = CMD_VERSION },
	FLAG("per-name", 0, per_name),
	ARG("sort", 0, set_sort),
	ARG("columns", 'F', set_columns),
	NUMBER("top", 0, top, 1, INT_MAX,
	       "invalid --top '%s'; give a number of rows >= %ld"),
	STRING("model", 0, model,
	       "--model: the model name is empty; give one, e.g. --model software (tdbpf list names this machine's)"),
	ARG("smt", 0, set_smt),
	FLAG("children", 0, children),
	FLAG("no-children", 0, no_children),
	FLAG("no-inherit", 'i', no_children),
	NUMBER("max-tasks", 0, max_tasks, TDBPF_MAX_TASKS_MIN,
	       TDBPF_MAX_TASKS_MAX, "invalid --max-tasks '%s'; give %ld to %ld"),
	NUMBER("sock-max", 0, sock_max, 16, 1 << 22,
	       "invalid --sock-max '%s'; give %ld to %ld"),
	STRING("graph", 0, graph,
	       "empty graph file name; give --graph FILE.dot"),
	MODE("wakeups", set_wakeups, WAKEUPS_ALL),
	MODE("sampled-wakeups", set_wakeups, WAKEUPS_SAMPLED),
	MODE("no-wakeups", set_wakeups, WAKEUPS_OFF),
	{ .name = "listen", .has_arg = required_argument, .set = set_listen,
	  .group = OPTG_LISTEN },
	{ .name = "listen-labels", .has_arg = required_argument,
	  .set = set_listen_labels, .group = OPTG_LISTEN },
	{ .name = "listen-max-series", .has_arg = required_argument,
	  .set = set_listen_series, FIELD(listen_max_series), .lo = 1,
	  .hi = LISTEN_MAX_SERIES_LIMIT,
	  .msg = "invalid --listen-max-series '%s'; give %ld to %ld",
	  .group = OPTG_LISTEN },
	NUMBER("from", 0, from, 0, INT_MAX,
	       "invalid --from '%s'; give an interval number >= %ld, as the recording numbers them (\"interval\")"),
	NUMBER("to", 0, to, 0, INT_MAX,
	       "invalid --to '%s'; give an interval number >= %ld, as the recording numbers them (\"interval\")"),
	STRING("record", 0, record,
	       "empty --record file name; give --record FILE"),
	{ .name = "host", .has_arg = required_argument, .set = set_host,
	  .group = OPTG_GRAPH,
	  .refuse = "--host names a report's host for tdbpf graph; drop it here" },
	{ .name = "prometheus", .has_arg = required_argument,
	  .set = set_string, FIELD(prometheus),
	  .msg = "empty --prometheus URL; see tdbpf --help",
	  .group = OPTG_GRAPH, .refuse = PROM_ONLY },
	{ .name = "range", .has_arg = required_argument, .set = set_string,
	  FIELD(range), .msg = "empty --range; see tdbpf --help",
	  .group = OPTG_GRAPH, .refuse = PROM_ONLY },
	{ .name = "match", .has_arg = required_argument, .set = set_string,
	  FIELD(match), .msg = "empty --match; see tdbpf --help",
	  .group = OPTG_GRAPH, .refuse = PROM_ONLY },
};

/* what getopt_long returns for opts[i]: its letter, else past the bytes */
static int opt_key(size_t i)
{
	return opts[i].letter ? opts[i].letter : 256 + (int)i;
}

static const struct opt_desc *opt_of_key(int key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (opt_key(i) == key)
			return &opts[i];
	return NULL;
}

/* getopt_long's two tables, made from opts[] */
static void getopt_tables(struct option *longs, char *shorts, bool anywhere)
{
	size_t i;

	/* ":": a missing argument is told apart from an unknown option */
	shorts += sprintf(shorts, "%s", anywhere ? ":" : "+:");
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		longs[i] = (struct option){ opts[i].name, opts[i].has_arg,
					    NULL, opt_key(i) };
		if (!opts[i].letter)
			continue;
		*shorts++ = (char)opts[i].letter;
		if (opts[i].has_arg)
			*shorts++ = ':';
	}
	longs[i] = (struct option){ NULL, 0, NULL, 0 };
	*shorts = '\0';
}

/* What getopt_long could not read: the option as the user wrote it. */
static int bad_option(int c, char **argv, char *err, size_t len)
{
	if (c == ':')
		return error_set(err, len,
				 "option %s needs an argument; see tdbpf --help",
				 argv[optind - 1]);
	if (optopt && optopt < 256)
		return error_set(err, len,
				 "unknown option '-%c'; see tdbpf --help",
				 optopt);
	return error_set(err, len,
			 "unknown or incomplete option '%s'; see tdbpf --help",
			 argv[optind - 1]);
}

int options_read(int argc, char **argv, struct options *o,
		 unsigned int takes, bool anywhere, char *err, size_t len)
{
	struct option longs[ARRAY_SIZE(opts) + 1];
	char shorts[3 + 2 * ARRAY_SIZE(opts) + 1];
	const struct opt_desc *d;
	int c, rc;

	getopt_tables(longs, shorts, anywhere);
	/* getopt keeps state between calls: reset it fully (glibc) */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		d = c == '?' || c == ':' ? NULL : opt_of_key(c);
		if (!d)
			return bad_option(c, argv, err, len);
		if (d->refuse && !(takes & d->group))
			return error_set(err, len, "%s", d->refuse);
		rc = d->set(o, d, optarg, err, len);
		if (rc < 0)
			return -1;
		if (rc > 0)
			break;
	}
	return optind;
}

void options_defaults(struct options *o, enum command cmd)
{
	memset(o, 0, sizeof(*o));
	o->cmd = cmd;
	o->smt = -1;
	o->sort = SORT_CPU;
	o->max_tasks = TDBPF_MAX_TASKS_DEFAULT;
	o->sock_max = TDBPF_SOCK_MAX_DEFAULT;
	o->listen_max_series = LISTEN_DEFAULT_MAX_SERIES;
	o->from = o->to = -1;
}

int options_add_graph_input(struct options *o, const char *name,
			    size_t name_len, const char *file, char *err,
			    size_t len)
{
	if (o->nr_graph_in >= OPT_MAX_HOSTS)
		return error_set(err, len,
				 "more than %d reports; join at most %d hosts at once",
				 OPT_MAX_HOSTS, OPT_MAX_HOSTS);
	snprintf(o->graph_in[o->nr_graph_in].name,
		 sizeof(o->graph_in[0].name), "%.*s", (int)name_len, name);
	o->graph_in[o->nr_graph_in++].file = file;
	return 0;
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
