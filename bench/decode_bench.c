// SPDX-License-Identifier: GPL-2.0
/*
 * decode_bench: tasks decoded per second by tma_decode() for every model,
 * on random counter vectors, at the deepest level each model defines; and
 * the time of one whole report of 10,000 such tasks (report_build, then
 * the table or the JSON written to /dev/null), as tdbpf makes it.
 *
 * usage: decode_bench [MS_PER_MODEL]
 * stdout, one line per model:
 *   model=<name> events=<n> nodes=<n> level=<l> ns_per_task=<x>
 *   tasks_per_s=<y> table_ms=<t> json_ms=<j>
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "analysis/report.h"
#include "model/model.h"
#include "model/tma.h"
#include "outputs/sink.h"

#define NR_VEC	1024
#define NR_REPORT_TASKS	10000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64: the same vectors on every run */
static unsigned long long rng_state = 88172645463325252ULL;

static double rnd01(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * Counts of the magnitude a task sees in a report interval: a clock in
 * 1e6..1e9 and every event a random multiple of it up to 4x (slots are
 * 4-wide). The formulas' values are not realistic; their cost is.
 */
static void fill(const struct model *m, double *ev)
{
	double clk = 1e6 + rnd01() * 1e9;
	int i;

	for (i = 0; i < MODEL_MAX_EVENTS; i++)
		ev[i] = NAN;
	for (i = 0; i < m->nr_events && i < MODEL_MAX_EVENTS; i++)
		if (m->events[i].need != NEED_NEVER)
			ev[i] = floor(clk * 4.0 * rnd01());
}

/*
 * Best of @n whole reports of NR_REPORT_TASKS tasks with counts as above
 * (SMT on, deepest level), in ms; @json picks the writer.
 */
static double report_ms(const struct model *m, bool json, int n)
{
	struct event_plan plan;
	struct task_table t;
	struct report rep;
	double best = INFINITY, t0, d;
	char err[256];
	FILE *f;
	int i, s, rep_i;

	if (plan_events(m, m->max_level, true, m->gp_smt_on, &plan, err,
			sizeof(err)))
		return NAN;
	f = fopen("/dev/null", "w");
	tasks_init(&t);
	if (!f || tasks_set_events(&t, plan.nr))
		goto out;
	for (i = 0; i < NR_REPORT_TASKS; i++) {
		struct task_row *r = tasks_get(&t, 1000 + i);
		double clk = 1e6 + rnd01() * 1e9;

		if (!r)
			goto out;
		r->pid = 1000;
		snprintf(r->comm, sizeof(r->comm), "task-%d", i);
		r->sched.on_cpu_ns = (__u64)clk;
		r->sched.runq_wait_ns = (__u64)(rnd01() * 1e8);
		r->sched.off_cpu_ns = (__u64)(rnd01() * 1e9);
		r->sched.nvcsw = 1 + (__u64)(rnd01() * 1000);
		for (s = 0; s < plan.nr; s++) {
			r->ctr[s].value = (__u64)(clk * 4.0 * rnd01());
			/* a little multiplexed: scaled values are not whole */
			r->ctr[s].enabled = (__u64)clk;
			r->ctr[s].running = (__u64)(clk * (0.5 + rnd01() / 2));
		}
	}
	for (rep_i = 0; rep_i < n; rep_i++) {
		t0 = now_s();
		if (report_build(&rep, &t, &plan, m->max_level, 2000000000ULL,
				 SORT_CPU, 0))
			break;
		if (json)
			report_write_json(f, &rep, false);
		else
			report_write_table(f, &rep);
		fflush(f);
		report_free(&rep);
		d = (now_s() - t0) * 1e3;
		if (d < best)
			best = d;
	}
out:
	tasks_free(&t);
	if (f)
		fclose(f);
	return best;
}

/*
 * Reports: the least disturbed of 9 per model and writer, taken in 3
 * rounds over every model. The machines this runs on are shared and
 * have slow spells of seconds: 9 reports in a row could all fall in one.
 */
#define REPORT_ROUNDS	3
#define MAX_MODELS	64

int main(int argc, char **argv)
{
	static double vec[NR_VEC][MODEL_MAX_EVENTS];
	static double table_ms[MAX_MODELS], json_ms[MAX_MODELS];
	double budget = (argc > 1 ? atof(argv[1]) : 300.0) / 1e3;
	struct tma_result r;
	volatile int sink = 0;
	int k, v, round;

	for (k = 0; models[k] && k < MAX_MODELS; k++)
		table_ms[k] = json_ms[k] = INFINITY;
	for (round = 0; round < REPORT_ROUNDS; round++)
		for (k = 0; models[k] && k < MAX_MODELS; k++) {
			table_ms[k] = fmin(table_ms[k],
					   report_ms(models[k], false, 3));
			json_ms[k] = fmin(json_ms[k],
					  report_ms(models[k], true, 3));
		}
	for (k = 0; models[k] && k < MAX_MODELS; k++) {
		const struct model *m = models[k];
		double t0, t, best = INFINITY;
		long n;
		int rep;

		for (v = 0; v < NR_VEC; v++)
			fill(m, vec[v]);
		/* best of 3 runs of budget/3 each: least disturbed */
		for (rep = 0; rep < 3; rep++) {
			n = 0;
			t0 = now_s();
			do {
				for (v = 0; v < NR_VEC; v++) {
					tma_decode(m, vec[v], true,
						   m->max_level, &r);
					sink += r.bottleneck;
				}
				n += NR_VEC;
				t = now_s() - t0;
			} while (t < budget / 3);
			if (t / n < best)
				best = t / n;
		}
		printf("model=%s events=%d nodes=%d level=%d ns_per_task=%.1f tasks_per_s=%.0f table_ms=%.1f json_ms=%.1f\n",
		       m->name, m->nr_events, m->nr_nodes, m->max_level,
		       best * 1e9, 1.0 / best, table_ms[k], json_ms[k]);
	}
	return sink == 42 ? 0 : 0;
}
