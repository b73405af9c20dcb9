// SPDX-License-Identifier: GPL-2.0
/* The unit tests' shared helpers (unit_helpers.h), compiled once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "analysis/report.h"
#include "unit_helpers.h"

void task_blank(struct tdbpf_task *s, struct tdbpf_wait *ws, __u32 tid,
		const char *comm)
{
	memset(s, 0, sizeof(*s));
	memset(ws, 0, TDBPF_NR_WAITS * sizeof(*ws));
	s->tid = tid;
	s->tgid = 100;
	snprintf(s->comm, sizeof(s->comm), "%s", comm);
}

char *slurp(FILE *f)
{
	long len = ftell(f);
	char *buf;

	assert_true(len >= 0);
	buf = malloc(len + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

void plan_ok(struct event_plan *p, const struct model *m, int level, bool smt,
	     int gp)
{
	char err[256];

	if (plan_events(m, level, smt, gp, p, err, sizeof(err)))
		fail_msg("no plan of %s at level %d, SMT %d, %d counters: %s",
			 m->name, level, smt, gp, err);
}

void one_group_plan(struct event_plan *p, const struct model *m)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->model = m;
	p->nr = m->nr_events;
	for (i = 0; i < p->nr; i++) {
		p->ev[i] = i;
		p->evd[i] = &m->events[i];
		p->group[i] = 0;
		p->gp_idx[i] = -1;
	}
	p->nr_groups = 1;
	p->leader[0] = 0;
}

char *render_report(const struct report *rep, enum fmt fmt, const char *sep)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	if (fmt == FMT_TABLE)
		report_write_table(f, rep);
	else if (fmt == FMT_CSV)
		report_write_csv(f, rep, sep, false);
	else
		report_write_json(f, rep, fmt == FMT_JSON_LINE);
	return slurp(f);
}

void set_wait(struct task_table *t, struct task_row *r, struct tdbpf_wait w)
{
	struct tdbpf_wait *ws;
	int n, i;

	ws = tasks_waits(t, r, &n);
	for (i = 0; i < n; i++) {
		if (same_waker(&ws[i], &w)) {
			ws[i] = w;
			return;
		}
	}
	assert_int_equal(tasks_add_waits(t, r, &w, 1), 0);
}

struct span_row *span_named(struct span_table *sp, __u32 tid, __u32 pid,
			    __u64 id, const char *name)
{
	struct span_row *r = spans_get(sp, tid, pid, id);

	assert_non_null(r);
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

void spans_set(struct span_table *sp, const struct span_def *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		span_named(sp, d[i].tid, d[i].pid, d[i].id, d[i].name)->s =
			d[i].s;
}

void ints_are(const int *got, const int *want, int n, const char *what,
	      const char *file, int line)
{
	int i;

	for (i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			print_error("%s[%d] is %d, want %d\n", what, i,
				    got[i], want[i]);
			_fail(file, line);
		}
	}
}
