// SPDX-License-Identifier: GPL-2.0
/*
 * The one JSON writer (json.h). Written by hand rather than with json-c:
 * a report of 10,000 tasks of a hardware model writes some 800,000
 * members, and building them as a tree first cost more memory than the
 * task sums and more time than the decoding; streaming them into an
 * outbuf costs neither.
 *
 * The writer keeps only what punctuation needs: the nesting depth (for
 * indentation) and whether the current object or array has a member yet
 * (for the comma).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/json.h"
#include "support/text.h"

/* Bytes copied as they are: printable ASCII but the quote and backslash. */
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void jw_string(struct jw *w, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0, run = 0, len;
	char esc[8];

	ob_putc(&w->o, '"');
	/* copy runs of plain bytes in one go; escape or replace the rest */
	while (i < n) {
		unsigned char c = s[i];

		if (json_plain(c)) {
			i++;
			continue;
		}
		if (c >= 0x80) {
			len = text_utf8_seq(s + i, n - i);
			if (len) {
				i += len;
				continue;
			}
		}
		ob_write(&w->o, str + run, i - run);
		switch (c) {
		case '"':
			ob_puts(&w->o, "\\\"");
			break;
		case '\\':
			ob_puts(&w->o, "\\\\");
			break;
		case '\n':
			ob_puts(&w->o, "\\n");
			break;
		case '\t':
			ob_puts(&w->o, "\\t");
			break;
		case '\r':
			ob_puts(&w->o, "\\r");
			break;
		default:
			if (c < 0x20) {
				snprintf(esc, sizeof(esc), "\\u%04x", c);
				ob_puts(&w->o, esc);
			} else {
				ob_puts(&w->o, "\xef\xbf\xbd");	/* U+FFFD */
			}
			break;
		}
		run = ++i;
	}
	ob_write(&w->o, str + run, i - run);
	ob_putc(&w->o, '"');
}

static void jw_newline(struct jw *w)
{
	/* reports nest 4 deep: one piece of output, not a loop */
	static const char nl[] = "\n                ";
	size_t n = 1 + 2 * (size_t)w->depth;

	if (n < sizeof(nl)) {
		ob_write(&w->o, nl, n);
		return;
	}
	ob_putc(&w->o, '\n');
	ob_fill(&w->o, ' ', n - 1);
}

/*
 * Separate from the previous member, indent, and write "@key": if any.
 * Keys are this file's literals and the models' event and node names,
 * all printable ASCII without quote or backslash (test_report checks
 * every model), so they need no escaping: a report writes some 800,000
 * keys for 10,000 tasks of a hardware model, and escaping them byte by
 * byte was a fifth of its time.
 */
void jw_member(struct jw *w, const char *key)
{
	if (!w->first)
		ob_putc(&w->o, ',');
	w->first = false;
	if (w->pretty && w->depth)
		jw_newline(w);
	if (key) {
		ob_putc(&w->o, '"');
		ob_puts(&w->o, key);
		ob_write(&w->o, "\": ", w->pretty ? 3 : 2);
	}
}

void jw_u64_list(struct jw *w, const char *key, const void *base, size_t n,
		 size_t stride)
{
	/* ob_u64_list() copies 8 bytes of the separator whatever its length */
	static const char sep[8] = ", ";

	jw_member(w, key);
	ob_putc(&w->o, '[');
	ob_u64_list(&w->o, base, n, stride, sep, w->pretty ? 2 : 1);
	ob_putc(&w->o, ']');
}

void jw_open(struct jw *w, const char *key, char brace)
{
	jw_member(w, key);
	ob_putc(&w->o, brace);
	w->depth++;
	w->first = true;
}

void jw_close(struct jw *w, char brace)
{
	w->depth--;
	/* an empty object stays "{}" */
	if (w->pretty && !w->first)
		jw_newline(w);
	ob_putc(&w->o, brace);
	w->first = false;
}

/* Past 2^53: the fewest of 15 to 17 digits that read back exactly. */
static void jw_big(struct jw *w, double v)
{
	char buf[32];
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	ob_puts(&w->o, buf);
}

/*
 * A scaled count (@prec 0: the nearest whole count) or a fraction (@prec
 * 6, without trailing zeros), rounded as printf's "%.*f"; NaN is null.
 */
static void jw_num_value(struct jw *w, double v, int prec)
{
	/* OB_SMALL readable from any start: one fixed copy at the end */
	char buf[FMT_FIXED_REV_LEN + OB_SMALL];
	char *end = buf + FMT_FIXED_REV_LEN, *p;
	int n;

	/* one test for the usual case: finite and below 2^53 */
	if (!(fabs(v) < 9007199254740992.0)) {
		if (isfinite(v))
			jw_big(w, v);
		else
			ob_puts(&w->o, "null");
		return;
	}
	/* the usual case: formatted straight into the buffer */
	if (sizeof(w->o.buf) - w->o.len < 40)
		ob_flush(&w->o);
	n = fmt_json_fixed(w->o.buf + w->o.len, v, prec);
	if (n > 0) {
		w->o.len += (size_t)n;
		return;
	}
	/* formatted in place, then written once: no copy in between */
	p = fmt_fixed_rev(end, v, prec);
	if (!p) {
		ob_printf(&w->o, "%.*f", prec, v);
		return;
	}
	while (prec && end[-1] == '0')
		end--;
	if (end[-1] == '.')
		end--;
	/* a tiny negative rounds to "-0": it is 0 */
	if (end - p == 2 && p[0] == '-' && p[1] == '0')
		ob_putc(&w->o, '0');
	else
		ob_write_small(&w->o, p, (size_t)(end - p));
}

void jw_num(struct jw *w, const char *key, double v, int prec)
{
	jw_member(w, key);
	jw_num_value(w, v, prec);
}

int jw_keys_build(struct jw_keys *k, const struct jw *w,
		  const char *const *names, int n)
{
	size_t indent = w->pretty ? 2 * (size_t)w->depth : 0, len = 0, o, kl;
	int i;

	memset(k, 0, sizeof(*k));
	for (i = 0; i < n; i++)
		len += 1 + (w->pretty ? 1 + indent : 0) + strlen(names[i]) + 4;
	/* OB_SMALL more: ob_write_small() reads that far */
	k->buf = calloc(1, len + OB_SMALL);
	k->off = malloc(sizeof(*k->off) * ((size_t)n + 1));
	if (!k->buf || !k->off) {
		jw_keys_free(k);
		return -1;
	}
	for (i = 0, o = 0; i < n; i++) {
		k->off[i] = o;
		k->buf[o++] = ',';
		if (w->pretty) {
			k->buf[o++] = '\n';
			memset(k->buf + o, ' ', indent);
			o += indent;
		}
		k->buf[o++] = '"';
		kl = strlen(names[i]);
		memcpy(k->buf + o, names[i], kl);
		o += kl;
		memcpy(k->buf + o, "\": ", w->pretty ? 3 : 2);
		o += w->pretty ? 3 : 2;
	}
	k->off[n] = o;
	k->n = n;
	return 0;
}

void jw_keys_free(struct jw_keys *k)
{
	free(k->buf);
	free(k->off);
	memset(k, 0, sizeof(*k));
}

void jw_key(struct jw *w, const struct jw_keys *k, int i)
{
	const char *p = k->buf + k->off[i];
	size_t n = k->off[i + 1] - k->off[i];

	if (w->first) {		/* no comma before the first */
		p++;
		n--;
	}
	w->first = false;
	ob_write_small(&w->o, p, n);
}

void jw_num_keyed(struct jw *w, const struct jw_keys *k, int i, double v,
		  int prec)
{
	struct outbuf *o = &w->o;
	/* no comma before the first */
	size_t off = k->off[i] + (w->first ? 1 : 0);
	size_t n = k->off[i + 1] - off;
	int len;

	w->first = false;
	/*
	 * The usual member in one go: the key's prefix copied at a fixed
	 * size, the number formatted right after it, one length update.
	 */
	if (sizeof(o->buf) - o->len < OB_SMALL + 40)
		ob_flush(o);
	if (n > OB_SMALL) {
		ob_write(o, k->buf + off, n);
		jw_num_value(w, v, prec);
		return;
	}
	memcpy(o->buf + o->len, k->buf + off, OB_SMALL);
	len = fmt_json_fixed(o->buf + o->len + n, v, prec);
	if (len > 0) {
		o->len += n + (size_t)len;
		return;
	}
	o->len += n;
	jw_num_value(w, v, prec);
}

void jw_nums_keyed(struct jw *w, const struct jw_keys *k, const double *v,
		   int n, int prec)
{
	int i = 0;

	while (i < n) {
		i += ob_json_fixed_run(&w->o, k->buf, k->off + i,
				       w->first ? 1 : 0, v + i, n - i, prec);
		if (i > 0)
			w->first = false;
		if (i < n) {	/* the slow path, for this one */
			jw_key(w, k, i);
			jw_num_value(w, v[i], prec);
			i++;
		}
	}
}

void jw_double(struct jw *w, const char *key, double v)
{
	char buf[40];

	jw_member(w, key);
	if (!isfinite(v)) {
		ob_puts(&w->o, "null");
		return;
	}
	snprintf(buf, sizeof(buf), "%.17g", v);
	ob_puts(&w->o, buf);
	/* still a floating-point number when read back: "3" -> "3.0" */
	if (!strpbrk(buf, ".e"))
		ob_puts(&w->o, ".0");
}

void jw_init(struct jw *w, FILE *f, bool pretty)
{
	ob_init(&w->o, f);
	w->pretty = pretty;
	w->first = true;
	w->depth = 0;
}

void jw_end(struct jw *w)
{
	ob_putc(&w->o, '\n');
	ob_flush(&w->o);
}
