/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer: every JSON document tdbpf prints (reports, `list
 * -j`, `decode -j`) goes through it, streamed into an outbuf, so that a
 * report of 10,000 tasks never sits in memory as a tree.
 *
 * Two layouts: pretty (one member per line, indented two spaces per
 * depth, "key": value) and line (the whole document on one line, for -I
 * JSON lines). Keys are written as given, unescaped: callers pass this
 * program's literals and the models' event and node names (printable
 * ASCII without quote or backslash; test_report checks every model).
 * String values are escaped, invalid UTF-8 becomes U+FFFD.
 *
 * Callers open and close in order; nothing checks it.
 */
#ifndef TDBPF_JSON_H
#define TDBPF_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "support/outbuf.h"

struct jw {
	struct outbuf o;
	bool pretty;
	bool first;	/* nothing written yet in the open object/array */
	int depth;
};

/* Start a document on @f; jw_end() finishes it with a newline. */
void jw_init(struct jw *w, FILE *f, bool pretty);
void jw_end(struct jw *w);

/*
 * The pieces (json.c): separate from the previous member, indent and
 * write "@key": (@key NULL: an array element or the top-level value);
 * open and close an object or array; a quoted, escaped string. The
 * members below are inline on top of them: a report writes some
 * 800,000 members for 10,000 tasks, and a call each cost 1% of it.
 */
void jw_member(struct jw *w, const char *key);
void jw_open(struct jw *w, const char *key, char brace);
void jw_close(struct jw *w, char brace);
void jw_string(struct jw *w, const char *s);

static inline void jw_obj(struct jw *w, const char *key)
{
	jw_open(w, key, '{');
}

static inline void jw_obj_end(struct jw *w)
{
	jw_close(w, '}');
}

static inline void jw_arr(struct jw *w, const char *key)
{
	jw_open(w, key, '[');
}

static inline void jw_arr_end(struct jw *w)
{
	jw_close(w, ']');
}

static inline void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_member(w, key);
	ob_u64(&w->o, v, 0);
}

/* @n members "@keys[i]": @v[i], in order: a row's counts as one list */
static inline void jw_u64s(struct jw *w, const char *const *keys,
			   const uint64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		jw_u64(w, keys[i], v[i]);
}

/*
 * "@key": [a, b, ...] on one line even when pretty (a report's raw sums
 * are many): @n 64-bit unsigned values, @stride bytes apart from @base.
 */
void jw_u64_list(struct jw *w, const char *key, const void *base, size_t n,
		 size_t stride);

static inline void jw_int(struct jw *w, const char *key, int64_t v)
{
	jw_member(w, key);
	ob_i64(&w->o, v);
}

static inline void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_member(w, key);
	ob_puts(&w->o, v ? "true" : "false");
}

static inline void jw_null(struct jw *w, const char *key)
{
	jw_member(w, key);
	ob_puts(&w->o, "null");
}

/* A string value; @v NULL writes null. */
static inline void jw_str(struct jw *w, const char *key, const char *v)
{
	jw_member(w, key);
	if (v)
		jw_string(w, v);
	else
		ob_puts(&w->o, "null");
}

/*
 * A measured number, rounded as printf's "%.*f" (@prec 0..6), trailing
 * zeros dropped; past 2^53 the fewest of 15-17 significant digits that
 * read back exactly; NaN and infinities are null.
 */
void jw_num(struct jw *w, const char *key, double v, int prec);
/*
 * An exact number: printf's "%.17g" (which reads back as the same double
 * and drops trailing zeros), ".0" added to a whole number; null when not
 * finite.
 * For values that are not measurements (decode -j's formula values).
 */
void jw_double(struct jw *w, const char *key, double v);

/*
 * Members every task of a report repeats (its counters, its metrics),
 * rendered once: key i's prefix is the bytes jw_member() writes before a
 * value at the depth of @w when built (comma, newline and indent, the
 * quoted key, ": "), so each later member is one copy. A report of
 * 10,000 tasks of a hardware model writes a million of them.
 */
struct jw_keys {
	char *buf;
	size_t *off;	/* n + 1 offsets into buf */
	int n;
};

/* 0, or -1 (no memory): then write the members with jw_num() */
int jw_keys_build(struct jw_keys *k, const struct jw *w,
		  const char *const *names, int n);
void jw_keys_free(struct jw_keys *k);
/* jw_member(@w, names[@i]) of the built @k, at its depth */
void jw_key(struct jw *w, const struct jw_keys *k, int i);
/* jw_num(@w, names[@i], @v, @prec) of the built @k, at its depth */
void jw_num_keyed(struct jw *w, const struct jw_keys *k, int i, double v,
		  int prec);
/* jw_num_keyed() of keys 0..@n-1 of @k and @v[0..@n), in one loop */
void jw_nums_keyed(struct jw *w, const struct jw_keys *k, const double *v,
		   int n, int prec);

#endif /* TDBPF_JSON_H */
