// SPDX-License-Identifier: GPL-2.0
/*
 * Parser of `tdbpf decode` input. Every rejection names the line, the
 * problem and the fix: the input is typed or pasted by people, and a count
 * silently dropped or misread would change the verdict without a trace.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sources/decode_input.h"
#include "support/text.h"
#include "support/error.h"

#define U64_MAX_DEC	"18446744073709551615"

/* one input line and where its problems are reported */
struct line_ctx {
	const struct model *m;
	int lineno;
	char *err;
	size_t errlen;
};

static int line_err(struct line_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int line_err(struct line_ctx *c, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = snprintf(c->err, c->errlen, "line %d: ", c->lineno);
	if (n >= c->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* user text quoted in a message: bounded, control bytes made visible */
static const char *shown(const char *s, char *buf, size_t len)
{
	return text_printable(buf, len, s, NULL, TEXT_ASCII | TEXT_ELLIPSIS);
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static bool looks_numeric(const char *s)
{
	return isdigit((unsigned char)*s) || *s == '.' || *s == '-' ||
	       *s == '+' || *s == '<';
}

/* decimal integer part @s[0..n) greater than 2^64-1? */
static bool int_overflows(const char *s, size_t n)
{
	while (n > 1 && *s == '0')
		s++, n--;
	if (n != strlen(U64_MAX_DEC))
		return n > strlen(U64_MAX_DEC);
	return strncmp(s, U64_MAX_DEC, n) > 0;
}

/*
 * A count: plain decimal, optionally with a fraction or exponent (perf
 * prints software clocks in msec with decimals). Returns 0 with *v, 1 for
 * perf's <not counted>/<not supported> (missing), -1 with the error set.
 */
static int parse_value(struct line_ctx *c, const char *s, const char *event,
		       double *v)
{
	char b1[64], b2[80];
	const char *p = s, *int_end;
	bool frac_nonzero = false, has_exp = false;
	size_t digits = 0;

	if (!strcmp(s, "<not counted>") || !strcmp(s, "<not supported>"))
		return 1;
	if (!*s)
		return line_err(c, "no value for %s; give a count after the event name",
				shown(event, b2, sizeof(b2)));
	if (*s == '-')
		return line_err(c, "negative count '%s' for %s; counts are never negative: give the raw counter value",
				shown(s, b1, sizeof(b1)),
				shown(event, b2, sizeof(b2)));
	while (isdigit((unsigned char)*p))
		p++, digits++;
	int_end = p;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits++)
			frac_nonzero |= *p != '0';
	}
	if (digits && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;

		if (*q == '+' || *q == '-')
			q++;
		if (isdigit((unsigned char)*q)) {
			while (isdigit((unsigned char)*q))
				q++;
			p = q;
			has_exp = true;
		}
	}
	if (!digits || *p)
		return line_err(c, "'%s' is not a number (event %s); give a decimal count such as 123456",
				shown(s, b1, sizeof(b1)),
				shown(event, b2, sizeof(b2)));
	*v = strtod(s, NULL);
	if (has_exp) {
		/* 2^64 is exact in a double; anything from there on is over */
		if (!isfinite(*v) || *v >= 18446744073709551616.0)
			goto overflow;
	} else if (int_overflows(s, int_end - s) ||
		   (frac_nonzero && int_end - s >= (long)strlen(U64_MAX_DEC) &&
		    !strncmp(int_end - strlen(U64_MAX_DEC), U64_MAX_DEC,
			     strlen(U64_MAX_DEC)))) {
		/* integer part over 2^64-1, or 18446744073709551615.5 */
		goto overflow;
	}
	return 0;
overflow:
	return line_err(c, "count '%s' for %s is larger than 2^64-1; give the raw 64-bit counter value",
			shown(s, b1, sizeof(b1)), shown(event, b2, sizeof(b2)));
}

/*
 * perf stat -x, prints event names unquoted, so "cpu/EV,cmask=1/" holds
 * commas: a name starting with cpu/ or cpu@ runs to its closing / or @.
 * Returns the name (NUL-terminated in place) and advances *rest.
 */
static char *csv_event(char **rest)
{
	char *s = *rest, *end;

	if (!strncmp(s, "cpu/", 4) || !strncmp(s, "cpu@", 4)) {
		end = strchr(s + 4, s[3]);
		if (end) {
			end++;
			end += strcspn(end, ",");	/* modifiers: /u */
		} else {
			end = s + strcspn(s, ",");
		}
	} else {
		end = s + strcspn(s, ",");
	}
	*rest = *end ? end + 1 : end;
	*end = 0;
	return trim(s);
}

/*
 * Split @line into event name and value text. Returns 0, or -1 with the
 * error set.
 */
static int split_line(struct line_ctx *c, char *line, char **event,
		      char **value)
{
	char b1[64], b2[64];
	char *comma = strchr(line, ',');

	if (comma) {
		char first[64];
		size_t n = comma - line;

		snprintf(first, sizeof(first), "%.*s",
			 (int)(n < sizeof(first) ? n : sizeof(first) - 1),
			 line);
		if (looks_numeric(trim(first))) {
			char *rest = comma + 1, *unit;

			*comma = 0;
			*value = trim(line);
			unit = rest;
			rest = strchr(rest, ',');
			if (!rest)
				return line_err(c, "CSV line has no event field; perf stat -x, lines are VALUE,UNIT,EVENT,...");
			*rest++ = 0;
			unit = trim(unit);
			if (*unit && looks_numeric(unit))
				return line_err(c, "the second CSV field '%s' is a number: this looks like perf stat -I output (leading timestamp) or a value with thousands separators; use perf stat -x, without -I",
						shown(unit, b1, sizeof(b1)));
			*event = csv_event(&rest);
			if (!**event)
				return line_err(c, "CSV line has an empty event field; perf stat -x, lines are VALUE,UNIT,EVENT,...");
			return 0;
		}
	}
	/* EVENT VALUE */
	{
		char *save = NULL;
		char *a = strtok_r(line, " \t", &save);
		char *b = strtok_r(NULL, " \t", &save);
		char *extra = strtok_r(NULL, " \t", &save);

		if (!a || !b || extra)
			return line_err(c, "expected 'EVENT VALUE' or perf stat -x, CSV 'VALUE,UNIT,EVENT,...', got '%s'; fix or remove the line",
					shown(trim(line), b1, sizeof(b1)));
		if (looks_numeric(a) && !looks_numeric(b))
			return line_err(c, "'%s %s' has the value first; write 'EVENT VALUE'",
					shown(a, b1, sizeof(b1)),
					shown(b, b2, sizeof(b2)));
		*event = a;
		*value = b;
	}
	return 0;
}

int decode_input_parse(FILE *f, const struct model *m, double *ev,
		       char *err, size_t errlen)
{
	struct line_ctx c = { .m = m, .err = err, .errlen = errlen };
	char *buf = NULL, *line, *event = "", *value = "";
	size_t cap = 0;
	ssize_t len;
	int *first, i, given = 0, rc = -1;

	for (i = 0; i < m->nr_events; i++)
		ev[i] = NAN;
	first = calloc(m->nr_events ? m->nr_events : 1, sizeof(*first));
	if (!first) {
		error_set(err, errlen, "out of memory");
		return -1;
	}
	while ((len = getline(&buf, &cap, f)) >= 0) {
		char b1[80];
		double v = NAN;
		int k, r;

		c.lineno++;
		if (strlen(buf) != (size_t)len) {
			line_err(&c, "contains a NUL byte; give a text file");
			goto out;
		}
		line = trim(buf);
		if (!*line || *line == '#')
			continue;
		if (split_line(&c, line, &event, &value))
			goto out;
		k = model_event_index(m, event);
		if (k < 0) {
			line_err(&c, "unknown event '%s' for model %s; see 'tdbpf list --model %s' for its events",
				 shown(event, b1, sizeof(b1)), m->name,
				 m->name);
			goto out;
		}
		if (first[k]) {
			line_err(&c, "second count for %s (first on line %d); give each event once",
				 m->events[k].name,
				 first[k]);
			goto out;
		}
		r = parse_value(&c, value, event, &v);
		if (r < 0)
			goto out;
		first[k] = c.lineno;
		if (r == 0)
			ev[k] = v;
		given++;
	}
	if (ferror(f)) {
		error_set(err, errlen, "read error after line %d: %s; check the file", c.lineno, strerror(errno));
		goto out;
	}
	if (!given) {
		error_set(err, errlen, "no counts found; give 'EVENT VALUE' lines or perf stat -x, output");
		goto out;
	}
	rc = 0;
out:
	if (rc)
		for (i = 0; i < m->nr_events; i++)
			ev[i] = NAN;
	free(first);
	free(buf);
	return rc;
}
