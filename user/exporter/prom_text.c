// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition text of prom.c's series: the Prometheus text format
 * 0.0.4, or OpenMetrics 1.0 when the scraper asks for it (family names
 * without the _total of their samples, UNIT lines, "# EOF"). Names follow
 * Prometheus's conventions: a tdbpf_ prefix, base units (seconds),
 * _total on counters. Times are printed exactly from nanoseconds.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/prom.h"
#include "support/array.h"
#include "support/outbuf.h"

struct pw {
	struct outbuf o;
	bool om;		/* OpenMetrics */
};

enum fam_type { COUNTER, GAUGE, INFO };

/* # HELP / # TYPE (/ # UNIT) of family @name (without _total) */
static void family(struct pw *w, const char *name, enum fam_type type,
		   const char *unit, const char *help)
{
	static const char *const types[] = { "counter", "gauge", "info" };
	/* text format: a counter's TYPE names its samples, _total included */
	const char *suffix = !w->om && type == COUNTER ? "_total" :
			     !w->om && type == INFO    ? "_info" :
							 "";
	const char *t = types[type];

	if (!w->om && type == INFO)
		t = "gauge";
	ob_puts(&w->o, "# HELP ");
	ob_puts(&w->o, name);
	ob_puts(&w->o, suffix);
	ob_putc(&w->o, ' ');
	ob_puts(&w->o, help);
	ob_puts(&w->o, "\n# TYPE ");
	ob_puts(&w->o, name);
	ob_puts(&w->o, suffix);
	ob_putc(&w->o, ' ');
	ob_puts(&w->o, t);
	ob_putc(&w->o, '\n');
	if (w->om && unit) {
		ob_puts(&w->o, "# UNIT ");
		ob_puts(&w->o, name);
		ob_putc(&w->o, ' ');
		ob_puts(&w->o, unit);
		ob_putc(&w->o, '\n');
	}
}

/* "name_total{labels,extra} " up to the value */
static void sample(struct pw *w, const char *name, const char *suffix,
		   const char *labels, const char *extra)
{
	ob_puts(&w->o, name);
	ob_puts(&w->o, suffix);
	if (labels || extra) {
		ob_putc(&w->o, '{');
		if (labels)
			ob_puts(&w->o, labels);
		if (labels && extra)
			ob_putc(&w->o, ',');
		if (extra)
			ob_puts(&w->o, extra);
		ob_putc(&w->o, '}');
	}
	ob_putc(&w->o, ' ');
}

/* nanoseconds as exact decimal seconds */
static void val_ns(struct pw *w, __u64 ns)
{
	char b[32];
	int n = fmt_u64(b, ns / 1000000000ULL);
	__u64 frac = ns % 1000000000ULL;
	int i;

	if (frac) {
		b[n++] = '.';
		for (i = 8; i >= 0; i--) {
			b[n + i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		n += 9;
		while (b[n - 1] == '0')
			n--;
	}
	b[n++] = '\n';
	ob_write(&w->o, b, (size_t)n);
}

static void val_u64(struct pw *w, __u64 v)
{
	char b[24];
	int n = fmt_u64(b, v);

	b[n++] = '\n';
	ob_write(&w->o, b, (size_t)n);
}

/* counts summed from scaled increments: whole counts, as JSON prints them */
static void val_f(struct pw *w, double v)
{
	if (isnan(v))
		ob_puts(&w->o, "NaN");
	else if (fabs(v) < 9.2e18)
		ob_fixed(&w->o, v, 0, 0);
	else
		ob_printf(&w->o, "%.17g", v);
	ob_putc(&w->o, '\n');
}

/* ---- per-series families ---------------------------------------------- */

/* Every series, `other` last: the body of one family. */
#define FOR_SERIES(st, s, i)                                               \
	for (i = 0; i <= (st)->nr_series; i++)                             \
		if ((s = i < (st)->nr_series ? (st)->series[i] : (st)->other))

struct u64_family {
	const char *name;
	enum fam_type type;
	bool ns;		/* nanoseconds, printed as seconds */
	size_t off;		/* field of struct prom_series */
	const char *help;
};

#define SF(f) offsetof(struct prom_series, f)

/* The per-series families of one number each: a table, not a switch. */
static const struct u64_family u64_families[] = {
	{ "tdbpf_task_on_cpu_seconds", COUNTER, true, SF(sched.on_cpu_ns),
	  "CPU time of the series' tasks (the kernel's per-task sum_exec_runtime)." },
	{ "tdbpf_task_runqueue_wait_seconds", COUNTER, true, SF(sched.runq_wait_ns),
	  "Time runnable but waiting for a CPU (schedstat run_delay)." },
	{ "tdbpf_task_off_cpu_seconds", COUNTER, true, SF(sched.off_cpu_ns),
	  "Observed life neither on CPU nor in the run queue: asleep or blocked." },
	{ "tdbpf_task_migrations", COUNTER, false, SF(sched.migrations),
	  "Migrations between CPUs." },
	{ "tdbpf_task_uncounted_seconds", COUNTER, true, SF(sched.uncounted_ns),
	  "On-CPU time in slices whose switch-in was not seen: no counter read." },
	{ "tdbpf_task_softirq_seconds", COUNTER, true, SF(sched.softirq_ns),
	  "Network softirqs run while the series' tasks were current (the graph's socket hooks): on loopback, delivering what they sent." },
	{ "tdbpf_task_exited_threads", COUNTER, false, SF(exited),
	  "Tasks of the series seen exiting." },
	{ "tdbpf_task_threads", GAUGE, false, SF(threads),
	  "Live tasks in the series at this scrape." },
};

static void write_u64_families(struct pw *w, const struct prom_state *st)
{
	const struct prom_series *s;
	size_t f;
	int i;

	for (f = 0; f < ARRAY_SIZE(u64_families); f++) {
		const struct u64_family *uf = &u64_families[f];

		family(w, uf->name, uf->type, uf->ns ? "seconds" : NULL,
		       uf->help);
		FOR_SERIES(st, s, i) {
			__u64 v = *(const __u64 *)((const char *)s + uf->off);

			sample(w, uf->name, uf->type == COUNTER ? "_total" : "",
			       s->labels, NULL);
			if (uf->ns)
				val_ns(w, v);
			else
				val_u64(w, v);
		}
	}
}

static void write_switches(struct pw *w, const struct prom_state *st)
{
	const char *name = "tdbpf_task_switches";
	const struct prom_series *s;
	int i;

	family(w, name, COUNTER, NULL,
	       "Context switches out: voluntary (it blocked) or involuntary (preempted), as nvcsw/nivcsw.");
	FOR_SERIES(st, s, i) {
		sample(w, name, "_total", s->labels, "kind=\"voluntary\"");
		val_u64(w, s->sched.nvcsw);
		sample(w, name, "_total", s->labels, "kind=\"involuntary\"");
		val_u64(w, s->sched.nivcsw);
	}
}

/* event names are the model's own (letters, digits, . - _ , = @): no
 * escaping needed but '"' and '\\', which none has; checked anyway */
static void event_label(char *b, size_t len, const char *key, const char *v)
{
	size_t n = (size_t)snprintf(b, len, "%s=\"", key), i;

	for (i = 0; v[i] && n + 4 < len; i++) {
		if (v[i] == '"' || v[i] == '\\')
			b[n++] = '\\';
		b[n++] = v[i];
	}
	b[n++] = '"';
	b[n] = '\0';
}

/* Each counter group's enabled (@running false) or running time */
static void group_times(struct pw *w, const struct prom_state *st,
			const char *name, const char *help, bool running)
{
	const struct event_plan *plan = st->plan;
	const struct prom_series *s;
	char lab[32];
	int i, g;

	family(w, name, COUNTER, "seconds", help);
	for (g = 0; g < plan->nr_groups; g++) {
		const struct tdbpf_count *c;

		snprintf(lab, sizeof(lab), "group=\"%d\"", g);
		FOR_SERIES(st, s, i) {
			c = &s->raw[plan->leader[g]];
			sample(w, name, "_total", s->labels, lab);
			val_ns(w, running ? c->running : c->enabled);
		}
	}
}

static void write_counters(struct pw *w, const struct prom_state *st)
{
	const struct event_plan *plan = st->plan;
	const struct prom_series *s;
	char lab[160];
	int i, e;

	/* -e events too: each slot's descriptor, the model's or its own */
	if (!plan->nr)
		return;
	family(w, "tdbpf_task_events", COUNTER, NULL,
	       "The model's counters, each increment scaled by its group's enabled/running time (perf's scaling); cpu-clock and task-clock count nanoseconds.");
	for (e = 0; e < plan->nr; e++) {
		event_label(lab, sizeof(lab), "event", plan->evd[e]->name);
		FOR_SERIES(st, s, i) {
			sample(w, "tdbpf_task_events", "_total", s->labels,
			       lab);
			val_f(w, s->scaled[e]);
		}
	}
	group_times(w, st, "tdbpf_task_group_enabled_seconds",
		    "Time each counter group was enabled for the series' tasks; coverage = rate(running) / rate(enabled).",
		    false);
	group_times(w, st, "tdbpf_task_group_running_seconds",
		    "Time each counter group was on a counter for the series' tasks (multiplexing leaves it below enabled).",
		    true);
}

static void write_tma(struct pw *w, const struct prom_state *st)
{
	const struct event_plan *plan = st->plan;
	const struct model *m = plan->model;
	const struct prom_series *s;
	char lab[160];
	int i, n;

	if (!m || m->max_level <= 0 || plan->level <= 0 || st->slots_slot < 0)
		return;
	family(w, "tdbpf_task_slots", COUNTER, NULL,
	       "Pipeline slots of the series' tasks (the model's slots event, or cycles x slots per cycle): the weight of tdbpf_task_tma_slots_total.");
	FOR_SERIES(st, s, i) {
		sample(w, "tdbpf_task_slots", "_total", s->labels, NULL);
		val_f(w, s->slots);
	}
	family(w, "tdbpf_task_tma_slots", COUNTER, NULL,
	       "TMA node as slots: each scrape's increment decoded, its node fraction (clamped to 0-1) times its slots; fraction = rate(this) / rate(tdbpf_task_slots_total).");
	for (n = 0; n < m->nr_nodes; n++) {
		if (m->nodes[n].level > plan->level)
			continue;
		snprintf(lab, sizeof(lab), "node=\"%s\",level=\"%d\"",
			 m->nodes[n].name, m->nodes[n].level);
		FOR_SERIES(st, s, i) {
			sample(w, "tdbpf_task_tma_slots", "_total", s->labels,
			       lab);
			val_f(w, s->tma[n]);
		}
	}
}

/* ---- tdbpf itself ----------------------------------------------------- */

static void write_health(struct pw *w, const struct prom_state *st,
			 const struct prom_health *h)
{
	char lab[160];
	int i;

	family(w, "tdbpf_build", INFO, NULL,
	       "The model tdbpf decodes with and the TMA level it exposes.");
	snprintf(lab, sizeof(lab), "model=\"%s\",level=\"%d\"",
		 st->plan->model ? st->plan->model->name : "",
		 st->plan->model && st->plan->model->max_level ?
			 st->plan->level :
			 0);
	sample(w, "tdbpf_build", "_info", lab, NULL);
	val_u64(w, 1);

	family(w, "tdbpf_start_time_seconds", GAUGE, "seconds",
	       "Unix time the tracing run started.");
	sample(w, "tdbpf_start_time_seconds", "", NULL, NULL);
	ob_fixed(&w->o, h->start_time, 0, 3);
	ob_putc(&w->o, '\n');

	family(w, "tdbpf_tasks", GAUGE, NULL,
	       "Tasks whose sums tdbpf holds: alive, or exited and kept for the final report.");
	sample(w, "tdbpf_tasks", "", NULL, "state=\"live\"");
	val_u64(w, h->tasks_live);
	sample(w, "tdbpf_tasks", "", NULL, "state=\"exited\"");
	val_u64(w, h->tasks_exited);

	family(w, "tdbpf_lost", COUNTER, NULL,
	       "map_full: tasks not given sums (--max-tasks); read_errors: failed counter reads; unseen_switch_ins: slices charged without their switch-in.");
	sample(w, "tdbpf_lost", "_total", NULL, "reason=\"map_full\"");
	val_u64(w, h->lost_map_full);
	sample(w, "tdbpf_lost", "_total", NULL, "reason=\"read_errors\"");
	val_u64(w, h->lost_read_errors);
	sample(w, "tdbpf_lost", "_total", NULL, "reason=\"unseen_switch_ins\"");
	val_u64(w, h->unseen_switch_ins);

	family(w, "tdbpf_last_collect_duration_seconds", GAUGE, "seconds",
	       "This scrape's collect: flush every CPU, read the live and exited tasks' sums.");
	sample(w, "tdbpf_last_collect_duration_seconds", "", NULL, NULL);
	val_ns(w, h->collect_ns);

	family(w, "tdbpf_series", GAUGE, NULL,
	       "Label sets exposed, other not counted (at most tdbpf_series_limit).");
	sample(w, "tdbpf_series", "", NULL, NULL);
	val_u64(w, (__u64)st->nr_live_series);
	family(w, "tdbpf_series_limit", GAUGE, NULL,
	       "--listen-max-series: tasks beyond it are summed in the series whose thread label is other.");
	sample(w, "tdbpf_series_limit", "", NULL, NULL);
	val_u64(w, (__u64)st->max_series);
	family(w, "tdbpf_series_overflow_tasks", GAUGE, NULL,
	       "Tasks summed in the series whose thread label is other, at this scrape.");
	sample(w, "tdbpf_series_overflow_tasks", "", NULL, NULL);
	val_u64(w, st->overflow_tasks);

	if (!h->nr_progs)
		return;	/* kernel.bpf_stats_enabled is 0: no run times */
	family(w, "tdbpf_bpf_run_seconds", COUNTER, "seconds",
	       "Run time of tdbpf's BPF programs while kernel.bpf_stats_enabled is 1.");
	for (i = 0; i < h->nr_progs && i < PROM_MAX_PROGS; i++) {
		event_label(lab, sizeof(lab), "program", h->progs[i].name);
		sample(w, "tdbpf_bpf_run_seconds", "_total", NULL, lab);
		val_ns(w, h->progs[i].run_ns);
	}
	family(w, "tdbpf_bpf_runs", COUNTER, NULL,
	       "Runs of tdbpf's BPF programs while kernel.bpf_stats_enabled is 1.");
	for (i = 0; i < h->nr_progs && i < PROM_MAX_PROGS; i++) {
		event_label(lab, sizeof(lab), "program", h->progs[i].name);
		sample(w, "tdbpf_bpf_runs", "_total", NULL, lab);
		val_u64(w, h->progs[i].run_cnt);
	}
}

/* The families of the wait-for graph's halves (with wakeups traced). */
static const struct wait_family {
	const char *name, *unit, *help;
	bool holds, wakeups;
} wait_families[] = {
	{ "tdbpf_task_wait_seconds", "seconds",
	  "Blocked time of the series' tasks that the waker ended (waker_comm, waker_thread: a task series, or waker_thread a kind: timer, irq, softirq, ...).",
	  false, false },
	{ "tdbpf_task_wakeups", NULL,
	  "Wakeups of the series' tasks by the waker (waker_comm, waker_thread: a task series, or waker_thread a kind: timer, irq, softirq, ...).",
	  false, true },
	{ "tdbpf_task_cpu_held_seconds", "seconds",
	  "Run-queue time of the series' tasks while the holder had the CPU they waited for (holder_comm, holder_thread: a task series, or holder_thread cpu-other, cpu-limit, cpu-unseen).",
	  true, false },
};

/* Wait and hold series, each family's `other` last. */
static void write_waits(struct pw *w, const struct prom_state *st)
{
	const struct prom_wait *x;
	size_t k;
	int i;

	for (k = 0; k < ARRAY_SIZE(wait_families);
	     k++) {
		const struct wait_family *f = &wait_families[k];
		const struct prom_wait *other = f->holds ? st->hold_other :
							   st->wait_other;
		bool any = other;

		for (i = 0; !any && i < st->waits.nr; i++)
			any = ((struct prom_wait *)st->waits.v[i])->holds ==
			      f->holds;
		if (!any)
			continue;
		family(w, f->name, COUNTER, f->unit, f->help);
		for (i = 0; i <= st->waits.nr; i++) {
			x = i < st->waits.nr ? st->waits.v[i] : other;
			if (!x || x->holds != f->holds)
				continue;
			sample(w, f->name, "_total", x->labels, NULL);
			if (f->wakeups)
				val_u64(w, x->wakeups);
			else
				val_ns(w, x->wait_ns);
		}
	}
}

/* The span families (--span), each a field of struct prom_span */
static const struct span_family {
	const char *name, *unit, *help;
	size_t off;
	bool ns;
} span_families[] = {
	{ "tdbpf_span_entries", NULL,
	  "Entries into the span (an operator's runs) by the series' tasks (--span; span: its name).",
	  offsetof(struct prom_span, entries), false },
	{ "tdbpf_span_on_cpu_seconds", "seconds",
	  "On-CPU time of the series' tasks inside the span, nested spans' excluded (--span).",
	  offsetof(struct prom_span, on_cpu_ns), true },
	{ "tdbpf_span_runqueue_wait_seconds", "seconds",
	  "Run-queue wait of the series' tasks inside the span (--span).",
	  offsetof(struct prom_span, runq_wait_ns), true },
	{ "tdbpf_span_blocked_seconds", "seconds",
	  "Blocked time (off CPU, not runnable) of the series' tasks inside the span (--span).",
	  offsetof(struct prom_span, blocked_ns), true },
	{ "tdbpf_span_woke", NULL,
	  "Waits of traced tasks the series' tasks ended inside the span, innermost at the wakeup (--span with the graph; sampled: estimated).",
	  offsetof(struct prom_span, woke), false },
	{ "tdbpf_span_woke_wait_seconds", "seconds",
	  "Blocked time of the waits the series' tasks ended inside the span, block to wakeup (--span with the graph).",
	  offsetof(struct prom_span, woke_ns), true },
};

/* Span series, `other` last; no family without --span */
static void write_spans(struct pw *w, const struct prom_state *st)
{
	const struct prom_span *x;
	size_t k;
	int i;

	if (!st->spans.nr && !st->span_other)
		return;
	for (k = 0; k < ARRAY_SIZE(span_families); k++) {
		const struct span_family *f = &span_families[k];

		family(w, f->name, COUNTER, f->unit, f->help);
		for (i = 0; i <= st->spans.nr; i++) {
			__u64 v;

			x = i < st->spans.nr ? st->spans.v[i] :
					       st->span_other;
			if (!x)
				continue;
			memcpy(&v, (const char *)x + f->off, sizeof(v));
			sample(w, f->name, "_total", x->labels, NULL);
			if (f->ns)
				val_ns(w, v);
			else
				val_u64(w, v);
		}
	}
}

/*
 * The traced processes' sockets, halves of flows, ephemeral ports
 * folded (flow_fold_ports()) and counted per label set: a gauge, the
 * sockets open at this scrape, at most max_series label sets.
 */
static void write_flows(struct pw *w, const struct prom_state *st,
			const struct flow_table *t)
{
	char (*key)[320] = NULL;
	__u64 *count = NULL;
	size_t i, j, n = 0, other = 0;

	if (!t || !t->nr)
		return;
	key = calloc(t->nr, sizeof(*key));
	count = calloc(t->nr, sizeof(*count));
	if (!key || !count)
		goto out;
	for (i = 0; i < t->nr; i++) {
		char l[FLOW_END_STR], r[FLOW_END_STR], comm[3 * TDBPF_COMM_LEN + 4];
		struct sock_flow f;

		flow_fold_ports(t, &t->v[i], &f);
		flow_end_str(&f.local, l, sizeof(l));
		flow_end_str(&f.remote, r, sizeof(r));
		prom_esc_label(comm, f.comm);
		snprintf(key[n], sizeof(key[n]),
			 "comm=\"%s\",proto=\"%s\",state=\"%s\",local=\"%s\",remote=\"%s\"",
			 comm, f.proto, flow_state_str(f.state), l, r);
		for (j = 0; j < n && strcmp(key[j], key[n]); j++)
			;
		if (j < n) {
			count[j]++;
		} else if ((int)n < st->max_series) {
			count[n++] = 1;
		} else {
			other++;
		}
	}
	family(w, "tdbpf_socket_flows", GAUGE, NULL,
	       "Sockets of the traced processes by flow half as this host sees it (local, remote; a client's ephemeral port folded to *): the other host's series mirror it.");
	for (i = 0; i < n; i++) {
		sample(w, "tdbpf_socket_flows", "", key[i], NULL);
		val_u64(w, count[i]);
	}
	if (other) {
		sample(w, "tdbpf_socket_flows", "",
		       "comm=\"other\",proto=\"\",state=\"\",local=\"\",remote=\"\"",
		       NULL);
		val_u64(w, other);
	}
out:
	free(key);
	free(count);
}

int prom_write(const struct prom_state *st, const struct prom_health *h,
	       bool openmetrics, FILE *f)
{
	struct pw *w = malloc(sizeof(*w));

	if (!w)
		return -ENOMEM;
	ob_init(&w->o, f);
	w->om = openmetrics;
	write_u64_families(w, st);
	write_switches(w, st);
	write_counters(w, st);
	write_tma(w, st);
	write_waits(w, st);
	write_spans(w, st);
	write_flows(w, st, h->flows);
	write_health(w, st, h);
	if (w->om)
		ob_puts(&w->o, "# EOF\n");
	ob_flush(&w->o);
	free(w);
	return ferror(f) ? -EIO : 0;
}

const char *prom_content_type(bool openmetrics)
{
	return openmetrics ?
		       "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		       "text/plain; version=0.0.4; charset=utf-8";
}

/* q of one media range "type/sub;a=b;q=0.5" (1 when absent) */
static double media_q(const char *p, const char *end)
{
	const char *q;

	for (q = p; q + 2 < end; q++)
		if (q[0] == ';') {
			const char *v = q + 1;

			while (v < end && *v == ' ')
				v++;
			if (end - v > 2 && v[0] == 'q' && v[1] == '=')
				return strtod(v + 2, NULL);
		}
	return 1.0;
}

/*
 * OpenMetrics when the Accept header ranks it at least as high as the
 * Prometheus text format (Prometheus itself sends both, OpenMetrics
 * first); the text format when it is absent or ranked lower.
 */
bool prom_wants_openmetrics(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	static const char txt[] = "text/plain";
	double best_om = 0, best_txt = 0, q;
	const char *p = accept, *end;

	while (p && *p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		while (p < end && *p == ' ')
			p++;
		q = media_q(p, end);
		if ((size_t)(end - p) >= sizeof(om) - 1 &&
		    !strncasecmp(p, om, sizeof(om) - 1) && q > best_om)
			best_om = q;
		if ((size_t)(end - p) >= sizeof(txt) - 1 &&
		    !strncasecmp(p, txt, sizeof(txt) - 1) && q > best_txt)
			best_txt = q;
		p = *end ? end + 1 : end;
	}
	return best_om > 0 && best_om >= best_txt;
}
