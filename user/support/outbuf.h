/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Report output gathered in a buffer and handed to stdio in large
 * chunks. A report of 10,000 tasks is a few million short pieces; a
 * stdio call per piece (locking, vtable checks, format parsing) cost
 * more than everything else in the report.
 */
#ifndef TDBPF_OUTBUF_H
#define TDBPF_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Longest "%.*f" of a finite double at FMT_FIXED_MAX_PREC, with NUL. */
#define FMT_FIXED_LEN		320
#define FMT_FIXED_MAX_PREC	6

/*
 * Exactly what snprintf(@dst, @len, "%.*f", @prec, @v) writes, and its
 * return value, without printf's arbitrary-precision arithmetic when
 * @prec is 0..FMT_FIXED_MAX_PREC and |@v| < 2^63.
 */
int fmt_fixed(char *dst, size_t len, double v, int prec);
/*
 * The same text without the NUL, written backwards to end just before
 * @end, which has FMT_FIXED_REV_LEN bytes before it; returns its first
 * byte, or NULL where fmt_fixed() would fall back to snprintf.
 */
#define FMT_FIXED_REV_LEN	48
char *fmt_fixed_rev(char *end, double v, int prec);
/*
 * JSON's numbers in place: "%.0f" (@prec 0) or "%.6f" (@prec 6) of @v
 * without trailing zeros and with "-0" as "0", at @dst (40 bytes
 * writable); the length, or -1 where the caller must use
 * fmt_fixed_rev() (|v| >= 10^10, a rounding too close to call).
 */
int fmt_json_fixed(char *dst, double v, int prec);
/* @v < 10^10 in decimal at @dst (16 bytes writable); the length */
int put_u64_short(char *dst, uint64_t v);
/* printf("%" PRIu64, @v) into @dst (21 bytes at least); the length */
int fmt_u64(char *dst, uint64_t v);

struct outbuf {
	FILE *f;
	size_t len;
	/*
	 * A write(2) per 256 KiB (two, as stdio splits a chunk): on these
	 * VMs a system call costs microseconds, and at 64 KiB the writes of
	 * a 60 MB JSON report were a tenth of its time.
	 */
	char buf[262144];
};

static inline void ob_init(struct outbuf *o, FILE *f)
{
	o->f = f;
	o->len = 0;
}

void ob_flush(struct outbuf *o);
void ob_write_slow(struct outbuf *o, const char *s, size_t n);

static inline void ob_write(struct outbuf *o, const char *s, size_t n)
{
	if (n > sizeof(o->buf) - o->len) {
		ob_write_slow(o, s, n);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/*
 * ob_write() of @n <= OB_SMALL bytes from @s, where OB_SMALL bytes are
 * readable at @s: one fixed-size copy (two vector moves) instead of a
 * call to memcpy, for the million short pieces of a large report.
 */
#define OB_SMALL	64

static inline void ob_write_small(struct outbuf *o, const char *s, size_t n)
{
	if (n <= OB_SMALL && sizeof(o->buf) - o->len >= OB_SMALL) {
		memcpy(o->buf + o->len, s, OB_SMALL);
		o->len += n;
		return;
	}
	ob_write(o, s, n);
}

static inline void ob_puts(struct outbuf *o, const char *s)
{
	ob_write(o, s, strlen(s));
}

static inline void ob_putc(struct outbuf *o, char c)
{
	if (o->len == sizeof(o->buf))
		ob_flush(o);
	o->buf[o->len++] = c;
}

/* @n times @c */
void ob_fill(struct outbuf *o, char c, size_t n);
/* printf("%*s", @width, @s) (@width < 0: "%-*s"); ob_strn: @n bytes */
void ob_strn(struct outbuf *o, const char *s, size_t n, int width);
void ob_str(struct outbuf *o, const char *s, int width);
/* printf("%*" PRIu64, @width, @v) */
void ob_u64(struct outbuf *o, uint64_t v, int width);
/*
 * @n 64-bit unsigned values @stride bytes apart from @base, as "%" PRIu64,
 * @seplen (at most 8) bytes of @sep between them: the raw sums of a JSON
 * report. @sep must have 8 readable bytes: all 8 are copied.
 */
void ob_u64_list(struct outbuf *o, const void *base, size_t n,
		 size_t stride, const char *sep, size_t seplen);
/*
 * fmt_json_fixed() of @v[i], each after its prefix: @pre + @off[i] up to
 * @off[i + 1] (at most OB_SMALL bytes, OB_SMALL readable), the first
 * without its first @skip bytes. Stops before a number that needs the
 * caller's slow path, or a longer prefix; returns how many it wrote.
 */
int ob_json_fixed_run(struct outbuf *o, const char *pre, const size_t *off,
		      size_t skip, const double *v, int n, int prec);
/* "-" and |@v|: INT64_MIN has no positive int64 */
void ob_i64(struct outbuf *o, int64_t v);
/* printf("%*.*f", @width, @prec, @v) */
void ob_fixed(struct outbuf *o, double v, int width, int prec);
void ob_printf(struct outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* TDBPF_OUTBUF_H */
