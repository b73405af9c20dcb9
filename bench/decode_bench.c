// SPDX-License-Identifier: GPL-2.0
/*
 * decode_bench: tasks decoded per second by tma_decode() for every model,
 * on random counter vectors, at the deepest level each model defines.
 *
 * usage: decode_bench [MS_PER_MODEL]
 * stdout, one line per model:
 *   model=<name> events=<n> nodes=<n> level=<l> ns_per_task=<x> tasks_per_s=<y>
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "model.h"
#include "tma.h"

#define NR_VEC	1024

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

int main(int argc, char **argv)
{
	static double vec[NR_VEC][MODEL_MAX_EVENTS];
	double budget = (argc > 1 ? atof(argv[1]) : 300.0) / 1e3;
	struct tma_result r;
	volatile int sink = 0;
	int k, v;

	for (k = 0; models[k]; k++) {
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
		printf("model=%s events=%d nodes=%d level=%d ns_per_task=%.1f tasks_per_s=%.0f\n",
		       m->name, m->nr_events, m->nr_nodes, m->max_level,
		       best * 1e9, 1.0 / best);
	}
	return sink == 42 ? 0 : 0;
}
