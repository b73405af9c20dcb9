// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer's collect (tracer.h): charge what runs up to now, read every
 * task's sums (live ones through the task iterator, exited ones from the
 * exit queue and the tasks map) and what was lost, into a snapshot.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sources/cgroups_proc.h"
#include "sources/peer_reader.h"
#include "sources/tracer_priv.h"
#include "sums/archive.h"
#include "sums/task_events.h"
#include "support/loop.h"

void tracer_flush_cpus(struct tracer *t)
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
 * first seen (or born) to its death or to when its sums were read (@now
 * where the iterator did not say), minus the kernel's on-CPU and run-queue
 * times. It includes a wait in the run queue that has not ended yet then
 * (the kernel adds a wait to run_delay when it ends).
 */
static void fill_off_cpu(struct tdbpf_task *v, __u64 now)
{
	__u64 end = v->end_ns ? v->end_ns : v->read_ns ? v->read_ns : now;
	__u64 life = end > v->start_ns ? end - v->start_ns : 0;
	__u64 busy = v->sched.on_cpu_ns + v->sched.runq_wait_ns;

	v->sched.off_cpu_ns = life > busy ? life - busy : 0;
	/* a dead task waits no more (an earlier read's value may stay) */
	if (v->end_ns)
		v->sched.open_wait_ns = 0;
	/* two clocks: never more than its blocked time */
	if (v->sched.open_wait_ns > v->sched.off_cpu_ns)
		v->sched.open_wait_ns = v->sched.off_cpu_ns;
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
	out->wakeups_missed = missed_runs(t->skel->progs.tdbpf_waking) +
			      missed_runs(t->skel->progs.tdbpf_wakeup);
	out->sock_unresolved = sum[TDBPF_STAT_SOCK_UNRESOLVED];
	out->spans_lost = sum[TDBPF_STAT_SPAN_LOST];
	out->span_exits_unmatched = sum[TDBPF_STAT_SPAN_UNMATCHED];
	out->spans_too_deep = sum[TDBPF_STAT_SPAN_DEEP];
	/* an LRU pushes out silently: what went in beyond its size */
	if (t->skel->rodata->track_sockets &&
	    sum[TDBPF_STAT_SOCK_NEW] > (__u64)t->c.sock_max)
		out->sock_evicted = sum[TDBPF_STAT_SOCK_NEW] -
				    (__u64)t->c.sock_max;
}

/*
 * The live tasks' sums into @to, from the task iterator: one record per
 * task, its entry up to the last programmed counter, then with wakeups
 * its waker slots and its run-queue wait as read after them. seq_file
 * may split a record across reads, so a partial one is carried over.
 */
static int read_live(struct tracer *t, struct task_table *to, __u64 now)
{
	/* the BPF record holds the counters only (not EV_TASK slots) */
	size_t sums = TDBPF_TASK_HDR_SIZE +
		      (size_t)t->c.plan->nr_counters *
			      sizeof(struct tdbpf_count);
	/* with the graph: a count of the slots that follow, then those */
	size_t head = sums + (t->c.wakeups ? sizeof(struct tdbpf_rec_waits) :
					     0);
	size_t tail = t->c.wakeups ? sizeof(__u64) : 0;
	struct tdbpf_wait w[TDBPF_NR_WAITS];
	struct tdbpf_task *v = &t->vals[0];
	size_t cap = ITER_BATCH * (head + sizeof(w) + tail), len = 0, off, rec;
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
		for (off = 0; off + head <= len; off += rec) {
			struct tdbpf_rec_waits h = { 0, 0 };

			if (t->c.wakeups) {
				memcpy(&h, buf + off + sums, sizeof(h));
				if (h.wakers > TDBPF_WAKER_SLOTS ||
				    h.holders > TDBPF_WAKER_SLOTS) {
					err = -EPROTO;
					goto out;
				}
			}
			rec = head + (h.wakers + h.holders) * sizeof(w[0]);
			if (off + rec + tail > len)
				break;	/* the rest in the next read */
			memcpy(v, buf + off, sums);
			memcpy(w, buf + off + head, rec - head);
			if (tail)
				memcpy(&v->sched.runq_wait_ns, buf + off + rec,
				       tail);
			rec += tail;
			fill_off_cpu(v, now);
			task_events_fill(t->c.plan, v);
			if (tasks_add_slots(to, v, w, (int)(h.wakers + h.holders),
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
	const struct tdbpf_wait *waits;
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
		/* sampled: its waits, kept at its exit */
		waits = NULL;
		if (t->c.wakeups &&
		    !bpf_map_lookup_elem(t->dead_wakes_fd, &key, &t->wake))
			waits = t->wake.waits;
		if (tasks_add(to, v, waits, t->c.plan->nr))
			return -ENOMEM;
	}
	return 0;
}

/*
 * Sampled: every wait whose wakeup fell in a window was seen, and a
 * moment is in a window with the chance 1 / TRACER_SAMPLE_SCALE
 * (tracer_sample.c). The waits seen share out each task's exact blocked
 * time, waker by waker (sums/wait_share.h): never more than it, and
 * growing, so that sums stay additive across reports (an interval's is
 * the difference of two) and a Prometheus counter never goes down. The
 * softirq time the socket hooks measure is scaled, bounded by on-CPU.
 */
static int scale_sampled(struct tracer *t, struct task_table *tasks,
			 struct lost_stats *lost, __u64 seen_ns, bool defer)
{
	size_t i;

	for (i = 0; i < tasks->nr; i++) {
		struct task_row *r = tasks_row(tasks, i);
		__u64 soft = r->sched.softirq_ns * TRACER_SAMPLE_SCALE;

		/* the softirq hooks run in the windows too; part of on-CPU */
		r->sched.softirq_ns = soft < r->sched.on_cpu_ns ?
					      soft :
					      r->sched.on_cpu_ns;
	}
	lost->wake_scale = TRACER_SAMPLE_SCALE;
	lost->sampled_ns = seen_ns;
	if (wait_share_apply(&t->shares, tasks, TRACER_SAMPLE_SCALE,
			     seen_ns, defer))
		return -ENOMEM;
	lost->sampled_wakeups = t->shares.wakeups_seen;
	return 0;
}

/*
 * Read-free: the exits until now settled? Counted, not "none exiting":
 * with -a on a busy machine tasks never stop exiting, and waiting for
 * none made every -a run a second longer.
 */
static bool exits_settled(const struct tdbpf_filter *tr, __u32 exited)
{
	__u32 settled = __atomic_load_n(&tr->nr_settled, __ATOMIC_RELAXED);

	return (__s32)(settled - exited) >= 0;
}

void tracer_settle(struct tracer *t, int max_ms, bool targets_gone)
{
	const struct tdbpf_filter *tr = &t->skel->bss->track;
	__u64 end = loop_now_ns() + (__u64)max_ms * 1000000ULL;
	__u32 exited = __atomic_load_n(&tr->nr_exited, __ATOMIC_RELAXED);

	while (loop_now_ns() < end &&
	       (t->read_free ? !exits_settled(tr, exited) :
			       targets_gone && tr->nr_live))
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

static int collect(struct tracer *t, struct snapshot *out, bool defer)
{
	int nr = t->c.plan->nr;
	struct task_table late;
	size_t i;
	__u64 now;
	int err;

	tracer_flush_cpus(t);
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
	/* a runtime's whole names (a JVM's), where it told them */
	if (!err && t->jvm.nr)
		err = jvm_probe_collect(bpf_map__fd(t->skel->maps.jnames),
					t->c.names);
	if (!err && t->c.names)
		thread_names_apply(t->c.names, &out->tasks);
	read_lost(t, &out->lost);
	if (!err)
		err = span_probes_read(t, &out->spans);
	if (!err && t->sample.nr)
		err = scale_sampled(t, &out->tasks, &out->lost,
				    sampler_seen_ns(t), defer);
	out->at_ns = loop_now_ns();
	out->wall_ns = wall_now_ns();
	if (gethostname(out->host, sizeof(out->host) - 1))
		out->host[0] = 0;
	/* flow halves: what joins this host's graph to others' */
	if (!err && t->c.wakeups)
		err = peer_reader_collect(t->c.peers, &out->flows,
					  &out->tasks);
	/* the new processes' cgroups, read once: a row's container */
	if (!err)
		err = cgroups_collect(&t->cgroups, &out->tasks, "/proc");
	if (!err)
		err = cgroups_copy(&out->cgroups, &t->cgroups);
	return err;
}

int tracer_collect(struct tracer *t, struct snapshot *out)
{
	return collect(t, out, false);
}

int tracer_collect_scrape(struct tracer *t, struct snapshot *out)
{
	return collect(t, out, true);
}
