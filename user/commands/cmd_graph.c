// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf graph FILE...: several hosts' reports (tdbpf --wakeups -j, or
 * --record) joined into one wait-for graph (analysis/fleet.c), judged by
 * the same verdict and written by the same sinks as a live run: the
 * table, CSV (-x) or JSON (-j), and --graph FILE.dot with one cluster
 * per host. Needs no privilege: it only reads files, or asks a
 * Prometheus that scrapes the hosts' tdbpf --listen (--prometheus).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/fleet.h"
#include "analysis/graph.h"
#include "analysis/report.h"
#include "commands/cmd.h"
#include "outputs/sink.h"
#include "sources/host_input.h"
#include "sources/prom_query.h"
#include "support/text.h"

static void say(const char *file, const char *msg)
{
	char line[1200];

	if (file)
		snprintf(line, sizeof(line), "%s: %s", file, msg);
	else
		snprintf(line, sizeof(line), "%s", msg);
	text_printable(line, sizeof(line), line, NULL, 0);
	fprintf(stderr, "tdbpf: %s\n", line);
}

/* The DOT file @path could not be opened or written (errno): say so; 1 */
static int dot_failed(const char *path)
{
	char msg[512];

	snprintf(msg, sizeof(msg),
		 "cannot write the graph: %s; check the disk and the path",
		 strerror(errno));
	say(path, msg);
	return 1;
}

/* The joined graph through the sinks; 0, 1 (write, memory) or -EPIPE. */
static int write_graph(const struct options *o, FILE *out,
		       const struct fleet *f, struct graph *g)
{
	const struct host_report *h0 = &f->hosts[0];
	struct sink sink = {
		.ops = o->json ? &sink_json : o->sep ? &sink_csv : &sink_table,
		.f = out, .name = o->output, .sep = o->sep,
		.table_cols = o->table_cols,
	};
	struct report rep;
	int err;

	err = report_build(&rep, &f->tasks, &h0->plan,
			   o->level && o->level < h0->plan.level ?
				   o->level : h0->plan.level,
			   h0->duration_ns, o->sort, o->top);
	if (err) {
		say(NULL, "out of memory for the report");
		return 1;
	}
	report_set_graph(&rep, g, &f->tasks);
	rep.interval = -1;
	err = sink_write(&sink, &rep);
	report_free(&rep);
	if (err == -EPIPE)
		return err;
	if (err)
		return 1;
	if (o->graph) {
		FILE *d = fopen(o->graph, "we");

		if (!d || graph_write_dot(d, g) || fclose(d))
			return dot_failed(o->graph);
	}
	return 0;
}

/*
 * One report, no host named: nothing to join, so its graph is the live
 * run's, replayed from the rows' own waits with the names it looked up
 * (the join keeps only the edges, by host/process/thread: another
 * verdict line than the one the live run printed).
 */
static int graph_one(const struct options *o, FILE *out)
{
	struct options one = *o;
	FILE *dot = NULL;
	int rc;

	one.input = o->graph_in[0].file;
	if (o->graph && !(dot = fopen(o->graph, "we")))
		return dot_failed(o->graph);
	rc = cmd_report_graph(&one, out, dot);
	if (dot && fclose(dot) && !rc) {
		say(o->graph, "cannot write the graph; check the disk and the path");
		rc = 1;
	}
	return rc;
}

int cmd_graph(const struct options *o, FILE *out)
{
	int n = o->nr_graph_in, i, rc = 0;
	struct host_report *h;
	struct fleet f;
	struct graph g;
	char err[1024];

	if (!o->prometheus && n == 1 && !o->graph_in[0].name[0])
		return graph_one(o, out);
	if (o->prometheus) {
		struct prom_query q = { .url = o->prometheus,
					.range = o->range,
					.match = o->match,
					.timeout_s = 30 };

		if (prom_query_hosts(&q, &h, &n, err, sizeof(err))) {
			say(NULL, err);
			return 2;
		}
	} else {
		h = calloc((size_t)n, sizeof(*h));
		if (!h) {
			say(NULL, "out of memory");
			return 1;
		}
		for (i = 0; i < n; i++)
			host_report_init(&h[i]);
	}
	for (i = 0; i < n && !rc && !o->prometheus; i++) {
		const char *name = o->graph_in[i].name;

		snprintf(h[i].source, sizeof(h[i].source), "%s",
			 o->graph_in[i].file);
		if (host_read_file(o->graph_in[i].file, *name ? name : NULL,
				   &h[i], err, sizeof(err))) {
			say(o->graph_in[i].file, err);
			rc = 2;
		}
	}
	if (!rc && fleet_check(h, n, err, sizeof(err))) {
		say(NULL, err);
		rc = 2;
	}
	if (!rc && fleet_join(&f, h, n)) {
		say(NULL, "out of memory joining the reports");
		rc = 1;
	}
	if (!rc) {
		if (graph_build(&g, &f.tasks, false, NULL)) {
			say(NULL, "out of memory for the graph");
			rc = 1;
		} else {
			fleet_name_graph(&f, &g);
			fprintf(stderr,
				"tdbpf: %d hosts, %zu waits joined across hosts, %zu endpoints no report has\n",
				n, f.nr_joined, f.nr_endpoints);
			rc = write_graph(o, out, &f, &g);
			if (rc == -EPIPE)
				rc = 0;
			graph_free(&g);
		}
		fleet_free(&f);
	}
	for (i = 0; i < n; i++)
		host_report_free(&h[i]);
	free(h);
	return rc;
}
