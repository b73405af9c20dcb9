// SPDX-License-Identifier: GPL-2.0
/* Reference formulas evaluated on a counter vector, and the ids they need. */
#include "reference.h"

/* ------------------------------------------------------------------ */
/* evaluation with expr.y's semantics (compute_ids == false)             */
/* ------------------------------------------------------------------ */

static double literal(const struct refset *r, const char *lit, bool *ok)
{
	*ok = true;
	if (!strcasecmp(lit, "#smt_on"))
		return r->smt ? 1 : 0;
	/* per-task counting: tools/perf/util/smt.c core_wide() is false */
	if (!strcasecmp(lit, "#core_wide"))
		return 0;
	/* no Optane persistent memory on the machines we decode for */
	if (!strcasecmp(lit, "#has_pmem"))
		return 0;
	/* Arm: the PMU's caps/slots, NAN where it has none (perf's too) */
	if (!strcasecmp(lit, "#slots") && r->sp && r->sp->vendor == VENDOR_ARM)
		return r->sp->slots;
	*ok = false;
	return NAN;
}

/*
 * perf's arm64 strcmp_cpuid_str() as expr.y uses it: 1 when the CPU is
 * the part of @id (MIDR without variant and revision) at @id's
 * variant/revision or later (tools/perf/arch/arm64/util/header.c).
 */
static double cpuid_at_least(const struct refset *r, const char *id)
{
	const unsigned long long vr = 0xf0000fULL;
	unsigned long long want = strtoull(id, NULL, 16);
	unsigned long long have = r->sp ? r->sp->midr : 0;

	if (!have || (want & ~vr) != (have & ~vr))
		return 0;
	return ((have >> 20 & 0xf) << 4 | (have & 0xf)) >=
	       ((want >> 20 & 0xf) << 4 | (want & 0xf));
}

static bool is_cpuid(const struct enode *n)
{
	return n->kind == N_FUNC && !strcmp(n->id, "strcmp_cpuid_str");
}

static bool is_const(struct refset *r, struct enode *n);

/*
 * NAN propagates through max, min and conditions (through both branches
 * of a condition on data, as perf's compute_ids pass needs the events of
 * both), and a division by zero is 0 rather than NAN: a NAN result then
 * says only that a NAN input is read (diagnosis, missing-input check).
 */
bool nan_strict;

static void resolve(struct refset *r, struct enode *n)
{
	if (n->metric != -2)
		return;
	n->metric = find_metric(r, n->id);
	if (n->metric < 0 && r->m)
		n->event = model_event(r->m, n->id);
}

/* N_NODE values: the model's decoded nodes, see rename_ids() */
const double *node_vals;

double eval_node(struct refset *r, struct enode *n)
{
	double a, b, c;
	bool ok;

	switch (n->kind) {
	case N_NUM:
		return n->num;
	case N_NODE:
		return node_vals ? node_vals[n->event] : NAN;
	case N_LIT:
		a = literal(r, n->id, &ok);
		if (!ok && !r->missing[0])
			snprintf(r->missing, sizeof(r->missing), "%s", n->id);
		return a;
	case N_ID:
		resolve(r, n);
		if (n->metric >= 0)
			return eval_metric(r, n->metric);
		if (n->event >= 0)
			return r->ev[n->event];
		if (!r->missing[0])
			snprintf(r->missing, sizeof(r->missing), "%s", n->id);
		return NAN;
	case N_NEG:
		return -eval_node(r, n->a);
	case N_FUNC:
		/* values as perf's; strict: an unmeasured input is NAN */
		if (!strcmp(n->id, "d_ratio")) {
			a = eval_node(r, n->a);
			b = n->b ? eval_node(r, n->b) : NAN;
			if (nan_strict && (isnan(a) || isnan(b)))
				return NAN;
			return fpclassify(b) == FP_ZERO ? 0 : a / b;
		}
		if (is_cpuid(n))
			return n->a->kind == N_ID ? cpuid_at_least(r, n->a->id) :
						    NAN;
		if (!strcmp(n->id, "source_count"))
			return 1;
		if (!strcmp(n->id, "has_event"))
			return n->a->kind == N_ID && r->m &&
			       model_event(r->m, n->a->id) >= 0;
		return 0;
	case N_IF:
		/* every operand is evaluated, as bison does */
		a = eval_node(r, n->a);
		b = eval_node(r, n->b);
		c = eval_node(r, n->c);
		/*
		 * strict, as perf's compute_ids pass: a constant condition
		 * (#SMT_on) keeps the branch taken, any other needs both
		 */
		if (nan_strict && (isnan(b) || (is_const(r, n->b) ?
				  isnan(fpclassify(b) == FP_ZERO ? c : a) :
				  isnan(a) || isnan(c))))
			return NAN;
		/* only an exact zero is false: a NAN condition is true */
		return fpclassify(b) == FP_ZERO ? c : a;
	case N_MIN:
		a = eval_node(r, n->a);
		b = eval_node(r, n->b);
		if (nan_strict && (isnan(a) || isnan(b)))
			return NAN;
		return a < b ? a : b;
	case N_MAX:
		a = eval_node(r, n->a);
		b = eval_node(r, n->b);
		if (nan_strict && (isnan(a) || isnan(b)))
			return NAN;
		return a > b ? a : b;
	case N_BIN:
		a = eval_node(r, n->a);
		b = eval_node(r, n->b);
		switch (n->op) {
		case '/':
			/* strict: NAN means "reads a missing event" only */
			if (fpclassify(b) == FP_ZERO)
				return nan_strict && !isnan(a) ? 0.0 : NAN;
			return a / b;
		case '%':
			if (fpclassify(b) == FP_ZERO)
				return NAN;
			return (long)a % (long)b;
		case '|':
			if (!isfinite(a) && !isfinite(b))
				return NAN;
			if (isfinite(a) && isfinite(b))
				return a != 0 || b != 0;
			if (isfinite(a))
				return a == 0 ? b : 1;
			return b == 0 ? a : 1;
		case '&':
			if (!isfinite(a) && !isfinite(b))
				return NAN;
			if (isfinite(a) && isfinite(b))
				return a != 0 && b != 0;
			if (isfinite(a))
				return a != 0 ? b : 0;
			return b != 0 ? a : 0;
		case '^':
			if (isfinite(a) && isfinite(b))
				return (a == 0) != (b == 0);
			return NAN;
		}
		/* BINARY_OP: NAN in, NAN out */
		if (isnan(a) || isnan(b))
			return NAN;
		switch (n->op) {
		case '+': return a + b;
		case '-': return a - b;
		case '*': return a * b;
		case '<': return a < b;
		case '>': return a > b;
		}
	}
	return NAN;
}

double eval_metric(struct refset *r, int idx)
{
	if (!r->metrics[idx].ast) {
		if (!r->missing[0])
			snprintf(r->missing, sizeof(r->missing), "%s (%s)",
				 r->metrics[idx].name, r->metrics[idx].err);
		return NAN;
	}
	if (r->memo_gen[idx] != r->gen) {
		r->memo[idx] = eval_node(r, r->metrics[idx].ast);
		r->memo_gen[idx] = r->gen;
	}
	return r->memo[idx];
}

/* a metric's value as a fraction, as tdbpf's models give it */
double ref_value(struct refset *r, int idx)
{
	double v = eval_metric(r, idx);

	return r->metrics[idx].scale == 1 ? v : v * r->metrics[idx].scale;
}

/* ------------------------------------------------------------------ */
/* events a formula needs (expr.y's compute_ids mode)                  */
/* ------------------------------------------------------------------ */


static void idset_add(struct idset *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (!strcasecmp(s->name[i], name))
			return;
	assert_true(s->nr < 256);
	s->name[s->nr++] = strdup(name);
}

void idset_free(struct idset *s)
{
	while (s->nr)
		free(s->name[--s->nr]);
}

/* does the value depend on no event (only numbers and #literals)? */
static bool is_const(struct refset *r, struct enode *n)
{
	if (!n || is_cpuid(n))	/* the CPU is fixed by the spec */
		return true;
	if (n->kind == N_ID) {
		resolve(r, n);
		if (n->metric >= 0)
			return r->metrics[n->metric].ast &&
			       is_const(r, r->metrics[n->metric].ast);
		return false;
	}
	return is_const(r, n->a) && is_const(r, n->b) && is_const(r, n->c);
}

/* a formula that does not parse is recorded as an unresolvable id */
void collect_metric(struct refset *r, int mi, struct idset *s,
		    int depth)
{
	char bad[300];

	if (r->metrics[mi].ast) {
		collect(r, r->metrics[mi].ast, s, depth);
		return;
	}
	snprintf(bad, sizeof(bad), "unparsable metric %s: %s",
		 r->metrics[mi].name, r->metrics[mi].err);
	idset_add(s, bad);
}

void collect(struct refset *r, struct enode *n, struct idset *s,
	     int depth)
{
	assert_true(depth < 64);
	if (!n || is_cpuid(n))	/* its argument is a MIDR, not an event */
		return;
	if (n->kind == N_ID) {
		int mi = find_metric(r, n->id);

		if (mi >= 0)
			collect_metric(r, mi, s, depth + 1);
		else
			idset_add(s, n->id);
		return;
	}
	if (n->kind == N_IF && is_const(r, n->b)) {
		/* constant condition (#SMT_on, #core_wide): one branch */
		r->gen++;
		if (fpclassify(eval_node(r, n->b)) == FP_ZERO)
			collect(r, n->c, s, depth + 1);
		else
			collect(r, n->a, s, depth + 1);
		return;
	}
	collect(r, n->a, s, depth + 1);
	collect(r, n->b, s, depth + 1);
	collect(r, n->c, s, depth + 1);
}
