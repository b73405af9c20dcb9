// SPDX-License-Identifier: GPL-2.0
/* --record FILE: the run's reports as JSON beside its output (record.h). */
#include <errno.h>
#include <string.h>
#include "outputs/outfile.h"
#include "outputs/record.h"
#include "support/error.h"
#include "support/privs.h"

int record_open(struct record *r, const char *path, bool intervals,
		enum sort_key sort, const struct event_plan *plan)
{
	int fd = 0;

	memset(r, 0, sizeof(*r));
	if (!path)
		return 0;
	r->path = path;
	r->sink.f = out_open(path, &fd);
	if (!r->sink.f) {
		out_open_error("record", path, -fd);
		return -1;
	}
	r->sink.name = path;
	r->sink.what = "the recording";
	r->sink.ops = &sink_json;
	r->sink.intervals = intervals;
	/* every row, in the live run's order: any view can be replayed */
	r->rc = (struct report_conf){ .plan = plan, .sort = sort };
	return 0;
}

void record_wakeups(struct record *r, const struct graph_lookups *look)
{
	r->rc.wakeups = true;
	r->rc.look = *look;
}

void record_emit(struct record *r, const struct snapshot *snap,
		 __u64 duration_ns, int interval)
{
	int e;

	if (!r->sink.f || r->failed)
		return;
	e = sink_emit(&r->sink, &r->rc, snap, duration_ns, interval);
	/* other errors were said by the sink, naming the recording */
	if (e == -EPIPE)
		errorf("cannot write the recording '%s': %s; its reader went away: record to a file",
		       r->path, strerror(EPIPE));
	if (e)
		r->failed = true;
}

int record_close(struct record *r)
{
	int bad = r->failed;

	if (r->sink.f && out_close(r->sink.f) && !bad) {
		errorf("cannot write the recording '%s': %s; free space where it goes, or record elsewhere",
		       r->path, strerror(errno));
		bad = 1;
	}
	r->sink.f = NULL;
	return bad;
}
