// SPDX-License-Identifier: GPL-2.0
/*
 * -r N, as perf stat -r: the launched command run N times, each run
 * traced as one run is (its JSON report read back), then one report of
 * the mean of every figure and its spread as perf gives it: the
 * standard deviation of the mean, relative to the mean (perf's
 * rel_stddev_stats()). Rows are names (comm, or the whole name a
 * runtime gives), not tids: tids differ from run to run, names do not;
 * a name's figures are its threads' sums in each run, 0 in a run it did
 * not appear in. --per-name folds instance numbers first.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "commands/repeat.h"
#include "commands/run.h"
#include "outputs/outfile.h"
#include "support/error.h"
#include "sums/tasks.h"

/* The scheduling figures every row has, then the counters by name. */
static const char *const sched_keys[] = {
	"on_cpu_ns", "runq_wait_ns", "off_cpu_ns", "switches", "migrations",
};
#define NR_SCHED	5
#define MAX_COLS	(NR_SCHED + TDBPF_MAX_EVENTS)

struct rep_row {
	char name[TDBPF_NAME_MAX];
	int seen;		/* runs it appeared in */
	int last_run;		/* the last of them, from 1 */
	double *v;		/* [col * runs + run] */
	double tasks;		/* threads of the name, summed over runs */
};

struct repeat {
	int runs;
	int nr_cols;
	char *col[MAX_COLS];	/* counters' names (sched_keys before) */
	bool unsup[MAX_COLS];	/* perf's <not supported> */
	bool msec[MAX_COLS];	/* ns shown as msec (cpu-clock, ...) */
	char *why[MAX_COLS];
	int done;		/* runs read back */
	double elapsed[OPT_MAX_REPEAT];
	struct rep_row *rows;
	int nr_rows, cap_rows;
};

static void repeat_free(struct repeat *r)
{
	int i;

	for (i = 0; i < r->nr_rows; i++)
		free(r->rows[i].v);
	for (i = 0; i < r->nr_cols; i++) {
		free(r->col[i]);
		free(r->why[i]);
	}
	free(r->rows);
}

static struct rep_row *row_of(struct repeat *r, const char *name)
{
	struct rep_row *row;
	int i;

	for (i = 0; i < r->nr_rows; i++)
		if (!strcmp(r->rows[i].name, name))
			return &r->rows[i];
	if (r->nr_rows == r->cap_rows) {
		int cap = r->cap_rows ? 2 * r->cap_rows : 64;
		void *p = realloc(r->rows, (size_t)cap * sizeof(*r->rows));

		if (!p)
			return NULL;
		r->rows = p;
		r->cap_rows = cap;
	}
	row = &r->rows[r->nr_rows];
	memset(row, 0, sizeof(*row));
	row->v = calloc((size_t)MAX_COLS * (size_t)r->runs, sizeof(double));
	if (!row->v)
		return NULL;
	snprintf(row->name, sizeof(row->name), "%s", name);
	r->nr_rows++;
	return row;
}

/* The column of counter @name, added at its first sight; -1 if full. */
static int col_of(struct repeat *r, const char *name)
{
	int i;

	for (i = NR_SCHED; i < r->nr_cols; i++)
		if (!strcmp(r->col[i], name))
			return i;
	if (r->nr_cols >= MAX_COLS)
		return -1;
	r->col[r->nr_cols] = strdup(name);
	if (!r->col[r->nr_cols])
		return -1;
	/* perf's: cpu-clock and task-clock count ns and show msec */
	r->msec[r->nr_cols] = !strncmp(name, "cpu-clock", 9) ||
			      !strncmp(name, "task-clock", 10);
	return r->nr_cols++;
}

/* The report's "not_supported": those columns say so, not a number. */
static void take_unsupported(struct repeat *r, json_object *doc)
{
	json_object *arr, *u, *ev, *why;
	size_t i;
	int c;

	if (!json_object_object_get_ex(doc, "not_supported", &arr))
		return;
	for (i = 0; i < json_object_array_length(arr); i++) {
		u = json_object_array_get_idx(arr, i);
		if (!json_object_object_get_ex(u, "event", &ev) ||
		    (c = col_of(r, json_object_get_string(ev))) < 0)
			continue;
		r->unsup[c] = true;
		if (!r->why[c] && json_object_object_get_ex(u, "reason", &why))
			r->why[c] = strdup(json_object_get_string(why));
	}
}

/* One task of run @run into its name's row. 0, or -ENOMEM. */
static int take_task(struct repeat *r, json_object *t, int run, bool fold)
{
	json_object *v, *ctr;
	char key[TDBPF_NAME_MAX];
	const char *name = "";
	struct rep_row *row;
	int i, c;

	if (json_object_object_get_ex(t, "name", &v) ||
	    json_object_object_get_ex(t, "comm", &v))
		name = json_object_get_string(v);
	if (fold)
		fold_name(name, key, sizeof(key));
	else
		snprintf(key, sizeof(key), "%s", name);
	row = row_of(r, key);
	if (!row)
		return -ENOMEM;
	if (row->last_run != run + 1) {
		row->last_run = run + 1;
		row->seen++;
	}
	for (i = 0; i < NR_SCHED; i++)
		if (json_object_object_get_ex(t, sched_keys[i], &v))
			row->v[i * r->runs + run] += json_object_get_double(v);
	if (json_object_object_get_ex(t, "counters", &ctr)) {
		json_object_object_foreach(ctr, k, cv) {
			c = col_of(r, k);
			if (c < 0)
				return -ENOMEM;
			if (cv)
				row->v[c * r->runs + run] +=
					json_object_get_double(cv);
		}
	}
	row->tasks++;
	return 0;
}

/* Run @run's report, read back from @f. 0, or -1 after the error. */
static int take_run(struct repeat *r, FILE *f, int run, bool fold)
{
	json_object *doc, *tasks, *v;
	size_t i;
	int fd = fileno(f), e = 0;

	fflush(f);
	lseek(fd, 0, SEEK_SET);
	doc = json_object_from_fd(fd);
	if (!doc || !json_object_object_get_ex(doc, "tasks", &tasks)) {
		errorf("-r: run %d left no report to read back (%s); run it once without -r to see why",
		       run + 1, json_util_get_last_err() ?
					json_util_get_last_err() : "no tasks");
		json_object_put(doc);
		return -1;
	}
	if (json_object_object_get_ex(doc, "duration_ns", &v))
		r->elapsed[run] = json_object_get_double(v);
	take_unsupported(r, doc);
	for (i = 0; i < json_object_array_length(tasks) && !e; i++)
		e = take_task(r, json_object_array_get_idx(tasks, i), run,
			      fold);
	json_object_put(doc);
	if (e)
		errorf("-r: out of memory for the runs' names; run fewer (-r N) or raise the memory limit");
	return e ? -1 : 0;
}

/*
 * perf's figures of @n runs @x: the mean, and the standard deviation of
 * the mean in percent of it (0 for one run, or a mean of 0).
 */
static double mean_of(const double *x, int n, double *rel)
{
	double m = 0, m2 = 0;
	int i;

	for (i = 0; i < n; i++)
		m += x[i];
	m /= n;
	for (i = 0; i < n; i++)
		m2 += (x[i] - m) * (x[i] - m);
	*rel = n > 1 && m != 0 ? 100 * sqrt(m2 / (n - 1) / n) / fabs(m) : 0;
	return m;
}

/* The rows, most on-CPU time first (the table's default order). */
static int by_cpu(const void *a, const void *b, void *arg)
{
	const struct rep_row *x = a, *y = b;
	int runs = *(const int *)arg, i;
	double sx = 0, sy = 0;

	for (i = 0; i < runs; i++) {
		sx += x->v[i];
		sy += y->v[i];
	}
	return sx < sy ? 1 : sx > sy ? -1 : strcmp(x->name, y->name);
}

static const char *const sched_labels[] = {
	"msec on-CPU", "msec run queue", "msec off-CPU", "switches",
	"migrations",
};

static void table_row(FILE *f, const struct repeat *r,
		      const struct rep_row *row)
{
	double m, rel;
	int c;

	fprintf(f, "\n %s: %.2f task%s per run, in %d of %d runs\n",
		row->name, row->tasks / r->done,
		row->tasks == r->done ? "" : "s", row->seen, r->done);
	for (c = 0; c < r->nr_cols; c++) {
		const char *label = c < NR_SCHED ? sched_labels[c] : r->col[c];

		if (r->unsup[c]) {
			fprintf(f, " %18s %s\n", "<not supported>", label);
			continue;
		}
		m = mean_of(row->v + c * r->runs, r->done, &rel);
		if (c < 3)
			fprintf(f, " %18.2f %-24s", m / 1e6, label);
		else if (r->msec[c])
			fprintf(f, " %18.2f msec %-19s", m / 1e6, label);
		else
			fprintf(f, " %18.0f %-24s", m, label);
		fprintf(f, " ( +- %5.2f%% )\n", rel);
	}
}

static void write_table(FILE *f, const struct options *o,
			const struct repeat *r, int nr)
{
	double m, rel;
	int i;

	fprintf(f, "\n Performance counter stats for '");
	for (i = 0; o->argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", o->argv[i]);
	fprintf(f, "' (%d runs), per name:\n", r->done);
	for (i = 0; i < nr; i++)
		table_row(f, r, &r->rows[i]);
	m = mean_of(r->elapsed, r->done, &rel);
	fprintf(f, "\n %18.9f +- %.9f seconds time elapsed  ( +- %5.2f%% )\n\n",
		m / 1e9, m / 1e9 * rel / 100, rel);
}

/* perf's -x with -r: NAME, mean, unit, event, spread in percent */
static void write_csv(FILE *f, const struct options *o,
		      const struct repeat *r, int nr)
{
	const char *x = o->sep;
	double m, rel;
	int i, c;

	for (i = 0; i < nr; i++) {
		const struct rep_row *row = &r->rows[i];

		for (c = 0; c < r->nr_cols; c++) {
			const char *ev = c < NR_SCHED ? sched_keys[c] : r->col[c];

			if (r->unsup[c]) {
				fprintf(f, "%s%s<not supported>%s%s%s%s\n",
					row->name, x, x, x, ev, x);
				continue;
			}
			m = mean_of(row->v + c * r->runs, r->done, &rel);
			fprintf(f, "%s%s%.2f%s%s%s%s%s%.2f%%\n", row->name, x,
				r->msec[c] ? m / 1e6 : m, x,
				c < 3 ? "ns" : r->msec[c] ? "msec" : "", x,
				ev, x, rel);
		}
	}
	m = mean_of(r->elapsed, r->done, &rel);
	fprintf(f, "elapsed%s%.9f%ss%stime_elapsed%s%.2f%%\n", x, m / 1e9, x,
		x, x, rel);
}

/* {"mean", "stddev_pct", "values"} of @n runs @x (ns as they are) */
static json_object *json_figure(const double *x, int n)
{
	json_object *o = json_object_new_object(), *vals;
	double m, rel;
	int i;

	m = mean_of(x, n, &rel);
	json_object_object_add(o, "mean", json_object_new_double(m));
	json_object_object_add(o, "stddev_pct", json_object_new_double(rel));
	vals = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(vals, json_object_new_double(x[i]));
	json_object_object_add(o, "values", vals);
	return o;
}

static json_object *json_row(const struct repeat *r, const struct rep_row *row)
{
	json_object *t = json_object_new_object(), *ctr;
	int c;

	json_object_object_add(t, "name", json_object_new_string(row->name));
	json_object_object_add(t, "runs", json_object_new_int(row->seen));
	json_object_object_add(t, "tasks_per_run",
			       json_object_new_double(row->tasks / r->done));
	for (c = 0; c < NR_SCHED; c++)
		json_object_object_add(t, sched_keys[c],
				       json_figure(row->v + c * r->runs,
						   r->done));
	ctr = json_object_new_object();
	for (c = NR_SCHED; c < r->nr_cols; c++)
		json_object_object_add(ctr, r->col[c],
				       r->unsup[c] ? NULL :
				       json_figure(row->v + c * r->runs,
						   r->done));
	json_object_object_add(t, "counters", ctr);
	return t;
}

static void write_json(FILE *f, const struct options *o,
		       const struct repeat *r, int nr)
{
	json_object *doc = json_object_new_object(), *a, *u;
	int i, c;

	json_object_object_add(doc, "runs", json_object_new_int(r->done));
	a = json_object_new_array();
	for (i = 0; o->argv[i]; i++)
		json_object_array_add(a, json_object_new_string(o->argv[i]));
	json_object_object_add(doc, "command", a);
	json_object_object_add(doc, "elapsed_ns",
			       json_figure(r->elapsed, r->done));
	a = json_object_new_array();
	for (c = NR_SCHED; c < r->nr_cols; c++) {
		if (!r->unsup[c])
			continue;
		u = json_object_new_object();
		json_object_object_add(u, "event",
				       json_object_new_string(r->col[c]));
		json_object_object_add(u, "reason",
				       json_object_new_string(r->why[c] ?
							      r->why[c] : ""));
		json_object_array_add(a, u);
	}
	json_object_object_add(doc, "not_supported", a);
	a = json_object_new_array();
	for (i = 0; i < nr; i++)
		json_object_array_add(a, json_row(r, &r->rows[i]));
	json_object_object_add(doc, "tasks", a);
	fprintf(f, "%s\n",
		json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_SPACED |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

/* Run @run of @o's command: traced as one run, its report read back. */
static int one_run(struct repeat *r, const struct options *o,
		   const struct event_plan *plan, int run)
{
	struct options oi = *o;
	FILE *tmp = tmpfile();
	int rc;

	if (!tmp) {
		errorf("-r: no temporary file for run %d's report: %s; check TMPDIR",
		       run + 1, strerror(errno));
		return 1;
	}
	/* the notes once; each run's report whole, unsorted, in JSON */
	oi.json = true;
	oi.sep = NULL;
	oi.output = NULL;
	oi.top = 0;
	oi.per_name = false;
	oi.repeat = 0;
	oi.quiet = o->quiet || run > 0;
	rc = run_trace(&oi, plan, tmp, NULL);
	if (take_run(r, tmp, run, o->per_name))
		rc = rc ? rc : 1;
	else
		r->done = run + 1;
	fclose(tmp);
	return rc;
}

int repeat_run(const struct options *o, const struct event_plan *plan,
	       FILE *out)
{
	struct repeat r = { .runs = o->repeat, .nr_cols = NR_SCHED };
	int i, rc = 0, nr;
	off_t mark;

	/* a run the command fails ends them: its status is tdbpf's */
	for (i = 0; i < r.runs && !rc; i++)
		rc = one_run(&r, o, plan, i);
	if (r.done) {
		qsort_r(r.rows, (size_t)r.nr_rows, sizeof(*r.rows), by_cpu,
			&r.runs);
		nr = o->top > 0 && o->top < r.nr_rows ? o->top : r.nr_rows;
		mark = out_mark(out);
		if (o->json)
			write_json(out, o, &r, nr);
		else if (o->sep)
			write_csv(out, o, &r, nr);
		else
			write_table(out, o, &r, nr);
		i = out_check(out, o->output, mark);
		if (i && i != -EPIPE && !rc)
			rc = 1;
	}
	repeat_free(&r);
	return rc;
}
