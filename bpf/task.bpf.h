/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A task's sums: is it tracked, its entry made at first sight, charged
 * from its own accounting, handed over to user space at its death.
 */
#ifndef TDBPF_TASK_BPF_H
#define TDBPF_TASK_BPF_H

#include "shared.bpf.h"

static __always_inline void stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &which);

	if (v)
		(*v)++;
}

/* @key's bit in the set followed: a tid or a tgid, as track_mode says. */
static __always_inline bool track_bit(__u32 key)
{
	__u32 idx;

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
 * Is @t followed? One load from the task and one from the bitmap: this
 * runs twice at every switch on the machine, tracked or not. The idle
 * tasks have pid and tgid 0.
 */
static __always_inline bool tracked(struct task_struct *t)
{
	if (track.track_mode == TDBPF_TRACK_ALL)
		return t->pid != 0;
	return track_bit(track.track_mode == TDBPF_TRACK_TID ? t->pid :
							       t->tgid);
}

/* Is the task @tid of process @tgid followed (tracked() by ids)? */
static __always_inline bool tracked_ids(__u32 tid, __u32 tgid)
{
	if (track.track_mode == TDBPF_TRACK_ALL)
		return tid != 0;
	return track_bit(track.track_mode == TDBPF_TRACK_TID ? tid : tgid);
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
 * so the slice counts whole, and its life starts that slice's on-CPU time
 * before now. One whose switch-in we did not see may have
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
				/*
				 * its life starts with the slice it is
				 * charged: else that slice is on-CPU time
				 * before its start, and its off-CPU time
				 * (life - on - runq) comes out short by it
				 */
				t->start_ns -= exec - st->in_exec;
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
 * The run queue of @p's fair-class queue, as a number (set at every
 * migration, for every class); 0 unknown. A load through BTF pointers,
 * no helper call. For current, or a task switching in here, this CPU's.
 */
static __always_inline __u64 task_rq(struct task_struct *p)
{
	struct cfs_rq *c = p->se.cfs_rq;

	return c ? (__u64)c->rq : 0;
}

#endif /* TDBPF_TASK_BPF_H */
