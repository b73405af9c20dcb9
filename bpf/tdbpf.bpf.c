// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side: charge per-CPU counter deltas and scheduling time to the
 * task that ran the slice, at sched_switch.
 *
 * Counters are opened by user space on every CPU (pid=-1, cpu=N) and stored
 * in @counters at event * nr_cpus + cpu. At a switch we read this CPU's
 * counters once, charge "now - reading at switch-in" to prev and keep "now"
 * as next's baseline. Nothing is scaled here: value, enabled and running are
 * summed so user space can scale per task. What the kernel already counts
 * per task (CPU time, run-queue wait, migrations, switches, page faults) is
 * read from prev itself at its switch-out, against a baseline from when it
 * was first seen: the software model needs no counter at all.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tdbpf.h"

char LICENSE[] SEC("license") = "GPL";

#define TASK_RUNNING	0x0000
#define TASK_DEAD	0x0080
#define EEXIST		17
#define PF_EXITING	0x00000004
#define PF_KTHREAD	0x00200000
/* include/linux/preempt.h */
#define SOFTIRQ_OFFSET	0x00000100
#define HARDIRQ_MASK	0x000f0000
#define NMI_MASK	0x00f00000
/* hrtimer clock bases: 0-3 expire in hard irq, 4-7 (_SOFT) in softirq */
#define HRTIMER_SOFT	4

/* Set by user space before load. */
const volatile __u32 nr_cpus = 1;
const volatile __u32 nr_events;
/* bit i: counter i leads a group (read with its times) */
const volatile __u64 group_leads[TDBPF_EV_WORDS] = { 1 };
const volatile bool follow_children;
/*
 * CLOCK_MONOTONIC once the programs are attached: a task started later is
 * seen from its first slice and counts whole. Set by user space after the
 * attach, not before the load: loading can take long, and a task born
 * meanwhile ran unseen, so it counts from first sight. Until then no task
 * is taken for one born while we watch.
 */
__u64 attach_ns = (__u64)-1;
const volatile __u32 max_tasks = TDBPF_MAX_TASKS_DEFAULT;
/* wakeups traced: blocking switch-outs take the clock for sched_waking */
const volatile bool track_wakeups;
/*
 * No counter and no wakeups (the software model): every sum is the
 * task's own accounting, so nothing needs a switch. The sums are read
 * from the task when a report asks (tdbpf_dump) and at its exit
 * (tdbpf_exit): no program runs at a switch at all.
 */
const volatile bool read_free;

/*
 * Where this CPU's preempt count and hrtimer bases are, relative to its
 * run queue: per-CPU variables sit at the same distance from each other
 * on every CPU. User space reads the distances from the kernel's BTF
 * (the .data..percpu section), since typed ksyms of per-CPU variables
 * need them in kallsyms, which kernels without CONFIG_KALLSYMS_ALL lack.
 * 0: unknown (the waker's context then tells less, never something wrong).
 */
const volatile __s64 preempt_from_rq;
const volatile __s64 hrtimers_from_rq;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tdbpf_cpu);
} cpu_state SEC(".maps");

/*
 * The sums of a live task live in its task-local storage: found from the
 * task_struct at a switch in about a third of the time of a hash lookup,
 * allocated at first sight, freed with the task. User space reads them
 * with the task iterator (tdbpf_dump).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tdbpf_task);
} task_store SEC(".maps");

/*
 * With --wakeups, a task's waker state, apart from its sums: created at
 * first sight like them, freed with the task. Without --wakeups nothing
 * is ever stored here, and the sums stay in a 2 KiB object.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tdbpf_wake);
} wake_store SEC(".maps");

/*
 * Sums of dead tasks, keyed by tid, until user space moves them out. Not
 * LRU: a task must never be dropped silently. No prealloc, so a large
 * max_entries costs memory only for the tasks really there.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct tdbpf_task);
} tasks SEC(".maps");

/* The waker state of dead tasks (--wakeups), beside their sums in @tasks. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct tdbpf_wake);
} dead_wakes SEC(".maps");

/*
 * tgids (or tids with -t) to follow, one bit each; fork sets children's
 * bits with --children. A plain global array: the test at every switch of
 * every task on the machine is a memory load, not a helper call.
 */
/*
 * The only variable in .bss, so that it starts its first page: the mode
 * (enum tdbpf_track, set by user space before load) sits right before
 * the bits, in the same page as the first 32,704 ids' (all of them
 * where pid_max is 32768, the default below 32 CPUs). On a VM every
 * page a switch touches that the scheduler has not costs a page walk
 * (about 30 ns here): the early exit touches one. nr_live: the tasks
 * with storage now; --max-tasks bounds it.
 */
struct {
	__u32 track_mode;
	__u32 nr_live;
	__u64 track_bits[TDBPF_TRACK_WORDS];
	/* read-free: tasks exited and not yet freed (TDBPF_TASK_EXITING) */
	__u32 nr_exiting;
} track;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TDBPF_NR_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Tids that switched out dead: user space pops them and moves their sums
 * out of the map, so thread churn never fills it and needs no map scan.
 */
struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 65536);
	__type(value, __u32);
} exited SEC(".maps");

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		(*v)++;
}

/*
 * Is @t followed? One load from the task and one from the bitmap: this
 * runs twice at every switch on the machine, tracked or not. The idle
 * tasks have pid and tgid 0.
 */
static __always_inline bool tracked(struct task_struct *t)
{
	__u32 key, idx;

	if (track.track_mode == TDBPF_TRACK_ALL)
		return t->pid != 0;
	key = track.track_mode == TDBPF_TRACK_TID ? t->pid : t->tgid;
	if (!key)
		return false;
	idx = key / 64;
	/* keep clang from indexing with a copy the verifier did not bound */
	asm volatile("" : "+r"(idx));
	if (idx >= TDBPF_TRACK_WORDS)
		return false;
	return track.track_bits[idx] & (1ULL << (key % 64));
}

/*
 * The name at every switch-out (threads rename themselves after they
 * start): two direct loads through the BTF pointer, not a helper call.
 */
static __always_inline void copy_comm(char *dst, struct task_struct *p)
{
	__u64 *d = (__u64 *)dst;
	__u64 *s = (__u64 *)p->comm;

	d[0] = s[0];
	d[1] = s[1];
}

/* Page faults as the task counts them: /proc/PID/task/TID/stat's fields */
static __always_inline __u64 task_faults(struct task_struct *p)
{
	return p->min_flt + p->maj_flt;
}

/*
 * The entry of @p, created at first sight. A task born after the attach
 * counts whole (its accounting starts at zero, in copy_mm() and
 * __sched_fork()). A task older than the attach is charged from the
 * attach: the attach-time flush (@in_flush) sees the tasks running then,
 * from their accounting as of that moment. A task first seen at a
 * switch-out whose switch-in we saw (@seen_in) began its slice after the
 * attach: its baselines are its accounting at that switch-in, kept in @st,
 * so the slice counts whole. One whose switch-in we did not see may have
 * begun it before the attach (it switched out between the attach and the
 * flush of its CPU): it is charged from this switch-out on, rather than
 * with time from before the start.
 */
static __always_inline struct tdbpf_task *task_get(struct task_struct *p,
						   __u32 pid, __u32 tgid,
						   const struct tdbpf_cpu *st,
						   bool in_flush, bool seen_in)
{
	struct tdbpf_task *t;

	t = bpf_task_storage_get(&task_store, p, 0, 0);
	if (t)
		return t;
	/* full (or no memory): counted and reported as lost, never silent */
	if (track.nr_live >= max_tasks) {
		stat_inc(TDBPF_STAT_MAP_FULL);
		return NULL;
	}
	t = bpf_task_storage_get(&task_store, p, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t) {
		stat_inc(TDBPF_STAT_MAP_FULL);
		return NULL;
	}
	if (!t->tid) {
		__sync_fetch_and_add(&track.nr_live, 1);
		/* its waits from its first block on (none lost if this fails:
		 * a block creates it again) */
		if (track_wakeups)
			bpf_task_storage_get(&wake_store, p, 0,
					     BPF_LOCAL_STORAGE_GET_F_CREATE);
		t->tid = pid;
		t->tgid = tgid;
		if (p->start_time >= attach_ns) {
			/* born while we watch: its whole life counts */
			t->start_ns = p->start_time;
		} else {
			/* from now on: what it did before attach is not ours */
			t->start_ns = bpf_ktime_get_ns();
			__u64 exec = p->se.sum_exec_runtime;
			__u64 flt = task_faults(p);
			__u64 nv = p->nvcsw, niv = p->nivcsw;

			/*
			 * Loaded here, picked below: clang would otherwise
			 * pick the pointer and load once, from a task or a
			 * map value alike, which the verifier refuses.
			 */
			asm volatile("" : "+r"(exec), "+r"(flt), "+r"(nv),
				     "+r"(niv));
			if (!in_flush && seen_in) {
				exec = st->in_exec;
				flt = st->in_faults;
				nv = st->in_nvcsw;
				niv = st->in_nivcsw;
			}
			t->charged_exec = exec;
			t->base_faults = flt;
			t->base_nvcsw = nv;
			t->base_nivcsw = niv;
			t->base_run_delay = p->sched_info.run_delay;
			t->base_migrations = p->se.nr_migrations;
		}
	}
	return t;
}

/*
 * Hand @t's final sums to user space: its entry in the tasks map, then
 * its tid on the exit queue. False if either is full: then the entry is
 * not left where nothing would ever collect it, and the loss is counted.
 */
static __always_inline bool task_publish(__u32 tid, struct tdbpf_task *t)
{
	if (!bpf_map_update_elem(&tasks, &tid, t, BPF_ANY) &&
	    !bpf_map_push_elem(&exited, &tid, 0))
		return true;
	bpf_map_delete_elem(&tasks, &tid);
	stat_inc(TDBPF_STAT_MAP_FULL);
	return false;
}

/*
 * @p is dead: move its sums to the tasks map and its tid to the exit
 * queue, for user space, and free its storage. A full map loses it:
 * counted, never silent.
 */
static __always_inline void task_archive(struct task_struct *p,
					 struct tdbpf_task *t)
{
	struct tdbpf_wake *w = NULL;
	__u32 tid = t->tid;

	t->flags |= TDBPF_TASK_EXITED;
	/* its waits first: user space takes both once the tid is queued */
	if (track_wakeups) {
		w = bpf_task_storage_get(&wake_store, p, 0, 0);
		if (w && bpf_map_update_elem(&dead_wakes, &tid, w, BPF_ANY)) {
			stat_inc(TDBPF_STAT_MAP_FULL);
			w = NULL;
		}
	}
	if (!task_publish(tid, t) && w)
		bpf_map_delete_elem(&dead_wakes, &tid);
	if (track_wakeups)
		bpf_task_storage_delete(&wake_store, p);
	/* minus one: clang's BPF target has no atomic sub before v3 */
	__sync_fetch_and_add(&track.nr_live, (__u32)-1);
	/* if this fails the entry stays, flagged: the iterator skips it */
	bpf_task_storage_delete(&task_store, p);
}

/*
 * One counter's reading. Only a group leader is read with its enabled and
 * running times (bpf_perf_event_read_value takes the clock for them); the
 * members of a group are scheduled in and out with their leader, so their
 * times are the leader's and a value-only read (bpf_perf_event_read) does.
 * That helper returns errors in-band, as -errno: no counter gets near 2^64.
 */
static __always_inline bool read_one(__u32 i, __u32 cpu, bool lead,
				     struct bpf_perf_event_value *v)
{
	__u64 r;

	if (lead)
		return !bpf_perf_event_read_value(&counters, i * nr_cpus + cpu,
						  v, sizeof(*v));
	r = bpf_perf_event_read(&counters, i * nr_cpus + cpu);
	if (r >= (__u64)-4095)
		return false;
	v->counter = r;
	return true;
}

/*
 * Read this CPU's counters and keep them as the baseline of the next
 * slice. For @t (the task switching out, NULL if untracked) charge each
 * counter's delta since the slice began, when @counted (we saw the
 * slice's switch-in) and both readings are good. Otherwise its @slice of
 * on-CPU time goes into enabled only, as for a group multiplexed out:
 * scaling extrapolates over it and coverage shows it. A failed read is
 * counted and invalidates that baseline: a zeroed buffer is never charged.
 * Groups are contiguous, leader first (plan.c), so @v keeps the times of
 * the group being read; a member of a group whose leader failed fails.
 */
static __always_inline void read_counters(struct tdbpf_cpu *st,
					  struct tdbpf_task *t, bool counted,
					  __u64 slice, __u32 cpu)
{
	struct bpf_perf_event_value v = {};
	bool group_ok = false;
	__u32 i;

	for (i = 0; i < TDBPF_MAX_EVENTS; i++) {
		__u32 w = i / 64;
		__u64 bit = 1ULL << (i % 64);
		bool lead = group_leads[w] & bit;

		if (i >= nr_events)
			break;
		if ((lead || group_ok) && read_one(i, cpu, lead, &v)) {
			if (lead)
				group_ok = true;
		} else {
			if (lead)
				group_ok = false;
			stat_inc(TDBPF_STAT_READ_ERR);
			st->valid[w] &= ~bit;
			if (t)
				t->ctr[i].enabled += slice;
			continue;
		}
		if (t) {
			if (counted && (st->valid[w] & bit)) {
				t->ctr[i].value += v.counter - st->prev[i].value;
				t->ctr[i].enabled +=
					v.enabled - st->prev[i].enabled;
				t->ctr[i].running +=
					v.running - st->prev[i].running;
			} else {
				t->ctr[i].enabled += slice;
			}
		}
		st->prev[i].value = v.counter;
		st->prev[i].enabled = v.enabled;
		st->prev[i].running = v.running;
		st->valid[w] |= bit;
	}
}

/*
 * @t's sums from @p's own accounting, up to its last update: on-CPU time
 * (se.sum_exec_runtime since what was charged already, so a slice is
 * charged whole even when its switch-in was not seen), run-queue wait,
 * migrations, switches, page faults, against the baselines from first
 * sight; and its name. Returns the on-CPU time newly charged.
 */
static __always_inline __u64 charge_sched(struct task_struct *p,
					  struct tdbpf_task *t)
{
	__u64 exec = p->se.sum_exec_runtime, slice = 0;

	if (exec > t->charged_exec)
		slice = exec - t->charged_exec;
	t->sched.on_cpu_ns += slice;
	t->charged_exec = exec;
	t->sched.runq_wait_ns = p->sched_info.run_delay - t->base_run_delay;
	t->sched.migrations = p->se.nr_migrations - t->base_migrations;
	/*
	 * __schedule() counts the switch in nvcsw or nivcsw before the
	 * tracepoint, so this one is in. The kernel's own counts, not a
	 * guess from preempt and prev_state: a task that meant to block
	 * but had a signal pending is counted voluntary by the kernel, yet
	 * switches out TASK_RUNNING.
	 */
	t->sched.nvcsw = p->nvcsw - t->base_nvcsw;
	t->sched.nivcsw = p->nivcsw - t->base_nivcsw;
	t->faults = task_faults(p) - t->base_faults;
	copy_comm(t->comm, p);
	return slice;
}

/*
 * On-CPU time charged with no counter read for it (a slice whose
 * switch-in was unseen: a switch the kernel did not trace, or a death
 * seen only when the task is freed) is counted apart, so that a report
 * can tell the coverage it costs from multiplexing.
 */
static __always_inline void charge_uncounted(struct tdbpf_task *t,
					     __u64 slice)
{
	if (slice && nr_events) {
		t->sched.uncounted_ns += slice;
		stat_inc(TDBPF_STAT_UNSEEN);
	}
}

/*
 * Charge @p, running on this CPU: the counters of the slice since its
 * switch-in, when we saw it (else the slice only lowers the coverage); its
 * on-CPU time as the kernel accounts it, se.sum_exec_runtime (what
 * /proc/PID/task/TID/schedstat and the thread's CPU clock show, brought
 * up to date by __schedule() before the tracepoint) since what was
 * charged already, so that a slice is charged whole even when its
 * switch-in was not seen (some kernels switch tasks without the
 * tracepoint); and its run-queue wait and migrations, which the scheduler
 * also keeps per task.
 */
static __always_inline struct tdbpf_task *
charge_current(struct tdbpf_cpu *st, struct task_struct *p, __u32 cpu,
	       bool in_flush)
{
	__u32 pid = p->pid;
	/* counters: only a slice whose switch-in we saw is theirs */
	bool counted = st->tid == pid;
	struct tdbpf_task *t = task_get(p, pid, p->tgid, st, in_flush,
					counted);
	__u64 slice;

	if (!t) {
		read_counters(st, NULL, false, 0, cpu);
		return NULL;
	}
	slice = charge_sched(p, t);
	if (!counted)
		charge_uncounted(t, slice);
	read_counters(st, t, counted, slice, cpu);
	return t;
}

/*
 * Charge one ended wait of @t to its waker: the waker's slot, found by
 * (kind, tid) among the first TDBPF_NR_WAITS - 1 or taken if free; the
 * last slot takes the rest, counted in lost.wakers. Wakers of one task
 * are serialised by its pi_lock (try_to_wake_up), and its own blocking
 * switch-out never runs while it is being woken: no atomics needed.
 */
static __always_inline __u32 charge_wait(struct tdbpf_wake *k, __u32 kind,
					 __u32 tid, __u64 wait)
{
	struct tdbpf_wait *w;
	__u32 i;

	for (i = 0; i < TDBPF_NR_WAITS - 1; i++) {
		w = &k->waits[i];
		if (w->kind == TDBPF_WAKER_NONE) {
			w->kind = kind;
			w->tid = tid;
		}
		if (w->kind == kind && w->tid == tid)
			goto found;
	}
	w = &k->waits[TDBPF_NR_WAITS - 1];
	w->kind = TDBPF_WAKER_SPILL;
	stat_inc(TDBPF_STAT_WAITS_FULL);
found:
	w->wakeups++;
	w->wait_ns += wait;
	return i;
}

/* The last wakeup's waker, to be settled at the next switch-out. */
static __always_inline void set_pending(struct tdbpf_wake *k, __u32 slot,
					__u64 wait)
{
	k->pending_slot = slot + 1;
	k->pending_wait = wait;
}

/*
 * @p blocks again (or dies), after a wakeup: the wait its waker ended
 * was charged from the blocking switch-out to the wakeup; make it the
 * off-CPU time, as the kernel accounts it, from that block to this one
 * (the time since, minus on-CPU and run-queue time since). Those
 * intervals tile the task's life from its first block, so its waits
 * add up to the report's off_cpu_ns (life - on - runq) exactly: they
 * also hold the scheduler's pick before the switch tracepoint, the
 * enqueue after the wakeup, and what the kernel's own accounting does
 * around a preemption (a switch-in counts as on-CPU from the pick and
 * as run-queue wait until the switch, a few microseconds both). On-CPU
 * time is already charged up to now (t->charged_exec). @rearm (a flush
 * while it runs): settle up to now and go on from now, for the same
 * waker, so the next settling adds only what follows.
 */
static __always_inline void settle_wait(struct task_struct *p,
					const struct tdbpf_task *t,
					struct tdbpf_wake *k, __u64 now,
					bool rearm)
{
	/* TDBPF_NR_WAITS is a power of two: the mask is the bound */
	__u64 i = (k->pending_slot - 1) & (TDBPF_NR_WAITS - 1);
	__u64 busy, off, delay = p->sched_info.run_delay;

	if (!k->pending_slot)
		return;
	busy = (t->charged_exec - k->block_exec) + (delay - k->block_delay);
	/* clocks a hair apart never make a wait negative */
	off = now - k->block_at > busy ? now - k->block_at - busy : 0;
	/* the provisional wait out, the settled one in */
	k->waits[i].wait_ns += off - k->pending_wait;
	if (!rearm) {
		k->pending_slot = 0;
		return;
	}
	k->pending_wait = 0;
	k->block_at = now;
	k->block_exec = t->charged_exec;
	k->block_delay = delay;
}

/*
 * How many times @p was switched in (sched_info.pcount, counted as it
 * arrives on a CPU): the same from one switch-in to the next, so it
 * tells a wakeup of the block now under way from one before @p last ran.
 */
static __always_inline __u32 run_seq(struct task_struct *p)
{
	return (__u32)p->sched_info.pcount;
}

/*
 * The early wakeup marked for @k (tdbpf_waking) ends a wait of zero; the
 * settling at its next block makes it the off-CPU time since this one.
 */
static __always_inline void take_early(struct tdbpf_wake *k)
{
	set_pending(k, charge_wait(k, k->early_kind, k->early_tid, 0), 0);
	k->early_kind = TDBPF_WAKER_NONE;
	k->block_ns = 0;
}

/*
 * @p blocks again (or dies) while its last block is uncharged, and an
 * early wakeup was marked in that block's window (same run_seq): the
 * waker ran while that switch-out was traced and marked it after
 * block_start() had looked. That wakeup ended the last block.
 */
static __always_inline void take_late_early(struct tdbpf_wake *k)
{
	if (k->block_ns && k->early_kind && k->early_seq == k->block_seq)
		take_early(k);
}

/*
 * @p blocks (a voluntary switch-out, not its last): its blocked interval
 * starts now, unless its wakeup already came, in the window between
 * leaving the run queue and this tracepoint (tdbpf_waking marked it,
 * while @p was on the CPU it is leaving: same run_seq): then it blocks
 * for no time, and the waker ends a wait of zero. A mark from before @p
 * last ran is stale and never taken. A start left by a wakeup that was
 * not seen is overwritten: that interval shows as blocked time no seen
 * wakeup ended.
 */
static __always_inline void block_start(struct task_struct *p,
					const struct tdbpf_task *t,
					struct tdbpf_wake *k, __u64 now)
{
	__u32 seq = run_seq(p);

	k->block_at = now;
	k->block_exec = t->charged_exec;
	k->block_delay = p->sched_info.run_delay;
	k->block_seq = seq;
	if (k->early_kind && k->early_seq == seq) {
		take_early(k);
		return;
	}
	k->block_ns = now;
}

/*
 * @p blocks or dies: settle its last wakeup's wait and, unless it dies,
 * start its blocked interval. Its waker state is created if its first
 * sight could not (a live task only: a dead one's goes with it).
 */
static __always_inline void wake_block(struct task_struct *p,
				       const struct tdbpf_task *t, bool dead)
{
	struct tdbpf_wake *k;
	__u64 now;

	k = bpf_task_storage_get(&wake_store, p, 0,
				 dead ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!k)
		return;
	now = bpf_ktime_get_ns();
	take_late_early(k);
	settle_wait(p, t, k, now, false);
	if (!dead)
		block_start(p, t, k, now);
}

/*
 * @p starts a slice on this CPU: its accounting now is where a first
 * sight at its switch-out would start counting it.
 */
static __always_inline void note_switch_in(struct tdbpf_cpu *st,
					   struct task_struct *p)
{
	st->tid = p->pid;
	st->in_exec = p->se.sum_exec_runtime;
	st->in_faults = task_faults(p);
	st->in_nvcsw = p->nvcsw;
	st->in_nivcsw = p->nivcsw;
}

/*
 * Who held the CPU while a task waited for it (--wakeups). Every switch
 * on the machine pushes the slice that ends (the task and its on-CPU
 * time in it, se.sum_exec_runtime - se.prev_sum_exec_runtime: no clock
 * read) on this CPU's ring. When a tracked task is switched in, its wait
 * on this run queue (rq->clock - sched_info.last_queued, both the run
 * queue's clock; sched_info_arrive() clears it only after the
 * tracepoint) is charged to the newest slices back until it is covered:
 * those tasks held the CPU it waited for. A wait that began on another
 * CPU before a migration is charged to this one's holders.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tdbpf_ring);
} cpu_ring SEC(".maps");

/* A task whose cgroup's CPU limit took it off its CPU (6.18+: per task). */
static __always_inline bool throttled(struct task_struct *p)
{
	return bpf_core_field_exists(p->throttled) && p->throttled;
}

static __always_inline void ring_push(struct task_struct *prev, bool tp)
{
	struct tdbpf_ring *r;
	struct tdbpf_slice *sl;
	__u32 z = 0;

	__u64 ns;

	r = bpf_map_lookup_elem(&cpu_ring, &z);
	if (!r)
		return;
	ns = prev->pid ? prev->se.sum_exec_runtime -
				 prev->se.prev_sum_exec_runtime :
			 0;
	/* the same task again (woken back at once): one longer slice */
	sl = &r->s[(r->head - 1) & (TDBPF_NR_SLICES - 1)];
	if (sl->tid == prev->pid && sl->ns) {
		sl->ns += ns;
		return;
	}
	sl = &r->s[r->head & (TDBPF_NR_SLICES - 1)];
	sl->tid = prev->pid;
	sl->tracked = tp;
	sl->ns = ns;
	r->head++;
}

/*
 * Tasks outside the targets that hold the CPU get a slot each, for the
 * first TDBPF_NR_OTHERS of them: a noisy neighbour is named. On a busy
 * machine (a build: hundreds of short processes) the rest share one
 * slot, tid 0, so that wakers keep theirs.
 */
#define TDBPF_NR_OTHERS	3

static __always_inline __u32 other_slot(const struct tdbpf_wake *k, __u32 tid)
{
	__u32 i, n = 0;

	for (i = 0; i < TDBPF_NR_WAITS; i++) {
		const struct tdbpf_wait *w = &k->waits[i];

		if (w->kind != TDBPF_HOLDER_OTHER || !w->tid)
			continue;
		if (w->tid == tid)
			return tid;
		n++;
	}
	return n < TDBPF_NR_OTHERS ? tid : 0;
}

/* This run queue's clock, as __schedule() just updated it; 0 unknown. */
static __always_inline __u64 rq_clock_now(struct task_struct *cur)
{
	struct cfs_rq *c = cur->se.cfs_rq;
	__u64 rq = 0, clock = 0;

	if (!c || bpf_probe_read_kernel(&rq, sizeof(rq), &c->rq) || !rq)
		return 0;
	bpf_probe_read_kernel(&clock, sizeof(clock),
			      (void *)(rq + bpf_core_field_offset(struct rq,
								  clock)));
	return clock;
}

/* The walk over a CPU's last slices, newest first (bpf_loop's context). */
struct hold_walk {
	struct tdbpf_wake *k;
	struct tdbpf_ring *r;
	__u64 wait;		/* still to charge */
	__u32 tid;		/* the task switched in */
};

/*
 * Slice @i back: charge its holder for the part of the wait it covers.
 * A callback of bpf_loop(): verified once, not once per slice, which the
 * slot searches inside would make too long a program.
 */
static long hold_one(__u64 i, void *ctx)
{
	struct hold_walk *w = ctx;
	struct tdbpf_slice *sl;
	__u64 take;

	if (!w->wait)
		return 1;
	sl = &w->r->s[(w->r->head - 1 - i) & (TDBPF_NR_SLICES - 1)];
	/* its own last slice: its wait began after it, nothing older held it */
	if (sl->tid == w->tid)
		return 1;
	take = sl->ns < w->wait ? sl->ns : w->wait;
	if (!sl->tid || !take)
		return 0;
	if (sl->tracked)
		charge_wait(w->k, TDBPF_HOLDER_TASK, sl->tid, take);
	else
		charge_wait(w->k, TDBPF_HOLDER_OTHER, other_slot(w->k, sl->tid),
			    take);
	w->wait -= take;
	return 0;
}

/*
 * @next, tracked, is switched in after waiting on this run queue: charge
 * that wait to its cgroup's limit for as long as it was throttled, the
 * rest to the tasks of the CPU's last slices, newest first.
 */
static __always_inline void charge_holders(struct task_struct *prev,
					   struct task_struct *next)
{
	__u64 queued = next->sched_info.last_queued, clock, take;
	struct hold_walk w;
	__u32 z = 0;

	if (!queued)
		return;
	w.k = bpf_task_storage_get(&wake_store, next, 0, 0);
	w.r = bpf_map_lookup_elem(&cpu_ring, &z);
	if (!w.k || !w.r)
		return;
	w.tid = next->pid;
	clock = rq_clock_now(prev);
	w.wait = clock > queued ? clock - queued : 0;
	if (w.k->throttle_ns) {
		take = bpf_ktime_get_ns() - w.k->throttle_ns;
		if (take > w.wait)
			take = w.wait;
		charge_wait(w.k, TDBPF_HOLDER_LIMIT, 0, take);
		w.wait -= take;
		w.k->throttle_ns = 0;
	}
	if (w.wait)
		bpf_loop(TDBPF_NR_SLICES, hold_one, &w, 0);
	if (w.wait)
		charge_wait(w.k, TDBPF_HOLDER_UNSEEN, 0, w.wait);
}

/* @p, tracked, leaves its CPU throttled: its wait is its group's limit. */
static __always_inline void note_throttle(struct task_struct *p)
{
	struct tdbpf_wake *k = bpf_task_storage_get(&wake_store, p, 0, 0);

	if (k && !k->throttle_ns)
		k->throttle_ns = bpf_ktime_get_ns();
}

SEC("tp_btf/sched_switch")
int BPF_PROG(tdbpf_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	bool tp = tracked(prev), tn = tracked(next);
	struct tdbpf_task *t;
	struct tdbpf_cpu *st;
	__u32 z = 0, cpu;

	/* who held this CPU: wanted for any task a tracked one waits on */
	if (track_wakeups)
		ring_push(prev, tp);
	/* the early exit: untracked switches cost two bit tests */
	if (!tp && !tn)
		return 0;
	cpu = bpf_get_smp_processor_id();
	st = bpf_map_lookup_elem(&cpu_state, &z);
	if (!st)
		return 0;

	if (tp) {
		t = charge_current(st, prev, cpu, false);
		if (t) {
			bool block = !preempt && prev_state != TASK_RUNNING;

			/* one clock read, when it blocks */
			if (track_wakeups && block)
				wake_block(prev, t, prev_state & TASK_DEAD);
			else if (track_wakeups && throttled(prev))
				note_throttle(prev);
			if (prev_state & TASK_DEAD) {
				/* its last slice: hand it over to user space */
				t->end_ns = bpf_ktime_get_ns();
				task_archive(prev, t);
			}
		}
	} else {
		/* untracked prev: only take next's baseline */
		read_counters(st, NULL, false, 0, cpu);
	}
	if (tn) {
		if (track_wakeups)
			charge_holders(prev, next);
		note_switch_in(st, next);
	} else
		st->tid = 0;
	return 0;
}

/*
 * This CPU's run queue, as a number: the run queue of the current task's
 * fair-class queue (set at every migration, for every class, and current
 * runs here, even when an interrupt is what wakes).
 */
static __always_inline __u64 this_rq(void)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct cfs_rq *c = cur->se.cfs_rq;
	__u64 rq = 0;

	if (c)
		bpf_probe_read_kernel(&rq, sizeof(rq), &c->rq);
	return rq;
}

/*
 * The interrupt bits of this CPU's preempt count; 0 when unknown. x86
 * keeps PREEMPT_NEED_RESCHED inverted in bit 31: never part of the mask.
 */
static __always_inline __u32 irq_count(__u64 rq)
{
	__u32 pc;

	if (!rq || !preempt_from_rq ||
	    bpf_probe_read_kernel(&pc, sizeof(pc),
				  (void *)(rq + preempt_from_rq)))
		return 0;
	return pc & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET);
}

/* An hrtimer callback runs on this CPU, in the hard (0-3) or soft bases. */
static __always_inline bool hrtimer_running(__u64 rq, __u32 first)
{
	__u64 b = rq + hrtimers_from_rq, running;
	__u32 i, step = bpf_core_type_size(struct hrtimer_clock_base);

	if (!rq || !hrtimers_from_rq)
		return false;
	b += bpf_core_field_offset(struct hrtimer_cpu_base, clock_base) +
	     bpf_core_field_offset(struct hrtimer_clock_base, running);
	for (i = first; i < first + HRTIMER_SOFT; i++)
		if (!bpf_probe_read_kernel(&running, sizeof(running),
					   (void *)(b + i * step)) &&
		    running)
			return true;
	return false;
}

/*
 * Who is waking @p, from the waker's context: an interrupt first (then
 * current is whatever task it interrupted, not the waker), told apart as
 * an hrtimer callback or another hard or soft interrupt; else the task
 * running the wakeup: the idle task, a tracked task (by tid), a kernel
 * thread, an untracked thread of @p's process, or another process.
 */
static __always_inline __u32 waker_kind(struct task_struct *p, __u32 *tid)
{
	struct task_struct *cur;
	__u64 rq = this_rq();
	__u32 pc = irq_count(rq);

	*tid = 0;
	if (pc & (HARDIRQ_MASK | NMI_MASK))
		return hrtimer_running(rq, 0) ? TDBPF_WAKER_TIMER :
						TDBPF_WAKER_HARDIRQ;
	if (pc & SOFTIRQ_OFFSET)
		return hrtimer_running(rq, HRTIMER_SOFT) ?
			       TDBPF_WAKER_TIMER :
			       TDBPF_WAKER_SOFTIRQ;
	cur = bpf_get_current_task_btf();
	if (!cur->pid)
		return TDBPF_WAKER_IDLE;
	if (tracked(cur)) {
		*tid = cur->pid;
		return TDBPF_WAKER_TASK;
	}
	if (cur->flags & PF_KTHREAD)
		return TDBPF_WAKER_KTHREAD;
	return cur->tgid == p->tgid ? TDBPF_WAKER_THREAD : TDBPF_WAKER_PROCESS;
}

/*
 * On a run queue, waiting for a CPU (or running): not blocked yet. Since
 * 6.12 (EEVDF's delayed dequeue) a task that blocks with negative lag
 * stays on its queue, flagged sched_delayed, until the wakeup requeues
 * it: blocked.
 */
static __always_inline bool queued(struct task_struct *p)
{
	if (!p->on_rq)
		return false;
	if (bpf_core_field_exists(p->se.sched_delayed))
		return !p->se.sched_delayed;
	return true;
}

/*
 * A wakeup, in the waker's context (sched_wakeup may run on the wakee's
 * CPU later, where the waker is gone). For a tracked wakee whose blocking
 * switch-out was seen, the interval from that switch-out to now is one
 * wait its waker ended. The kernel traces sched_waking only for a task
 * still in the state it went to sleep in, so a wakee that has not run
 * since that switch-out (same run_seq) is in that block, even if caught
 * between queues (a delayed dequeue ending); one that ran since had that
 * block ended by a wakeup we did not see: its start is stale, left for
 * its next block. A wakee with no block started that left its run queue
 * is between that and the switch tracepoint, or racing with it on its
 * CPU: the wakeup is marked early, for block_start() or, if that looked
 * first, for take_late_early(); the waker's fields go in before the kind
 * that makes them valid. A wakee still on its run queue did not block
 * (it was woken before it slept). Untracked wakees cost one bit test.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(tdbpf_waking, struct task_struct *p)
{
	struct tdbpf_wake *k;
	__u64 start;
	__u32 kind, tid, seq;

	if (!tracked(p))
		return 0;
	/* no entry: first seen later, its life (and this block) unseen */
	k = bpf_task_storage_get(&wake_store, p, 0, 0);
	if (!k)
		return 0;
	start = k->block_ns;
	seq = run_seq(p);
	if (start) {
		if (seq != k->block_seq)
			return 0;
		k->block_ns = 0;
		kind = waker_kind(p, &tid);
		start = bpf_ktime_get_ns() - start;
		set_pending(k, charge_wait(k, kind, tid, start), start);
	} else if (!queued(p)) {
		kind = waker_kind(p, &tid);
		k->early_tid = tid;
		k->early_seq = seq;
		/* x86 keeps stores in order: the compiler must too */
		asm volatile("" ::: "memory");
		k->early_kind = kind;
	}
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(tdbpf_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = child->tgid, idx = tgid / 64;

	/* new threads share the tgid and are tracked already */
	if (!follow_children || track.track_mode != TDBPF_TRACK_TGID ||
	    child->tgid == parent->tgid || !tracked(parent))
		return 0;
	asm volatile("" : "+r"(idx));
	if (idx < TDBPF_TRACK_WORDS)
		__sync_fetch_and_or(&track.track_bits[idx], 1ULL << (tgid % 64));
	return 0;
}

/*
 * Read-free: @p exits (do_exit(), @p is current). From here the task
 * iterator may no longer see it (a thread is unhashed in exit_notify()),
 * so its sums as of now go to the tasks map, flagged exiting, where user
 * space reads them as it reads a live task's. Not queued yet: what the
 * kernel still does for @p (unmap its memory when it is the last user,
 * close its files, switch it out for good; tens of microseconds to
 * milliseconds, which the process's own CPU time includes) is charged
 * when the task is freed (tdbpf_free). An entry is made if it has none:
 * a thread born after the attach that dies before any report saw it
 * counts whole. A full map loses it: counted, never silent.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(tdbpf_exit, struct task_struct *p)
{
	struct tdbpf_task *t;
	__u32 tid;

	if (!tracked(p))
		return 0;
	t = task_get(p, p->pid, p->tgid, NULL, true, false);
	if (!t || (t->flags & TDBPF_TASK_EXITED))
		return 0;
	charge_sched(p, t);
	t->end_ns = bpf_ktime_get_ns();
	t->flags |= TDBPF_TASK_EXITED | TDBPF_TASK_EXITING;
	tid = t->tid;
	__sync_fetch_and_add(&track.nr_live, (__u32)-1);
	if (bpf_map_update_elem(&tasks, &tid, t, BPF_ANY)) {
		stat_inc(TDBPF_STAT_MAP_FULL);
		bpf_task_storage_delete(&task_store, p);
		return 0;
	}
	__sync_fetch_and_add(&track.nr_exiting, 1);
	return 0;
}

/*
 * Read-free: exiting @p is freed (an RCU grace period after its last
 * switch, or after its parent reaped it): its accounting is final. The
 * rest of its exit is charged, its life extended by that busy time (it
 * ran or waited for a CPU, it did not block), and its entry queued for
 * user space, replacing the exiting one in the map.
 */
static __always_inline void task_freed(struct task_struct *p,
				       struct tdbpf_task *t)
{
	__u64 busy = t->sched.on_cpu_ns + t->sched.runq_wait_ns;
	__u32 tid = t->tid;

	charge_sched(p, t);
	t->end_ns += t->sched.on_cpu_ns + t->sched.runq_wait_ns - busy;
	t->flags &= ~TDBPF_TASK_EXITING;
	__sync_fetch_and_add(&track.nr_exiting, (__u32)-1);
	task_publish(tid, t);
}

/*
 * Run by user space on every CPU (BPF_PROG_TEST_RUN, BPF_F_TEST_RUN_ON_CPU)
 * before a report, so that a task running right now is charged up to now.
 * It runs in an IPI on that CPU: "current" is the task that was running.
 */
SEC("raw_tp")
int tdbpf_flush(void *ctx)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct tdbpf_task *t;
	struct tdbpf_cpu *st;
	__u32 z = 0;

	st = bpf_map_lookup_elem(&cpu_state, &z);
	if (!st)
		return 0;
	if (!tracked(cur))
		return 0;
	/* on-CPU as of the last tick; the switch-out charges the rest */
	t = charge_current(st, cur, bpf_get_smp_processor_id(), true);
	/* its last wakeup's wait, so that a report's waits add up */
	if (t && track_wakeups) {
		struct tdbpf_wake *k;

		k = bpf_task_storage_get(&wake_store, cur, 0, 0);
		if (k && k->pending_slot)
			settle_wait(cur, t, k, bpf_ktime_get_ns(), true);
	}
	note_switch_in(st, cur);
	return 0;
}

/*
 * A task freed: an exiting one (read-free) is settled. With counters, one
 * whose death we did not see (some kernels switch tasks without the
 * tracepoint) still has its storage, about to go with it: archive it now
 * rather than lose it.
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(tdbpf_free, struct task_struct *p)
{
	struct tdbpf_task *t = bpf_task_storage_get(&task_store, p, 0, 0);

	if (!t)
		return 0;
	if (t->flags & TDBPF_TASK_EXITING) {
		task_freed(p, t);
		return 0;
	}
	if (t->flags & TDBPF_TASK_EXITED)
		return 0;
	/* its accounting is final: charge what no switch-out did */
	charge_uncounted(t, charge_sched(p, t));
	t->end_ns = bpf_ktime_get_ns();
	task_archive(p, t);
	return 0;
}

/* The waker slots of a task that has none yet, in a record. */
static const struct tdbpf_wait no_waits[TDBPF_NR_WAITS];

/*
 * The live tasks' sums, for a report: one record per task with storage,
 * the entry up to its last programmed counter, then with --wakeups its
 * waker slots. User space runs it after the flush; dead tasks come from
 * the tasks map instead.
 */

SEC("iter/task")
int tdbpf_dump(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;
	struct tdbpf_task *t;
	__u32 n = nr_events;

	if (!p)
		return 0;
	t = bpf_task_storage_get(&task_store, p, 0, 0);
	/*
	 * Read-free: first sight here, and the sums read from the task. Not
	 * for a task exiting (PF_EXITING comes before sched_process_exit) or
	 * exited (a zombie leader awaiting its group): its exit hands its
	 * sums over, a new entry would count its life twice.
	 */
	if (read_free && !t && !(p->flags & PF_EXITING) && tracked(p))
		t = task_get(p, p->pid, p->tgid, NULL, true, false);
	if (!t || !t->tid || (t->flags & TDBPF_TASK_EXITED))
		return 0;
	if (read_free)
		charge_sched(p, t);
	if (n > TDBPF_MAX_EVENTS)
		n = TDBPF_MAX_EVENTS;
	bpf_seq_write(ctx->meta->seq, t, TDBPF_TASK_HDR_SIZE +
		      n * sizeof(struct tdbpf_count));
	if (track_wakeups) {
		struct tdbpf_wake *k;

		k = bpf_task_storage_get(&wake_store, p, 0, 0);
		bpf_seq_write(ctx->meta->seq, k ? k->waits : no_waits,
			      sizeof(no_waits));
	}
	return 0;
}
