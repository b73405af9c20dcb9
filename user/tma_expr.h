/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arithmetic for the TMA formulas in user/models/, with the semantics of
 * perf's expression parser (tools/perf/util/expr.y), so a formula gives
 * exactly perf's value on any input:
 *  - a / 0 is NAN; arithmetic and comparisons with a NAN operand are NAN;
 *  - max(a, b) is "a > b ? a : b" and min(a, b) "a < b ? a : b", so a NAN
 *    operand is not always propagated (max(NAN, 0) is 0);
 *  - "a if cond else b" takes a only when cond is not zero: a NAN cond
 *    takes a.
 * An input that was not measured is a different matter: tma_decode()
 * finds the nodes that depend on one and reports them as NAN.
 */
#ifndef TDBPF_TMA_EXPR_H
#define TDBPF_TMA_EXPR_H

#include <math.h>

static inline double dv(double a, double b)
{
	if (b == 0.0)
		return NAN;
	return a / b;
}

static inline double mx(double a, double b)
{
	return a > b ? a : b;
}

static inline double mn(double a, double b)
{
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

static inline double sel(double cond, double a, double b)
{
	return cond != 0.0 ? a : b;
}

#endif /* TDBPF_TMA_EXPR_H */
