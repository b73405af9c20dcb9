// SPDX-License-Identifier: GPL-2.0
/* Checks c): the formulas and threshold flags on random counter vectors. */
#include "reference.h"

/*
 * An analog's threshold in the model's own terms: the analog is the node,
 * the other TMA nodes their counterparts, a TMA node without one (heavy
 * operations on Arm) 0. They read the model's decoded values (N_NODE),
 * which test_formulas compares with perf's: perf's Arm values are
 * percent, and 100 * x / 100 is not always x at a threshold's edge.
 */
void rename_ids(const struct refset *r, struct enode *n,
		const char *from, const char *to)
{
	const struct analog *a;
	const char *name = NULL;
	int k;

	if (!n)
		return;
	if (n->kind != N_ID) {
		rename_ids(r, n->a, from, to);
		rename_ids(r, n->b, from, to);
		rename_ids(r, n->c, from, to);
		return;
	}
	if (!strcmp(n->id, from))
		name = to;
	for (a = r->sp->analogs; !name && a->node; a++)
		if (a->tma && !strcmp(a->tma, n->id))
			name = a->node;
	for (k = 0; name && k < r->m->nr_nodes; k++)
		if (!strcmp(r->m->nodes[k].name, name))
			break;
	free(n->id);
	n->id = NULL;
	if (!name || k == r->m->nr_nodes) {
		n->kind = N_NUM;
		n->num = 0;
		return;
	}
	n->kind = N_NODE;
	n->event = k;
}

/* deterministic xorshift64*, so a failure can be reproduced */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/*
 * The event vector of @r's model, zeroed, that @r's formulas read; the
 * generator seeded with @seed and the model's size (caller frees).
 */
static double *start_vectors(struct refset *r, uint64_t seed)
{
	double *ev = calloc(r->m->nr_events, sizeof(*ev));

	assert_non_null(ev);
	r->ev = ev;
	rng_state = seed ^ (uint64_t)r->m->nr_events << 32;
	return ev;
}

static double unif(void)
{
	return (rnd() >> 11) * (1.0 / 9007199254740992.0);
}

static bool name_is(const struct model_event *e, const char *n)
{
	return !strcasecmp(e->name, n);
}

/*
 * One counter vector. Kinds: realistic (clocks 1e5..1e10, slots 4-6 x
 * clocks, topdown-* splitting slots, other events a share of clocks or
 * slots), independent wild values up to 2^48, realistic with random zeros,
 * all zero, and tiny values 0..3 that make ties and zero divisors likely.
 */
static void gen_vector(const struct model *m, int n, double *ev)
{
	int kind = n % 20, i;
	double clk = floor(pow(10, 5 + 5 * unif()));
	double width = 4 + (rnd() % 3);
	double slots = width * clk;
	double l1[4], sum = 0;

	if (kind == 19) {
		for (i = 0; i < m->nr_events; i++)
			ev[i] = 0;
		return;
	}
	if (kind >= 16) {
		for (i = 0; i < m->nr_events; i++)
			ev[i] = rnd() % 4;
		return;
	}
	if (kind >= 13) {
		for (i = 0; i < m->nr_events; i++)
			ev[i] = floor(unif() * pow(2, 48 * unif()));
		return;
	}
	for (i = 0; i < 4; i++)
		sum += l1[i] = unif();
	for (i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		double scale[] = { 0.001, 0.01, 0.1, 0.5, 1, width };

		if (name_is(e, "CPU_CLK_UNHALTED.THREAD") ||
		    name_is(e, "ls_not_halted_cyc") ||
		    name_is(e, "cpu_cycles"))
			ev[i] = clk;
		else if (name_is(e, "TOPDOWN.SLOTS"))
			ev[i] = slots;
		else if (name_is(e, "topdown-retiring"))
			ev[i] = floor(slots * l1[0] / sum);
		else if (name_is(e, "topdown-bad-spec"))
			ev[i] = floor(slots * l1[1] / sum);
		else if (name_is(e, "topdown-fe-bound"))
			ev[i] = floor(slots * l1[2] / sum);
		else if (name_is(e, "topdown-be-bound"))
			ev[i] = floor(slots * l1[3] / sum);
		else if (name_is(e, "topdown-heavy-ops"))
			ev[i] = floor(slots * l1[0] / sum * unif());
		else if (name_is(e, "topdown-br-mispredict"))
			ev[i] = floor(slots * l1[1] / sum * unif());
		else if (name_is(e, "topdown-fetch-lat"))
			ev[i] = floor(slots * l1[2] / sum * unif());
		else if (name_is(e, "topdown-mem-bound"))
			ev[i] = floor(slots * l1[3] / sum * unif());
		else
			ev[i] = floor(clk * unif() * scale[rnd() % 6]);
		if (kind >= 10 && rnd() % 4 == 0)
			ev[i] = 0;
	}
}

static bool same(double a, double b)
{
	double mag;

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return a == b;
	mag = fmax(1.0, fmax(fabs(a), fabs(b)));
	return fabs(a - b) <= REL_TOL * mag;
}

static void dump_vector(const struct model *m, const double *ev)
{
	int i;

	for (i = 0; i < m->nr_events; i++)
		print_error("    %s = %.17g\n", m->events[i].name, ev[i]);
}

/*
 * Differences are split in two: a formula that computes something else
 * (real), and one that only treats a NAN operand differently from expr.y
 * (nan): perf gives max(NAN, x) = x, max(x, NAN) = NAN (a > b ? a : b) and
 * takes the true branch of "a if NAN else b"; a model that propagates NAN
 * there matches the strict evaluation but not perf's.
 */
void test_formulas(void **state)
{
	struct refset r;
	const struct model *m;
	int k, s, v, real = 0, nan = 0, compared = 0, unmapped = 0;
	int map[MODEL_MAX_NODES], nreal[MODEL_MAX_NODES];
	int nnan[MODEL_MAX_NODES];
	double *ev, out[MODEL_MAX_NODES], want[MODEL_MAX_NODES];

	setup_ref(state, &r);
	m = r.m;
	assert_non_null(m->eval);
	assert_true(m->nr_nodes <= MODEL_MAX_NODES);
	for (k = 0; k < m->nr_nodes; k++) {
		map[k] = find_metric(&r, m->nodes[k].name);
		nreal[k] = nnan[k] = 0;
		if (map[k] < 0) {
			print_error("%s: node %s has no reference formula\n",
				    r.dir, m->nodes[k].name);
			unmapped++;
		}
	}
	ev = start_vectors(&r, 0x9e3779b97f4a7c15ULL);
	for (s = 0; s < 2; s++) {
		struct tma_input in = { .ev = ev, .smt = s };

		r.smt = s;
		for (v = 0; v < VECTORS; v++) {
			gen_vector(m, v, ev);
			for (k = 0; k < m->nr_nodes; k++)
				out[k] = NAN;
			m->eval(&in, out);
			r.gen++;
			r.missing[0] = 0;
			for (k = 0; k < m->nr_nodes; k++)
				want[k] = map[k] < 0 ? NAN :
					  ref_value(&r, map[k]);
			for (k = 0; k < m->nr_nodes; k++) {
				double strict;

				if (map[k] < 0)
					continue;
				compared++;
				if (same(want[k], out[k]))
					continue;
				nan_strict = true;
				r.gen++;
				strict = ref_value(&r, map[k]);
				nan_strict = false;
				if (same(strict, out[k])) {
					if (!nnan[k]++)
						print_error("%s smt %s vector "
							    "%d: %s = %.17g, "
							    "perf %.17g (NAN "
							    "handling only)\n",
							    r.dir, s ? "on" :
							    "off", v,
							    m->nodes[k].name,
							    out[k], want[k]);
					nan++;
					continue;
				}
				if (!nreal[k]++) {
					print_error("%s smt %s vector %d: %s = "
						    "%.17g, reference %.17g%s%s\n",
						    r.dir, s ? "on" : "off", v,
						    m->nodes[k].name, out[k],
						    want[k], r.missing[0] ?
						    "; unresolved: " : "",
						    r.missing);
					dump_vector(m, ev);
				}
				real++;
			}
		}
	}
	for (k = 0; k < m->nr_nodes; k++) {
		if (nreal[k])
			print_error("%s: %s differs from the reference formula "
				    "in %d of %d vectors\n", r.dir,
				    m->nodes[k].name, nreal[k], 2 * VECTORS);
		if (nnan[k])
			print_error("%s: %s differs from perf only in NAN "
				    "handling in %d of %d vectors\n", r.dir,
				    m->nodes[k].name, nnan[k], 2 * VECTORS);
	}
	print_message("%s: %d node values compared: %d differ in the "
		      "formula, %d in NAN handling only\n", r.dir, compared,
		      real, nan);
	free(ev);
	ref_free(&r);
	assert_int_equal(unmapped, 0);
	assert_int_equal(real, 0);
	assert_int_equal(nan, 0);
}

/*
 * The flags tma_decode() sets against perf's own MetricThreshold
 * expressions, evaluated by the reference evaluator on the same vectors:
 * perf flags a node when its threshold expression is neither 0 nor NAN.
 * This checks the thresholds' shape (parent conditions, retiring's "|"),
 * not only their constants.
 */
void test_threshold_flags(void **state)
{
	struct enode *thr[MODEL_MAX_NODES];
	int k, s, v, bad = 0, flagged = 0, compared = 0;
	struct tma_result res;
	const struct model *m;
	struct refset r, tma;
	char err[200];
	double *ev, t;

	setup_ref(state, &r);
	m = r.m;
	bad += setup_analogs(&r, &tma);
	for (k = 0; k < m->nr_nodes; k++) {
		const struct ref_metric *rm;
		const char *as;

		rm = node_threshold(&r, &tma, &m->nodes[k], &as);
		thr[k] = NULL;
		if (r.sp->analogs && !as) {
			print_message("%s: %s: tdbpf's own threshold, not "
				      "compared\n", r.dir, m->nodes[k].name);
			continue;
		}
		if (rm && rm->thresh)
			thr[k] = parse_expr(rm->thresh, err, sizeof(err));
		if (thr[k] && r.sp->analogs)
			rename_ids(&r, thr[k], as, m->nodes[k].name);
		if (!thr[k]) {
			print_error("%s: %s: no usable reference threshold\n",
				    r.dir, m->nodes[k].name);
			bad++;
		}
	}
	ev = start_vectors(&r, 0x51ed27011ULL);
	for (s = 0; s < 2 && !bad; s++) {
		r.smt = s;
		for (v = 0; v < VECTORS; v++) {
			gen_vector(m, v, ev);
			tma_decode(m, ev, s, m->max_level, &res);
			node_vals = res.val;
			r.gen++;
			for (k = 0; k < m->nr_nodes; k++) {
				bool want;

				if (!thr[k])
					continue;
				t = eval_node(&r, thr[k]);
				want = !isnan(t) && t != 0.0;
				flagged += want;
				compared++;
				if (want == res.over[k])
					continue;
				if (bad++ < 5)
					print_error("%s smt %s vector %d: %s "
						    "= %.17g flagged %d, perf "
						    "%d (%.17g)\n",
						    r.dir, s ? "on" : "off", v,
						    m->nodes[k].name,
						    res.val[k], res.over[k],
						    want, t);
			}
		}
	}
	print_message("%s: %d flags compared, %d set by perf%s, %d differ\n",
		      r.dir, compared, flagged,
		      r.sp->analogs ? " (TMA analogs)" : "", bad);
	for (k = 0; k < m->nr_nodes; k++)
		if (thr[k])
			free_node(thr[k]);
	free(ev);
	if (r.sp->analogs)
		ref_free(&tma);
	ref_free(&r);
	assert_int_equal(bad, 0);
	/* the vectors must exercise the flags, or this proves nothing */
	assert_true(flagged > VECTORS);
}

/*
 * Unmeasured events: knock out one event at a time. A node needs that
 * event when the reference expression, evaluated strictly (NAN through
 * max, min and both branches of a condition on data; x / 0 = 0 so that
 * only a NAN input makes NAN), is NAN: perf would not compute it, and it
 * must come out NAN; every other node with exactly perf's value.
 */
#define KO_VECTORS 150

void test_missing_inputs(void **state)
{
	double *ev, *save, want[MODEL_MAX_NODES];
	int map[MODEL_MAX_NODES], k, s, v, j, bad = 0, deps = 0;
	struct tma_result res;
	const struct model *m;
	struct refset r;

	setup_ref(state, &r);
	m = r.m;
	for (k = 0; k < m->nr_nodes; k++)
		map[k] = find_metric(&r, m->nodes[k].name);
	ev = start_vectors(&r, 0xabcdef12345ULL);
	save = calloc(m->nr_events, sizeof(*save));
	for (s = 0; s < 2; s++) {
		r.smt = s;
		for (v = 0; v < KO_VECTORS; v++) {
			gen_vector(m, v, save);
			for (j = 0; j < m->nr_events; j++) {
				memcpy(ev, save, m->nr_events * sizeof(*ev));
				ev[j] = 3.25e6;	/* unlike tma.c's stand-in */
				r.gen++;
				for (k = 0; k < m->nr_nodes; k++)
					want[k] = map[k] < 0 ? NAN :
						  ref_value(&r, map[k]);
				nan_strict = true;
				ev[j] = NAN;
				r.gen++;
				for (k = 0; k < m->nr_nodes; k++) {
					if (map[k] < 0)
						continue;
					if (isnan(eval_metric(&r, map[k]))) {
						want[k] = NAN;
						deps++;
					}
				}
				nan_strict = false;
				ev[j] = NAN;
				tma_decode(m, ev, s, m->max_level, &res);
				for (k = 0; k < m->nr_nodes; k++) {
					if (map[k] < 0 ||
					    same(want[k], res.val[k]))
						continue;
					if (bad++ < 5)
						print_error("%s smt %s vector %d "
							    "without %s: %s = "
							    "%.17g, want %.17g\n",
							    r.dir, s ? "on" :
							    "off", v,
							    m->events[j].name,
							    m->nodes[k].name,
							    res.val[k], want[k]);
				}
			}
		}
	}
	print_message("%s: %d knock-outs, %d node values read the missing "
		      "event, %d differ\n", r.dir,
		      2 * KO_VECTORS * m->nr_events, deps, bad);
	free(ev);
	free(save);
	ref_free(&r);
	assert_int_equal(bad, 0);
	assert_true(deps > KO_VECTORS);
}
