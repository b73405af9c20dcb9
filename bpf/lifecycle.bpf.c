// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side, a task's life: children followed at fork, the read-free
 * exit and free, a death the switch missed, and the task iterator that
 * reads the live tasks' sums for a report.
 */
#include "shared.bpf.h"
#include "task.bpf.h"
#include "wait.bpf.h"

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
	/* counted before it is in the map (read_exiting() trusts a zero) */
	__sync_fetch_and_add(&track.nr_exiting, 1);
	__sync_fetch_and_add(&track.nr_exited, 1);
	__sync_fetch_and_add(&track.nr_live, (__u32)-1);
	/* sampled: its waits, taken with its sums once freed */
	if (track_wakeups) {
		struct tdbpf_wake *k;

		k = bpf_task_storage_get(&wake_store, p, 0, 0);
		if (k && bpf_map_update_elem(&dead_wakes, &tid, k, BPF_ANY))
			stat_inc(TDBPF_STAT_MAP_FULL);
	}
	if (bpf_map_update_elem(&tasks, &tid, t, BPF_ANY)) {
		stat_inc(TDBPF_STAT_MAP_FULL);
		bpf_map_delete_elem(&dead_wakes, &tid);
		bpf_task_storage_delete(&task_store, p);
		__sync_fetch_and_add(&track.nr_exiting, (__u32)-1);
		__sync_fetch_and_add(&track.nr_settled, 1);
	}
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
	task_publish(tid, t);
	/*
	 * Only once it is queued: the last collect waits for the exits
	 * before it to be settled, then reads the queue. Counted first, a
	 * program preempted here (PREEMPT_RT) or a slow vCPU left a task in
	 * neither place: a report without it.
	 */
	__sync_fetch_and_add(&track.nr_exiting, (__u32)-1);
	__sync_fetch_and_add(&track.nr_settled, 1);
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

/* Slots in use of the half of @w from @base: filled from its start. */
static __u32 slots_used(const struct tdbpf_wait *w, __u32 base)
{
	__u32 i;

	for (i = 0; i < TDBPF_WAKER_SLOTS; i++)
		if (w[(base + i) & (TDBPF_NR_WAITS - 1)].kind ==
		    TDBPF_WAKER_NONE)
			break;
	return i;
}

/*
 * A task's waker slots in a record: struct tdbpf_rec_waits, then its
 * wakers' slots in use, then its holders'. Most tasks use one or two of
 * the sixteen: 10,000 records of all of them were 5 MB more to copy at
 * every collect.
 */
static void write_waits(struct seq_file *seq, const struct tdbpf_wake *k)
{
	struct tdbpf_rec_waits h = { 0 };
	__u32 n;

	if (k) {
		h.wakers = slots_used(k->waits, 0);
		h.holders = slots_used(k->waits, TDBPF_WAKER_SLOTS);
	}
	bpf_seq_write(seq, &h, sizeof(h));
	if (!k)
		return;
	n = h.wakers;
	if (n > TDBPF_WAKER_SLOTS)
		n = TDBPF_WAKER_SLOTS;
	bpf_seq_write(seq, &k->waits[0], n * sizeof(struct tdbpf_wait));
	n = h.holders;
	if (n > TDBPF_WAKER_SLOTS)
		n = TDBPF_WAKER_SLOTS;
	bpf_seq_write(seq, &k->waits[TDBPF_WAKER_SLOTS],
		      n * sizeof(struct tdbpf_wait));
}

/*
 * The run-queue wait of @p as its holds have it, read after its waker
 * slots were copied: a switch-in on another CPU charges its wait to the
 * holders at the tracepoint, and the kernel adds it to run_delay just
 * after (sched_info_arrive()); and a switch-in while this program copied
 * the task (the reader preempted by it) charges holds the record's sums
 * did not see. delay_seen is run_delay as the newest switch-in leaves
 * it, set before that switch-in charged a hold.
 */
static __always_inline __u64 settled_runq(struct task_struct *p,
					  const struct tdbpf_task *t,
					  const struct tdbpf_wake *k)
{
	__u64 delay = p->sched_info.run_delay;

	if (k && k->delay_seen > delay)
		delay = k->delay_seen;
	return delay > t->base_run_delay ? delay - t->base_run_delay : 0;
}

/*
 * The live tasks' sums, for a report: one record per task with storage,
 * the entry up to its last programmed counter, then with the graph its
 * waker slots in use (write_waits()). User space runs it after the
 * flush; dead tasks come from the tasks map instead.
 */

SEC("iter/task")
int tdbpf_dump(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;
	struct tdbpf_wake *k;
	struct tdbpf_task *t;
	__u32 n = nr_events;
	__u64 runq;

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
	t->sched.open_wait_ns = track_wakeups ? open_wait_ns(p) : 0;
	/*
	 * Read-free, the sums were charged just now; else they are as of
	 * the task's last switch-out, or of the flush if it runs now
	 */
	t->read_ns = read_free || !p->on_cpu ? bpf_ktime_get_ns() : 0;
	if (n > TDBPF_MAX_EVENTS)
		n = TDBPF_MAX_EVENTS;
	bpf_seq_write(ctx->meta->seq, t, TDBPF_TASK_HDR_SIZE +
		      n * sizeof(struct tdbpf_count));
	if (track_wakeups) {
		k = bpf_task_storage_get(&wake_store, p, 0, 0);
		write_waits(ctx->meta->seq, k);
		runq = settled_runq(p, t, k);
		bpf_seq_write(ctx->meta->seq, &runq, sizeof(runq));
	}
	return 0;
}
