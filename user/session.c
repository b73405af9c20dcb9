// SPDX-License-Identifier: GPL-2.0
/*
 * One tracing run: open the counters, load and attach the BPF programs,
 * wait, drain exited tasks, flush and collect the per-task sums, report.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "tdbpf.skel.h"
#include "counters.h"
#include "detect.h"
#include "outfile.h"
#include "privs.h"
#include "report.h"
#include "session.h"
#include "task_events.h"
#include "tasks.h"

#define TICK_MS		100	/* how often targets and the exit queue are checked */

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

struct session {
	const struct options *o;
	const struct event_plan *plan;
	struct tdbpf_bpf *skel;
	struct counters ctr;
	int ncpu;
	bool *online;
	int tasks_fd, stats_fd, exited_fd, flush_fd;
	struct bpf_link *iter;		/* task iterator: live tasks' sums */
	struct task_table archive;	/* exited tasks, deleted from the map */
	struct task_table snap;		/* archive + live, at the last collect */
	struct task_table prev;		/* snap at the previous interval */
	struct task_table base;		/* charged before the run started */
	struct tdbpf_task *vals;	/* one entry: scratch for a record */
	int pidfd[OPT_MAX_TARGETS];	/* -p targets, -1 where unavailable */
	pid_t child;
	bool child_exited;
	int child_status;
	int go_fd, err_fd;
};

/* One kernel tick (CONFIG_HZ), 10 ms (HZ=100, the least) if unknown. */
static void sleep_one_tick(void)
{
	int hz = detect_hz("");
	__u64 ns = 1000000000ULL / (hz > 0 ? (unsigned int)hz : 100U);
	/* and a little more: the tick is not exactly on time */
	struct timespec ts = { .tv_nsec = (long)(ns + 500000) };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stop_sig)
		;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

static void err_line(const char *fmt, const char *arg)
{
	char msg[1024], *p;

	snprintf(msg, sizeof(msg), fmt, arg);
	/* it may quote the command's name: keep it one printable line */
	for (p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(stderr, "tdbpf: %s\n", msg);
}

/* libbpf's own messages only with -v: errors are reported by us, once */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int libbpf_print_verbose(enum libbpf_print_level level,
				const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* ---- the launched command ------------------------------------------ */

/* Fork COMMAND stopped before exec, so the tracer attaches first. */
static int launch(struct session *s, char *err, size_t len)
{
	int go[2], ep[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		snprintf(err, len, "cannot create a pipe: %s; raise the open-files limit (ulimit -n)",
			 strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, len, "cannot fork the command: %s; check the process limit (ulimit -u)",
			 strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(ep[0]);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(126);	/* the tracer gave up */
		if (privs_drop_to_invoking_user(err, len)) {
			e = -1;
			if (write(ep[1], &e, sizeof(e)) < 0)
				_exit(126);
			if (write(ep[1], err, strlen(err) + 1) < 0)
				_exit(126);
			_exit(126);
		}
		execvp(s->o->argv[0], s->o->argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	s->child = pid;
	s->go_fd = go[1];
	s->err_fd = ep[0];
	return 0;
}

/* Let the command exec; fails if exec (or dropping privileges) failed. */
static int release(struct session *s, char *err, size_t len)
{
	char msg[256];
	ssize_t n;
	int e;

	if (write(s->go_fd, "g", 1) != 1) {
		snprintf(err, len, "cannot start the command: %s",
			 strerror(errno));
		return -1;
	}
	close(s->go_fd);
	s->go_fd = -1;
	n = read(s->err_fd, &e, sizeof(e));
	if (n == sizeof(e)) {
		if (e == -1) {
			n = read(s->err_fd, msg, sizeof(msg) - 1);
			msg[n > 0 ? n : 0] = 0;
			snprintf(err, len, "%s", msg);
		} else {
			snprintf(err, len,
				 "cannot run '%s': %s; check the command name and PATH",
				 s->o->argv[0], strerror(e));
		}
		waitpid(s->child, NULL, 0);
		s->child_exited = true;
		return -1;
	}
	close(s->err_fd);
	s->err_fd = -1;
	return 0;
}

/* ---- targets ---------------------------------------------------------- */

/*
 * A thread exists and is not a zombie. /proc/TID/task/TID/stat describes
 * that thread alone: /proc/PID/stat would sum the CPU time of every thread
 * of the process at each call, which at 10,000 threads costs milliseconds.
 */
static bool tid_alive(pid_t id)
{
	char path[80], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", id, id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* comm may hold spaces and parens */
	if (!p || p[1] != ' ')
		return true;
	return p[2] != 'Z' && p[2] != 'X';
}

/* A process is alive until its pidfd polls readable (it has exited). */
static bool pid_alive(struct session *s, int i)
{
	struct pollfd p = { .fd = s->pidfd[i], .events = POLLIN };
	pid_t pid = s->o->pids[i];

	if (s->pidfd[i] < 0)	/* no pidfd (old kernel): ask kill() */
		return kill(pid, 0) == 0 || errno == EPERM;
	return poll(&p, 1, 0) == 0;
}

static bool targets_alive(struct session *s)
{
	const struct options *o = s->o;
	int i;

	if (o->all)
		return true;
	if (s->child > 0) {
		if (!s->child_exited &&
		    waitpid(s->child, &s->child_status, WNOHANG) == s->child)
			s->child_exited = true;
		return !s->child_exited;
	}
	for (i = 0; i < o->nr_pids; i++)
		if (pid_alive(s, i))
			return true;
	for (i = 0; i < o->nr_tids; i++)
		if (tid_alive(o->tids[i]))
			return true;
	return false;
}

static void open_pidfds(struct session *s)
{
	int i;

	for (i = 0; i < OPT_MAX_TARGETS; i++)
		s->pidfd[i] = -1;
	for (i = 0; i < s->o->nr_pids; i++)
		s->pidfd[i] = (int)syscall(SYS_pidfd_open, s->o->pids[i], 0);
}

static void close_pidfds(struct session *s)
{
	int i;

	for (i = 0; i < s->o->nr_pids; i++)
		if (s->pidfd[i] >= 0)
			close(s->pidfd[i]);
}

/* ---- collecting --------------------------------------------------------- */

static void flush_cpus(struct session *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU);
	int cpu;

	for (cpu = 0; cpu < s->ncpu; cpu++) {
		if (!s->online[cpu])
			continue;
		opts.cpu = cpu;
		/* a CPU that went offline meanwhile just fails: nothing runs there */
		bpf_prog_test_run_opts(s->flush_fd, &opts);
	}
}

/*
 * Off-CPU time is the rest of the task's observed life: from when it was
 * first seen (or born) to its death or now, minus the kernel's on-CPU and
 * run-queue times. It includes a wait in the run queue that has not ended
 * yet at @now (the kernel adds a wait to run_delay when it ends).
 */
static void fill_off_cpu(struct tdbpf_task *v, __u64 now)
{
	__u64 end = v->end_ns ? v->end_ns : now;
	__u64 life = end > v->start_ns ? end - v->start_ns : 0;
	__u64 busy = v->on_cpu_ns + v->runq_wait_ns;

	v->off_cpu_ns = life > busy ? life - busy : 0;
}

/* Move the entry of exited task @tid from the map to @to. */
static void archive_task(struct session *s, __u32 tid, struct task_table *to)
{
	struct tdbpf_task *v = &s->vals[0];

	/* read and delete at once: the tid may come back in a new task */
	if (bpf_map_lookup_and_delete_elem(s->tasks_fd, &tid, v))
		return;
	fill_off_cpu(v, now_ns());
	task_events_fill(s->plan, v);
	tasks_add(to, v, s->plan->nr);
}

/* Drain the queue of tasks that switched out dead. Cheap: no map scan. */
static void drain_exited(struct session *s, struct task_table *to)
{
	__u32 tid;

	while (!bpf_map_lookup_and_delete_elem(s->exited_fd, NULL, &tid))
		archive_task(s, tid, to);
}

static void read_stats(struct session *s, __u64 *out)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v = calloc((size_t)ncpu, sizeof(*v));
	__u32 k;
	int c;

	memset(out, 0, sizeof(*out) * TDBPF_NR_STATS);
	if (!v)
		return;
	for (k = 0; k < TDBPF_NR_STATS; k++) {
		if (bpf_map_lookup_elem(s->stats_fd, &k, v))
			continue;
		for (c = 0; c < ncpu; c++)
			out[k] += v[c];
	}
	free(v);
}

/*
 * The live tasks' sums into snap, from the task iterator: one record per
 * task, its entry up to the last programmed counter. seq_file may split a
 * record across reads, so a partial one is carried over.
 */
static int read_live(struct session *s, __u64 now)
{
	size_t rec = TDBPF_TASK_HDR_SIZE +
		     (size_t)s->plan->nr_counters * sizeof(struct tdbpf_count);
	struct tdbpf_task *v = &s->vals[0];
	size_t cap = 2048 * rec, len = 0, off;
	char *buf = malloc(cap);
	int fd, err = 0;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	fd = bpf_iter_create(bpf_link__fd(s->iter));
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : 0;
			break;
		}
		len += (size_t)n;
		for (off = 0; off + rec <= len; off += rec) {
			memcpy(v, buf + off, rec);
			fill_off_cpu(v, now);
			task_events_fill(s->plan, v);
			if (tasks_add(&s->snap, v, s->plan->nr)) {
				err = -ENOMEM;
				goto out;
			}
		}
		memmove(buf, buf + off, len - off);
		len -= off;
	}
out:
	close(fd);
	free(buf);
	return err;
}

/*
 * Charge running tasks up to now, then build snap = archive + live
 * tasks. A task that dies while we read is archived whole just after: its
 * live reading, older and part of the same sums, is dropped, or it would
 * count twice.
 */
static int collect(struct session *s)
{
	struct task_table late;
	size_t i;
	__u64 now;
	int err;

	flush_cpus(s);
	now = now_ns();
	drain_exited(s, &s->archive);
	tasks_reset(&s->snap);
	tasks_set_events(&s->snap, s->plan->nr);
	err = read_live(s, now);
	if (err)
		return err;
	tasks_init(&late);
	tasks_set_events(&late, s->plan->nr);
	drain_exited(s, &late);
	for (i = 0; i < late.nr; i++)
		tasks_clear(&s->snap, tasks_row(&late, i)->tid);
	err = tasks_merge(&s->archive, &late, s->plan->nr);
	tasks_free(&late);
	if (err)
		return err;
	return tasks_merge(&s->snap, &s->archive, s->plan->nr);
}

/* ---- reporting ---------------------------------------------------------- */

int session_report(const struct options *o, const struct event_plan *plan,
		   const struct task_table *t, __u64 duration_ns, int interval,
		   const __u64 *stats, FILE *out)
{
	const struct task_table *src = t;
	struct task_table folded;
	struct report rep;
	off_t mark;
	int err;

	tasks_init(&folded);
	if (o->per_name) {
		if (tasks_fold(t, &folded, plan->nr)) {
			tasks_free(&folded);
			fprintf(stderr, "tdbpf: out of memory for the report\n");
			return -ENOMEM;
		}
		src = &folded;
	}
	err = report_build(&rep, src, plan, plan->level, duration_ns, o->sort,
			   o->top);
	if (err) {
		tasks_free(&folded);
		fprintf(stderr, "tdbpf: out of memory for the report\n");
		return err;
	}
	mark = out_mark(out);
	rep.interval = interval;
	rep.lost_map_full = stats[TDBPF_STAT_MAP_FULL];
	rep.lost_read_err = stats[TDBPF_STAT_READ_ERR];
	rep.unseen_switch_ins = stats[TDBPF_STAT_UNSEEN];
	if (o->json)
		report_write_json(out, &rep, o->interval_ms > 0);
	else if (o->sep)
		report_write_csv(out, &rep, o->sep);
	else
		report_write_table(out, &rep);
	report_free(&rep);
	tasks_free(&folded);
	/* a reader gone is -EPIPE; any other failure is said here */
	return out_check(out, o->output, mark);
}

static int report_now(struct session *s, const struct task_table *t,
		      __u64 duration_ns, int interval, FILE *out)
{
	__u64 st[TDBPF_NR_STATS];

	read_stats(s, st);
	return session_report(s->o, s->plan, t, duration_ns, interval, st,
			      out);
}

/* ---- setup ---------------------------------------------------------- */

static int track_id(struct session *s, pid_t id)
{
	__u32 k = (__u32)id;

	/* ids above PID_MAX_LIMIT do not exist; refuse rather than miss */
	if (k >= TDBPF_TRACK_WORDS * 64)
		return -ERANGE;
	/* .bss is mmap'ed: this is the BPF program's own memory */
	__atomic_fetch_or(&s->skel->bss->track_bits[k / 64], 1ULL << (k % 64),
			  __ATOMIC_RELAXED);
	return 0;
}

static int fill_filter(struct session *s)
{
	const struct options *o = s->o;
	int i, e = 0;

	for (i = 0; i < o->nr_pids && !e; i++)
		e = track_id(s, o->pids[i]);
	for (i = 0; i < o->nr_tids && !e; i++)
		e = track_id(s, o->tids[i]);
	if (s->child > 0 && !e)
		e = track_id(s, s->child);
	return e;
}

static int fill_counters(struct session *s)
{
	int fd = bpf_map__fd(s->skel->maps.counters);
	const char *drop = getenv("TDBPF_TEST_DROP_CPU");
	int i, drop_cpu = drop ? atoi(drop) : -1;
	__u32 k;

	for (i = 0; i < s->ctr.nr * s->ncpu; i++) {
		if (s->ctr.fds[i] < 0)
			continue;
		/*
		 * Fault injection for the tests: leave one CPU's slots empty,
		 * so that every counter read there fails in the kernel.
		 */
		if (drop && i % s->ncpu == drop_cpu)
			continue;
		k = (__u32)i;
		if (bpf_map_update_elem(fd, &k, &s->ctr.fds[i], BPF_ANY))
			return -errno;
	}
	return 0;
}

static const char *bpf_hint(int err)
{
	if (err == -EPERM || err == -EACCES)
		return "run as root, or grant CAP_BPF and CAP_PERFMON";
	if (err == -ENOENT || err == -ESRCH)
		return "the kernel lacks BTF (/sys/kernel/btf/vmlinux) or a sched tracepoint; tdbpf needs Linux >= 5.18 with CONFIG_DEBUG_INFO_BTF";
	if (err == -E2BIG || err == -ENOMEM)
		return "lower --max-tasks or raise the locked-memory limit";
	return "run with -v to see libbpf's messages";
}

static int setup(struct session *s, char *err, size_t len)
{
	const struct options *o = s->o;
	int e, i;

	libbpf_set_print(o->verbose ? libbpf_print_verbose : libbpf_print);
	s->ncpu = libbpf_num_possible_cpus();
	if (s->ncpu <= 0 || s->ncpu > TDBPF_MAX_CPUS) {
		snprintf(err, len, "cannot count the possible CPUs (%d)",
			 s->ncpu);
		return -1;
	}
	s->online = calloc((size_t)s->ncpu, sizeof(*s->online));
	s->vals = calloc(1, sizeof(*s->vals));
	if (!s->online || !s->vals) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	cpus_online(s->online, s->ncpu);

	if (counters_open(&s->ctr, s->plan, s->ncpu, err, len))
		return -1;

	s->skel = tdbpf_bpf__open();
	if (!s->skel) {
		snprintf(err, len, "cannot open the BPF object: %s; %s",
			 strerror(errno), bpf_hint(-errno));
		return -1;
	}
	s->skel->rodata->nr_cpus = (__u32)s->ncpu;
	/* counters only: the rest is read from the task (EV_TASK) */
	s->skel->rodata->nr_events = (__u32)s->plan->nr_counters;
	s->skel->rodata->group_leads = 0;
	for (i = 0; i < s->plan->nr_groups; i++)
		if (s->plan->leader[i] < s->plan->nr_counters)
			s->skel->rodata->group_leads |=
				1ULL << s->plan->leader[i];
	s->skel->rodata->track_mode = o->all	     ? TDBPF_TRACK_ALL :
				      o->nr_tids ? TDBPF_TRACK_TID :
						   TDBPF_TRACK_TGID;
	s->skel->rodata->follow_children = o->children;
	/* a little before attach: a task born meanwhile counts whole */
	s->skel->rodata->attach_ns = now_ns();
	bpf_map__set_max_entries(s->skel->maps.counters,
				 (__u32)(s->plan->nr_counters ?
						 s->plan->nr_counters : 1) *
					 (__u32)s->ncpu);
	bpf_map__set_max_entries(s->skel->maps.tasks, (__u32)o->max_tasks);
	bpf_map__set_max_entries(s->skel->maps.exited, (__u32)o->max_tasks);
	bpf_program__set_autoattach(s->skel->progs.tdbpf_flush, false);
	bpf_program__set_autoattach(s->skel->progs.tdbpf_dump, false);
	s->skel->rodata->max_tasks = (__u32)o->max_tasks;

	e = tdbpf_bpf__load(s->skel);
	if (e) {
		/* as root, EACCES on load is the verifier saying no */
		snprintf(err, len, "cannot load the BPF programs: %s; %s",
			 strerror(-e),
			 e == -EACCES && geteuid() == 0 ?
				 "the kernel's verifier rejected them: run with -v for its log and report it" :
				 bpf_hint(e));
		return -1;
	}
	s->tasks_fd = bpf_map__fd(s->skel->maps.tasks);
	s->stats_fd = bpf_map__fd(s->skel->maps.stats);
	s->exited_fd = bpf_map__fd(s->skel->maps.exited);
	s->flush_fd = bpf_program__fd(s->skel->progs.tdbpf_flush);

	e = fill_counters(s);
	if (!e)
		e = fill_filter(s);
	if (e) {
		snprintf(err, len, "cannot fill the BPF maps: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	e = tdbpf_bpf__attach(s->skel);
	if (e) {
		snprintf(err, len, "cannot attach to the sched tracepoints: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	s->iter = bpf_program__attach_iter(s->skel->progs.tdbpf_dump, NULL);
	if (!s->iter) {
		e = -errno;
		snprintf(err, len, "cannot create the task iterator: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	/* baseline every CPU now, so the first slices are charged whole */
	flush_cpus(s);
	if (o->verbose)
		fprintf(stderr,
			"tdbpf: attached: model %s, %d counters in %d groups on %d CPUs\n",
			s->plan->model ? s->plan->model->name : "none (-e)",
			s->plan->nr, s->plan->nr_groups,
			s->ncpu);
	return 0;
}

static void teardown(struct session *s)
{
	/* links, programs and maps go with the skeleton; counters after */
	bpf_link__destroy(s->iter);
	s->iter = NULL;
	tdbpf_bpf__destroy(s->skel);
	s->skel = NULL;
	counters_close(&s->ctr);
	tasks_free(&s->archive);
	tasks_free(&s->snap);
	tasks_free(&s->prev);
	tasks_free(&s->base);
	free(s->online);
	free(s->vals);
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed output pipe is an EPIPE write error, handled as a stop */
	signal(SIGPIPE, SIG_IGN);
}

static void stop_child(struct session *s)
{
	int i;

	if (s->child <= 0 || s->child_exited)
		return;
	kill(s->child, SIGTERM);
	for (i = 0; i < 50; i++) {
		if (waitpid(s->child, &s->child_status, WNOHANG) == s->child) {
			s->child_exited = true;
			return;
		}
		usleep(20000);
	}
	kill(s->child, SIGKILL);
	waitpid(s->child, &s->child_status, 0);
	s->child_exited = true;
}

int session_run(const struct options *o, const struct event_plan *plan,
		FILE *out)
{
	struct session s = { .o = o, .plan = plan, .go_fd = -1, .err_fd = -1 };
	__u64 start, deadline = 0, next_iv = 0, last_iv, now, t0, t1, t2;
	struct task_table iv;
	bool child_done;
	char err[512];
	int rc = 0, n_iv = 0, e, wr = 0;

	tasks_init(&s.archive);
	tasks_init(&s.snap);
	tasks_init(&s.prev);
	tasks_init(&s.base);
	tasks_init(&iv);
	/* rows as wide as the counters programmed, not TDBPF_MAX_EVENTS */
	tasks_set_events(&s.archive, plan->nr);
	tasks_set_events(&s.snap, plan->nr);
	tasks_set_events(&s.prev, plan->nr);
	tasks_set_events(&s.base, plan->nr);
	tasks_set_events(&iv, plan->nr);
	install_signals();
	for (e = 0; e < OPT_MAX_TARGETS; e++)
		s.pidfd[e] = -1;

	if (o->argv && launch(&s, err, sizeof(err))) {
		err_line("%s", err);
		return 1;
	}
	if (setup(&s, err, sizeof(err))) {
		err_line("%s", err);
		if (s.child > 0) {
			close(s.go_fd);	/* the child exits without exec */
			waitpid(s.child, NULL, 0);
		}
		teardown(&s);
		return 1;
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
	start = now_ns();
	sleep_one_tick();
	if (collect(&s) == 0) {
		tasks_merge(&s.base, &s.snap, plan->nr);
		tasks_merge(&s.prev, &s.snap, plan->nr);
	}
	privs_drop_after_setup();
	if (o->argv && release(&s, err, sizeof(err))) {
		err_line("%s", err);
		teardown(&s);
		return 1;
	}

	open_pidfds(&s);
	last_iv = start;
	if (o->duration > 0)
		deadline = start + (__u64)(o->duration * 1e9);
	if (o->interval_ms > 0)
		next_iv = start + (__u64)o->interval_ms * 1000000ULL;

	while (!stop_sig) {
		__u64 wait_ms = TICK_MS;

		now = now_ns();
		if (deadline && now >= deadline)
			break;
		if (next_iv && now >= next_iv) {
			/* interval deltas: this snapshot minus the last one */
			if (collect(&s) == 0) {
				/* the snapshot's end: see the final report */
				now = now_ns();
				tasks_reset(&iv);
				tasks_diff(&s.snap, &s.prev, &iv, plan->nr);
				e = report_now(&s, &iv, now - last_iv, n_iv++,
					       out);
				tasks_reset(&s.prev);
				tasks_merge(&s.prev, &s.snap, plan->nr);
				if (e) {
					/* no reader, or no room: stop */
					wr = e;
					break;
				}
			}
			last_iv = now;
			next_iv += (__u64)o->interval_ms * 1000000ULL;
		}
		drain_exited(&s, &s.archive);
		if (!targets_alive(&s))
			break;
		if (deadline && (deadline - now) / 1000000ULL < wait_ms)
			wait_ms = (deadline - now) / 1000000ULL + 1;
		if (next_iv && now < next_iv &&
		    (next_iv - now) / 1000000ULL < wait_ms)
			wait_ms = (next_iv - now) / 1000000ULL + 1;
		poll(NULL, 0, (int)wait_ms);
	}

	/* the command ended first: its status is tdbpf's (perf's habit) */
	child_done = s.child > 0 && s.child_exited;
	/* the final report covers the whole run, whatever stopped it */
	t0 = now_ns();
	e = collect(&s);
	t1 = now_ns();
	/*
	 * The run ends once the sums are read: a task that switches out
	 * while they are read is charged up to then, so an end taken before
	 * the read would leave its last slice past the end.
	 */
	now = t1;
	if (e) {
		fprintf(stderr,
			"tdbpf: reading the task sums failed: %s; the report shows what was read\n",
			strerror(-e));
		rc = 1;
	}
	/* detaching waits for the trampolines to drain: not report time */
	tdbpf_bpf__detach(s.skel);
	t2 = now_ns();
	if (o->interval_ms > 0 && !o->json && !o->sep)
		fprintf(out, "\n--- whole run ---\n");
	tasks_reset(&iv);
	if (wr)
		e = wr;		/* said already; nothing more can be written */
	else if (tasks_diff(&s.snap, &s.base, &iv, plan->nr))
		e = -ENOMEM;
	else
		e = report_now(&s, &iv, now - start, -1, out);
	if (o->verbose)
		fprintf(stderr,
			"tdbpf: final report: %zu tasks, collect %.1f ms, decode and write %.1f ms\n",
			iv.nr, (t1 - t0) / 1e6, (now_ns() - t2) / 1e6);
	if (e == -EPIPE)
		rc = rc ? rc : 0;	/* the reader went away: not our error */
	else if (e)
		rc = 1;
	else if (!rc && child_done)
		rc = out_child_status(s.child_status);
	stop_child(&s);
	tasks_free(&iv);
	close_pidfds(&s);
	teardown(&s);
	return rc;
}
