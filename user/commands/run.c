// SPDX-License-Identifier: GPL-2.0
/*
 * The run driver (run.h): wires the tracer, the targets and the output
 * sink into one event loop. Its sources:
 *
 *   SIGINT, SIGTERM, SIGHUP   stop
 *   -d timer                  stop
 *   -I timer                  an interval report (deltas since the last)
 *   tick (TICK_MS)            stop when no target is left (threads, old kernels)
 *   targets' pidfds           stop when the last one exits (targets.c)
 *   the tracer's drain timer  exited tasks out of the BPF map (tracer.c)
 *   --listen                  libmicrohttpd's epoll fd and its timeout: a
 *                             scrape collects and answers (prom_server.c)
 *
 * Whatever stops the loop, the whole run's report is written after it.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include "commands/cmd.h"
#include "commands/run.h"
#include "model/detect.h"
#include "outputs/outfile.h"
#include "outputs/prom_server.h"
#include "outputs/record.h"
#include "outputs/sink.h"
#include "sources/launch.h"
#include "sources/targets.h"
#include "sources/tracer.h"
#include "sums/archive.h"
#include "support/loop.h"
#include "support/privs.h"
#include "support/text.h"

#define TICK_MS		100	/* how often targets without a pidfd are checked */
#define NS_PER_MS	1000000ULL

struct run {
	const struct options *o;
	struct tracer *tracer;
	struct targets targets;
	struct sink sink;
	struct sink dot;	/* --graph FILE.dot, .f NULL without */
	struct report_conf rc;
	struct record rec;	/* --record FILE */
	struct snapshot snap;	/* the last collect */
	struct snapshot prev;	/* snap at the previous interval */
	struct snapshot base;	/* charged before the run started */
	struct snapshot iv;	/* the window a report covers */
	__u64 last_iv;		/* the previous interval's end */
	int n_iv;
	struct prom_server *prom;	/* --listen */
	struct loop_source *http_fd, *http_timer;
	struct snapshot scrape;	/* a scrape's collect */
	int wr;			/* an interval report failed: -errno */
};

static void err_line(const char *fmt, const char *arg)
{
	char msg[1024];

	snprintf(msg, sizeof(msg), fmt, arg);
	/* it may quote the command's name: keep it one printable line */
	text_printable(msg, sizeof(msg), msg, NULL, 0);
	fprintf(stderr, "tdbpf: %s\n", msg);
}

/* One kernel tick (CONFIG_HZ), 10 ms (HZ=100, the least) if unknown. */
static void sleep_one_tick(void)
{
	int hz = detect_hz("");
	__u64 ns = 1000000000ULL / (hz > 0 ? (unsigned int)hz : 100U);
	/* and a little more: the tick is not exactly on time */
	struct timespec ts = { .tv_nsec = (long)(ns + 500000) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int on_stop_signal(struct loop *l, int sig, void *arg)
{
	(void)sig;
	(void)arg;
	loop_stop(l);
	return 0;
}

static int on_deadline(struct loop *l, uint64_t n, void *arg)
{
	(void)n;
	(void)arg;
	loop_stop(l);
	return 0;
}

static int on_tick(struct loop *l, uint64_t n, void *arg)
{
	struct run *r = arg;

	(void)n;
	if (!targets_alive(&r->targets))
		loop_stop(l);
	return 0;
}

/* Interval deltas: this snapshot minus the last one. */
static int on_interval(struct loop *l, uint64_t n, void *arg)
{
	struct run *r = arg;
	__u64 now = loop_now_ns();
	int e;

	(void)n;
	if (tracer_collect(r->tracer, &r->snap) == 0) {
		/* the snapshot's end: see the final report */
		now = r->snap.at_ns;
		e = snapshot_diff(&r->snap, &r->prev, &r->iv);
		if (!e) {
			record_emit(&r->rec, &r->iv, now - r->last_iv, r->n_iv);
			e = sink_emit(&r->sink, &r->rc, &r->iv, now - r->last_iv,
				      r->n_iv++);
		}
		snapshot_copy(&r->prev, &r->snap);
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
	int e = tracer_collect(r->tracer, &r->scrape), i, n;
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
	n = tracer_prog_stats(r->tracer, ps, PROM_MAX_PROGS);
	for (i = 0; i < n; i++) {
		h->progs[i].name = ps[i].name;
		h->progs[i].run_ns = ps[i].run_ns;
		h->progs[i].run_cnt = ps[i].run_cnt;
	}
	h->nr_progs = n;
	h->flows = &r->scrape.flows;
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
	    tracer_fold_exited(r->tracer, &r->base.tasks))
		fprintf(stderr,
			"tdbpf: out of memory folding exited tasks; they stay apart\n");
}

/* libmicrohttpd's timeouts (idle clients) on a one-shot timer */
static void http_rearm(struct run *r)
{
	int ms = prom_server_timeout_ms(r->prom);

	loop_timer_set(r->http_timer,
		       ms >= 0 ? loop_now_ns() + (__u64)ms * NS_PER_MS + 1 : 0,
		       0);
}

static int on_http(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct run *r = arg;

	(void)l;
	(void)fd;
	(void)events;
	prom_server_run(r->prom);
	http_rearm(r);
	return 0;
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

	if (prom_server_start(r->prom, plan, o->listen_labels,
			      (int)o->listen_max_series, scrape_collect,
			      scrape_counted, r, err, len))
		return -1;
	r->http_fd = loop_add_fd(l, prom_server_fd(r->prom), EPOLLIN, on_http,
				 r);
	r->http_timer = loop_add_timer(l, 0, 0, on_http_timer, r);
	if (!r->http_fd || !r->http_timer) {
		snprintf(err, len, "cannot watch the /metrics server: %s",
			 strerror(errno));
		return -1;
	}
	fprintf(stderr, "tdbpf: serving http://%s/metrics\n",
		prom_server_address(r->prom));
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
	prom_server_close(r->prom);
	r->prom = NULL;
}

static void run_free(struct run *r)
{
	if (r->dot.f)
		fclose(r->dot.f);
	r->dot.f = NULL;
	snapshot_free(&r->scrape);
	snapshot_free(&r->snap);
	snapshot_free(&r->prev);
	snapshot_free(&r->base);
	snapshot_free(&r->iv);
	record_close(&r->rec);
}

/* Sources and timers of a run that started at @start. */
static int add_sources(struct run *r, struct loop *l, __u64 start)
{
	const struct options *o = r->o;
	bool ok = true;

	if (o->duration > 0)
		ok &= !!loop_add_timer(l, start + (__u64)(o->duration * 1e9), 0,
				       on_deadline, r);
	if (o->interval_ms > 0)
		ok &= !!loop_add_timer(l, start + (__u64)o->interval_ms * NS_PER_MS,
				       (__u64)o->interval_ms * NS_PER_MS,
				       on_interval, r);
	/* at once, then every tick: a target gone already ends the run now */
	ok &= !!loop_add_timer(l, loop_now_ns(), TICK_MS * NS_PER_MS, on_tick,
			       r);
	if (!ok)
		return -errno;
	return tracer_watch(r->tracer, l);
}

/* The whole run's report, after the loop; the process exit code. */
static int final_report(struct run *r, __u64 start)
{
	__u64 t0, t1, t2;
	int rc = 0, e;

	/* the tasks that exited, with all of their exit (read-free) */
	tracer_settle(r->tracer, TRACER_SETTLE_MS);
	t0 = loop_now_ns();
	e = tracer_collect(r->tracer, &r->snap);
	t1 = loop_now_ns();
	if (e) {
		fprintf(stderr,
			"tdbpf: reading the task sums failed: %s; the report shows what was read\n",
			strerror(-e));
		rc = 1;
	}
	/* detaching waits for the trampolines to drain: not report time */
	tracer_detach(r->tracer);
	t2 = loop_now_ns();
	/*
	 * The run ends once the sums are read (t1): a task that switches out
	 * while they are read is charged up to then, so an end taken before
	 * the read would leave its last slice past the end.
	 */
	/* the last sums are not kept: the report is made in their table */
	e = snapshot_sub(&r->snap, &r->base);
	if (r->wr) {
		e = r->wr;	/* said already; nothing more can be written */
	} else if (e) {
		fprintf(stderr, "tdbpf: out of memory for the report\n");
		e = -ENOMEM;
	} else {
		/* exited tasks folded by --listen: no tid to show */
		archive_hide_keys(&r->snap.tasks);
		record_emit(&r->rec, &r->snap, t1 - start, -1);
		e = sink_emit(&r->sink, &r->rc, &r->snap, t1 - start, -1);
	}
	/* the graph file: written whatever became of the report */
	if (r->dot.f) {
		int de = sink_emit(&r->dot, &r->rc, &r->snap, t1 - start, -1);

		if (fclose(r->dot.f) || de) {
			fprintf(stderr,
				"tdbpf: cannot write graph file '%s': %s; check the disk and the path\n",
				r->o->graph, strerror(de == -ENOMEM ? ENOMEM : errno));
			rc = 1;
		}
		r->dot.f = NULL;
	}
	if (r->o->verbose)
		fprintf(stderr,
			"tdbpf: final report: %zu tasks, collect %.1f ms, decode and write %.1f ms\n",
			r->snap.tasks.nr, (t1 - t0) / 1e6,
			(loop_now_ns() - t2) / 1e6);
	if (e && e != -EPIPE)	/* the reader went away: not our error */
		rc = 1;
	if (record_close(&r->rec))
		rc = 1;
	return rc;
}

int run_trace(const struct options *o, const struct event_plan *plan,
	      FILE *out, FILE *graph)
{
	static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct run r = { .o = o };
	struct launch child = { .go_fd = -1, .err_fd = -1 };
	struct target_ids ids;
	size_t nr_threads;
	struct tracer_conf tc = {
		.plan = plan,
		.targets = {
			.pids = o->pids, .nr_pids = o->nr_pids,
			.tids = o->tids, .nr_tids = o->nr_tids,
			.all = o->all, .children = o->children,
		},
		.max_tasks = o->max_tasks,
		.wakeups = o->wakeups,
		.verbose = o->verbose,
	};
	struct loop *l = loop_new();
	char err[512];
	bool child_done;
	__u64 start;
	size_t i;
	int rc;

	r.sink = (struct sink){
		.ops = o->json ? &sink_json : o->sep ? &sink_csv : &sink_table,
		.f = out,
		.name = o->output,
		.sep = o->sep,
		.intervals = o->interval_ms > 0,
	};
	/* the DOT sink draws the whole run's graph (--graph) */
	r.dot = (struct sink){ .ops = &sink_dot, .f = graph };
	r.rc = (struct report_conf){ .plan = plan, .sort = o->sort,
				     .top = o->top, .per_name = o->per_name,
				     .wakeups = o->wakeups };
	/* rows as wide as the counters programmed, not TDBPF_MAX_EVENTS */
	snapshot_init(&r.snap, plan->nr);
	snapshot_init(&r.prev, plan->nr);
	snapshot_init(&r.base, plan->nr);
	snapshot_init(&r.iv, plan->nr);
	snapshot_init(&r.scrape, plan->nr);
	if (!l) {
		err_line("cannot create the event loop: %s", strerror(errno));
		run_free(&r);
		return 1;
	}

	/* blocked from here: a signal during setup stops the run at once */
	for (i = 0; i < sizeof(stop_sigs) / sizeof(stop_sigs[0]); i++)
		loop_add_signal(l, stop_sigs[i], on_stop_signal, &r);
	/* a closed output pipe is an EPIPE write error, handled as a stop */
	signal(SIGPIPE, SIG_IGN);

	/* bound while tdbpf has its privileges, and before the command runs */
	if (o->listen &&
	    !(r.prom = prom_server_open(o->listen, err, sizeof(err)))) {
		err_line("%s", err);
		loop_free(l);
		run_free(&r);
		return 1;
	}
	if (o->argv && launch_fork(&child, o->argv, loop_orig_sigmask(l), err,
				   sizeof(err))) {
		err_line("%s", err);
		prom_server_close(r.prom);
		loop_free(l);
		run_free(&r);
		return 1;
	}
	tc.targets.child = child.pid;
	r.tracer = tracer_open(&tc, err, sizeof(err));
	if (!r.tracer) {
		err_line("%s", err);
		launch_abort(&child);
		prom_server_close(r.prom);
		loop_free(l);
		run_free(&r);
		return 1;
	}
	/* as root, before privileges go: created as -o is */
	if (record_open(&r.rec, o->record, o->interval_ms > 0, o->sort,
			plan)) {
		tracer_close(r.tracer);
		launch_abort(&child);
		loop_free(l);
		run_free(&r);
		return 2;
	}
	/*
	 * The run starts here. Slices charged since the first program was
	 * attached (attaching the others takes tens of ms) began before
	 * it: keep them as a base that every report subtracts, so that
	 * on-CPU time never exceeds the time traced. A running task's CPU
	 * time is read as of its last update, which the tick makes: one
	 * tick after the start no reading in the base predates the start,
	 * so nothing from before it is charged later (the base takes the
	 * first tick of the run instead).
	 */
	start = loop_now_ns();
	sleep_one_tick();
	if (tracer_collect(r.tracer, &r.snap) == 0) {
		snapshot_copy(&r.base, &r.snap);
		snapshot_copy(&r.prev, &r.snap);
	}
	/*
	 * The next collect's table, touched before the run rather than in
	 * the report (tasks_prefault()): a row for each thread the targets
	 * have, and room for some more, up to the tasks held at once. Out
	 * of memory here, the collect says so.
	 */
	target_ids_of(&ids, o);
	nr_threads = targets_threads(&ids, child.pid);
	nr_threads += nr_threads / 8 + 64;
	if (o->max_tasks > 0 && nr_threads > (size_t)o->max_tasks)
		nr_threads = (size_t)o->max_tasks;
	(void)tasks_prefault(&r.snap.tasks, nr_threads);
	/* no command to stop: CAP_KILL goes too */
	privs_keep_kill(o->argv != NULL);
	privs_keep_ptrace(r.rc.wakeups);
	privs_drop_after_setup();
	if (o->argv && launch_release(&child, o->argv, err, sizeof(err))) {
		err_line("%s", err);
		tracer_close(r.tracer);
		prom_server_close(r.prom);
		loop_free(l);
		run_free(&r);
		return 1;
	}

	targets_watch(&r.targets, l, &ids, &child);
	r.last_iv = start;
	rc = add_sources(&r, l, start);
	if (rc) {
		err_line("cannot set up the run's timers: %s", strerror(-rc));
		rc = 1;
	} else if (r.prom && serve(&r, l, plan, err, sizeof(err))) {
		err_line("%s", err);
		rc = 1;
	} else {
		loop_run(l);
		stop_serving(&r, l);
		/*
		 * The command ended first: its status is tdbpf's, as perf
		 * stat's (128 + N for signal N). One tdbpf stopped itself
		 * (Ctrl-C, -d, a reader gone) does not set it.
		 */
		child_done = child.pid > 0 && launch_reap(&child);
		rc = final_report(&r, start);
		if (!rc && child_done)
			rc = out_child_status(child.status);
	}
	stop_serving(&r, l);
	launch_stop(&child);
	loop_free(l);
	tracer_close(r.tracer);
	run_free(&r);
	return rc;
}
