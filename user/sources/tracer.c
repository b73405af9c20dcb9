// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer (tracer.h): the plan's counters on every CPU, the BPF
 * programs, and the reading of the per-task sums they keep. The only
 * file that sees the skeleton.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "tdbpf.h"		/* the skeleton's .bss is a struct tdbpf_filter */
#include "sources/counters.h"
#include "sources/flows_proc.h"
#include "sources/percpu.h"
#include "sources/tracer.h"
#include "sums/archive.h"
#include "sums/task_events.h"
#include "support/loop.h"
#include "tdbpf.skel.h"

/* the BPF side aligns it so; the skeleton shows where the link put it */
_Static_assert(__builtin_offsetof(struct tdbpf_bpf__bss, track) % 4096 == 0,
	       "track starts a page of the .bss map");

/* Task iterator records read per read(): a seq_file buffer's worth. */
#define ITER_BATCH	2048

struct tracer {
	struct tracer_conf c;
	struct tdbpf_bpf *skel;
	struct counters ctr;
	int ncpu;
	bool *online;
	int tasks_fd, stats_fd, exited_fd, flush_fd, dead_wakes_fd;
	struct bpf_link *iter;		/* task iterator: live tasks' sums */
	struct task_table archive;	/* exited tasks, deleted from the map */
	struct tdbpf_task *vals;	/* one entry: scratch for a record */
	struct tdbpf_wake wake;		/* a dead task's waker state */
	bool detached;
	bool read_free;			/* sums read from the tasks (BPF) */
	__u32 fold_key;			/* next key of a folded exited row */
};

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

/* ---- collecting --------------------------------------------------------- */

static void flush_cpus(struct tracer *t)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU);
	int cpu;

	/* read-free: the iterator reads every task's sums itself */
	if (t->read_free)
		return;
	for (cpu = 0; cpu < t->ncpu; cpu++) {
		if (!t->online[cpu])
			continue;
		opts.cpu = cpu;
		/* a CPU that went offline meanwhile just fails: nothing runs there */
		bpf_prog_test_run_opts(t->flush_fd, &opts);
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
	__u64 busy = v->sched.on_cpu_ns + v->sched.runq_wait_ns;

	v->sched.off_cpu_ns = life > busy ? life - busy : 0;
}

/* Move the entry of exited task @tid from the map to @to. */
static void archive_task(struct tracer *t, __u32 tid, struct task_table *to)
{
	struct tdbpf_task *v = &t->vals[0];
	const struct tdbpf_wait *waits = NULL;

	/*
	 * Read and delete at once: the tid may come back in a new task. Its
	 * waker state was stored before its tid was queued; a task that
	 * never blocked has none.
	 */
	if (t->c.wakeups &&
	    !bpf_map_lookup_and_delete_elem(t->dead_wakes_fd, &tid, &t->wake))
		waits = t->wake.waits;
	if (bpf_map_lookup_and_delete_elem(t->tasks_fd, &tid, v))
		return;
	fill_off_cpu(v, loop_now_ns());
	task_events_fill(t->c.plan, v);
	tasks_add(to, v, waits, t->c.plan->nr);
}

/* Drain the queue of tasks that switched out dead. Cheap: no map scan. */
static void drain_exited(struct tracer *t, struct task_table *to)
{
	__u32 tid;

	while (!bpf_map_lookup_and_delete_elem(t->exited_fd, NULL, &tid))
		archive_task(t, tid, to);
}

int tracer_fold_exited(struct tracer *t, struct task_table *base)
{
	return archive_fold(&t->archive, base, &t->fold_key);
}

int tracer_prog_stats(const struct tracer *t, struct tracer_prog_stat *out,
		      int max)
{
	struct bpf_program *prog;
	char on = '0';
	int fd, n = 0;

	fd = open("/proc/sys/kernel/bpf_stats_enabled", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &on, 1) != 1)
			on = '0';
		close(fd);
	}
	if (on != '1')
		return 0;
	bpf_object__for_each_program(prog, t->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		fd = bpf_program__fd(prog);
		memset(&info, 0, sizeof(info));
		if (n == max || fd < 0 ||
		    bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		out[n].name = bpf_program__name(prog);
		out[n].run_ns = info.run_time_ns;
		out[n].run_cnt = info.run_cnt;
		n++;
	}
	return n;
}

void tracer_drain(struct tracer *t)
{
	drain_exited(t, &t->archive);
}

static int on_drain(struct loop *l, uint64_t n, void *arg)
{
	(void)l;
	(void)n;
	tracer_drain(arg);
	return 0;
}

int tracer_watch(struct tracer *t, struct loop *l)
{
	if (!loop_add_timer(l, loop_now_ns(), TRACER_DRAIN_MS * 1000000ULL,
			    on_drain, t))
		return -errno;
	return 0;
}

/*
 * Runs of @prog the kernel skipped because it was already running on
 * that CPU (a wakeup in an interrupt while the waking program ran for
 * another): those wakeups were not seen. 0 for a program not loaded.
 */
static __u64 missed_runs(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_program__fd(prog);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

static void read_lost(struct tracer *t, struct lost_stats *out)
{
	__u64 *v = calloc((size_t)t->ncpu, sizeof(*v));
	__u64 sum[TDBPF_NR_STATS] = { 0 };
	__u32 k;
	int c;

	memset(out, 0, sizeof(*out));
	if (!v)
		return;
	for (k = 0; k < TDBPF_NR_STATS; k++) {
		if (bpf_map_lookup_elem(t->stats_fd, &k, v))
			continue;
		for (c = 0; c < t->ncpu; c++)
			sum[k] += v[c];
	}
	free(v);
	out->map_full = sum[TDBPF_STAT_MAP_FULL];
	out->read_errors = sum[TDBPF_STAT_READ_ERR];
	out->unseen_switch_ins = sum[TDBPF_STAT_UNSEEN];
	out->wakers = sum[TDBPF_STAT_WAITS_FULL];
	out->wakeups_missed = missed_runs(t->skel->progs.tdbpf_waking);
}

/*
 * The live tasks' sums into @to, from the task iterator: one record per
 * task, its entry up to the last programmed counter, then its waker slots
 * with wakeups. seq_file may split a record across reads, so a partial
 * one is carried over.
 */
static int read_live(struct tracer *t, struct task_table *to, __u64 now)
{
	/* the BPF record holds the counters only (not EV_TASK slots) */
	size_t sums = TDBPF_TASK_HDR_SIZE +
		      (size_t)t->c.plan->nr_counters *
			      sizeof(struct tdbpf_count);
	size_t wsize = t->c.wakeups ? sizeof(t->wake.waits) : 0;
	size_t rec = sums + wsize;
	struct tdbpf_task *v = &t->vals[0];
	size_t cap = ITER_BATCH * rec, len = 0, off;
	char *buf;
	int fd, err = 0;
	ssize_t n;

	/*
	 * Room for every live task (and the archive merged after) at once:
	 * growing a table of 10,000 rows by doubling copied it eight times.
	 */
	if (tasks_reserve(to, t->skel->bss->track.nr_live +
				      t->skel->bss->track.nr_exiting +
				      t->archive.nr + 64))
		return -ENOMEM;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	fd = bpf_iter_create(bpf_link__fd(t->iter));
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
			memcpy(v, buf + off, sums);
			fill_off_cpu(v, now);
			task_events_fill(t->c.plan, v);
			/* waker slots are 8-byte aligned in the record too */
			if (tasks_add(to, v,
				      wsize ? (const struct tdbpf_wait
						       *)(buf + off + sums) :
					      NULL,
				      t->c.plan->nr)) {
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
 * Read-free: the tasks that exited and are not freed yet, from the tasks
 * map (the iterator may no longer see them), as live tasks are read: a
 * row the iterator read before the task exited gives way to this newer
 * one. Their entries stay; each is queued once the task is freed.
 */
static int read_exiting(struct tracer *t, struct task_table *to, __u64 now)
{
	struct tdbpf_task *v = &t->vals[0];
	__u32 key, next, *prev = NULL;

	if (!t->read_free || !t->skel->bss->track.nr_exiting)
		return 0;
	while (!bpf_map_get_next_key(t->tasks_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(t->tasks_fd, &key, v) ||
		    !(v->flags & TDBPF_TASK_EXITING))
			continue;
		fill_off_cpu(v, now);
		task_events_fill(t->c.plan, v);
		tasks_clear(to, v->tid);
		if (tasks_add(to, v, NULL, t->c.plan->nr))
			return -ENOMEM;
	}
	return 0;
}

void tracer_settle(struct tracer *t, int max_ms)
{
	__u64 end = loop_now_ns() + (__u64)max_ms * 1000000ULL;

	while (t->read_free && t->skel->bss->track.nr_exiting &&
	       loop_now_ns() < end)
		usleep(2000);
}

/*
 * Charge running tasks up to now, then build @out = archive + live
 * tasks. A task that dies while we read is archived whole just after: its
 * live reading, older and part of the same sums, is dropped, or it would
 * count twice. The loss counters are read last, so they cover at least
 * every slice in the sums read.
 */
static __u64 wall_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
}

int tracer_collect(struct tracer *t, struct snapshot *out)
{
	int nr = t->c.plan->nr;
	struct task_table late;
	size_t i;
	__u64 now;
	int err;

	flush_cpus(t);
	now = loop_now_ns();
	drain_exited(t, &t->archive);
	snapshot_reset(out);
	tasks_set_layout(&out->tasks, nr, t->c.wakeups);
	err = read_live(t, &out->tasks, now);
	if (!err)
		err = read_exiting(t, &out->tasks, now);
	if (!err) {
		tasks_init(&late);
		tasks_set_layout(&late, nr, t->c.wakeups);
		drain_exited(t, &late);
		for (i = 0; i < late.nr; i++)
			tasks_clear(&out->tasks, tasks_row(&late, i)->tid);
		err = tasks_merge(&t->archive, &late, nr);
		tasks_free(&late);
		if (!err)
			err = tasks_merge(&out->tasks, &t->archive, nr);
	}
	read_lost(t, &out->lost);
	out->at_ns = loop_now_ns();
	out->wall_ns = wall_now_ns();
	if (gethostname(out->host, sizeof(out->host) - 1))
		out->host[0] = 0;
	/* flow halves: what joins this host's graph to others' */
	if (!err && t->c.wakeups)
		err = flows_collect(&out->flows, &out->tasks);
	return err;
}

/* ---- setup ---------------------------------------------------------- */

static int track_id(struct tracer *t, pid_t id)
{
	__u32 k = (__u32)id;

	/* ids above PID_MAX_LIMIT do not exist; refuse rather than miss */
	if (k >= TDBPF_TRACK_WORDS * 64)
		return -ERANGE;
	/* .bss is mmap'ed: this is the BPF program's own memory */
	__atomic_fetch_or(&t->skel->bss->track.track_bits[k / 64],
			  1ULL << (k % 64),
			  __ATOMIC_RELAXED);
	return 0;
}

static int fill_filter(struct tracer *t)
{
	const struct tracer_targets *g = &t->c.targets;
	int i, e = 0;

	for (i = 0; i < g->nr_pids && !e; i++)
		e = track_id(t, g->pids[i]);
	for (i = 0; i < g->nr_tids && !e; i++)
		e = track_id(t, g->tids[i]);
	if (g->child > 0 && !e)
		e = track_id(t, g->child);
	return e;
}

static int fill_counters(struct tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.counters);
	const char *drop = getenv("TDBPF_TEST_DROP_CPU");
	int i, drop_cpu = drop ? atoi(drop) : -1;
	__u32 k;

	for (i = 0; i < t->ctr.nr * t->ncpu; i++) {
		if (t->ctr.fds[i] < 0)
			continue;
		/*
		 * Fault injection for the tests: leave one CPU's slots empty,
		 * so that every counter read there fails in the kernel.
		 */
		if (drop && i % t->ncpu == drop_cpu)
			continue;
		k = (__u32)i;
		if (bpf_map_update_elem(fd, &k, &t->ctr.fds[i], BPF_ANY))
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

/*
 * Where the waking program finds this CPU's preempt count and hrtimer
 * bases (the waker's context): their distance from the run queue. A
 * kernel that has neither (or no BTF section for them) leaves them 0:
 * interrupts then cannot be told from the task they interrupted.
 */
static void waker_context(struct tracer *t)
{
	struct btf *btf = btf__load_vmlinux_btf();
	__s64 d;

	if (!btf)
		return;
	if (!percpu_distance(btf, "runqueues", "__preempt_count", &d))
		t->skel->rodata->preempt_from_rq = d;
	else if (!percpu_distance(btf, "runqueues", "pcpu_hot", &d))
		/* 6.1-6.14: after pcpu_hot's current_task pointer */
		t->skel->rodata->preempt_from_rq = d + 8;
	if (!percpu_distance(btf, "runqueues", "hrtimer_bases", &d))
		t->skel->rodata->hrtimers_from_rq = d;
	if (t->c.verbose && !t->skel->rodata->preempt_from_rq)
		fprintf(stderr, "tdbpf: no per-CPU preempt count in the kernel's BTF: wakeups from interrupts are charged to the task they interrupt\n");
	btf__free(btf);
}

/* Before load: what the programs are built for, and the map sizes. */
static void configure(struct tracer *t)
{
	const struct tracer_conf *c = &t->c;
	const struct event_plan *plan = c->plan;
	struct tdbpf_bpf *skel = t->skel;
	int i;

	skel->rodata->nr_cpus = (__u32)t->ncpu;
	/* counters only: the rest is read from the task (EV_TASK) */
	skel->rodata->nr_events = (__u32)plan->nr_counters;
	memset(skel->rodata->group_leads, 0, sizeof(skel->rodata->group_leads));
	for (i = 0; i < plan->nr_groups; i++)
		if (plan->leader[i] < plan->nr_counters)
			skel->rodata->group_leads[plan->leader[i] / 64] |=
				1ULL << (plan->leader[i] % 64);
	skel->bss->track.track_mode = c->targets.all     ? TDBPF_TRACK_ALL :
				   c->targets.nr_tids ? TDBPF_TRACK_TID :
							TDBPF_TRACK_TGID;
	skel->rodata->follow_children = c->targets.children;
	bpf_map__set_max_entries(skel->maps.counters,
				 (__u32)(plan->nr_counters ? plan->nr_counters :
							     1) *
					 (__u32)t->ncpu);
	bpf_map__set_max_entries(skel->maps.tasks, (__u32)c->max_tasks);
	bpf_map__set_max_entries(skel->maps.exited, (__u32)c->max_tasks);
	bpf_map__set_max_entries(skel->maps.dead_wakes,
				 c->wakeups ? (__u32)c->max_tasks : 1);
	/* run on demand (flush) or through the iterator link (dump) */
	bpf_program__set_autoattach(skel->progs.tdbpf_flush, false);
	bpf_program__set_autoattach(skel->progs.tdbpf_dump, false);
	skel->rodata->max_tasks = (__u32)c->max_tasks;
	/* wakeups: opt-in, the waking program is not even loaded without */
	skel->rodata->track_wakeups = c->wakeups;
	/*
	 * Nothing to read at a switch: sums come from the tasks at a collect
	 * and at their exit, and no program runs at a switch at all.
	 */
	t->read_free = !plan->nr_counters && !c->wakeups;
	skel->rodata->read_free = t->read_free;
	bpf_program__set_autoload(skel->progs.tdbpf_switch, !t->read_free);
	bpf_program__set_autoload(skel->progs.tdbpf_exit, t->read_free);
	bpf_program__set_autoload(skel->progs.tdbpf_waking, c->wakeups);
	if (c->wakeups)
		waker_context(t);
}

static int setup(struct tracer *t, char *err, size_t len)
{
	int e;

	t->ncpu = libbpf_num_possible_cpus();
	if (t->ncpu <= 0 || t->ncpu > TDBPF_MAX_CPUS) {
		snprintf(err, len, "cannot count the possible CPUs (%d)",
			 t->ncpu);
		return -1;
	}
	t->online = calloc((size_t)t->ncpu, sizeof(*t->online));
	t->vals = calloc(1, sizeof(*t->vals));
	if (!t->online || !t->vals) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	cpus_online(t->online, t->ncpu);

	if (counters_open(&t->ctr, t->c.plan, t->ncpu, err, len))
		return -1;

	t->skel = tdbpf_bpf__open();
	if (!t->skel) {
		snprintf(err, len, "cannot open the BPF object: %s; %s",
			 strerror(errno), bpf_hint(-errno));
		return -1;
	}
	configure(t);
	e = tdbpf_bpf__load(t->skel);
	if (e) {
		/* as root, EACCES on load is the verifier saying no */
		snprintf(err, len, "cannot load the BPF programs: %s; %s",
			 strerror(-e),
			 e == -EACCES && geteuid() == 0 ?
				 "the kernel's verifier rejected them: run with -v for its log and report it" :
				 bpf_hint(e));
		return -1;
	}
	t->tasks_fd = bpf_map__fd(t->skel->maps.tasks);
	t->stats_fd = bpf_map__fd(t->skel->maps.stats);
	t->exited_fd = bpf_map__fd(t->skel->maps.exited);
	t->flush_fd = bpf_program__fd(t->skel->progs.tdbpf_flush);
	t->dead_wakes_fd = bpf_map__fd(t->skel->maps.dead_wakes);

	e = fill_counters(t);
	if (!e)
		e = fill_filter(t);
	if (e) {
		snprintf(err, len, "cannot fill the BPF maps: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	e = tdbpf_bpf__attach(t->skel);
	if (e) {
		snprintf(err, len, "cannot attach to the sched tracepoints: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	/* from now on a task born is seen from its first slice: whole */
	__atomic_store_n(&t->skel->data->attach_ns, loop_now_ns(),
			 __ATOMIC_RELEASE);
	t->iter = bpf_program__attach_iter(t->skel->progs.tdbpf_dump, NULL);
	if (!t->iter) {
		e = -errno;
		snprintf(err, len, "cannot create the task iterator: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	/* baseline every CPU now, so the first slices are charged whole */
	flush_cpus(t);
	return 0;
}

struct tracer *tracer_open(const struct tracer_conf *c, char *err,
			   size_t errlen)
{
	struct tracer *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->c = *c;
	tasks_init(&t->archive);
	t->fold_key = ARCHIVE_FOLDED_TID;
	/* rows as wide as the counters programmed, not TDBPF_MAX_EVENTS */
	tasks_set_layout(&t->archive, c->plan->nr, c->wakeups);
	libbpf_set_print(c->verbose ? libbpf_print_verbose : libbpf_print);
	if (setup(t, err, errlen)) {
		tracer_close(t);
		return NULL;
	}
	if (c->verbose)
		fprintf(stderr,
			"tdbpf: attached: model %s, %d counters in %d groups on %d CPUs\n",
			c->plan->model ? c->plan->model->name : "none (-e)",
			c->plan->nr, c->plan->nr_groups,
			t->ncpu);
	return t;
}

void tracer_detach(struct tracer *t)
{
	/* detaching waits for the trampolines to drain */
	if (t->skel && !t->detached)
		tdbpf_bpf__detach(t->skel);
	t->detached = true;
}

void tracer_close(struct tracer *t)
{
	if (!t)
		return;
	/* links, programs and maps go with the skeleton; counters after */
	bpf_link__destroy(t->iter);
	tdbpf_bpf__destroy(t->skel);
	counters_close(&t->ctr);
	tasks_free(&t->archive);
	free(t->online);
	free(t->vals);
	free(t);
}
