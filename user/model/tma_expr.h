/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arithmetic for the TMA formulas in user/model/cpus/, with the semantics of
 * perf's expression parser (tools/perf/util/expr.y), so a formula gives
 * exactly perf's value on any input:
 *  - a / 0 is NAN, but d_ratio(a, 0) is 0; arithmetic and comparisons
 *    with a NAN operand are NAN;
 *  - max(a, b) is "a > b ? a : b" and min(a, b) "a < b ? a : b", so a NAN
 *    operand is not always propagated (max(NAN, 0) is 0);
 *  - "a if cond else b" takes a only when cond is not zero: a NAN cond
 *    takes a.
 * An input that was not measured is a different matter: tma_decode()
 * evaluates once more with tma_strict set, where NAN goes through max(),
 * min() and both branches of a condition and x / 0 is 0, to find the
 * nodes that need one.
 */
#ifndef TDBPF_TMA_EXPR_H
#define TDBPF_TMA_EXPR_H

#include <math.h>
#include <stdbool.h>

/* set by tma_decode() only: NAN propagates through max, min, "if" */
extern _Thread_local bool tma_strict;

static inline double dv(double a, double b)
{
	/* strict: only an unmeasured input may make NAN, so x / 0 is 0 */
	if (b == 0.0)
		return tma_strict && !isnan(a) ? 0.0 : NAN;
	return a / b;
}

/*
 * perf's d_ratio(a, b) (AMD's formulas): a / b, but 0 when b is 0.
 * Strict: an unmeasured a still makes NAN, as perf would not compute it.
 */
static inline double dr(double a, double b)
{
	if (b == 0.0)
		return tma_strict && isnan(a) ? NAN : 0.0;
	return a / b;
}

static inline double mx(double a, double b)
{
	if (tma_strict && (isnan(a) || isnan(b)))
		return NAN;
	return a > b ? a : b;
}

static inline double mn(double a, double b)
{
	if (tma_strict && (isnan(a) || isnan(b)))
		return NAN;
	return a < b ? a : b;
}

/* comparisons as numbers: 1, 0, or NAN when an operand is NAN */
static inline double gt(double a, double b)
{
	if (isnan(a) || isnan(b))
		return NAN;
	return a > b ? 1.0 : 0.0;
}

static inline double lt(double a, double b)
{
	return gt(b, a);
}

/*
 * Conditions here are on data (#SMT_on is a C test in the models): in
 * strict mode both branches are needed, as perf asks for the events of
 * both.
 */
static inline double sel(double cond, double a, double b)
{
	if (tma_strict && (isnan(cond) || isnan(a) || isnan(b)))
		return NAN;
	return cond != 0.0 ? a : b;
}

#endif /* TDBPF_TMA_EXPR_H */
