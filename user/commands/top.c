// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf top: the tracer's collect every -I on one event loop with the
 * terminal's keys, SIGWINCH and the stop signals, drawn with curses
 * (Debian's ncurses). The screen itself is top_view.c's; this file owns
 * the terminal: it is put back (endwin) on every way out, q, Ctrl-C,
 * SIGTERM, SIGHUP, -d, the targets' exit or an error, before anything
 * is printed. A resize redraws at the new size.
 *
 * Tracing goes on while the view is paused, so the whole run's report
 * (written on exit with -o FILE) misses nothing.
 */
#include <curses.h>
#include <term.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include "commands/cmd.h"
#include "commands/session.h"
#include "commands/top.h"
#include "outputs/sink.h"
#include "outputs/top_view.h"
#include "sources/tracer.h"
#include "support/error.h"

struct top {
	const struct options *o;
	const struct event_plan *plan;
	struct session s;		/* tracer, record, loop; cur, prev, base */
	struct snapshot shown;		/* the interval on screen */
	struct snapshot iv;		/* this interval, whatever is shown */
	int n_iv;
	struct top_state st;
	struct top_frame fr;
	__u64 last_ns;
	SCREEN *scr;
	bool color;
	int err;			/* a collect that failed */
};

/* ---- the screen -------------------------------------------------------- */

static chtype attr_of(const struct top *t, enum top_attr a)
{
	switch (a) {
	case TOP_TITLE:
	case TOP_BANNER:
		return A_BOLD;
	case TOP_HEADER:
		return A_REVERSE;
	case TOP_WARN:
		return A_BOLD | (t->color ? COLOR_PAIR(6) : 0);
	case TOP_BAR0:
	case TOP_BAR1:
	case TOP_BAR2:
	case TOP_BAR3:
	case TOP_BAR4:
		return t->color ? COLOR_PAIR(1 + a - TOP_BAR0) : A_NORMAL;
	default:
		return A_NORMAL;
	}
}

static void put(void *ctx, int y, int x, const char *s, int n,
		enum top_attr a)
{
	struct top *t = ctx;

	attrset(attr_of(t, a));
	/* the bottom-right cell cannot be written without a scroll: ERR */
	mvaddnstr(y, x, s, n);
	attrset(A_NORMAL);
}

static void draw(struct top *t)
{
	struct top_out out = { .put = put, .ctx = t };

	if (!t->scr)
		return;
	t->fr.tasks = &t->shown.tasks;
	t->fr.spans = t->o->nr_spans ? &t->shown.spans : NULL;
	t->fr.lost = t->shown.lost;
	if (top_render(&t->st, &t->fr, COLS, LINES, &out))
		t->err = -ENOMEM;
	refresh();
}

/*
 * Colour only where the terminal has it and the user did not opt out
 * (https://no-color.org: NO_COLOR set and not empty).
 */
static bool want_color(void)
{
	const char *nc = getenv("NO_COLOR");

	return has_colors() && !(nc && *nc);
}

bool top_has_terminal(void)
{
	return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

static int screen_open(struct top *t, char *err, size_t len)
{
	const char *term = getenv("TERM");
	char *cup;

	t->scr = newterm(NULL, stdout, stdin);
	if (!t->scr) {
		error_set(err, len,
			 "cannot draw on terminal type '%s'; set TERM to your terminal's (e.g. xterm, screen, vt100)",
			 term ? term : "");
		return -1;
	}
	set_term(t->scr);
	/* a terminal that cannot move the cursor cannot hold a screen */
	cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) {
		endwin();
		delscreen(t->scr);
		t->scr = NULL;
		error_set(err, len,
			 "cannot draw on terminal type '%s' (it cannot move the cursor); set TERM to your terminal's (e.g. xterm, screen, vt100)",
			 term ? term : "");
		return -1;
	}
	cbreak();		/* keys at once; Ctrl-C stays a signal */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	t->color = want_color();
	if (t->color) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_GREEN, -1);
		init_pair(2, COLOR_YELLOW, -1);
		init_pair(3, COLOR_BLUE, -1);
		init_pair(4, COLOR_MAGENTA, -1);
		init_pair(5, COLOR_CYAN, -1);
		init_pair(6, COLOR_RED, -1);
	}
	return 0;
}

static void screen_close(struct top *t)
{
	if (!t->scr)
		return;
	/* a terminal without an alternate screen would keep the last frame */
	erase();
	refresh();
	endwin();	/* the terminal's modes back, the screen left */
	delscreen(t->scr);
	t->scr = NULL;
}

/* ---- the loop's sources ---------------------------------------------- */

static void stop(struct top *t, const char *why)
{
	if (why)
		snprintf(t->st.note, sizeof(t->st.note), "%s", why);
	loop_stop(t->s.loop);
}

static int on_key(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct top *t = arg;
	bool redraw = false;
	int c;

	(void)l;
	(void)fd;
	if (events & (EPOLLHUP | EPOLLERR)) {
		stop(t, "terminal closed");	/* nothing to draw on */
		return 0;
	}
	while ((c = getch()) != ERR) {
		switch (top_key(&t->st, c)) {
		case TOP_KEY_QUIT:
			stop(t, NULL);
			return 0;
		case TOP_KEY_REDRAW:
			redraw = true;
			break;
		case TOP_KEY_NONE:
			if (c == KEY_RESIZE || c == 12)	/* Ctrl-L */
				redraw = true;
			break;
		}
	}
	if (redraw) {
		clearok(curscr, TRUE);
		draw(t);
	}
	return 0;
}

static int on_interval(struct loop *l, uint64_t n, void *arg)
{
	struct top *t = arg;
	__u64 now;
	int e;

	(void)l;
	(void)n;
	e = tracer_collect(t->s.tracer, &t->s.cur);
	/* the snapshot's end, as the run driver takes it */
	now = t->s.cur.at_ns ? t->s.cur.at_ns : loop_now_ns();
	if (e) {
		t->err = e;
		stop(t, "reading the task sums failed");
		return 0;
	}
	e = snapshot_diff(&t->s.cur, &t->s.prev, &t->iv);
	if (e)
		return e;
	record_emit(&t->s.rec, &t->iv, now - t->last_ns, t->n_iv++);
	/* paused: the screen keeps its interval; the deltas go on */
	if (!t->st.paused) {
		e = snapshot_copy(&t->shown, &t->iv);
		if (e)
			return e;
		t->fr.window_ns = now - t->last_ns;
		t->fr.valid = true;
	}
	/*
	 * With wakeups traced, the view builds this interval's graph and
	 * draws its bottleneck line above the table (t->st.banner stays
	 * for other notices).
	 */
	e = snapshot_copy(&t->s.prev, &t->s.cur);
	if (e)
		return e;
	t->last_ns = now;
	if (!t->st.paused)
		draw(t);
	return 0;
}

static int on_signal(struct loop *l, int sig, void *arg)
{
	struct top *t = arg;
	struct winsize ws;

	(void)l;
	if (sig == SIGWINCH) {
		/* the loop took the signal from curses: tell it the size */
		if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row &&
		    ws.ws_col)
			resize_term(ws.ws_row, ws.ws_col);
		clearok(curscr, TRUE);
		draw(t);
		return 0;
	}
	stop(t, NULL);
	return 0;
}

/* ---- the run ------------------------------------------------------------ */

static int final_report(struct top *t, FILE *out)
{
	const struct options *o = t->o;
	struct sink s = { .f = out, .sep = o->sep, .table_cols = o->table_cols };
	struct report_conf rc = {
		.plan = t->plan,
		.level = o->level,
		.sort = o->sort,
		.top = o->top,
		.per_name = o->per_name,
		/* the graph as tdbpf -o and the recording give it */
		.wakeups = o->wakeups,
		.look = live_lookups,
	};
	struct snapshot whole;
	__u64 now;
	int e;

	s.ops = o->json ? &sink_json : o->sep ? &sink_csv : &sink_table;
	tracer_settle(t->s.tracer, TRACER_SETTLE_MS,
		      !targets_alive(&t->s.targets));
	e = tracer_collect(t->s.tracer, &t->s.cur);
	now = t->s.cur.at_ns ? t->s.cur.at_ns : loop_now_ns();
	tracer_detach(t->s.tracer);
	if (e)
		fprintf(stderr,
			"tdbpf: reading the task sums failed: %s; the report shows what was read\n",
			strerror(-e));
	snapshot_init(&whole, t->plan->nr);
	if (snapshot_diff(&t->s.cur, &t->s.base, &whole)) {
		snapshot_free(&whole);
		return -ENOMEM;
	}
	record_emit(&t->s.rec, &whole, now - t->s.start_ns, -1);
	if (o->output)
		e = sink_emit(&s, &rc, &whole, now - t->s.start_ns, -1) ?: e;
	snapshot_free(&whole);
	return e;
}

int top_run(const struct options *o, const struct event_plan *plan, FILE *out)
{
	struct top t = { .o = o, .plan = plan };
	struct session_conf sc = {
		.on_signal = on_signal,
		.on_interval = on_interval,
		.arg = &t,
		.winch = true,
		.quiet_child = true,
		/* the interval's graph: its bottleneck line, WAITS ON */
		.wakeups = o->wakeups,
	};
	char err[512];
	int rc, e;

	snapshot_init(&t.shown, plan->nr);
	snapshot_init(&t.iv, plan->nr);
	top_state_init(&t.st, o->sort, o->per_name, o->level, o->interval_ms);
	t.fr.plan = plan;
	t.fr.ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	t.fr.look = &live_lookups;	/* live: names from /proc */
	rc = session_open(&t.s, o, plan, &sc);
	if (rc)
		goto out;
	t.last_ns = t.s.start_ns;
	if (screen_open(&t, err, sizeof(err))) {
		errorf("%s", err);
		rc = 2;
		goto out;
	}
	if (!loop_add_fd(t.s.loop, STDIN_FILENO, EPOLLIN, on_key, &t)) {
		screen_close(&t);
		errorf("cannot watch the terminal's keys: %s", strerror(errno));
		rc = 1;
		goto out;
	}
	draw(&t);
	e = loop_run(t.s.loop);
	screen_close(&t);
	if (t.s.targets_gone && !t.st.note[0])
		snprintf(t.st.note, sizeof(t.st.note), "the targets exited");
	if (e || t.err) {
		errorf("top stopped: %s", strerror(-(e ? e : t.err)));
		rc = 1;
	}
	/* the whole run's report, with -o: the screen showed intervals */
	if (o->output || o->record) {
		e = final_report(&t, out);
		if (e && e != -EPIPE)
			rc = 1;
	}
	if (record_close(&t.s.rec))
		rc = 1;
	if (t.st.note[0] && !rc)
		errorf("top: %s", t.st.note);
out:
	screen_close(&t);
	session_close(&t.s);
	snapshot_free(&t.shown);
	snapshot_free(&t.iv);
	return rc;
}
