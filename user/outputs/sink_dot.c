// SPDX-License-Identifier: GPL-2.0
/*
 * The DOT sink (--graph FILE.dot): the wait-for graph of a report, for
 * Graphviz (graph_write_dot()). Only the whole run's report is drawn:
 * the run driver gives it the final report, and an interval report, or
 * one made without wakeups, writes nothing.
 */
#include "analysis/graph.h"
#include "outputs/sink.h"

static void dot_write(struct sink *s, const struct report *rep)
{
	if (rep->graph && rep->interval < 0)
		graph_write_dot(s->f, rep->graph);
}

const struct sink_ops sink_dot = {
	.name = "dot",
	.write = dot_write,
};
