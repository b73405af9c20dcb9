/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --record FILE: every report of a run also goes, as JSON and with every
 * row (no --per-name fold, no --top cut), to FILE, so that `tdbpf report
 * FILE` can print any view of it later: the table or CSV printed beside
 * it, byte for byte, given the same options.
 */
#ifndef TDBPF_RECORD_H
#define TDBPF_RECORD_H

#include <stdbool.h>
#include <stdio.h>
#include "analysis/graph.h"
#include "outputs/sink.h"

struct record {
	struct sink sink;	/* sink.f NULL: not recording */
	struct report_conf rc;
	const char *path;
	bool failed;		/* said once, the exit status is 1 */
};

/*
 * Open @path (--record; created as -o is: no symlinks, owned by the sudo
 * user) for @plan's reports, in @sort's order, one line per report when
 * there are @intervals (-I). 0 (also when @path is NULL: nothing to
 * record), or -1 after one error line; the exit status is then 2.
 */
int record_open(struct record *r, const char *path, bool intervals,
		enum sort_key sort, const struct event_plan *plan);
/*
 * The run traces wakeups: its reports carry the graph, each row's waker
 * slots and the names @peer gave (socket peers not traced), as live.
 */
void record_wakeups(struct record *r, const struct graph_lookups *look);
/*
 * Record one report of @snap (@interval -1: the whole run). A write that
 * fails is said once and makes record_close() return 1.
 */
void record_emit(struct record *r, const struct snapshot *snap,
		 __u64 duration_ns, int interval);
/* Close the file; 1 when a report could not be written, else 0. */
int record_close(struct record *r);

#endif /* TDBPF_RECORD_H */
