// SPDX-License-Identifier: GPL-2.0
/*
 * The screen of `tdbpf top`, laid out as text: pure, so the unit tests
 * check it without a terminal. Columns, at 80 columns and more:
 *
 *     TID COMM              CPU%  RUNQ%  OFF% BREAKDOWN    IPC VERDICT
 *
 * CPU%, RUNQ% and OFF% are shares of the interval (a folded row's: the
 * mean of its threads', so that none reads 200%); BREAKDOWN is a 10-cell bar of the level-1
 * TMA nodes (clamped to 0-100% for display, as the table clamps them),
 * or without a TMA tree of the task's observed life: on-CPU, run-queue
 * wait, off-CPU. Its glyphs carry the meaning without colour. IPC only
 * where the plan counts instructions and cycles. VERDICT is the report's
 * BOTTLENECK. On a narrow screen columns give way (pick_cols()) before
 * a number is cut; the bottleneck line wraps at words.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/graph.h"
#include "sums/spans.h"
#include "outputs/top_view.h"
#include "support/array.h"
#include "support/text.h"

#define BAR_CELLS	10
#define MAX_W		512

static const enum sort_key sort_cycle[] = {
	SORT_CPU, SORT_RUNQ, SORT_OFFCPU, SORT_SWITCHES, SORT_COMM, SORT_TID,
};

static const char *const sort_label[] = {
	[SORT_CPU] = "cpu",	  [SORT_RUNQ] = "runq",
	[SORT_OFFCPU] = "offcpu", [SORT_TID] = "tid",
	[SORT_COMM] = "comm",	  [SORT_SWITCHES] = "switches",
	[SORT_NONE] = "none",
};

const char *top_sort_name(enum sort_key k)
{
	return k <= SORT_NONE ? sort_label[k] : "?";
}

enum sort_key top_next_sort(enum sort_key k)
{
	size_t i, n = ARRAY_SIZE(sort_cycle);

	for (i = 0; i < n; i++)
		if (sort_cycle[i] == k)
			return sort_cycle[(i + 1) % n];
	return SORT_CPU;
}

void top_state_init(struct top_state *st, enum sort_key sort, bool per_name,
		    int level, long interval_ms)
{
	memset(st, 0, sizeof(*st));
	st->sort = sort == SORT_NONE ? SORT_CPU : sort;
	st->per_name = per_name;
	st->level = level;
	st->interval_ms = interval_ms;
}

enum top_key_result top_key(struct top_state *st, int key)
{
	switch (key) {
	case 'q':
	case 'Q':
		return TOP_KEY_QUIT;
	case 's':
		st->sort = top_next_sort(st->sort);
		return TOP_KEY_REDRAW;
	case 'f':
		st->per_name = !st->per_name;
		return TOP_KEY_REDRAW;
	case 'p':
	case ' ':
		st->paused = !st->paused;
		return TOP_KEY_REDRAW;
	case 'h':
	case '?':
		st->help = !st->help;
		return TOP_KEY_REDRAW;
	case 27:	/* Esc leaves the help */
		if (!st->help)
			return TOP_KEY_NONE;
		st->help = false;
		return TOP_KEY_REDRAW;
	default:
		return TOP_KEY_NONE;
	}
}

int top_bar(char *dst, enum top_attr *attr, int cells, const double *shares,
	    const char *glyphs, int n)
{
	double v[8], sum = 0, rem[8];
	int got[8], used = 0, i, c, k;

	if (n > 8)
		n = 8;
	for (i = 0; i < n; i++) {
		v[i] = isfinite(shares[i]) && shares[i] > 0 ? shares[i] : 0;
		if (v[i] > 1)
			v[i] = 1;
		sum += v[i];
	}
	if (!(sum > 0)) {
		memset(dst, ' ', (size_t)cells);
		dst[0] = '-';
		dst[cells] = '\0';
		if (attr)
			for (c = 0; c < cells; c++)
				attr[c] = TOP_NORMAL;
		return -1;
	}
	/* largest remainder: the cells always add up to the bar */
	for (i = 0; i < n; i++) {
		double exact = v[i] / sum * cells;

		got[i] = (int)exact;
		rem[i] = exact - got[i];
		used += got[i];
	}
	while (used < cells) {
		k = 0;
		for (i = 1; i < n; i++)
			if (rem[i] > rem[k])
				k = i;
		got[k]++;
		rem[k] = -1;
		used++;
	}
	for (i = 0, c = 0; i < n; i++)
		for (k = 0; k < got[i] && c < cells; k++, c++) {
			dst[c] = glyphs[i];
			if (attr)
				attr[c] = (enum top_attr)(TOP_BAR0 + (i < 5 ? i : 4));
		}
	dst[cells] = '\0';
	return 0;
}

/* ---- layout ------------------------------------------------------------ */

struct screen {
	const struct top_out *out;
	int w, h;
};

/* Row @y: @s, cut at the width, padded with blanks to it. */
static void line(const struct screen *sc, int y, const char *s,
		 enum top_attr a)
{
	static char blanks[MAX_W];
	int n = (int)strlen(s);

	if (!blanks[0])
		memset(blanks, ' ', sizeof(blanks));

	if (y < 0 || y >= sc->h)
		return;
	if (n > sc->w)
		n = sc->w;
	sc->out->put(sc->out->ctx, y, 0, s, n, a);
	if (n < sc->w) {
		int pad = sc->w - n;

		sc->out->put(sc->out->ctx, y, n, blanks, pad, a);
	}
}

/* Re-put @n bytes of row @y from column @x with @a, within the width. */
static void span(const struct screen *sc, int y, int x, const char *s, int n,
		 enum top_attr a)
{
	if (y < 0 || y >= sc->h || x >= sc->w)
		return;
	if (x + n > sc->w)
		n = sc->w - x;
	if (n > 0)
		sc->out->put(sc->out->ctx, y, x, s, n, a);
}

/* The breakdown's parts: level-1 nodes, or the scheduling split. */
struct bar_parts {
	int n;
	int node[8];		/* TMA node index, or -1: scheduling */
	char glyph[9];
	const char *name[8];
};

static const struct {
	const char *label;
	char glyph;
} known_glyphs[] = {
	{ "Frontend", 'F' }, { "Bad_Spec", 'S' }, { "Backend", 'B' },
	{ "Retiring", 'R' },
};

static char pick_glyph(const char *label, const char *taken)
{
	size_t i;
	const char *p;

	for (i = 0; i < ARRAY_SIZE(known_glyphs); i++)
		if (!strcmp(label, known_glyphs[i].label) &&
		    !strchr(taken, known_glyphs[i].glyph))
			return known_glyphs[i].glyph;
	for (p = label; *p; p++) {
		char c = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);

		if (c >= 'A' && c <= 'Z' && !strchr(taken, c))
			return c;
	}
	return '*';
}

static void bar_parts(const struct report *rep, struct bar_parts *b)
{
	const struct model *m = rep->plan ? rep->plan->model : NULL;
	int i;

	memset(b, 0, sizeof(*b));
	if (m && m->max_level > 0 && rep->level > 0) {
		for (i = 0; i < m->nr_nodes && b->n < 8; i++) {
			/* as the table: no aside metrics in the breakdown */
			if (m->nodes[i].level != 1 || m->nodes[i].aside)
				continue;
			b->node[b->n] = i;
			b->name[b->n] = m->nodes[i].label ? m->nodes[i].label :
							    m->nodes[i].name;
			b->glyph[b->n] = pick_glyph(b->name[b->n], b->glyph);
			b->n++;
		}
		if (b->n)
			return;
	}
	b->n = 3;
	b->node[0] = b->node[1] = b->node[2] = -1;
	memcpy(b->glyph, "#+.", 4);
	b->name[0] = "on-CPU";
	b->name[1] = "run-queue";
	b->name[2] = "off-CPU";
}

static void shares_of(const struct bar_parts *b, const struct task_decoded *d,
		      double *v)
{
	const struct task_row *r = d->row;
	double life = (double)r->sched.on_cpu_ns + (double)r->sched.runq_wait_ns +
		      (double)r->sched.off_cpu_ns;
	int i;

	if (b->node[0] < 0) {
		v[0] = life > 0 ? r->sched.on_cpu_ns / life : 0;
		v[1] = life > 0 ? r->sched.runq_wait_ns / life : 0;
		v[2] = life > 0 ? r->sched.off_cpu_ns / life : 0;
		return;
	}
	for (i = 0; i < b->n; i++)
		v[i] = d->has_tma ? d->tma.val[b->node[i]] : NAN;
}

static double pct(__u64 part, __u64 window)
{
	return window ? 100.0 * (double)part / (double)window : 0;
}

/* "%*.1f" of @v, or "%*.0f" where the decimal would not fit @w */
static char *pct_str(char *buf, size_t len, double v, int w)
{
	if (snprintf(buf, len, "%*.1f", w, v) > w)
		snprintf(buf, len, "%*.0f", w, v);
	return buf;
}

static void title(const struct screen *sc, const struct top_state *st,
		  const struct top_frame *fr, const struct report *rep)
{
	const struct event_plan *p = fr->plan;
	char buf[MAX_W + 1], lvl[24] = "";

	if (rep && rep->level > 0)
		snprintf(lvl, sizeof(lvl), ", level %d", rep->level);
	snprintf(buf, sizeof(buf),
		 "tdbpf top - model %s%s, every %.1f s, sort %s%s%s%s%s",
		 p && p->model ? p->model->name : "none", lvl,
		 st->interval_ms / 1000.0, top_sort_name(st->sort),
		 st->per_name ? ", by name" : "",
		 st->paused ? "  [paused]" : "", st->note[0] ? "  " : "",
		 st->note);
	line(sc, 0, buf, TOP_TITLE);
}

/*
 * The bottleneck line, wrapped at words into rows @y.. (at most @max,
 * continuations indented): never cut where the screen is wide enough
 * for it. The rows used.
 */
static int banner_lines(const struct screen *sc, int y, const char *s,
			int max, bool draw)
{
	char buf[MAX_W + 1];
	int n = 0, len = (int)strlen(s), at = 0, ind = 0, room, k;

	while (at < len && n < max) {
		room = sc->w - ind;
		if (room < 1)
			break;
		k = len - at <= room ? len - at : room;
		/* a break at a space, unless one word fills the row */
		if (at + k < len && s[at + k] != ' ') {
			int b = k;

			while (b > 0 && s[at + b] != ' ')
				b--;
			if (b > 0)
				k = b;
		}
		if (draw) {
			snprintf(buf, sizeof(buf), "%*s%.*s", ind, "", k, s + at);
			line(sc, y + n, buf, TOP_BANNER);
		}
		n++;
		at += k;
		while (at < len && s[at] == ' ')
			at++;
		ind = 2;
	}
	return n;
}

/* Row 1 (banner or totals, @nb rows of it) and the legend after it. */
static void summary(const struct screen *sc, const struct top_frame *fr,
		    const struct task_table *t, const struct bar_parts *b,
		    const char *banner, int nb)
{
	char buf[MAX_W + 1];
	__u64 on = 0, rq = 0;
	size_t i;
	int n = 0, k;

	if (banner) {
		banner_lines(sc, 1, banner, nb, true);
	} else {
		for (i = 0; t && i < t->nr; i++) {
			on += tasks_row(t, i)->sched.on_cpu_ns;
			rq += tasks_row(t, i)->sched.runq_wait_ns;
		}
		snprintf(buf, sizeof(buf),
			 "%zu tasks, CPU %.1f%% of %d%%, run-queue wait %.1f%%",
			 t ? t->nr : 0, pct(on, fr->window_ns),
			 100 * (fr->ncpu > 0 ? fr->ncpu : 1),
			 pct(rq, fr->window_ns));
		if (fr->lost.map_full || fr->lost.read_errors)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 ", lost %llu tasks %llu reads",
				 (unsigned long long)fr->lost.map_full,
				 (unsigned long long)fr->lost.read_errors);
		line(sc, 1, buf, TOP_NORMAL);
	}
	int at[8];

	n = snprintf(buf, sizeof(buf), "BREAKDOWN:");
	for (k = 0; k < b->n && k < 8 && n < (int)sizeof(buf); k++) {
		at[k] = n + 1;
		n += snprintf(buf + n, sizeof(buf) - n, " %c %s", b->glyph[k],
			      b->name[k]);
	}
	if (b->node[0] < 0 && n < (int)sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, " (no TopDown without a PMU)");
	line(sc, 1 + nb, buf, TOP_NORMAL);
	/* the key's glyphs in their bars' colours, even where no bar fits */
	for (i = 0; i < (size_t)k; i++)
		if (at[i] < (int)sizeof(buf))
			span(sc, 1 + nb, at[i], buf + at[i], 1,
			     (enum top_attr)(TOP_BAR0 + (i < 5 ? i : 4)));
}

/* WAITS ON, with wakeups traced: "cpu:enrich 62%" and the like */
#define WAITS_ON_W	18

/*
 * The columns a screen this wide shows: on a narrow one the breakdown,
 * IPC and OFF% go first, then RUNQ% and WAITS ON, rather than cut a
 * number; the verdict then has the rest, cut only between words.
 */
struct top_cols {
	bool runq, off, bar, ipc, waits;
	int verdict_x;		/* where VERDICT starts */
	int verdict_w;		/* its room: the rest of the row */
};

static int cols_width(const struct top_cols *c)
{
	return 7 + 1 + 15 + 1 + 6 + (c->runq ? 6 : 0) + (c->off ? 6 : 0) +
	       (c->bar ? 1 + BAR_CELLS : 0) + (c->ipc ? 7 : 0) + 1 +
	       (c->waits ? WAITS_ON_W : 0);
}

/* A verdict's first words must fit, or the columns before it give way. */
#define VERDICT_MIN_W	16

static void pick_cols(struct top_cols *c, int w, int verdict_max)
{
	bool *order[] = { &c->bar, &c->ipc, &c->off, &c->runq, &c->waits };
	size_t i;

	for (i = 0; i < 3 && cols_width(c) + verdict_max > w; i++)
		*order[i] = false;
	for (; i < ARRAY_SIZE(order) && cols_width(c) + VERDICT_MIN_W > w &&
	       cols_width(c) + verdict_max > w; i++)
		*order[i] = false;
	c->verdict_x = cols_width(c);
	c->verdict_w = w - c->verdict_x;
}

static void header(const struct screen *sc, int y, const struct top_cols *c)
{
	char buf[MAX_W + 1];
	int n;

	n = snprintf(buf, sizeof(buf), "%7s %-15s %6s", "TID", "COMM", "CPU%");
	if (c->runq)
		n += snprintf(buf + n, sizeof(buf) - n, " %5s", "RUNQ%");
	if (c->off)
		n += snprintf(buf + n, sizeof(buf) - n, " %5s", "OFF%");
	if (c->bar)
		n += snprintf(buf + n, sizeof(buf) - n, " %-10s", "BREAKDOWN");
	if (c->ipc)
		n += snprintf(buf + n, sizeof(buf) - n, " %6s", "IPC");
	n += snprintf(buf + n, sizeof(buf) - n, " ");
	if (c->waits)
		n += snprintf(buf + n, sizeof(buf) - n, "%-*s", WAITS_ON_W,
			      "WAITS ON");
	snprintf(buf + n, sizeof(buf) - n, "VERDICT");
	line(sc, y, buf, TOP_HEADER);
}

/*
 * @s's words that fit @w columns: never a word cut, so never a number;
 * the whole of @s when it fits. Its length.
 */
static int fit_words(const char *s, int w)
{
	int n = (int)strlen(s), k;

	if (n <= w)
		return n;
	for (k = w; k > 0 && s[k] != ' '; k--)
		;
	while (k > 0 && s[k - 1] == ' ')
		k--;
	return k;
}

/*
 * WAITS ON's cell in @w - 1 columns: "NAME NN%", the name shortened
 * ("EnrichmentWo~ 94%") so that the share stays whole.
 */
static void fit_waits(char *dst, size_t len, const char *cell, int w)
{
	const char *sp = strrchr(cell, ' ');
	int room = w - 1, share = sp ? (int)strlen(sp) : 0;
	size_t head;

	if ((int)strlen(cell) <= room || !sp || room - share < 2) {
		snprintf(dst, len, "%.*s", room, cell);
		return;
	}
	head = (size_t)(room - share - 1);
	if (head + 1 + (size_t)share >= len)
		head = 0;
	memcpy(dst, cell, head);
	dst[head] = '~';
	memcpy(dst + head + 1, sp, (size_t)share + 1);
}

/*
 * A name in the 15 columns of COMM: a whole name longer than that (a
 * JVM's) keeps its head and its tail, where an instance number is
 * ("Map ->~ (2/3)#0"); a comm fits as it is.
 */
static void fit_name(char *dst, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (n <= 15 || len < 16)
		snprintf(dst, len, "%s", name);
	else
		snprintf(dst, len, "%.6s~%s", name, name + n - 8);
}

static void row(const struct screen *sc, int y, const struct report *rep,
		const struct task_decoded *d, const struct bar_parts *b,
		const struct top_cols *c, int ipc_inst, int ipc_clk)
{
	const struct task_row *r = d->row;
	char buf[MAX_W + 1], name[TDBPF_NAME_MAX], comm[16], tid[16];
	char bar[BAR_CELLS + 1], p[16], cell[64], fit[64];
	enum top_attr at[BAR_CELLS];
	double v[8];
	int n, k, bar_x = 0;
	enum top_attr va;
	__u64 win;

	/* a folded row: the threads' mean share, as N windows of them */
	win = rep->duration_ns * (__u64)(r->nr_tasks > 1 ? r->nr_tasks : 1);
	/* fixed-width columns count bytes: ASCII only */
	text_printable(name, sizeof(name), task_name(r), NULL, TEXT_ASCII);
	fit_name(comm, sizeof(comm), name);
	if (r->nr_tasks > 1)
		snprintf(tid, sizeof(tid), "(%d)", r->nr_tasks);
	else
		snprintf(tid, sizeof(tid), "%u", r->tid);
	shares_of(b, d, v);
	top_bar(bar, at, BAR_CELLS, v, b->glyph, b->n);
	n = snprintf(buf, sizeof(buf), "%7s %-15.15s %s", tid, comm,
		     pct_str(p, sizeof(p), pct(r->sched.on_cpu_ns, win), 6));
	if (c->runq)
		n += snprintf(buf + n, sizeof(buf) - n, " %s",
			      pct_str(p, sizeof(p),
				      pct(r->sched.runq_wait_ns, win), 5));
	if (c->off)
		n += snprintf(buf + n, sizeof(buf) - n, " %s",
			      pct_str(p, sizeof(p),
				      pct(r->sched.off_cpu_ns, win), 5));
	if (c->bar) {
		bar_x = n + 1;
		n += snprintf(buf + n, sizeof(buf) - n, " %s", bar);
	}
	if (c->ipc) {
		double i = d->ev[ipc_inst], q = d->ev[ipc_clk];

		if (isfinite(i) && isfinite(q) && q > 0)
			n += snprintf(buf + n, sizeof(buf) - n, " %6.2f", i / q);
		else
			n += snprintf(buf + n, sizeof(buf) - n, " %6s", "-");
	}
	n += snprintf(buf + n, sizeof(buf) - n, " ");
	if (c->waits) {
		graph_waits_on(rep->graph, graph_node_of(rep->graph, r), cell,
			       sizeof(cell));
		fit_waits(fit, sizeof(fit), cell, WAITS_ON_W);
		n += snprintf(buf + n, sizeof(buf) - n, "%-*s ",
			      WAITS_ON_W - 1, fit);
	}
	k = fit_words(d->bottleneck, c->verdict_w);
	snprintf(buf + n, sizeof(buf) - n, "%.*s", k, d->bottleneck);
	line(sc, y, buf, TOP_NORMAL);
	/* colour over the text: the glyphs stay for monochrome screens */
	for (k = 0; c->bar && k < BAR_CELLS; k++)
		if (at[k] != TOP_NORMAL)
			span(sc, y, bar_x + k, bar + k, 1, at[k]);
	va = d->sched == SCHED_STARVED ||
			     (d->sched == SCHED_NONE && d->has_tma &&
			      d->tma.bottleneck >= 0) ?
		     TOP_WARN :
		     TOP_NORMAL;
	if (va != TOP_NORMAL)
		span(sc, y, n, d->bottleneck,
		     fit_words(d->bottleneck, c->verdict_w), va);
}

static const char *const help_text[] = {
	"tdbpf top: one row per task (or per thread name), every interval",
	"",
	"  q          quit (also Ctrl-C, SIGTERM; or when the targets exit)",
	"  s          sort by the next key: cpu, runq, offcpu, switches, comm, tid",
	"  f          fold threads by name (worker-1..8 -> worker-*), or unfold",
	"  p, space   pause: keep this interval on screen (tracing goes on)",
	"  h, ?       this help; h, ? or Esc again to leave it",
	"",
	"  CPU%       on-CPU time, in % of the interval (N threads: up to N x 100)",
	"  RUNQ%      runnable but waiting for a CPU, in % of the interval",
	"  OFF%       asleep or blocked, in % of the interval",
	"  BREAKDOWN  TopDown level 1 in slots (a PMU), else the task's life",
	"  IPC        instructions per cycle (a PMU with both counters)",
	"  WAITS ON   with wakeups: the task that ended most of its waits, or",
	"             held the CPU it waited for (cpu:NAME), by share of both",
	"  VERDICT    the bottleneck, as the BOTTLENECK column of the report",
};

/*
 * The rows to show, decoded, from row @y0 to the key line, into *@out
 * (the caller frees it); the longest verdict among them. -ENOMEM or the
 * number of rows.
 */
static int decode_rows(const struct screen *sc, const struct report *rep,
		       int y0, struct task_decoded **out, int *verdict_max)
{
	int n = sc->h - 1 - y0, i, v;

	if (n > rep->nr)
		n = rep->nr;
	if (n < 0)
		n = 0;
	*verdict_max = 0;
	*out = calloc((size_t)(n ? n : 1), sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		report_decode_task(rep, i, &(*out)[i]);
		v = (int)strlen((*out)[i].bottleneck);
		if (v > *verdict_max)
			*verdict_max = v;
	}
	return n;
}

/* The key line, and how many rows the screen did not hold. */
static void key_line(const struct screen *sc, int more)
{
	char buf[MAX_W + 1];
	int n = snprintf(buf, sizeof(buf),
			 "q quit  s sort  f fold  p pause  h help");

	if (more > 0)
		snprintf(buf + n, sizeof(buf) - n, "   +%d more rows", more);
	line(sc, sc->h - 1, buf, TOP_HEADER);
}

/* The rows (or the help, or the wait for data) from row @y. */
static void body(const struct screen *sc, const struct top_state *st,
		 const struct report *rep, bool built, int y,
		 const struct bar_parts *b, int ipc_inst, int ipc_clk,
		 struct top_cols *c, int *more)
{
	struct task_decoded *d = NULL;
	char buf[MAX_W + 1];
	int i, n, vmax;

	*more = 0;
	if (st->help) {
		for (i = 0; i < (int)ARRAY_SIZE(help_text) && y < sc->h - 1;
		     i++)
			line(sc, y++, help_text[i], TOP_NORMAL);
	} else if (!built) {
		snprintf(buf, sizeof(buf),
			 "collecting the first %.1f s interval...",
			 st->interval_ms / 1000.0);
		line(sc, y++, buf, TOP_NORMAL);
	} else if ((n = decode_rows(sc, rep, y, &d, &vmax)) >= 0) {
		pick_cols(c, sc->w, vmax);
		header(sc, y - 1, c);
		for (i = 0; i < n; i++)
			row(sc, y++, rep, &d[i], b, c, ipc_inst, ipc_clk);
		*more = rep->nr_total - n;
	}
	free(d);
	while (y < sc->h - 1)
		line(sc, y++, "", TOP_NORMAL);
}

int top_render(const struct top_state *st, const struct top_frame *fr,
	       int w, int h, const struct top_out *out)
{
	const struct task_table *src = fr->tasks;
	struct screen sc = { .out = out, .w = w < MAX_W ? w : MAX_W, .h = h };
	struct task_table folded;
	struct span_table spans = { 0 };	/* the bottleneck's operator */
	struct report rep;
	struct bar_parts b;
	struct graph graph;
	struct top_cols c;
	char verdict[REPORT_VERDICT_LINE];
	const char *banner = st->banner;
	int rows, ipc_inst, ipc_clk, err = 0, nb = 1, more;
	bool built = false, graphed = false;

	if (sc.w <= 0 || sc.h <= 0)
		return 0;
	tasks_init(&folded);
	memset(&rep, 0, sizeof(rep));
	memset(&graph, 0, sizeof(graph));
	rep.plan = fr->plan;
	/* wakeups traced: the graph's verdict of this interval, over tasks */
	if (fr->valid && src && src->waits) {
		if (graph_build(&graph, src, st->per_name, fr->look)) {
			err = -ENOMEM;
			goto out;
		}
		graphed = true;
	}
	err = fr->valid && src && fr->spans ?
		      spans_fold(fr->spans, src, st->per_name, &spans) : 0;
	if (err)
		goto out;
	/* the rows below the header, above the key line */
	rows = sc.h - 5;
	if (fr->valid && src && st->per_name && fr->plan) {
		if (tasks_fold(src, &folded, fr->plan->nr)) {
			err = -ENOMEM;
			goto out;
		}
		src = &folded;
	}
	if (fr->valid && src) {
		err = report_build(&rep, src, fr->plan, st->level,
				   fr->window_ns, st->sort,
				   rows > 0 ? rows : 1);
		if (err)
			goto out;
		built = true;
		rep.spans = spans.nr ? &spans : NULL;
		if (graphed) {
			report_set_graph(&rep, &graph, src);
			if (!banner) {
				report_verdict_line(&rep, verdict,
						    sizeof(verdict));
				banner = verdict;
			}
		}
	}
	bar_parts(&rep, &b);
	report_ipc_slots(fr->plan, &ipc_inst, &ipc_clk);
	c = (struct top_cols){ .runq = true, .off = true, .bar = true,
			       .ipc = ipc_inst >= 0 && ipc_clk >= 0,
			       .waits = built && rep.graph };
	/* the bottleneck line wrapped, on a screen with rows to spare */
	if (banner)
		nb = banner_lines(&sc, 1, banner, sc.h >= 12 ? 4 : 1, false);
	nb = nb > 0 ? nb : 1;
	title(&sc, st, fr, built ? &rep : NULL);
	summary(&sc, fr, fr->valid ? fr->tasks : NULL, &b, banner, nb);
	c.verdict_w = sc.w;
	header(&sc, 2 + nb, &c);
	body(&sc, st, &rep, built, 3 + nb, &b, ipc_inst, ipc_clk, &c, &more);
	if (sc.h >= 2)
		key_line(&sc, more);
out:
	if (built)
		report_free(&rep);
	graph_free(&graph);
	tasks_free(&folded);
	spans_free(&spans);
	return err;
}
