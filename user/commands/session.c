// SPDX-License-Identifier: GPL-2.0
/*
 * The setup a tracing run and top share (session.h), in the style of
 * perf's bpf_off_cpu.c: each step in order, every failure to the one
 * cleanup (session_close()), which undoes what was done and only that.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "commands/cmd.h"
#include "commands/session.h"
#include "model/detect.h"
#include "exporter/prom_server.h"
#include "sources/jvm_attach.h"
#include "sources/kfeatures.h"
#include "sources/tracer.h"
#include "support/error.h"
#include "support/privs.h"

#define TICK_NS		100000000ULL	/* targets without a pidfd polled */

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

static int on_stop(struct loop *l, int sig, void *arg)
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

/*
 * -G: the cgroup's processes now, each traced from its next slice. Forks
 * inside it the tracer follows at once (--children); this finds the ones
 * put into it from outside (podman exec, a new container of a pod).
 */
static void follow_cgroup(struct session *s)
{
	size_t i;

	if (cgroup_members_read(&s->cg))
		return;	/* out of memory: the next tick tries again */
	for (i = 0; i < s->cg.nr; i++)
		tracer_track(s->tracer, s->cg.pids[i]);
	/* their containers now: a stage may be gone by the next collect */
	tracer_see_processes(s->tracer, s->cg.pids, s->cg.nr);
}

static int on_tick(struct loop *l, uint64_t n, void *arg)
{
	struct session *s = arg;

	(void)n;
	if (s->o->cgroup && s->tracer)
		follow_cgroup(s);
	if (!targets_alive(&s->targets)) {
		s->targets_gone = true;
		loop_stop(l);
	}
	return 0;
}

/*
 * The command's output would tear top's screen: it gets /dev/null for its
 * stdin, stdout and stderr (the fds are swapped around the fork only).
 */
static int launch_quiet(struct session *s, char *err, size_t len)
{
	int saved[3], nul, i, rc;

	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul < 0) {
		error_set(err, len, "cannot open /dev/null: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < 3; i++) {
		saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
		dup2(nul, i);
	}
	rc = launch_fork(&s->child, s->o->argv, loop_orig_sigmask(s->loop),
			 err, len);
	for (i = 0; i < 3; i++) {
		if (saved[i] >= 0) {
			dup2(saved[i], i);
			close(saved[i]);
		}
	}
	close(nul);
	return rc;
}

/*
 * Blocked from here: a signal during setup stops the run once the loop
 * runs. Every terminating signal, not only Ctrl-C's: Ctrl-\\ or a kill
 * -USR1 must not lose the report or leave top's screen. A closed output
 * pipe is an EPIPE write error, handled as a stop.
 */
static int add_signals(struct session *s, const struct session_conf *c)
{
	loop_signal_fn fn = c->on_signal ? c->on_signal : on_stop;
	void *arg = c->on_signal ? c->arg : NULL;
	int e = loop_add_stop_signals(s->loop, fn, arg);

	if (!e && c->winch && !loop_add_signal(s->loop, SIGWINCH, fn, arg))
		e = -errno;
	if (e)
		return e;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/*
 * The run starts here. Slices charged since the first program was
 * attached (attaching the others takes tens of ms) began before it: keep
 * them as a base that every report subtracts, so that on-CPU time never
 * exceeds the time traced. A running task's CPU time is read as of its
 * last update, which the tick makes: one tick after the start no reading
 * in the base predates the start, so nothing from before it is charged
 * later (the base takes the first tick of the run instead).
 */
static void take_base(struct session *s)
{
	const struct options *o = s->o;
	struct target_ids ids;
	size_t nr_threads;

	s->start_ns = loop_now_ns();
	sleep_one_tick();
	if (tracer_collect(s->tracer, &s->cur) == 0) {
		snapshot_copy(&s->base, &s->cur);
		snapshot_copy(&s->prev, &s->cur);
	}
	/*
	 * What the base took is time traced but charged to no one on a
	 * busy CPU: the report's on-CPU falls short of the CPUs' time by up
	 * to this much a CPU, as it does by the final collect's.
	 */
	if (o->verbose)
		fprintf(stderr,
			"tdbpf: base: %zu tasks, read %.1f ms after the start\n",
			s->cur.tasks.nr, (loop_now_ns() - s->start_ns) / 1e6);
	/*
	 * The next collect's table, touched before the run rather than in
	 * the report (tasks_prefault()): a row for each thread the targets
	 * have, and room for some more, up to the tasks held at once. Out
	 * of memory here, the collect says so.
	 */
	target_ids_of(&ids, o);
	nr_threads = targets_threads(&ids, s->child.pid);
	nr_threads += nr_threads / 8 + 64;
	if (o->max_tasks > 0 && nr_threads > (size_t)o->max_tasks)
		nr_threads = (size_t)o->max_tasks;
	(void)tasks_prefault(&s->cur.tasks, nr_threads);
}

/*
 * The -p targets that are JVMs: their threads' Java names, asked of each
 * JVM once, now, while tdbpf may still signal it and open its files, and
 * before the run starts (the dump is not charged to the run).
 * Best effort: a JVM that does not answer keeps its comms.
 */
static void name_jvms(struct session *s)
{
	const struct options *o = s->o;
	int i, got;

	for (i = 0; i < o->nr_pids; i++) {
		if (!jvm_is_jvm(o->pids[i]))
			continue;
		got = jvm_thread_names(o->pids[i], &s->names);
		if (o->verbose && got >= 0)
			fprintf(stderr, "tdbpf: JVM %d: %d thread names from its thread dump\n",
				o->pids[i], got);
		else if (got < 0 && !o->quiet)
			fprintf(stderr, "tdbpf: JVM %d: no thread names (%s); its threads keep their kernel names\n",
				o->pids[i], strerror(-got));
	}
}

/*
 * The sources every driver has: the targets (a pidfd where the kernel
 * gives one, else polled on the tick: no failure to check), -d, -I, the
 * tick, the tracer's drain.
 */
static int add_sources(struct session *s, const struct session_conf *c)
{
	const struct options *o = s->o;
	__u64 start = s->start_ns, iv = (__u64)o->interval_ms * 1000000ULL;
	struct target_ids ids;

	struct loop_source *src;

	target_ids_of(&ids, o);
	targets_watch(&s->targets, s->loop, &ids, &s->child);
	/* --children: the run lasts while a forked process does */
	if (o->children) {
		s->targets.followed_alive = tracer_followed_alive;
		s->targets.followed_ctx = s->tracer;
	}
	/*
	 * The interval report comes before the stops that may fall due with
	 * it (-d, the tick, the targets' exit, a signal: loop.h), so that
	 * -d 3 -I 1000 gives three intervals whatever order the kernel hands
	 * the timers over in; -d is rounded to the nanosecond for the same
	 * reason (0.3 s is not 299999999 ns).
	 */
	if (o->duration > 0) {
		src = loop_add_timer(s->loop,
				     start + (__u64)llround(o->duration * 1e9),
				     0, on_deadline, NULL);
		if (!src)
			return -errno;
		loop_set_prio(src, LOOP_PRIO_STOP);
	}
	if (iv) {
		src = loop_add_timer(s->loop, start + iv, iv, c->on_interval,
				     c->arg);
		if (!src)
			return -errno;
		loop_set_prio(src, LOOP_PRIO_REPORT);
	}
	/* at once, then every tick: a target gone already ends the run now */
	src = loop_add_timer(s->loop, loop_now_ns(), TICK_NS, on_tick, s);
	if (!src)
		return -errno;
	loop_set_prio(src, LOOP_PRIO_STOP);
	return tracer_watch(s->tracer, s->loop);
}

/*
 * -G PATH: its processes are the targets, their forks followed, as perf
 * -G counts a cgroup's tasks (perf uses the perf_event controller, which
 * a cgroup v1 host may not mount: here the members are read instead).
 */
static int open_cgroup(struct session *s, struct tracer_conf *tc, char *err,
		       size_t len)
{
	int e;

	e = cgroup_members_open(&s->cg, s->o->cgroup, "/proc/self/mountinfo",
				err, len);
	if (!e)
		e = cgroup_members_read(&s->cg);
	if (e == -ENOMEM)
		error_set(err, len, "out of memory for the cgroup's processes");
	if (e)
		return e;
	tc->targets.pids = s->cg.pids;
	tc->targets.nr_pids = (int)s->cg.nr;
	tc->targets.children = true;
	return 0;
}

/*
 * A test's choice of the older kernels' paths on this one: the socket
 * hooks tried first (TDBPF_SOCK_HOOKS, docs/graph.md) and the features
 * taken as missing (TDBPF_KERNEL_LACKS, docs/kernels.md), into @tc.
 * 0, or 1 when one is not understood (said).
 */
static int older_kernels(struct tracer_conf *tc)
{
	const char *v = getenv("TDBPF_SOCK_HOOKS"), *bad;

	if (v && sock_hooks_kind(v, &tc->sock_hooks)) {
		errorf("TDBPF_SOCK_HOOKS=%s: not a kind of hook; set it to tracepoint, fentry or kprobe, or unset it",
		       v);
		return 1;
	}
	v = getenv("TDBPF_KERNEL_LACKS");
	if (v && kfeatures_parse(v, &tc->kernel_lacks, &bad)) {
		errorf("TDBPF_KERNEL_LACKS=%s: '%s' is not a feature; list prev_state, bpf_loop or percpu_lookup, comma-separated, or unset it",
		       v, bad);
		return 1;
	}
	return 0;
}

int session_open(struct session *s, const struct options *o,
		 const struct event_plan *plan, const struct session_conf *c)
{
	struct tracer_conf tc = {
		.plan = plan,
		.targets = {
			.pids = o->pids, .nr_pids = o->nr_pids,
			.tids = o->tids, .nr_tids = o->nr_tids,
			.all = o->all, .children = o->children,
		},
		.max_tasks = o->max_tasks,
		.sock_max = o->sock_max,
		.wakeups = c->wakeups,
		.sampled = c->wakeups && o->wakeups_sampled,
		.verbose = o->verbose,
		.names = &s->names,
		.peers = &s->peers,
		.spans = o->spans,
		.nr_spans = o->nr_spans,
		/* USDT spans in the command, when it is traced */
		.exe = o->argv && !o->argv_bounds ? o->argv[0] : NULL,
	};
	char err[512];
	int e;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->plan = plan;
	s->child = (struct launch){ .go_fd = -1, .err_fd = -1 };
	/* rows as wide as the counters programmed, not TDBPF_MAX_EVENTS */
	snapshot_init(&s->cur, plan->nr);
	snapshot_init(&s->prev, plan->nr);
	snapshot_init(&s->base, plan->nr);

	if (older_kernels(&tc))
		return 1;
	s->loop = loop_new();
	if (!s->loop) {
		errorf("cannot create the event loop: %s", strerror(errno));
		return 1;
	}
	e = add_signals(s, c);
	if (e) {
		errorf("cannot take signals through the event loop: %s",
		       strerror(-e));
		return 1;
	}
	/* created as -o is, and checked before anything is loaded */
	if (record_open(&s->rec, o->record, o->interval_ms > 0, o->sort, plan))
		return 2;
	/* every mode's graph is recorded, as the reports beside it show it */
	if (c->wakeups)
		record_wakeups(&s->rec, &live_lookups);
	/* bound while tdbpf has its privileges, and before the command runs */
	if (o->listen &&
	    !(s->prom = prom_server_open(o->listen, err, sizeof(err))))
		goto fail;
	if (o->argv && (c->quiet_child ?
				launch_quiet(s, err, sizeof(err)) :
				launch_fork(&s->child, o->argv,
					    loop_orig_sigmask(s->loop), err,
					    sizeof(err))))
		goto fail;
	/* a command that only bounds the run is not traced */
	tc.targets.child = o->argv_bounds ? 0 : s->child.pid;
	name_jvms(s);
	if (o->cgroup && open_cgroup(s, &tc, err, sizeof(err)))
		goto fail;
	/*
	 * The sockets of the traced processes, with wakeups: read by a
	 * process of its own, which alone holds the overrides that takes,
	 * so that tdbpf (and its --listen server) holds none
	 * (peer_reader.h). Forked before the programs and the tables: a
	 * fork after them shared every page of the base with the child, and
	 * each write to one copied it (5 ms of a collect of 10,000 tasks).
	 */
	if (c->wakeups && peer_reader_start(&s->peers, err, sizeof(err)))
		goto fail;
	s->tracer = tracer_open(&tc, err, sizeof(err));
	if (!s->tracer)
		goto fail;
	take_base(s);
	/* no command to stop: CAP_KILL goes too */
	privs_keep_kill(o->argv != NULL);
	privs_drop_after_setup();
	if (o->argv) {
		s->released = true;	/* released or reaped, either way */
		if (launch_release(&s->child, o->argv, err, sizeof(err)))
			goto fail;
	}
	e = add_sources(s, c);
	if (e) {
		errorf("cannot set up the run's timers: %s", strerror(-e));
		return 1;
	}
	return 0;
fail:
	errorf("%s", err);
	return 1;
}

void session_close(struct session *s)
{
	/* first: it is no orphan of the command's to end (launch_stop()) */
	peer_reader_stop(&s->peers);
	/* scrapers get a refused connection, not a stalled one */
	prom_server_close(s->prom);
	s->prom = NULL;
	/* a command never released exits without exec; else it is stopped */
	if (!s->released)
		launch_abort(&s->child);
	launch_stop(&s->child);
	loop_free(s->loop);
	s->loop = NULL;
	tracer_close(s->tracer);
	s->tracer = NULL;
	record_close(&s->rec);
	snapshot_free(&s->cur);
	snapshot_free(&s->prev);
	snapshot_free(&s->base);
	thread_names_free(&s->names);
	cgroup_members_free(&s->cg);
}
