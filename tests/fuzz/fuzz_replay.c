// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: `tdbpf report`'s reader on arbitrary bytes. Each
 * object the reader yields is rebuilt (replay_parse) and, when that
 * succeeds, printed by every writer, folded and not, as the command
 * would: a recording can name any model, groups and sums, and none of it
 * may take the report out of bounds. The contract is checked too: an
 * error is one line that starts with its line number.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "outputs/sink.h"
#include "sources/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void print_all(struct replay_report *rr, FILE *out)
{
	struct task_table folded;
	struct report rep;
	int fold;

	for (fold = 0; fold < 2; fold++) {
		const struct task_table *src = &rr->tasks;

		tasks_init(&folded);
		if (fold) {
			if (tasks_fold(&rr->tasks, &folded, rr->plan.nr))
				abort();
			src = &folded;
		}
		if (report_build(&rep, src, &rr->plan, rr->plan.level,
				 rr->duration_ns, fold ? SORT_COMM : SORT_NONE,
				 fold ? 3 : 0))
			abort();
		rep.interval = rr->interval;
		report_write_table(out, &rep);
		report_write_csv(out, &rep, ",", false);
		report_write_json(out, &rep, fold);
		report_free(&rep);
		tasks_free(&folded);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_reader rd;
	struct replay_report rr;
	json_object *obj;
	char err[1024], msg[900];
	long line;
	bool multi;
	int got, n = 0;
	FILE *f, *out;

	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "r");
	out = fopen("/dev/null", "w");
	if (!f || !out || replay_reader_init(&rd, f))
		abort();
	replay_report_init(&rr);
	while (n++ < 64 && (got = replay_next(&rd, &obj, &line, &multi, err,
					      sizeof(err))) > 0) {
		if (line < 1)
			abort();
		if (!replay_parse(obj, &rr, msg, sizeof(msg)))
			print_all(&rr, out);
		else if (strchr(msg, '\n'))
			abort();
		json_object_put(obj);
	}
	if (n <= 64 && got < 0 && (strncmp(err, "line ", 5) || strchr(err, '\n')))
		abort();
	replay_report_free(&rr);
	replay_reader_free(&rd);
	fclose(f);
	fclose(out);
	return 0;
}
