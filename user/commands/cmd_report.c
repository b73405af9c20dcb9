// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf report FILE: print a -j recording again, as a table, CSV or
 * JSON, each report rebuilt from its raw sums (replay.c) and written by
 * the same sinks as a live run, so that the same options print the same
 * bytes. --per-name, --sort, --top and a lower -l apply as they do
 * live; --from/--to pick intervals of a -I recording (its whole-run
 * report covers every interval, so it is printed only without them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "analysis/graph.h"
#include "analysis/report.h"
#include "commands/cmd.h"
#include "outputs/sink.h"
#include "sources/replay.h"
#include "support/text.h"
#include "support/error.h"

struct replay_run {
	const struct options *o;
	struct sink sink;	/* table, CSV or JSON, as -x/-j pick */
	bool lines;		/* an -I recording: one object per line */
	bool warned_level;
	__u64 elapsed_ns;	/* the intervals' durations read so far */
	/* tdbpf graph of one report: its whole run, and its DOT there */
	bool whole_only;
	FILE *dot;
};

static void say(const char *file, const char *msg)
{
	char line[1200];

	snprintf(line, sizeof(line), "%s: %s", file, msg);
	/* a file name can hold anything: keep the message one line */
	text_printable(line, sizeof(line), line, NULL, 0);
	fprintf(stderr, "tdbpf: %s\n", line);
}

/* What a live run's session_report() does, with the recorded nr_total. */
static int emit(struct replay_run *x, struct replay_report *rr)
{
	const struct options *o = x->o;
	struct report_conf rc = {
		.plan = &rr->plan,
		.level = rr->plan.level,
		.sort = o->sort,
		.top = o->top,
		.per_name = o->per_name,
		.wakeups = rr->graph,
		/* the reasons' names, from the recording (replay.h) */
		.look = { .ctx = rr,
			  .peer = replay_peer,
			  .tid_name = replay_tid_name,
			  .cpu_limit = replay_cpu_limit },
	};
	/* the run's state, written back as it was recorded */
	const struct report_parts p = {
		.tasks = &rr->tasks,
		.spans = &rr->spans,
		.flows = &rr->flows,
		.cgroups = &rr->cgroups,
		.lost = &rr->lost,
		.host = rr->host,
		.wall_ns = rr->end_ns,
		.duration_ns = rr->duration_ns,
		.elapsed_ns = rr->interval >= 0 ? x->elapsed_ns :
						  rr->duration_ns,
		.interval = rr->interval,
		.nr_total = rr->nr_total,
		.dot = x->dot,
	};

	if (o->level && o->level < rc.level)
		rc.level = o->level;
	else if (o->level > rc.level && !x->warned_level) {
		fprintf(stderr,
			"tdbpf: warning: the recording has TMA levels up to %d; showing level %d\n",
			rc.level, rc.level);
		x->warned_level = true;
	}
	/* the sinks of a live run; an -I recording is a series, as live */
	x->sink.intervals = x->lines;
	return sink_emit_parts(&x->sink, &rc, &p);
}

static bool picked(const struct options *o, int interval)
{
	if (interval < 0)	/* the whole run: all intervals, or none */
		return o->from < 0 && o->to < 0;
	return (o->from < 0 || interval >= o->from) &&
	       (o->to < 0 || interval <= o->to);
}

static FILE *open_input(const char *path)
{
	struct stat st;
	FILE *f;

	if (!strcmp(path, "-"))
		return stdin;
	f = fopen(path, "r");
	/* a directory opens fine and fails only at the first read */
	if (f && !fstat(fileno(f), &st) && S_ISDIR(st.st_mode)) {
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	return f;
}

static int replay_file(const struct options *o, FILE *out, bool whole_only,
		       FILE *dot)
{
	struct replay_run x = {
		.o = o,
		.whole_only = whole_only,
		.dot = dot,
		.sink = { .ops = o->json ? &sink_json :
				 o->sep	 ? &sink_csv :
					   &sink_table,
			  .f = out, .name = o->output, .sep = o->sep,
			  .table_cols = o->table_cols },
	};
	const char *name = strcmp(o->input, "-") ? o->input : "stdin";
	struct replay_reader rd;
	struct replay_report rr;
	int n = 0, shown = 0, first = -1, last = -1, rc = 0, got, e;
	char err[1024];
	json_object *obj;
	bool multi;
	long line;
	FILE *in;

	in = open_input(o->input);
	if (!in) {
		error_set(err, sizeof(err),
			 "cannot read it: %s; give a file written by tdbpf -j",
			 strerror(errno));
		say(o->input, err);
		return 2;
	}
	if (replay_reader_init(&rd, in)) {
		say(name, "out of memory");
		return 1;
	}
	replay_report_init(&rr);
	while ((got = replay_next(&rd, &obj, &line, &multi, err,
				  sizeof(err))) > 0) {
		char msg[900];

		e = replay_parse(obj, &rr, msg, sizeof(msg));
		json_object_put(obj);
		if (e) {
			error_set(err, sizeof(err),
				 "line %ld: %s", line, msg);
			got = e == -2 ? -2 : -1;
			break;
		}
		/* the recording's own layout says whether it was -I */
		if (!n++)
			x.lines = !multi;
		if (rr.interval >= 0) {
			if (first < 0)
				first = rr.interval;
			last = rr.interval;
			/* the intervals tile the run: each ends where this is */
			x.elapsed_ns += rr.duration_ns;
		}
		if (!picked(o, rr.interval) ||
		    (x.whole_only && rr.interval >= 0))
			continue;
		if (x.whole_only && !rr.graph) {
			error_set(err, sizeof(err),
				 "line %ld: the report has no wait-for graph (traced with --no-wakeups); trace the host again with wakeups, the default",
				 line);
			got = -1;
			break;
		}
		shown++;
		e = emit(&x, &rr);
		if (e == -EPIPE)	/* the reader went away: not our error */
			break;
		if (e) {
			/* a write error was said naming the output, not @name */
			if (e == -ENOMEM)
				say(name, "out of memory for its report; raise the memory limit (ulimit -v) or give --top N");
			rc = 1;
			break;
		}
	}
	if (got < 0) {
		say(name, err);
		rc = got == -2 ? 1 : 2;	/* out of memory: not the file's fault */
	} else if (!rc && !n) {
		say(name, "no report in it; give a file written by tdbpf -j");
		rc = 2;
	} else if (!rc && !shown && (o->from >= 0 || o->to >= 0)) {
		if (first < 0)
			error_set(err, sizeof(err),
				 "no intervals in it (recorded without -I); drop --from/--to");
		else
			error_set(err, sizeof(err),
				 "no interval in the range asked; it holds intervals %d to %d",
				 first, last);
		say(name, err);
		rc = 2;
	}
	replay_report_free(&rr);
	replay_reader_free(&rd);
	if (in != stdin)
		fclose(in);
	return rc;
}

int cmd_report(const struct options *o, FILE *out)
{
	return replay_file(o, out, false, NULL);
}

/*
 * cmd.h: tdbpf graph of one report: the whole run replayed as the live
 * run printed it (the graph built from the rows' waits, with the names
 * it looked up), and its DOT on @dot (NULL: none).
 */
int cmd_report_graph(const struct options *o, FILE *out, FILE *dot)
{
	return replay_file(o, out, true, dot);
}
