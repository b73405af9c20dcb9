// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered output and fmt_fixed(): every value must come out exactly as
 * printf writes it, so printf is the reference (glibc's conversion is
 * exact: the decimal expansion of the binary value, ties to even).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support/outbuf.h"
#include "unit_helpers.h"
#include "xorshift.h"

/* fmt_fixed and snprintf agree on the text and the return value. */
static void same(double v, int prec)
{
	char want[400], got[FMT_FIXED_LEN];
	int wn = snprintf(want, sizeof(want), "%.*f", prec, v);
	int gn = fmt_fixed(got, sizeof(got), v, prec);

	if (gn != wn || strcmp(got, want))
		fail_msg("%%.%df of %a: \"%s\" (%d), printf \"%s\" (%d)", prec,
			 v, got, gn, want, wn);
}

static void same_all(double v)
{
	int prec;

	for (prec = 0; prec <= FMT_FIXED_MAX_PREC + 1; prec++) {
		same(v, prec);
		same(-v, prec);
	}
}

static void test_fixed_by_hand(void **state)
{
	char buf[FMT_FIXED_LEN];

	(void)state;
	/* ties go to the even digit, as printf rounds them */
	assert_int_equal(fmt_fixed(buf, sizeof(buf), 0.25, 1), 3);
	assert_string_equal(buf, "0.2");
	fmt_fixed(buf, sizeof(buf), 0.75, 1);
	assert_string_equal(buf, "0.8");
	fmt_fixed(buf, sizeof(buf), 2.5, 0);
	assert_string_equal(buf, "2");
	fmt_fixed(buf, sizeof(buf), 3.5, 0);
	assert_string_equal(buf, "4");
	fmt_fixed(buf, sizeof(buf), 1.125, 2);
	assert_string_equal(buf, "1.12");
	/* 0.35 is 0.34999999999999997780 in binary: down, not a tie */
	fmt_fixed(buf, sizeof(buf), 0.35, 1);
	assert_string_equal(buf, "0.3");
	/* the sign bit shows on a value that rounds to zero */
	fmt_fixed(buf, sizeof(buf), -0.04, 1);
	assert_string_equal(buf, "-0.0");
	fmt_fixed(buf, sizeof(buf), -0.0, 0);
	assert_string_equal(buf, "-0");
	fmt_fixed(buf, sizeof(buf), 99.96, 1);
	assert_string_equal(buf, "100.0");
	fmt_fixed(buf, sizeof(buf), 3000000000.0 / 1e6, 1);
	assert_string_equal(buf, "3000.0");
	/* past the fast path: printf's own text */
	fmt_fixed(buf, sizeof(buf), NAN, 1);
	assert_string_equal(buf, "nan");
	fmt_fixed(buf, sizeof(buf), -INFINITY, 2);
	assert_string_equal(buf, "-inf");
	assert_int_equal(fmt_fixed(buf, sizeof(buf), 1e19, 1), 22);
	assert_string_equal(buf, "10000000000000000000.0");
	/* a short buffer truncates and returns the full length */
	assert_int_equal(fmt_fixed(buf, 4, 1234.5, 1), 6);
	assert_string_equal(buf, "123");
}

static void test_fixed_edges(void **state)
{
	static const double v[] = {
		0, 0.5, 1.5, 0.05, 0.005, 0.0005, 0.00049, 0.15, 0.45, 1e-3,
		0.125, 0.375, 0.0625, 0.03125, 1e-300, 5e-324, DBL_MIN,
		0.9999, 0.99951, 9.995, 999.9999, 1e15 + 0.5, 4503599627370495.5,
		9007199254740991.0, 9007199254740993.0, 1e18,
		9223372036854774784.0,	/* largest double below 2^63 */
		9223372036854775808.0,	/* 2^63: printf's path */
		1.8446744073709552e19, 1e300, DBL_MAX, INFINITY, NAN,
	};
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		same_all(v[i]);
	/* every power of two the fast path can meet, and its neighbours */
	for (k = -1074; k < 64; k++) {
		double p = ldexp(1, k);

		same_all(p);
		same_all(nextafter(p, 0));
		same_all(nextafter(p, INFINITY));
	}
}

static uint64_t rng = XORSHIFT_SEED;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

static void test_fixed_random(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 30000; i++) {
		uint64_t bits = next();
		double v;

		/* any bit pattern: all exponents, subnormals, NaNs (few: a
		 * huge value takes printf long) */
		memcpy(&v, &bits, sizeof(v));
		if (i % 16 == 0)
			same_all(v);
		/* any significand, in and around the fast path's range */
		same_all(ldexp((double)(bits >> 11),
			       (int)(next() % 140) - 116));
		/* dyadic fractions: exact ties at every precision */
		same_all(ldexp((double)(next() >> (next() % 64)),
			       -(int)(next() % 20)));
		/* what a report prints: ns as ms, percentages */
		same_all((double)(next() % 100000000000ull) / 1e6);
		same_all((double)(next() % 1000000) / 7.0);
	}
}

static void test_outbuf(void **state)
{
	FILE *f = tmpfile(), *ref = tmpfile();
	struct outbuf *o = malloc(sizeof(*o));
	char big[3 * sizeof(o->buf) / 2], *got, *want;
	int i;

	(void)state;
	assert_non_null(f);
	assert_non_null(ref);
	assert_non_null(o);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ob_init(o, f);
	/* enough rows to wrap the buffer several times */
	for (i = 0; i < 2000; i++) {
		double v = i * 1.37 - 100;

		ob_str(o, "ab", 5);
		ob_str(o, "cd", -5);
		ob_str(o, "toolong", 3);
		ob_u64(o, (uint64_t)i * 1000003, 12);
		ob_u64(o, UINT64_MAX, 0);
		ob_putc(o, ' ');
		ob_i64(o, INT64_MIN + i);
		ob_fixed(o, v, 10, i % 4);
		ob_fixed(o, 1e300, 4, 2);
		ob_fill(o, '.', i % 7);
		ob_printf(o, "|%d|\n", i);
		fprintf(ref, "%5s%-5s%3s%12llu%llu %lld%10.*f%4.2f%.*s|%d|\n",
			"ab", "cd", "toolong",
			(unsigned long long)i * 1000003,
			(unsigned long long)UINT64_MAX,
			(long long)(INT64_MIN + i), i % 4, v, 1e300, i % 7,
			"......", i);
	}
	/* pieces larger than the buffer go around it, in order */
	ob_puts(o, big);
	ob_printf(o, "%s\n", big);
	ob_flush(o);
	fprintf(ref, "%s%s\n", big, big);
	got = slurp(f);
	want = slurp(ref);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(o);
}

/*
 * Integers as printf's "%llu" writes them, around the 8-digit blocks the
 * writer cuts them into, and near-ties at 6 decimals on both sides of
 * the one-multiply fast path's guard.
 */
static void test_u64_and_near_ties(void **state)
{
	static const uint64_t v[] = { 0, 9, 10, 99, 100, 9999999, 99999999,
				      100000000, 100000001, 1234567890123ULL,
				      9999999999999999ULL, 10000000000000000ULL,
				      18446744073709551615ULL };
	char got[32], want[32];
	double x;
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v[i]);
		assert_int_equal(fmt_u64(got, v[i]), (int)strlen(want));
		assert_string_equal(got, want);
	}
	/* k + 0.5e-6 and its neighbours: one ulp off a tie either way */
	for (k = 0; k < 20000; k++) {
		x = (double)k * 1.000001 + 0.0000005;
		same(x, 6);
		same(nextafter(x, 0), 6);
		same(nextafter(x, 1e9), 6);
		same((double)k + 0.5, 0);
		same(nextafter((double)k + 0.5, 0), 0);
		same(nextafter((double)k + 0.5, 1e9), 0);
		same(-(double)k - 0.5, 0);
	}
}

/*
 * fmt_json_fixed(): printf's "%.0f" / "%.6f" with trailing zeros (and
 * a bare '.') dropped and "-0" as "0", or -1; it must take the usual
 * values (-1 for them would be a silent slow path, not an error).
 */
static void json_same(double v, int prec, bool must_take)
{
	char got[64], want[64], *e;
	int n = fmt_json_fixed(got, v, prec), wn;

	if (n < 0) {
		assert_false(must_take);
		return;
	}
	got[n] = '\0';
	wn = snprintf(want, sizeof(want), "%.*f", prec, v);
	e = want + wn;
	if (prec) {
		while (e[-1] == '0')
			e--;
		if (e[-1] == '.')
			e--;
	}
	*e = '\0';
	if (!strcmp(want, "-0"))
		strcpy(want, "0");
	assert_string_equal(got, want);
}

static void test_json_fixed(void **state)
{
	static const double edge[] = {
		0.0, -0.0, 0.5, 1.5, 2.5, -0.4, -0.5, 9999999999.4,
		9999999999.5, 9999999998.5, 1e10, 99999.9999995,
		0.0000005, -0.0000005, 0.0000015, 2251799813.685247,
		/* the integer part's lengths, carried by the rounding */
		9.9999995, 99.9999996, 999.9999994, 9999.9999995,
		9999.9999994, 10000.0000004,
	};
	uint64_t u, p10;
	char got[40], want[32];
	size_t i;
	int k;

	(void)state;
	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
		json_same(edge[i], 0, false);
		json_same(edge[i], 6, false);
	}
	for (k = 0; k < 200000; k++) {
		uint64_t bits = next();
		double v;

		memcpy(&v, &bits, sizeof(v));
		json_same(v, (int)(bits & 1) * 6, false);
		/* a report's counts and percentages */
		json_same((double)(next() % 8000000000ull), 0, true);
		json_same((double)(next() % 8000000000ull) * 0.37, 0, true);
		json_same(-(double)(next() % 100000000) / 1e5, 6, false);
		json_same((double)(next() % 100000000000ull) / 1e6, 6, false);
	}
	/* put_u64_short() at every length and power-of-ten edge */
	for (p10 = 1, k = 0; k < 10; k++, p10 *= 10)
		for (u = p10 > 2 ? p10 - 2 : 0; u < p10 + 3; u++) {
			if (u >= 10000000000ull)
				break;
			snprintf(want, sizeof(want), "%llu",
				 (unsigned long long)u);
			got[put_u64_short(got, u)] = '\0';
			assert_string_equal(got, want);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixed_by_hand),
		cmocka_unit_test(test_fixed_edges),
		cmocka_unit_test(test_fixed_random),
		cmocka_unit_test(test_outbuf),
		cmocka_unit_test(test_u64_and_near_ties),
		cmocka_unit_test(test_json_fixed),
	};

	return cmocka_run_group_tests_name("outbuf", tests, NULL, NULL);
}
