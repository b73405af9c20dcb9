// SPDX-License-Identifier: GPL-2.0
/*
 * Buffered report output and a fixed-point formatter that prints what
 * printf("%.Nf") prints. printf renders a double's exact binary value in
 * decimal and rounds that (to nearest, ties to even); with few decimals
 * and |v| < 2^63 the same is done here in 64-bit integers:
 *
 *   |v| = m * 2^e, m < 2^53 an integer (the significand)
 *   e >= 0:  v is the integer m << e; all decimals are 0
 *   e <  0:  v * 10^N = m * 10^N / 2^-e, with m * 10^N < 2^73 for
 *            N <= 6, in 128 bits: the quotient and remainder of that
 *            shift give the digits and the exact rounding decision, ties
 *            included
 *
 * Anything else (more decimals, huge values, NaN, infinities) goes to
 * snprintf. The sign is the sign bit, so -0.04 prints "-0.0" as printf
 * does.
 */
#include <math.h>
#include <stdarg.h>
#include "support/outbuf.h"

static const uint64_t pow10_u64[FMT_FIXED_MAX_PREC + 1] = {
	1, 10, 100, 1000, 10000, 100000, 1000000,
};

/* "00".."99": two digits per division halve the dependent divisions */
static const char two_digits[200] = {
#define D10(t) t, '0', t, '1', t, '2', t, '3', t, '4', \
	       t, '5', t, '6', t, '7', t, '8', t, '9'
	D10('0'), D10('1'), D10('2'), D10('3'), D10('4'),
	D10('5'), D10('6'), D10('7'), D10('8'), D10('9'),
#undef D10
};

/* Two digits of @v < 100 at @p. */
static inline void put2(char *p, uint32_t v)
{
	memcpy(p, &two_digits[2 * v], 2);
}

/*
 * The 8 digits of @v < 10^8 at @p: split in halves and quarters, so the
 * four pairs come from independent divisions rather than one chain.
 */
static inline void put8(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	put2(p, hi / 100);
	put2(p + 2, hi % 100);
	put2(p + 4, lo / 100);
	put2(p + 6, lo % 100);
}

/* Exactly @n decimal digits of @v (< 10^@n) ending before @end. */
static char *fixed_digits(char *end, uint64_t v, int n)
{
	if (n == 6) {		/* JSON's fractions */
		uint32_t lo = (uint32_t)(v % 10000), hi = (uint32_t)(v / 10000);

		put2(end - 6, hi);
		put2(end - 4, lo / 100);
		put2(end - 2, lo % 100);
		return end - 6;
	}
	for (; n >= 2; n -= 2) {
		end -= 2;
		put2(end, (uint32_t)(v % 100));
		v /= 100;
	}
	if (n)
		*--end = (char)('0' + v % 10);
	return end;
}

static const uint64_t pow10_tab[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull,
	10000000000000000000ull,
};

/* Decimal digits of @v ending just before @end; returns the first. */
static char *u64_digits(char *end, uint64_t v)
{
	uint64_t q;
	int n;

	/*
	 * Below 10^10 (every count of a report): always ten digits, then
	 * the count of significant ones from the bit length. The values
	 * of a report vary in length at random, and a branch per digit
	 * pair was mispredicted about as often as not.
	 */
	if (v < 10000000000ull) {
		q = v / 100000000;
		put2(end - 10, (uint32_t)q);
		put8(end - 8, (uint32_t)(v - q * 100000000));
		/* floor(log10) from log2, corrected by one comparison */
		n = (int)(((64 - __builtin_clzll(v | 1)) * 1233) >> 12);
		n += v >= pow10_tab[n];
		return end - (n ? n : 1);
	}
	while (v >= 100000000) {
		q = v / 100000000;
		end -= 8;
		put8(end, (uint32_t)(v - q * 100000000));
		v = q;
	}
	while (v >= 100) {
		end -= 2;
		put2(end, (uint32_t)(v % 100));
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		put2(end, (uint32_t)v);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* Digits of @v (> 0) in decimal, 1..20. */
static inline int u64_len(uint64_t v)
{
	int n = (int)(((64 - __builtin_clzll(v | 1)) * 1233) >> 12);

	return n + (v >= pow10_tab[n]) + (n == 0 && v < 1);
}

/*
 * "0000".."9999" as four ASCII bytes each (40 KiB), filled before main:
 * two independent loads instead of a chain of dependent multiplies.
 */
static uint32_t four_digits[10000];

__attribute__((constructor)) static void four_digits_init(void)
{
	uint32_t i;

	for (i = 0; i < 10000; i++)
		four_digits[i] = (uint32_t)('0' + i / 1000) |
				 (uint32_t)('0' + i / 100 % 10) << 8 |
				 (uint32_t)('0' + i / 10 % 10) << 16 |
				 (uint32_t)('0' + i % 10) << 24;
}

static inline __attribute__((always_inline)) int
put_u64_short_in(char *dst, uint64_t v)
{
	uint64_t hi = v / 100000000;
	uint32_t lo = (uint32_t)(v - hi * 100000000), a = lo / 10000;
	uint16_t h2;
	unsigned __int128 x;
	int n = u64_len(v);

	memcpy(&h2, &two_digits[2 * hi], 2);
	x = (unsigned __int128)((uint64_t)four_digits[a] |
				(uint64_t)four_digits[lo - a * 10000] << 32)
		<< 16 | h2;
	x >>= 8 * (10 - n);
	memcpy(dst, &x, 16);
	return n;
}

int put_u64_short(char *dst, uint64_t v)
{
	return put_u64_short_in(dst, v);
}

static inline __attribute__((always_inline)) int
json_fixed_in(char *dst, double v, int prec)
{
	static const double two52 = 4503599627370496.0;
	double a = fabs(v), x, r, f;
	uint64_t q, ip, fr;
	char *p = dst;
	int z;

	if (prec == 0) {
		if (!(a < 1e10))
			return -1;
		q = (uint64_t)((a + two52) - two52);
		if (q >= 10000000000ull)	/* 9999999999.5 and up */
			return -1;
		if (q == 0)
			return (*dst = '0', 1);		/* "-0" too */
		if (signbit(v))
			*p++ = '-';
		return (int)(p - dst) + put_u64_short_in(p, q);
	}
	if (prec != 6)
		return -1;
	/* fixed_fast()'s tests; its integer part is then below 10^10 */
	x = a * 1e6;
	if (!(x < two52 / 2))
		return -1;
	r = (x + two52) - two52;
	f = x - (r - 0.5);
	if (fabs(f) <= x * 0x1p-51 || fabs(f - 1.0) <= x * 0x1p-51)
		return -1;
	q = (uint64_t)r;
	ip = q / 1000000;
	fr = q % 1000000;
	if (q == 0)
		return (*dst = '0', 1);			/* "-0" too */
	if (signbit(v))
		*p++ = '-';
	if (ip < 10000) {
		/* a percentage, mostly: up to four digits from one load */
		uint32_t d4 = four_digits[ip];
		int n = 1 + (ip >= 10) + (ip >= 100) + (ip >= 1000);

		d4 >>= 8 * (4 - n);
		memcpy(p, &d4, 4);
		p += n;
	} else {
		p += put_u64_short_in(p, ip);
	}
	if (fr) {
		/* six digits: two, then four; trailing zeros dropped */
		uint32_t a = (uint32_t)fr / 10000;
		uint16_t f2;
		uint64_t d;

		memcpy(&f2, &two_digits[2 * a], 2);
		d = f2 | (uint64_t)four_digits[fr - a * 10000] << 16;
		/* the digits' values: the trailing zeros are the top bytes */
		z = __builtin_clzll(d - 0x303030303030ull) / 8 - 2;
		*p++ = '.';
		memcpy(p, &d, 8);
		p += 6 - z;
	}
	return (int)(p - dst);
}

int fmt_json_fixed(char *dst, double v, int prec)
{
	return json_fixed_in(dst, v, prec);
}

/*
 * The loop of a JSON object of numbers, with the formatting inlined: a
 * report of 10,000 hardware-model tasks writes over a million of them,
 * and three calls each (member, number, digits) were a third of it.
 */
static inline __attribute__((always_inline)) int
json_fixed_run(struct outbuf *o, const char *pre, const size_t *off,
	       size_t skip, const double *v, int n, int prec)
{
	/* the length in a local: a store into buf may alias o->len */
	char *buf = o->buf;
	size_t len = o->len, p, kl;
	int i, k;

	for (i = 0; i < n; i++, skip = 0) {
		p = off[i] + skip;
		kl = off[i + 1] - p;
		if (kl > OB_SMALL)
			break;
		if (sizeof(o->buf) - len < OB_SMALL + 40) {
			o->len = len;
			ob_flush(o);
			len = 0;
		}
		memcpy(buf + len, pre + p, OB_SMALL);
		k = json_fixed_in(buf + len + kl, v[i], prec);
		if (k < 0)
			break;
		len += kl + (size_t)k;
	}
	o->len = len;
	return i;
}

int ob_json_fixed_run(struct outbuf *o, const char *pre, const size_t *off,
		      size_t skip, const double *v, int n, int prec)
{
	/* a constant @prec: each loop without the other's branches */
	if (prec == 0)
		return json_fixed_run(o, pre, off, skip, v, n, 0);
	if (prec == 6)
		return json_fixed_run(o, pre, off, skip, v, n, 6);
	return 0;
}

/*
 * The usual case in one multiply: |v| * 10^@prec = x rounded to a double
 * (10^prec <= 10^6 is exact, so x is within half an ulp of the exact
 * product A). Below 2^52, x + 2^52 - 2^52 rounds x to the nearest
 * integer, ties to even, as printf rounds A, and both round alike unless
 * a half lies within that half ulp of x: then NULL, and the exact path
 * decides. Returns the digits before @end, or NULL.
 */
static char *fixed_fast(char *end, double v, int prec)
{
	static const double two52 = 4503599627370496.0;
	double a = fabs(v), x, r, f;
	uint64_t q;
	char *p = end;

	if (prec == 0) {
		/*
		 * x = a exactly: adding 2^52 rounds it to the integer printf
		 * picks (ties to even), with no half to doubt. NaN fails too.
		 */
		if (!(a < two52))
			return NULL;
		p = u64_digits(p, (uint64_t)((a + two52) - two52));
		goto sign;
	}
	x = a * (double)pow10_u64[prec];
	if (!(x < two52 / 2))
		return NULL;
	r = (x + two52) - two52;
	f = x - (r - 0.5);	/* x's distance above r - 1/2 */
	/* within an ulp of a half, on either side: the exact path */
	if (fabs(f) <= x * 0x1p-51 || fabs(f - 1.0) <= x * 0x1p-51)
		return NULL;
	q = (uint64_t)r;
	if (prec == 6) {
		/* JSON's fractions: a constant divisor is a multiply */
		p = fixed_digits(p, q % 1000000, 6);
		q /= 1000000;
	} else {
		p = fixed_digits(p, q % pow10_u64[prec], prec);
		q /= pow10_u64[prec];
	}
	*--p = '.';
	p = u64_digits(p, q);
sign:
	if (signbit(v))
		*--p = '-';
	return p;
}

char *fmt_fixed_rev(char *end, double v, int prec)
{
	uint64_t m, ip, frac = 0, scale;
	char *p = end;
	int e;

	if (prec < 0 || prec > FMT_FIXED_MAX_PREC)
		return NULL;
	/* first: it rejects NaN, infinities and the huge itself */
	p = fixed_fast(end, v, prec);
	if (p)
		return p;
	if (!isfinite(v) || fabs(v) >= 9223372036854775808.0)
		return NULL;
	p = end;

	/* |v| = m * 2^e from the bits: 52 stored, the implicit one added */
	memcpy(&m, &v, sizeof(m));
	e = (int)(m >> 52 & 0x7ff);
	m &= (1ull << 52) - 1;
	if (e) {
		m |= 1ull << 52;
		e -= 1075;
	} else {
		e = -1074;	/* subnormal */
	}
	scale = pow10_u64[prec];
	if (e >= 0) {
		ip = m << e;	/* < 2^63, checked above */
	} else if (e <= -128) {
		ip = 0;		/* m * 10^N < 2^73 <= half of 2^-e */
	} else {
		int k = -e;
		unsigned __int128 x = (unsigned __int128)m * scale;
		unsigned __int128 half = (unsigned __int128)1 << (k - 1);
		unsigned __int128 r = x & ((half << 1) - 1), q = x >> k;

		if (r > half || (r == half && (q & 1)))
			q++;
		/* v < 2^53 here, so the integer part fits 64 bits */
		if (q >> 64) {
			ip = (uint64_t)(q / scale);
			frac = (uint64_t)(q % scale);
		} else if (prec == 0) {
			ip = (uint64_t)q;
		} else if (prec == 6) {
			/* JSON's fractions: a constant divisor is a multiply */
			ip = (uint64_t)q / 1000000;
			frac = (uint64_t)q % 1000000;
		} else {
			/* the usual case: 64-bit division is much cheaper */
			ip = (uint64_t)q / scale;
			frac = (uint64_t)q % scale;
		}
	}
	if (prec) {
		p = fixed_digits(p, frac, prec);
		*--p = '.';
	}
	p = u64_digits(p, ip);
	if (signbit(v))
		*--p = '-';
	return p;
}

int fmt_fixed(char *dst, size_t len, double v, int prec)
{
	char tmp[FMT_FIXED_REV_LEN], *end = tmp + sizeof(tmp), *p;
	int n;

	p = len >= sizeof(tmp) ? fmt_fixed_rev(end, v, prec) : NULL;
	if (!p)
		return snprintf(dst, len, "%.*f", prec, v);
	n = (int)(end - p);
	memcpy(dst, p, n);
	dst[n] = '\0';
	return n;
}

int fmt_u64(char *dst, uint64_t v)
{
	char tmp[24], *end = tmp + sizeof(tmp), *p = u64_digits(end, v);
	int n = (int)(end - p);

	memcpy(dst, p, n);
	dst[n] = '\0';
	return n;
}

void ob_flush(struct outbuf *o)
{
	if (o->len)
		fwrite(o->buf, 1, o->len, o->f);
	o->len = 0;
}

void ob_write_slow(struct outbuf *o, const char *s, size_t n)
{
	ob_flush(o);
	if (n >= sizeof(o->buf)) {
		fwrite(s, 1, n, o->f);
		return;
	}
	memcpy(o->buf, s, n);
	o->len = n;
}

void ob_fill(struct outbuf *o, char c, size_t n)
{
	while (n) {
		size_t k;

		if (o->len == sizeof(o->buf))
			ob_flush(o);
		k = sizeof(o->buf) - o->len;
		if (k > n)
			k = n;
		memset(o->buf + o->len, c, k);
		o->len += k;
		n -= k;
	}
}

void ob_strn(struct outbuf *o, const char *s, size_t n, int width)
{
	size_t w = width < 0 ? -(size_t)width : (size_t)width;

	if (width > 0 && w > n)
		ob_fill(o, ' ', w - n);
	ob_write(o, s, n);
	if (width < 0 && w > n)
		ob_fill(o, ' ', w - n);
}

void ob_str(struct outbuf *o, const char *s, int width)
{
	ob_strn(o, s, strlen(s), width);
}

void ob_u64(struct outbuf *o, uint64_t v, int width)
{
	char tmp[24], *end = tmp + sizeof(tmp), *p = u64_digits(end, v);

	ob_strn(o, p, end - p, width);
}

void ob_u64_list(struct outbuf *o, const void *base, size_t n,
		 size_t stride, const char *sep, size_t seplen)
{
	char tmp[24], *end = tmp + sizeof(tmp), *p;
	size_t i, len = o->len;	/* local: stores into buf may alias o->len */
	uint64_t v;

	if (seplen > 8)
		seplen = 8;
	for (i = 0; i < n; i++) {
		/* any 64-bit unsigned type: copied, not aliased */
		memcpy(&v, (const char *)base + i * stride, sizeof(v));
		if (sizeof(o->buf) - len < 8 + 24) {
			o->len = len;
			ob_flush(o);
			len = 0;
		}
		/* separator (8 bytes copied) and digits straight in place */
		if (i) {
			memcpy(o->buf + len, sep, 8);
			len += seplen;
		}
		if (v < 10000000000ull) {
			len += (size_t)put_u64_short_in(o->buf + len, v);
		} else {
			p = u64_digits(end, v);
			memcpy(o->buf + len, p, (size_t)(end - p));
			len += (size_t)(end - p);
		}
	}
	o->len = len;
}

void ob_i64(struct outbuf *o, int64_t v)
{
	if (v < 0)
		ob_putc(o, '-');
	ob_u64(o, v < 0 ? -(uint64_t)v : (uint64_t)v, 0);
}

void ob_fixed(struct outbuf *o, double v, int width, int prec)
{
	char tmp[FMT_FIXED_LEN];
	int n = fmt_fixed(tmp, sizeof(tmp), v, prec);

	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		/* more decimals than FMT_FIXED_LEN holds: let printf do it */
		ob_printf(o, "%*.*f", width, prec, v);
		return;
	}
	ob_strn(o, tmp, n, width);
}

void ob_printf(struct outbuf *o, const char *fmt, ...)
{
	size_t room = sizeof(o->buf) - o->len;
	va_list ap, again;
	int n;

	va_start(ap, fmt);
	va_copy(again, ap);
	n = vsnprintf(o->buf + o->len, room, fmt, ap);
	if (n >= 0 && (size_t)n < room) {
		o->len += n;
	} else if (n >= 0) {
		/* did not fit: make room, or bypass the buffer */
		ob_flush(o);
		if ((size_t)n < sizeof(o->buf))
			o->len = vsnprintf(o->buf, sizeof(o->buf), fmt, again);
		else
			vfprintf(o->f, fmt, again);
	}
	va_end(again);
	va_end(ap);
}
