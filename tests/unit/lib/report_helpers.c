// SPDX-License-Identifier: GPL-2.0
/* The report tests' shared helpers (report_helpers.h), compiled once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "report_helpers.h"

void sw_plan(struct event_plan *p)
{
	one_group_plan(p, &model_software);
}

struct task_row *add(struct task_table *t, __u32 tid, const char *comm,
		     __u64 on, __u64 rq, __u64 off)
{
	struct task_row *r = tasks_get(t, tid);

	assert_non_null(r);
	r->pid = 1000;
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->sched.on_cpu_ns = on;
	r->sched.runq_wait_ns = rq;
	r->sched.off_cpu_ns = off;
	return r;
}

void set_ctr(struct task_row *r, int slot, __u64 v, __u64 ena, __u64 run)
{
	r->ctr[slot].value = v;
	r->ctr[slot].enabled = ena;
	r->ctr[slot].running = run;
}

json_object *parse_strict(const char *s)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;
	size_t end;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, s, (int)strlen(s));
	if (!o)
		fail_msg("invalid JSON (%s): %s",
			 json_tokener_error_desc(json_tokener_get_error(tok)),
			 s);
	/* one document and nothing after it but the final newline */
	end = json_tokener_get_parse_end(tok);
	if (strspn(s + end, " \n") != strlen(s + end))
		fail_msg("text after the JSON document: %s", s + end);
	json_tokener_free(tok);
	return o;
}

int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

const struct task_decoded *by_tid(const struct report *rep, __u32 tid,
				  struct task_decoded *d)
{
	int i;

	for (i = 0; i < rep->nr; i++) {
		if (rep->rows[i]->tid == tid) {
			report_decode_task(rep, i, d);
			assert_ptr_equal(d->row, rep->rows[i]);
			return d;
		}
	}
	fail_msg("tid %u not in report", tid);
	return NULL;
}

void mux_plan(struct event_plan *p)
{
	sw_plan(p);
	p->nr = 3;
	p->group[0] = 0;
	p->group[1] = 0;
	p->group[2] = 1;
	p->nr_groups = 2;
	p->leader[0] = 0;
	p->leader[1] = 2;
}

struct task_row *mux_task(struct event_plan *p, struct task_table *t, __u32 tid,
			  const char *comm)
{
	mux_plan(p);
	tasks_init(t);
	return add(t, tid, comm, 1000, 0, 0);
}

void fix_build(struct report_fix *fx, int level, __u64 window_ns,
	       enum sort_key sort, int top)
{
	assert_int_equal(report_build(&fx->rep, &fx->t, &fx->plan, level,
				      window_ns, sort, top),
			 0);
}

const struct task_decoded *fix_task(struct report_fix *fx, __u32 tid)
{
	return by_tid(&fx->rep, tid, &fx->dec);
}

void fix_free(struct report_fix *fx)
{
	report_free(&fx->rep);
	tasks_free(&fx->t);
}
