/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `tdbpf top` shows, laid out without a terminal: the view turns
 * one interval's task table into screen lines of a given size, through
 * a put() callback that top.c points at curses and the unit tests at a
 * character grid. Keys change the view's state (sort, fold, pause,
 * help); the view never touches the tracer.
 */
#ifndef TDBPF_TOP_VIEW_H
#define TDBPF_TOP_VIEW_H

#include <stdbool.h>
#include "analysis/graph.h"
#include "analysis/report.h"
#include "model/model.h"
#include "sums/snapshot.h"
#include "sums/tasks.h"

/* What a piece of text is, for the screen to colour or underline it. */
enum top_attr {
	TOP_NORMAL,
	TOP_TITLE,		/* first line */
	TOP_HEADER,		/* column header: reverse video */
	TOP_BANNER,		/* the graph's bottleneck line: bold */
	TOP_WARN,		/* a verdict that names a problem: bold */
	TOP_BAR0,		/* bar segments, in the order of the legend */
	TOP_BAR1,
	TOP_BAR2,
	TOP_BAR3,
	TOP_BAR4,
	TOP_NR_ATTRS,
};

struct top_out {
	/* @n bytes of @s at row @y, column @x; never past the width */
	void (*put)(void *ctx, int y, int x, const char *s, int n,
		    enum top_attr a);
	void *ctx;
};

enum top_key_result {
	TOP_KEY_NONE,		/* not ours: nothing to do */
	TOP_KEY_REDRAW,		/* the view changed: draw it again */
	TOP_KEY_QUIT,
};

struct top_state {
	enum sort_key sort;
	bool per_name;		/* fold rows by thread name */
	bool paused;		/* keep showing the last interval */
	bool help;		/* the key list instead of the rows */
	int level;		/* TMA level to decode (0: the plan's) */
	long interval_ms;
	/*
	 * A line above the table for a verdict that spans tasks: the wakeup
	 * graph's bottleneck sets it; NULL shows the totals.
	 */
	const char *banner;
	char note[96];		/* "target exited" and the like */
};

/* One interval's data, as the last collect left it. */
struct top_frame {
	const struct event_plan *plan;
	const struct task_table *tasks;	/* the interval's deltas */
	__u64 window_ns;		/* the interval's length */
	struct lost_stats lost;		/* cumulative, as the tracer counts */
	int ncpu;			/* for the total CPU% line */
	bool valid;			/* false before the first interval */
	const struct graph_lookups *look;	/* names of tasks not traced */
	/* --span: the interval's span deltas (the bottleneck line's), or NULL */
	const struct span_table *spans;
};

void top_state_init(struct top_state *st, enum sort_key sort, bool per_name,
		    int level, long interval_ms);
/* A key (curses' codes: plain characters, KEY_RESIZE is the caller's). */
enum top_key_result top_key(struct top_state *st, int key);
/* The sort key after @k in the cycle the 's' key follows. */
enum sort_key top_next_sort(enum sort_key k);
const char *top_sort_name(enum sort_key k);

/*
 * Lay out the whole screen of @w x @h: title, summary or banner, the
 * column header, as many rows as fit, the key line. Every cell of the
 * screen is written (blank where nothing is), so nothing from the last
 * frame shows through. 0, or -ENOMEM.
 */
int top_render(const struct top_state *st, const struct top_frame *fr,
	       int w, int h, const struct top_out *out);

/*
 * The level-1 (or, without a TMA tree, the scheduling) breakdown as
 * @cells characters into @dst (NUL-terminated, @cells + 1 bytes), each
 * share given cells by largest remainder so they always add up, and the
 * attribute of each cell in @attr (may be NULL). @shares are fractions,
 * NaN or negative counted as 0. Returns 0, or -1 when nothing to show.
 */
int top_bar(char *dst, enum top_attr *attr, int cells, const double *shares,
	    const char *glyphs, int n);

#endif /* TDBPF_TOP_VIEW_H */
