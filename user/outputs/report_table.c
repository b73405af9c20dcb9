// SPDX-License-Identifier: GPL-2.0
/*
 * The human-readable report: a header line, one fixed-width row per task,
 * and a note when some row's numbers rest on multiplexed counters.
 *
 * Columns: TID (a folded row shows its task count as "(N)"), COMM,
 * CONTAINER (only when a row's process is in one: its id's first 12
 * digits, as podman ps and docker ps show it; "-" for the host's),
 * ON-CPU ms, CPU% (of the window; a folded row can exceed 100), RUNQ ms,
 * OFF-CPU ms, SW (voluntary/involuntary switches), MIGR, then the model's
 * columns: for a TMA model the level-1 nodes in percent (clamped to
 * [0,100] for display only) under the headers the model gives them, and
 * IPC when the model names its two events and the plan has both;
 * for the software model every programmed software counter. BOTTLENECK
 * comes last; a TMA path is marked "<==" as toplev marks its bottleneck.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/graph.h"
#include "analysis/report.h"
#include "analysis/report_ahead.h"
#include "outputs/sink.h"
#include "sums/cgroups.h"
#include "support/outbuf.h"
#include "support/text.h"

#define MAX_COLS	8

/* the model names its level-1 columns; its label otherwise */
static const char *l1_header(const struct tma_node *n)
{
	if (n->column)
		return n->column;
	return n->label ? n->label : n->name;
}

struct columns {
	int nr;
	int node[MAX_COLS];		/* TMA model: level-1 node index */
	int slot[TDBPF_MAX_EVENTS];	/* software model: plan slot */
	int nr_slots;
	int ipc_inst, ipc_clk;		/* plan slots, -1 when absent */
	int name_w;			/* COMM: 17, or the longest whole name */
	bool container;			/* a row's process is in one */
	unsigned int show;		/* enum table_col shown */
	bool fit;			/* default: wrap the verdict at the width */
	int verdict_x;			/* where BOTTLENECK starts */
};

/* COMM's width: a comm's 17, wider where a runtime named a task longer. */
static int name_width(const struct report *rep)
{
	int i, w = 17, n;

	for (i = 0; i < rep->nr; i++)
		if (rep->rows[i]->name &&
		    (n = (int)strlen(rep->rows[i]->name) + 1) > w)
			w = n;
	return w;
}

#define CONTAINER_WIDTH	12

/* Is any row's process in a container? */
static bool any_container(const struct report *rep)
{
	const struct task_cgroup *cg;
	int i;

	for (i = 0; rep->cgroups && i < rep->nr; i++) {
		cg = cgroups_find(rep->cgroups, rep->rows[i]->pid);
		if (cg && cg->id[0])
			return true;
	}
	return false;
}

static void pick_slots(const struct report *rep, struct columns *c)
{
	const struct event_plan *p = rep->plan;
	const struct model *m = p ? p->model : NULL;
	int order[TDBPF_MAX_EVENTS];
	int i, k;

	if (!p)
		return;
	if (m && m->max_level > 0 && rep->level > 0) {
		for (i = 0; i < m->nr_nodes && c->nr < MAX_COLS; i++)
			if (m->nodes[i].level == 1 && !m->nodes[i].aside)
				c->node[c->nr++] = i;
		report_ipc_slots(p, &c->ipc_inst, &c->ipc_clk);
	}
	/*
	 * The software model's events, then those named with -e. Not the
	 * model's that are a scheduling column again (cpu-clock is ON-CPU,
	 * context-switches the two of SW, cpu-migrations MIGR): CSV and
	 * JSON keep them under perf's names.
	 */
	plan_display_order(p, order);
	for (k = 0; k < p->nr && k < TDBPF_MAX_EVENTS; k++) {
		const struct model_event *e = p->evd[order[k]];

		if (e->kind == EV_TASK && e->config1 != TF_FAULTS)
			continue;
		if (e->kind == EV_SW || e->kind == EV_TASK ||
		    e->kind == EV_USER || e->kind == EV_UNSUP)
			c->slot[c->nr_slots++] = order[k];
	}
}

static bool is_msec(const struct model_event *e)
{
	return e->unit && !strcmp(e->unit, "msec");
}

/* perf stat's word for an event the machine cannot count */
#define NOT_SUPPORTED	"<not supported>"

static int slot_width(const struct model_event *e)
{
	int w = (int)strlen(e->name) + (is_msec(e) ? 3 : 0);
	int min = e->kind == EV_UNSUP ? (int)strlen(NOT_SUPPORTED) : 10;

	return w < min ? min : w;
}

/* "name NN%": a waker's name and its share of the blocked time */
#define WAITS_ON_WIDTH	22

/*
 * A level-1 column's header in the table: perf's short names (FE%,
 * BAD%, BE%, SMT%, RET%), so that a tree of five fits beside the rest.
 */
static const char *tma_header(const struct tma_node *n)
{
	static const struct { const char *label, *h; } shorts[] = {
		{ "Frontend", "FE%" }, { "Bad_Spec", "BAD%" },
		{ "Backend", "BE%" }, { "SMT_Contention", "SMT%" },
		{ "Retiring", "RET%" },
	};
	size_t i;

	for (i = 0; n->label && i < sizeof(shorts) / sizeof(shorts[0]); i++)
		if (!strcmp(n->label, shorts[i].label))
			return shorts[i].h;
	return l1_header(n);
}

/* A level-1 column's width: "100.0?" at least, its header's if wider. */
static int tma_width(const struct tma_node *n)
{
	int w = (int)strlen(tma_header(n));

	return w < 6 ? 6 : w;
}

/* Where BOTTLENECK starts with the columns @c->show. */
static int columns_width(const struct report *rep, const struct columns *c)
{
	const struct event_plan *p = rep->plan;
	unsigned int k = c->show;
	int w = 7 + 1 + c->name_w + 11 + 11 + 1, i;

	w += (k & TCOL_CONTAINER ? 1 + CONTAINER_WIDTH : 0) +
	     (k & TCOL_CPU ? 7 : 0) + (k & TCOL_RUNQ ? 10 : 0) +
	     (k & TCOL_SW ? 14 : 0) + (k & TCOL_MIGR ? 7 : 0) +
	     (k & TCOL_IPC ? 7 : 0) + (k & TCOL_WAITS ? 1 + WAITS_ON_WIDTH : 0);
	for (i = 0; k & TCOL_TMA && i < c->nr; i++)
		w += 1 + tma_width(&p->model->nodes[c->node[i]]);
	for (i = 0; k & TCOL_EVENTS && i < c->nr_slots; i++)
		w += 1 + slot_width(p->evd[c->slot[i]]);
	return w;
}

/* The room the default table keeps: "on-CPU (no PMU breakdown)" */
#define VERDICT_ROOM	25

static void pick_columns(const struct report *rep, struct columns *c,
			 unsigned int cols)
{
	static const unsigned int give_way[] = {
		TCOL_SW, TCOL_MIGR, TCOL_CPU, TCOL_IPC, TCOL_WAITS, TCOL_RUNQ,
	};
	unsigned int have = TCOL_CPU | TCOL_RUNQ | TCOL_SW | TCOL_MIGR;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->ipc_inst = c->ipc_clk = -1;
	c->name_w = name_width(rep);
	pick_slots(rep, c);
	if (any_container(rep))
		have |= TCOL_CONTAINER;
	if (c->nr)
		have |= TCOL_TMA;
	if (c->ipc_inst >= 0 && c->ipc_clk >= 0)
		have |= TCOL_IPC;
	if (c->nr_slots)
		have |= TCOL_EVENTS;
	if (rep->graph)
		have |= TCOL_WAITS;
	c->fit = !cols;
	c->show = cols ? cols & have : have;
	for (i = 0; c->fit && i < sizeof(give_way) / sizeof(give_way[0]) &&
		    columns_width(rep, c) + VERDICT_ROOM > TABLE_WIDTH;
	     i++)
		c->show &= ~give_way[i];
	c->verdict_x = columns_width(rep, c);
	c->container = c->show & TCOL_CONTAINER;
}

/*
 * The graph's verdict, before the rows: where the blocked tasks' waits
 * lead, and why (report_verdict_line()).
 */
/*
 * @s (no newline) from column @x of a row, wrapped at words so that no
 * line passes TABLE_WIDTH: continuations start at column @x + @ind.
 * A word wider than the room is written whole.
 */
static void put_wrapped(struct outbuf *o, const char *s, int x, int ind)
{
	int len = (int)strlen(s), at = 0, room, k, b;

	while (at < len) {
		room = TABLE_WIDTH - x;
		k = len - at;
		if (k > room && room > 0) {
			for (b = room; b > 0 && s[at + b] != ' '; b--)
				;
			k = b > 0 ? b : room;
		}
		ob_write(o, s + at, (size_t)k);
		at += k;
		while (at < len && s[at] == ' ')
			at++;
		if (at < len) {
			ob_putc(o, '\n');
			x += ind;
			ind = 0;
			ob_str(o, "", x);
		}
	}
}

/* A header line: wrapped at TABLE_WIDTH, continuations indented. */
static void print_wrapped(FILE *f, const char *s)
{
	struct outbuf o;

	ob_init(&o, f);
	put_wrapped(&o, s, 0, 2);
	ob_putc(&o, '\n');
	ob_flush(&o);
}

static void print_verdict(FILE *f, const struct report *rep)
{
	char line[REPORT_VERDICT_LINE];

	report_verdict_line(rep, line, sizeof(line));
	print_wrapped(f, line);
}

/*
 * WAITS ON: what kept the task off the CPU most: the waker that ended
 * most of its blocked time, or the task that held the CPU it waited for
 * ("cpu:enrich"), by its share of both.
 */
static void print_waits_on(struct outbuf *o, const struct report *rep,
			   const struct task_row *r)
{
	char cell[64];

	graph_waits_on(rep->graph, graph_node_of(rep->graph, r), cell,
		       sizeof(cell));
	ob_str(o, cell, -WAITS_ON_WIDTH);
}

/* --span: what spans lost, where the header says what the run lost */
static void print_span_losses(FILE *f, const struct report *rep)
{
	if (rep->lost.spans_lost)
		fprintf(f, "; spans lost: %llu (map full: their time is their threads')",
			(unsigned long long)rep->lost.spans_lost);
	if (rep->lost.spans_too_deep)
		fprintf(f, "; %llu span enters past 8 open spans",
			(unsigned long long)rep->lost.spans_too_deep);
}

static void print_summary(FILE *f, const struct report *rep)
{
	const struct event_plan *p = rep->plan;
	const struct model *m = p ? p->model : NULL;
	int i, exited = 0;

	for (i = 0; i < rep->nr; i++)
		exited += rep->rows[i]->exited;
	fprintf(f, "tdbpf: model %s", m ? m->name : "none");
	if (rep->level > 0)
		fprintf(f, ", level %d, SMT %s", rep->level,
			p->smt ? "on" : "off");
	if (rep->interval >= 0)
		fprintf(f, ", interval %d", rep->interval);
	fprintf(f, ", %.2f s, %d of %d tasks shown", rep->duration_ns / 1e9,
		rep->nr, rep->nr_total);
	if (exited)
		fprintf(f, " (%d exited)", exited);
	/* a launched pipeline is followed whole: say how far */
	if (rep->nr_procs > 1)
		fprintf(f, ", %d processes", rep->nr_procs);
	if (rep->lost.map_full || rep->lost.read_errors ||
	    rep->lost.wakeups_missed || rep->lost.sock_evicted) {
		const char *sep = "";

		fprintf(f, "; lost:");
		if (rep->lost.map_full) {
			fprintf(f, " %llu tasks (map full)",
				(unsigned long long)rep->lost.map_full);
			sep = ",";
		}
		if (rep->lost.read_errors) {
			fprintf(f, "%s %llu counter reads", sep,
				(unsigned long long)rep->lost.read_errors);
			sep = ",";
		}
		if (rep->lost.wakeups_missed) {
			fprintf(f, "%s %llu wakeups", sep,
				(unsigned long long)rep->lost.wakeups_missed);
			sep = ",";
		}
		if (rep->lost.sock_evicted)
			fprintf(f, "%s %llu socket flows (--sock-max)", sep,
				(unsigned long long)rep->lost.sock_evicted);
	}
	print_span_losses(f, rep);
	/* an estimate, and said so where the figures are */
	if (rep->graph && rep->lost.wake_scale)
		fprintf(f, "; waits sampled: %llu wakeups in %.0f%% of the time share out the blocked time",
			(unsigned long long)rep->lost.sampled_wakeups,
			100.0 / (double)rep->lost.wake_scale);
}

static void print_header(FILE *f, const struct report *rep,
			 const struct columns *c)
{
	const struct event_plan *p = rep->plan;
	const struct model *m = p ? p->model : NULL;
	unsigned int k = c->show;
	size_t len = 0;
	char *sum = NULL;
	FILE *mf = open_memstream(&sum, &len);
	int i;

	/* the summary wrapped as the rows are: the table fits its width */
	if (mf) {
		print_summary(mf, rep);
		fclose(mf);
		print_wrapped(f, sum);
		free(sum);
	} else {
		print_summary(f, rep);
		fputc('\n', f);
	}
	if (rep->graph)
		print_verdict(f, rep);

	fprintf(f, "%7s %-*s", "TID", c->name_w, "COMM");
	if (c->container)
		fprintf(f, " %-*s", CONTAINER_WIDTH, "CONTAINER");
	fprintf(f, " %10s", "ON-CPU ms");
	if (k & TCOL_CPU)
		fprintf(f, " %6s", "CPU%");
	if (k & TCOL_RUNQ)
		fprintf(f, " %9s", "RUNQ ms");
	fprintf(f, " %10s", "OFF-CPU ms");
	if (k & TCOL_SW)
		fprintf(f, " %13s", "SW vol/inv");
	if (k & TCOL_MIGR)
		fprintf(f, " %6s", "MIGR");
	for (i = 0; k & TCOL_TMA && i < c->nr; i++)
		fprintf(f, " %*s", tma_width(&m->nodes[c->node[i]]),
			tma_header(&m->nodes[c->node[i]]));
	if (k & TCOL_IPC)
		fprintf(f, " %6s", "IPC");
	for (i = 0; k & TCOL_EVENTS && i < c->nr_slots; i++) {
		const struct model_event *e = p->evd[c->slot[i]];
		char h[64];

		snprintf(h, sizeof(h), "%s%s", e->name,
			 is_msec(e) ? " ms" : "");
		fprintf(f, " %*s", slot_width(e), h);
	}
	if (k & TCOL_WAITS)
		fprintf(f, " %-*s", WAITS_ON_WIDTH, "WAITS ON");
	fprintf(f, " BOTTLENECK\n");
}

/* The CONTAINER cell and its space: the id's first digits, or "-". */
static void print_container(struct outbuf *o, const struct report *rep,
			    const struct task_row *r)
{
	const struct task_cgroup *cg = cgroups_find(rep->cgroups, r->pid);

	if (cg && cg->id[0])
		ob_strn(o, cg->id, CONTAINER_WIDTH, -CONTAINER_WIDTH);
	else
		ob_str(o, "-", -CONTAINER_WIDTH);
	ob_putc(o, ' ');
}

/*
 * BOTTLENECK, toplev's marker after a TMA path; in the default table
 * wrapped at words under its column, so that no row passes the width.
 */
static void print_bottleneck(struct outbuf *o, const struct columns *c,
			     const struct task_decoded *d)
{
	char cell[sizeof(d->bottleneck) + 8];

	if (d->mark_at >= 0)
		snprintf(cell, sizeof(cell), "%.*s <==%s", d->mark_at,
			 d->bottleneck, d->bottleneck + d->mark_at);
	else
		snprintf(cell, sizeof(cell), "%s", d->bottleneck);
	if (c->fit)
		put_wrapped(o, cell, c->verdict_x, 0);
	else
		ob_puts(o, cell);
}

/*
 * Every number goes through ob_fixed()/ob_u64(): the same text as the
 * printf conversions noted beside them, without printf's cost per call.
 */
static void print_row(struct outbuf *o, const struct report *rep,
		      const struct columns *c, const struct task_decoded *d)
{
	const struct task_row *r = d->row;
	const struct event_plan *p = rep->plan;
	char comm[TDBPF_NAME_MAX], tid[16], sw[48];
	int i, n;

	/* any byte: one line per task, columns as wide as their bytes */
	text_printable(comm, sizeof(comm), task_name(r), NULL, TEXT_ASCII);
	if (r->nr_tasks > 1) {
		snprintf(tid, sizeof(tid), "(%d)", r->nr_tasks);
		ob_str(o, tid, 7);				/* %7s */
	} else {
		ob_u64(o, r->tid, 7);
	}
	ob_putc(o, ' ');
	ob_str(o, comm, -c->name_w);				/* %-17s */
	ob_putc(o, ' ');
	if (c->container)
		print_container(o, rep, r);
	ob_fixed(o, r->sched.on_cpu_ns / 1e6, 10, 1);			/* %10.1f */
	if (c->show & TCOL_CPU) {
		ob_putc(o, ' ');
		ob_fixed(o, d->on_cpu_pct, 6, 1);
	}
	if (c->show & TCOL_RUNQ) {
		ob_putc(o, ' ');
		ob_fixed(o, r->sched.runq_wait_ns / 1e6, 9, 1);
	}
	ob_putc(o, ' ');
	ob_fixed(o, r->sched.off_cpu_ns / 1e6, 10, 1);
	if (c->show & TCOL_SW) {
		n = fmt_u64(sw, r->sched.nvcsw);			/* %llu/%llu */
		sw[n++] = '/';
		n += fmt_u64(sw + n, r->sched.nivcsw);
		ob_putc(o, ' ');
		ob_strn(o, sw, n, 13);
	}
	if (c->show & TCOL_MIGR) {
		ob_putc(o, ' ');
		ob_u64(o, r->sched.migrations, 6);
	}
	for (i = 0; c->show & TCOL_TMA && i < c->nr; i++) {
		double v = d->has_tma ? d->tma.val[c->node[i]] : NAN;
		int w = tma_width(&p->model->nodes[c->node[i]]);

		ob_putc(o, ' ');
		if (!isfinite(v)) {
			ob_str(o, "-", w);
			continue;
		}
		v *= 100;
		v = v < 0 ? 0 : v > 100 ? 100 : v;
		ob_fixed(o, v, w - 1, 1);			/* %*.1f%c */
		ob_putc(o, d->low_coverage ? '?' : ' ');
	}
	if (c->show & TCOL_IPC) {
		double inst = d->ev[c->ipc_inst], clk = d->ev[c->ipc_clk];

		ob_putc(o, ' ');
		if (isfinite(inst) && isfinite(clk) && clk > 0)
			ob_fixed(o, inst / clk, 6, 2);		/* %6.2f */
		else
			ob_str(o, "-", 6);
	}
	for (i = 0; c->show & TCOL_EVENTS && i < c->nr_slots; i++) {
		const struct model_event *e = p->evd[c->slot[i]];
		double v = d->ev[c->slot[i]];
		int w = slot_width(e);

		ob_putc(o, ' ');
		if (e->kind == EV_UNSUP)
			ob_str(o, NOT_SUPPORTED, w);
		else if (!isfinite(v))
			ob_str(o, "-", w);
		else if (is_msec(e))
			ob_fixed(o, v / 1e6, w, 1);		/* %*.1f */
		else
			ob_fixed(o, v, w, 0);			/* %*.0f */
	}

	if (c->show & TCOL_WAITS) {
		ob_putc(o, ' ');
		print_waits_on(o, rep, r);
	}
	ob_putc(o, ' ');
	print_bottleneck(o, c, d);
	ob_putc(o, '\n');
}

/*
 * A span of row @r, under it: the thread's columns for the span's share
 * of them ("-" where a span has none), and its rates where the verdict
 * goes: entries per second of the window and of its own on-CPU time.
 */
static void print_span(struct outbuf *o, const struct report *rep,
		       const struct columns *c, const struct span_row *s)
{
	const struct tdbpf_span_sums *v = &s->s;
	double secs = rep->duration_ns / 1e9, cpu = v->on_cpu_ns / 1e9;
	char name[80], rate[128];
	int i;

	snprintf(name, sizeof(name), "%s/%s", s->comm, s->name);
	ob_str(o, "", 7);
	ob_putc(o, ' ');
	ob_str(o, name, -17);
	ob_putc(o, ' ');
	ob_fixed(o, v->on_cpu_ns / 1e6, 10, 1);
	if (c->show & TCOL_CPU) {
		ob_putc(o, ' ');
		ob_fixed(o, secs > 0 ? 100 * cpu / secs / s->nr_tasks : 0, 6,
			 1);
	}
	if (c->show & TCOL_RUNQ) {
		ob_putc(o, ' ');
		ob_fixed(o, v->runq_ns / 1e6, 9, 1);
	}
	ob_putc(o, ' ');
	ob_fixed(o, span_blocked_ns(v) / 1e6, 10, 1);
	if (c->show & TCOL_SW)
		ob_str(o, " -", 14);
	if (c->show & TCOL_MIGR)
		ob_str(o, " -", 7);
	for (i = 0; c->show & TCOL_TMA && i < c->nr; i++)
		ob_str(o, " -",
		       1 + tma_width(&rep->plan->model->nodes[c->node[i]]));
	if (c->show & TCOL_IPC)
		ob_str(o, " -", 7);
	for (i = 0; c->show & TCOL_EVENTS && i < c->nr_slots; i++) {
		const struct model_event *e = rep->plan->evd[c->slot[i]];
		double x = span_slot(rep->plan, c->slot[i], v);
		int w = slot_width(e);

		ob_putc(o, ' ');
		if (!isfinite(x))
			ob_str(o, "-", w);
		else
			ob_fixed(o, is_msec(e) ? x / 1e6 : x, w,
				 is_msec(e) ? 1 : 0);
	}
	if (c->show & TCOL_WAITS) {
		ob_putc(o, ' ');
		ob_str(o, "", -WAITS_ON_WIDTH);
	}
	snprintf(rate, sizeof(rate),
		 " span: %llu entries, %.1f/s, %.1f/s of its on-CPU time\n",
		 (unsigned long long)v->entries,
		 secs > 0 ? v->entries / secs : 0,
		 cpu > 0 ? v->entries / cpu : 0);
	ob_puts(o, rate);
}

static void print_spans(struct outbuf *o, const struct report *rep,
			const struct columns *c, const struct task_row *r)
{
	size_t i;

	for (i = 0; rep->spans && i < rep->spans->nr; i++)
		if (span_of(&rep->spans->row[i], r))
			print_span(o, rep, c, &rep->spans->row[i]);
}

void report_write_table(FILE *f, const struct report *rep)
{
	report_write_table_cols(f, rep, 0);
}

void report_write_table_cols(FILE *f, const struct report *rep,
			     unsigned int cols)
{
	const struct task_decoded *d;
	struct report_ahead a;
	struct columns c;
	struct outbuf o;
	bool low = false;

	pick_columns(rep, &c, cols);
	print_header(f, rep, &c);
	ob_init(&o, f);
	report_ahead_start(&a, rep);
	while ((d = report_ahead_next(&a))) {
		print_row(&o, rep, &c, d);
		print_spans(&o, rep, &c, d->row);
		low |= d->low_coverage;
	}
	report_ahead_stop(&a);
	ob_flush(&o);
	if (low)
		fprintf(f,
			"? low coverage: counted < %.0f%% of the task's on-CPU time (groups multiplexed, or switch-ins not seen: coverage = running/enabled); values extrapolated\n",
			REPORT_MIN_COVERAGE * 100);
}

static void table_write(struct sink *s, const struct report *rep)
{
	/* after interval reports, the whole run's stands apart */
	if (s->intervals && rep->interval < 0)
		fprintf(s->f, "\n--- whole run ---\n");
	report_write_table_cols(s->f, rep, s->table_cols);
}

const struct sink_ops sink_table = {
	.name = "table",
	.write = table_write,
};
