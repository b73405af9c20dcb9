// SPDX-License-Identifier: GPL-2.0
/*
 * The run driver (run.h): the session (session.c: the tracer, the
 * targets, the loop) and the output sinks. Its sources, the session's
 * but --listen's:
 *
 *   SIGINT, SIGTERM, SIGHUP,  stop (every terminating signal:
 *   SIGQUIT, ...              loop_add_stop_signals())
 *   -d timer                  stop
 *   -I timer                  an interval report (deltas since the last)
 *   tick (100 ms)             stop when no target is left (threads, old kernels)
 *   targets' pidfds           stop when the last one exits (targets.c)
 *   the tracer's drain timer  exited tasks out of the BPF map (tracer*.c)
 *   --listen                  libmicrohttpd's epoll fd and its timeout: a
 *                             scrape collects and answers (prom_server.c)
 *
 * Whatever stops the loop, the whole run's report is written after it.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "commands/cmd.h"
#include "commands/run.h"
#include "commands/session.h"
#include "outputs/outfile.h"
#include "exporter/prom_server.h"
#include "outputs/sink.h"
#include "sources/targets.h"
#include "sources/tracer.h"
#include "sums/archive.h"
#include "support/error.h"

#define NS_PER_MS	1000000ULL

struct run {
	const struct options *o;
	struct session s;	/* tracer, record, loop; cur, prev, base */
	struct sink sink;
	struct sink dot;	/* --graph FILE.dot, .f NULL without */
	struct report_conf rc;
	struct snapshot iv;	/* the window a report covers */
	__u64 last_iv;		/* the previous interval's end */
	__u64 last_due;		/* when the previous interval was due */
	int n_iv;
	struct loop_source *http_fd, *http_timer;
	struct snapshot scrape;	/* a scrape's collect */
	int wr;			/* an interval report failed: -errno */
};

/* Interval deltas: this snapshot minus the last one. */
static int on_interval(struct loop *l, uint64_t n, void *arg)
{
	struct run *r = arg;
	__u64 now = loop_now_ns();
	int e;

	r->last_due += n * (__u64)r->o->interval_ms * NS_PER_MS;
	/* a report failed (said): the stop may still find one due */
	if (r->wr)
		return 0;
	if (tracer_collect(r->s.tracer, &r->s.cur) == 0) {
		/* the snapshot's end: see the final report */
		now = r->s.cur.at_ns;
		e = snapshot_diff(&r->s.cur, &r->s.prev, &r->iv);
		if (!e) {
			record_emit(&r->s.rec, &r->iv, now - r->last_iv, r->n_iv);
			e = sink_emit(&r->sink, &r->rc, &r->iv, now - r->last_iv,
				      r->n_iv++);
		}
		snapshot_copy(&r->s.prev, &r->s.cur);
		/*
		 * The reader went away, or the output failed (said): stop,
		 * the last report would fail too.
		 */
		if (e) {
			r->wr = e;
			loop_stop(l);
		}
	}
	r->last_iv = now;
	return 0;
}

/* ---- --listen: scrapes are answered here, in the loop's thread ------- */

/* A scrape: a fresh collect, as a report makes one, and tdbpf's health. */
static int scrape_collect(void *ctx, const struct task_table **t,
			  struct prom_health *h)
{
	struct run *r = ctx;
	struct tracer_prog_stat ps[PROM_MAX_PROGS];
	__u64 t0 = loop_now_ns();
	int e = tracer_collect_scrape(r->s.tracer, &r->scrape), i, n;
	size_t k;

	h->collect_ns = loop_now_ns() - t0;
	h->lost_map_full = r->scrape.lost.map_full;
	h->lost_read_errors = r->scrape.lost.read_errors;
	h->unseen_switch_ins = r->scrape.lost.unseen_switch_ins;
	for (k = 0; k < r->scrape.tasks.nr; k++) {
		if (tasks_row(&r->scrape.tasks, k)->exited)
			h->tasks_exited++;
		else
			h->tasks_live++;
	}
	n = tracer_prog_stats(r->s.tracer, ps, PROM_MAX_PROGS);
	for (i = 0; i < n; i++) {
		h->progs[i].name = ps[i].name;
		h->progs[i].run_ns = ps[i].run_ns;
		h->progs[i].run_cnt = ps[i].run_cnt;
	}
	h->nr_progs = n;
	h->flows = &r->scrape.flows;
	h->cgroups = &r->scrape.cgroups;
	h->spans = &r->scrape.spans;
	*t = &r->scrape.tasks;
	return e;
}

/*
 * The scrape counted every exited task of its collect: fold them by name,
 * so a run that serves for days holds a row per name, not per thread.
 * Not with -I, whose interval deltas are taken tid by tid.
 */
static void scrape_counted(void *ctx)
{
	struct run *r = ctx;

	if (!r->o->interval_ms &&
	    tracer_fold_exited(r->s.tracer, &r->s.base.tasks))
		fprintf(stderr,
			"tdbpf: out of memory folding exited tasks; they stay apart\n");
}

/*
 * libmicrohttpd's timeouts (idle clients) on a one-shot timer. A timer
 * that cannot be set stops the loop with its error: idle clients would
 * hold the server forever.
 */
static int http_rearm(struct run *r)
{
	int ms = prom_server_timeout_ms(r->s.prom);

	return loop_timer_set(r->http_timer,
			      ms >= 0 ? loop_now_ns() +
						(__u64)ms * NS_PER_MS + 1 :
					0,
			      0);
}

static int on_http(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct run *r = arg;

	(void)l;
	(void)fd;
	(void)events;
	prom_server_run(r->s.prom);
	return http_rearm(r);
}

static int on_http_timer(struct loop *l, uint64_t n, void *arg)
{
	(void)n;
	return on_http(l, -1, 0, arg);
}

static int serve(struct run *r, struct loop *l, const struct event_plan *plan,
		 char *err, size_t len)
{
	const struct options *o = r->o;

	if (prom_server_start(r->s.prom, plan, o->listen_labels,
			      (int)o->listen_max_series, targets_process_name,
			      scrape_collect, scrape_counted, r, err, len))
		return -1;
	r->http_fd = loop_add_fd(l, prom_server_fd(r->s.prom), EPOLLIN, on_http,
				 r);
	r->http_timer = loop_add_timer(l, 0, 0, on_http_timer, r);
	if (!r->http_fd || !r->http_timer) {
		error_set(err, len, "cannot watch the /metrics server: %s",
			 strerror(errno));
		return -1;
	}
	fprintf(stderr, "tdbpf: serving http://%s/metrics\n",
		prom_server_address(r->s.prom));
	return 0;
}

/* Scrapers get a refused connection, not a stalled one, from now on. */
static void stop_serving(struct run *r, struct loop *l)
{
	if (r->http_fd)
		loop_del(l, r->http_fd);
	if (r->http_timer)
		loop_del(l, r->http_timer);
	r->http_fd = r->http_timer = NULL;
	prom_server_close(r->s.prom);
	r->s.prom = NULL;
}

/*
 * -I: the run stopped between two intervals (the command ended, a
 * signal, a -d that is no multiple of -I): the time since the last one
 * is an interval too, shorter, as perf stat -I prints it, so that the
 * intervals add up to the whole run. A -d due with an interval ends
 * none.
 */
static void last_interval(struct run *r, __u64 stop_ns)
{
	__u64 end_ns = r->s.cur.at_ns;	/* as on_interval(): the collect's */
	const struct options *o = r->o;
	__u64 due = stop_ns;
	int e;

	if (o->duration > 0 &&
	    r->s.start_ns + (__u64)llround(o->duration * 1e9) < due)
		due = r->s.start_ns + (__u64)llround(o->duration * 1e9);
	if (!o->interval_ms || r->wr || due <= r->last_due)
		return;
	e = snapshot_diff(&r->s.cur, &r->s.prev, &r->iv);
	if (!e) {
		record_emit(&r->s.rec, &r->iv, end_ns - r->last_iv, r->n_iv);
		e = sink_emit(&r->sink, &r->rc, &r->iv, end_ns - r->last_iv,
			      r->n_iv++);
	}
	if (e)
		r->wr = e;
}

/* The whole run's report, after the loop; the process exit code. */
static int final_report(struct run *r, __u64 start, __u64 stop_ns)
{
	__u64 t0, t1, t2;
	int rc = 0, e;

	/* the tasks that exited, with all of their exit */
	tracer_settle(r->s.tracer, TRACER_SETTLE_MS,
		      !targets_alive(&r->s.targets));
	t0 = loop_now_ns();
	e = tracer_collect(r->s.tracer, &r->s.cur);
	t1 = loop_now_ns();
	if (e) {
		fprintf(stderr,
			"tdbpf: reading the task sums failed: %s; the report shows what was read\n",
			strerror(-e));
		rc = 1;
	}
	/* detaching waits for the trampolines to drain: not report time */
	tracer_detach(r->s.tracer);
	t2 = loop_now_ns();
	if (!e)
		last_interval(r, stop_ns);
	/*
	 * The run ends once the sums are read (t1): a task that switches out
	 * while they are read is charged up to then, so an end taken before
	 * the read would leave its last slice past the end.
	 */
	/* the last sums are not kept: the report is made in their table */
	e = snapshot_sub(&r->s.cur, &r->s.base);
	if (r->wr) {
		e = r->wr;	/* said already; nothing more can be written */
	} else if (e) {
		fprintf(stderr, "tdbpf: out of memory for the report\n");
		e = -ENOMEM;
	} else {
		/* exited tasks folded by --listen: no tid to show */
		archive_hide_keys(&r->s.cur.tasks);
		record_emit(&r->s.rec, &r->s.cur, t1 - start, -1);
		e = sink_emit(&r->sink, &r->rc, &r->s.cur, t1 - start, -1);
	}
	/* the graph file: written whatever became of the report */
	if (r->dot.f) {
		int de = sink_emit(&r->dot, &r->rc, &r->s.cur, t1 - start, -1);

		/* a write error was said by the sink, naming the graph */
		if (out_close(r->dot.f) && !de) {
			fprintf(stderr,
				"tdbpf: cannot write graph file '%s': %s; check the disk and the path\n",
				r->o->graph, strerror(errno));
			de = -EIO;
		}
		if (de)
			rc = 1;
		r->dot.f = NULL;
	}
	if (r->o->verbose)
		fprintf(stderr,
			"tdbpf: final report: %zu tasks, collect %.1f ms, decode and write %.1f ms\n",
			r->s.cur.tasks.nr, (t1 - t0) / 1e6,
			(loop_now_ns() - t2) / 1e6);
	if (e && e != -EPIPE)	/* the reader went away: not our error */
		rc = 1;
	if (record_close(&r->s.rec))
		rc = 1;
	return rc;
}

int run_trace(const struct options *o, const struct event_plan *plan,
	      FILE *out, FILE *graph)
{
	struct run r = { .o = o };
	struct session_conf sc = {
		.on_interval = on_interval,
		.arg = &r,
		.wakeups = o->wakeups,
	};
	struct session *s = &r.s;
	char err[512];
	bool child_done;
	__u64 stop_ns;
	int rc, e;

	r.sink = (struct sink){
		.ops = o->json ? &sink_json : o->sep ? &sink_csv : &sink_table,
		.f = out,
		.name = o->output,
		.sep = o->sep,
		.intervals = o->interval_ms > 0,
		.table_cols = o->table_cols,
	};
	/* the DOT sink draws the whole run's graph (--graph) */
	r.dot = (struct sink){ .ops = &sink_dot, .f = graph, .name = o->graph,
			       .what = "the graph" };
	r.rc = (struct report_conf){ .plan = plan, .sort = o->sort,
				     .top = o->top, .per_name = o->per_name,
				     .wakeups = o->wakeups,
				     .look = live_lookups };
	snapshot_init(&r.iv, plan->nr);
	snapshot_init(&r.scrape, plan->nr);
	rc = session_open(s, o, plan, &sc);
	if (rc)
		goto out;
	r.last_iv = r.last_due = s->start_ns;
	r.rc.start_ns = s->start_ns;
	if (s->prom && serve(&r, s->loop, plan, err, sizeof(err))) {
		errorf("%s", err);
		rc = 1;
		goto out;
	}
	e = loop_run(s->loop);
	stop_ns = loop_now_ns();
	stop_serving(&r, s->loop);
	if (e)
		errorf("the run stopped: %s; the report shows what was read",
		       strerror(-e));
	/*
	 * The command ended first: its status is tdbpf's, as perf stat's
	 * (128 + N for signal N). One tdbpf stopped itself (Ctrl-C, -d, a
	 * reader gone) does not set it.
	 */
	child_done = s->child.pid > 0 && launch_reap(&s->child);
	rc = final_report(&r, s->start_ns, stop_ns) || e;
	if (!rc && child_done)
		rc = out_child_status(s->child.status);
out:
	stop_serving(&r, s->loop);
	session_close(s);
	out_close(r.dot.f);
	snapshot_free(&r.scrape);
	snapshot_free(&r.iv);
	return rc;
}
