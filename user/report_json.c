// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output, streamed: one document, each task decoded and written in
 * turn, so that 10,000 tasks never sit in memory as one tree.
 *
 * {
 *   "model": "software", "level": 0, "smt": false,
 *   "duration_ns": 5000000000,
 *   "interval": 3,                 only in interval reports (-I)
 *   "lost": { "map_full": 0, "read_errors": 0,
 *             "unseen_switch_ins": 0 },  slices charged whose switch-in
 *                                  no sched_switch event showed: their
 *                                  counts are extrapolated (uncounted_ns)
 *   "nr_total": 14,                tasks before --top
 *   "tasks": [ {
 *     "tid": 1234, "pid": 1230,    tid 0 for a folded row of several
 *     "comm": "worker-1",          tasks, pid 0 when they differ
 *     "on_cpu_ns", "runq_wait_ns", "off_cpu_ns": integers,
 *     "switches": voluntary + involuntary,
 *     "voluntary", "involuntary", "migrations": integers,
 *     "exited": bool,
 *     "nr_tasks": N,               only for folded rows (--per-name)
 *     "uncounted_ns": integer,     on-CPU time in slices whose switch-in
 *                                  was unseen (running at attach, or a
 *                                  switch the kernel did not trace): no
 *                                  counter was read for it; it lowers
 *                                  coverage as multiplexing does
 *     "coverage": 0..1,            min running/enabled over the groups,
 *                                  6 decimals
 *     "low_coverage": bool,
 *     "sched": "-" | "CPU-starved" | "blocked" | "idle",
 *     "counters": { EVENT: scaled count, in the event's raw unit
 *                   (cpu-clock in ns), to the nearest whole count; null
 *                   when never counted },
 *     "metrics": { tma_NAME: percent (value * 100, not clamped), to 6
 *                  decimals; null when not computable }
 *                                  only when the model decodes,
 *     "bottleneck": what the table's BOTTLENECK column says
 *   } ]
 * }
 *
 * Pretty (-j) puts one member per line, indented by depth; interval
 * reports (-I) put the whole document on one line.
 *
 * Thread names can hold any byte, and JSON must be valid UTF-8: each
 * byte that does not belong to a valid UTF-8 sequence becomes U+FFFD,
 * control characters are escaped. NaN and infinities have no JSON
 * spelling: they become null. A scaled count is an extrapolation and a
 * metric a ratio of such counts: printing them to 17 digits would claim a
 * precision they do not have, and formatting every double so (about 1 us
 * each) made a report of 10,000 multiplexed tasks take over a second.
 * So counts print rounded to whole counts and fractions to 6 decimals,
 * both exactly as printf's "%.0f" and "%.6f" round (fmt_fixed()), the
 * fractions without trailing zeros. Counts past 2^53, where a double no
 * longer holds every integer, print with the fewest of 15 to 17
 * significant digits that read back as the same double. `tdbpf decode
 * -j` keeps every metric's exact value (main.c). tdbpf never calls
 * setlocale(): the decimal point is '.'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "outbuf.h"
#include "report.h"

/* Length of the valid UTF-8 sequence at @s (@n bytes left), 0 if none. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;	/* continuation byte, 0xc0/0xc1, 0xf5.. */
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/*
 * The writer keeps only what punctuation needs: the nesting depth (for
 * indentation) and whether the current object or array has a member yet
 * (for the comma). Callers open and close in order; nothing checks it.
 */
struct jw {
	struct outbuf o;
	bool pretty;
	bool first;	/* nothing written yet in the open object/array */
	int depth;
};

/* Bytes copied as they are: printable ASCII but the quote and backslash. */
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

static void jw_string(struct jw *w, const char *str)
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
			len = utf8_seq(s + i, n - i);
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
	/* the document nests 4 deep: one piece of output, not a loop */
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
static void jw_member(struct jw *w, const char *key)
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

static void jw_open(struct jw *w, const char *key, char brace)
{
	jw_member(w, key);
	ob_putc(&w->o, brace);
	w->depth++;
	w->first = true;
}

static void jw_close(struct jw *w, char brace)
{
	w->depth--;
	/* an empty object stays "{}" */
	if (w->pretty && !w->first)
		jw_newline(w);
	ob_putc(&w->o, brace);
	w->first = false;
}

static void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_member(w, key);
	ob_u64(&w->o, v, 0);
}

static void jw_int(struct jw *w, const char *key, int64_t v)
{
	jw_member(w, key);
	ob_i64(&w->o, v);
}

static void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_member(w, key);
	ob_puts(&w->o, v ? "true" : "false");
}

static void jw_str(struct jw *w, const char *key, const char *v)
{
	jw_member(w, key);
	jw_string(w, v);
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

	if (!isfinite(v)) {
		ob_puts(&w->o, "null");
		return;
	}
	if (fabs(v) >= 9007199254740992.0) {	/* 2^53 */
		jw_big(w, v);
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

static void jw_num(struct jw *w, const char *key, double v, int prec)
{
	jw_member(w, key);
	jw_num_value(w, v, prec);
}

/*
 * The members every task repeats, its counters and metrics, rendered
 * once per report: for key i the bytes jw_member() would write before
 * its value at the depth of the first use (the comma, newline and
 * indent, the quoted key and ": "), so that each member is one copy.
 * A report of 10,000 tasks of a hardware model writes a million of them.
 */
struct jw_keys {
	char *buf;
	size_t *off;	/* n + 1 offsets into buf */
	int n;
};

static int jw_keys_build(struct jw_keys *k, const struct jw *w,
			 const char *const *names, int n)
{
	size_t indent = w->pretty ? 2 * (size_t)w->depth : 0, len = 0, o;
	int i;

	k->n = 0;
	for (i = 0; i < n; i++)
		len += 1 + (w->pretty ? 1 + indent : 0) + strlen(names[i]) + 4;
	/* OB_SMALL more: ob_write_small() reads that far */
	k->buf = calloc(1, len + OB_SMALL);
	k->off = malloc(sizeof(*k->off) * ((size_t)n + 1));
	if (!k->buf || !k->off) {
		free(k->buf);
		free(k->off);
		k->buf = NULL;
		k->off = NULL;
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
		memcpy(k->buf + o, names[i], strlen(names[i]));
		o += strlen(names[i]);
		memcpy(k->buf + o, "\": ", w->pretty ? 3 : 2);
		o += w->pretty ? 3 : 2;
	}
	k->off[n] = o;
	k->n = n;
	return 0;
}

static void jw_keys_free(struct jw_keys *k)
{
	free(k->buf);
	free(k->off);
	memset(k, 0, sizeof(*k));
}

/* jw_num() of key @i of @k: the member's prefix in one copy. */
static void jw_num_keyed(struct jw *w, const struct jw_keys *k, int i,
			 double v, int prec)
{
	const char *p = k->buf + k->off[i];
	size_t n = k->off[i + 1] - k->off[i];

	if (w->first) {		/* no comma before the first */
		p++;
		n--;
	}
	w->first = false;
	ob_write_small(&w->o, p, n);
	jw_num_value(w, v, prec);
}

/* The report's counter and metric names, and their prefixes once used. */
struct json_ctx {
	const char *ctr_names[TDBPF_MAX_EVENTS];
	int nr_ctr;
	const char *node_names[MODEL_MAX_NODES];
	int node_idx[MODEL_MAX_NODES];
	int nr_node;
	struct jw_keys ctr, node;
	bool built_ctr, built_node, failed;
};

static void write_task(struct jw *w, struct json_ctx *x,
		       const struct task_decoded *d)
{
	const struct task_row *r = d->row;
	int s, i;

	jw_open(w, NULL, '{');
	jw_u64(w, "tid", r->tid);
	jw_u64(w, "pid", r->pid);
	jw_str(w, "comm", r->comm);
	jw_u64(w, "on_cpu_ns", r->on_cpu_ns);
	jw_u64(w, "runq_wait_ns", r->runq_wait_ns);
	jw_u64(w, "off_cpu_ns", r->off_cpu_ns);
	jw_u64(w, "switches", r->nvcsw + r->nivcsw);
	jw_u64(w, "voluntary", r->nvcsw);
	jw_u64(w, "involuntary", r->nivcsw);
	jw_u64(w, "migrations", r->migrations);
	jw_bool(w, "exited", r->exited);
	if (r->nr_tasks > 1)
		jw_int(w, "nr_tasks", r->nr_tasks);
	jw_u64(w, "uncounted_ns", r->uncounted_ns);
	jw_num(w, "coverage", d->coverage, 6);
	jw_bool(w, "low_coverage", d->low_coverage);
	jw_str(w, "sched", sched_verdict_str(d->sched));

	jw_open(w, "counters", '{');
	if (!x->built_ctr && !x->failed) {
		/* out of memory: member by member, as before */
		x->failed = jw_keys_build(&x->ctr, w, x->ctr_names, x->nr_ctr);
		x->built_ctr = !x->failed;
	}
	for (s = 0; s < x->nr_ctr; s++) {
		if (x->built_ctr)
			jw_num_keyed(w, &x->ctr, s, d->ev[s], 0);
		else
			jw_num(w, x->ctr_names[s], d->ev[s], 0);
	}
	jw_close(w, '}');

	if (d->has_tma) {
		jw_open(w, "metrics", '{');
		if (!x->built_node && !x->failed) {
			x->failed = jw_keys_build(&x->node, w, x->node_names,
						  x->nr_node);
			x->built_node = !x->failed;
		}
		for (i = 0; i < x->nr_node; i++) {
			double v = d->tma.val[x->node_idx[i]] * 100;

			if (x->built_node)
				jw_num_keyed(w, &x->node, i, v, 6);
			else
				jw_num(w, x->node_names[i], v, 6);
		}
		jw_close(w, '}');
	}
	jw_str(w, "bottleneck", d->bottleneck);
	jw_close(w, '}');
}

void report_write_json(FILE *f, const struct report *rep, bool line)
{
	const struct event_plan *p = rep->plan;
	const struct model *m = p ? p->model : NULL;
	struct jw w = { .pretty = !line, .first = true };
	struct json_ctx ctx, *x = &ctx;
	struct task_decoded d;
	int i;

	memset(x, 0, sizeof(*x));
	for (i = 0; p && i < p->nr && i < TDBPF_MAX_EVENTS; i++)
		x->ctr_names[x->nr_ctr++] = p->evd[i]->name;
	for (i = 0; m && i < m->nr_nodes && i < MODEL_MAX_NODES; i++)
		if (m->nodes[i].level <= rep->level) {
			x->node_idx[x->nr_node] = i;
			x->node_names[x->nr_node++] = m->nodes[i].name;
		}
	ob_init(&w.o, f);
	jw_open(&w, NULL, '{');
	jw_str(&w, "model", p && p->model ? p->model->name : "none");
	jw_int(&w, "level", rep->level);
	jw_bool(&w, "smt", p && p->smt);
	jw_u64(&w, "duration_ns", rep->duration_ns);
	if (rep->interval >= 0)
		jw_int(&w, "interval", rep->interval);
	jw_open(&w, "lost", '{');
	jw_u64(&w, "map_full", rep->lost_map_full);
	jw_u64(&w, "read_errors", rep->lost_read_err);
	jw_u64(&w, "unseen_switch_ins", rep->unseen_switch_ins);
	jw_close(&w, '}');
	jw_int(&w, "nr_total", rep->nr_total);

	jw_open(&w, "tasks", '[');
	for (i = 0; i < rep->nr; i++) {
		report_decode_task(rep, i, &d);
		write_task(&w, x, &d);
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
	ob_putc(&w.o, '\n');
	ob_flush(&w.o);
	jw_keys_free(&x->ctr);
	jw_keys_free(&x->node);
}
