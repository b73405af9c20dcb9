/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by the BPF programs (bpf/) and user space.
 * Everything here is raw sums: nothing is scaled or divided in BPF.
 */
#ifndef TDBPF_H
#define TDBPF_H

/*
 * Counters programmed per CPU at once. Granite Rapids L1-L3 needs 65
 * events with SMT on (tma-events.md), Sapphire Rapids 59, Broadwell 39.
 * 72 keeps a task's storage element (72 bytes of kernel header, 176 of
 * ours, 24 per counter: 1,976 bytes) in a 2 KiB object. Bitmaps over the
 * counters take TDBPF_EV_WORDS 64-bit words.
 */
#define TDBPF_MAX_EVENTS	72
/* struct bpf_local_storage_elem up to its data (sdata cacheline-aligned) */
#define TDBPF_STORAGE_ELEM_HDR	72
#define TDBPF_EV_WORDS		((TDBPF_MAX_EVENTS + 63) / 64)
#define TDBPF_COMM_LEN		16
#define TDBPF_MAX_CPUS		1024
/* track bitmap: one bit per id up to PID_MAX_LIMIT (4M on 64-bit) */
#define TDBPF_TRACK_WORDS	(4194304 / 64)

/*
 * The task limits: --max-tasks bounds the tasks held at once (live ones
 * with sums plus dead ones not yet collected), in the task storage's
 * count and the dead-task hash and queue.
 */
#define TDBPF_MAX_TASKS_DEFAULT	65536
#define TDBPF_MAX_TASKS_MIN	16
#define TDBPF_MAX_TASKS_MAX	4194304

/*
 * A task's scheduling sums: the one definition, in the BPF entry and in
 * user space's task rows. Summed and subtracted with sched_add() and
 * sched_sub() (user/sums/tasks.h).
 */
struct tdbpf_sched {
	__u64 on_cpu_ns;	/* se.sum_exec_runtime since first seen */
	__u64 runq_wait_ns;	/* sched_info.run_delay since first seen */
	__u64 off_cpu_ns;	/* filled by user space: life - on - runq */
	__u64 nvcsw;		/* nvcsw since first seen: voluntary */
	__u64 nivcsw;		/* nivcsw since first seen: preempted */
	__u64 migrations;	/* se.nr_migrations since first seen */
	__u64 uncounted_ns;	/* on-CPU in slices whose switch-in was unseen */
	/*
	 * On-CPU time the kernel charged outside the counters' windows
	 * (switch-in to switch-out tracepoint) of the slices counted:
	 * positive when it dated a slice from the wakeup that queued it,
	 * before the switch-in; negative when it charged the end of one to
	 * the task whose wakeup preempted it. docs/accuracy.md.
	 */
	__s64 window_gap_ns;
	/*
	 * Network softirqs (NET_RX, NET_TX) run while it was current
	 * (--wakeups, with the socket hooks): on loopback the delivery of
	 * what it sent, to other tasks. Part of on_cpu_ns unless the kernel
	 * accounts irq time apart.
	 */
	__u64 softirq_ns;
	/*
	 * Blocked, at the read, in a wait nobody has ended yet: of
	 * off_cpu_ns, the part no waker can have (sums/wait_share.c). Set
	 * by the iterator with the graph (wait.bpf.h open_wait_ns()).
	 * Not a sum: a fold adds its tasks', a difference keeps the later.
	 */
	__u64 open_wait_ns;
};

/*
 * Flows in the socket registry (LRU: the least recently used go first);
 * --sock-max sets it.
 */
#define TDBPF_SOCK_MAX_DEFAULT	16384

/*
 * Waker slots per task: the wait time and wakeups each waker ended. The
 * last slot takes every waker that finds no free slot (counted in
 * lost.wakers).
 */
#define TDBPF_NR_WAITS		16	/* a power of two (BPF masks by it) */
/*
 * The first half of the slots is for wakers (the last of them takes the
 * wakers that find none free: TDBPF_WAKER_SPILL), the second for holders
 * of the CPU (the last: TDBPF_HOLDER_UNSEEN), so that a task starved by
 * many never loses its wakers to them.
 */
#define TDBPF_WAKER_SLOTS	(TDBPF_NR_WAITS / 2)

/* Who ended a wait (woke the task up), as the waker's context tells. */
enum tdbpf_waker_kind {
	TDBPF_WAKER_NONE,	/* an empty slot */
	TDBPF_WAKER_TASK,	/* a tracked task: tid is its tid */
	/*
	 * A task of another process, not tracked: tid and tgid are its own
	 * when a socket told them, else 0.
	 */
	TDBPF_WAKER_PROCESS,
	TDBPF_WAKER_THREAD,	/* an untracked thread of the wakee's process */
	TDBPF_WAKER_KTHREAD,	/* a kernel thread (kworker, ...) */
	TDBPF_WAKER_HARDIRQ,	/* a hard interrupt (device completion, IPI) */
	TDBPF_WAKER_SOFTIRQ,	/* a softirq (network, block, timer wheel) */
	TDBPF_WAKER_TIMER,	/* an hrtimer callback (sleeps, timerfd) */
	TDBPF_WAKER_IDLE,	/* the idle task, outside interrupts */
	TDBPF_WAKER_SPILL,	/* the last slot: wakers that found none free */
	/*
	 * A socket's wake whose peer is not on this host or network
	 * namespace: tid is its port, tgid its IPv4 address (network order).
	 */
	TDBPF_WAKER_ENDPOINT,
	/* a socket's wake whose peer tdbpf could not tell */
	TDBPF_WAKER_SOCKET,
	/*
	 * Not wakers: who held the CPU while the task waited on its run
	 * queue (charged at its switch-in, from the CPU's last slices).
	 * Their wait_ns is run-queue wait, not blocked time; wakeups, the
	 * waits they held.
	 */
	TDBPF_HOLDER_TASK,	/* a tracked task: tid is its tid */
	TDBPF_HOLDER_OTHER,	/* a task not tracked: tid is its tid */
	TDBPF_HOLDER_UNSEEN,	/* slices older than the CPU's ring keeps */
	TDBPF_HOLDER_LIMIT,	/* its cgroup's CPU limit throttled it */
	TDBPF_NR_WAKER_KINDS
};

/* A slot's kind is a holder of the CPU, not a waker. */
#define TDBPF_KIND_HOLDS(k)	((k) >= TDBPF_HOLDER_TASK && \
				 (k) < TDBPF_NR_WAKER_KINDS)

/*
 * The last slices each CPU ran (--wakeups): who held it while a task
 * waited for it. A power of two (BPF masks by it); a wait longer than
 * these slices charges the rest to TDBPF_HOLDER_UNSEEN.
 */
#define TDBPF_NR_SLICES		16

struct tdbpf_slice {
	__u32 tid;		/* 0: the idle task */
	__u32 tracked;
	__u64 ns;		/* its on-CPU time in that slice */
};

/* tdbpf_ring.cur: the task running is tracked */
#define TDBPF_RING_TRACKED	0x80000000u

struct tdbpf_ring {
	__u32 head;		/* the next slot written */
	__u32 cur;		/* the task running now: tid | RING_TRACKED */
	struct tdbpf_slice s[TDBPF_NR_SLICES];
};

/* One waker of a task: the waits it ended, and their blocked time. */
struct tdbpf_wait {
	__u32 kind;		/* enum tdbpf_waker_kind */
	__u32 tid;		/* TASK, PROCESS: the waker's tid, else 0 */
	__u32 tgid;		/* TASK, PROCESS: its tgid, else 0 */
	/*
	 * The longest of these waits, in us (saturating; 0: not known):
	 * one over most of the waiter's life is a start or an end, not a
	 * delay that recurs (analysis/graph_flow.c once_ns()).
	 */
	__u32 longest_us;
	__u64 wakeups;
	__u64 wait_ns;		/* switch-out to wakeup, summed */
};

/* One counter's delta, as bpf_perf_event_read_value() reports it. */
struct tdbpf_count {
	__u64 value;
	__u64 enabled;
	__u64 running;
};

enum tdbpf_task_flags {
	TDBPF_TASK_EXITED = 1,	/* switched out dead: its last slice */
	/*
	 * Read-free: exited (sched_process_exit), its entry in the tasks map
	 * but not queued: what the kernel still does for it (unmapping its
	 * memory, closing files, its last switch) is charged when the task
	 * is freed, and the entry is queued then.
	 */
	TDBPF_TASK_EXITING = 2,
};

/*
 * Per-task sums, in the task's local storage while it lives, then one
 * entry per tid in the tasks map. Times are the kernel's own per-task
 * accounting, read at the switch-out: on-CPU time is se.sum_exec_runtime,
 * run-queue wait sched_info.run_delay, migrations se.nr_migrations, each
 * against a baseline from when tdbpf first saw the task (zero for a task
 * born after attach), so a slice is charged whole even when its switch-in
 * was not seen. A switch needs no clock read and never the entry of the
 * task coming in. Switches and page faults are the task's own counts too
 * (nvcsw, nivcsw, min_flt + maj_flt: what /proc/PID/task/TID/stat and
 * status show), so the software model reads no counter at a switch: it
 * reads them all from the task at a report, at its exit and when it is
 * freed (its death then: its exit plus the busy time after it).
 */
struct tdbpf_task {
	__u32 tid;
	__u32 tgid;
	__u32 flags;
	__u32 pad;
	char comm[TDBPF_COMM_LEN];
	struct tdbpf_sched sched;
	__u64 faults;		/* min_flt + maj_flt since first seen */
	__u64 start_ns;		/* CLOCK_MONOTONIC: first seen, or creation */
	__u64 end_ns;		/* CLOCK_MONOTONIC at its death, 0 alive */
	/*
	 * CLOCK_MONOTONIC when a report's iterator read these sums, where
	 * they are as of then (0: as of the flush before it); its life so
	 * far ends there, or time the sums hold would be counted past it
	 */
	__u64 read_ns;
	__u64 charged_exec;	/* sum_exec_runtime up to which it is charged */
	__u64 base_run_delay;	/* baselines, at first sight */
	__u64 base_migrations;
	__u64 base_faults;
	__u64 base_nvcsw;
	__u64 base_nivcsw;
	struct tdbpf_count ctr[TDBPF_MAX_EVENTS];
};

/*
 * A task's wakeups (sched_waking), with --wakeups only: in a task storage
 * of its own, created at the task's first block, so that without
 * --wakeups a task's entry stays in a 2 KiB object (see TDBPF_MAX_EVENTS)
 * and a report reads no waker slots. block_ns: CLOCK_MONOTONIC at the
 * switch-out where it blocked, 0 when not blocked (or its wakeup was
 * charged); block_seq: the task's switch-in count (sched_info.pcount)
 * then. A wakeup that came before that switch-out was traced is marked
 * in early_kind (0: none), early_tid, early_tgid, and early_seq, the count it saw.
 * The wakeup charges now - block_ns to its waker's slot,
 * provisional (pending_wait); the task's next block settles it to the
 * off-CPU time as the kernel accounts it since block_at: the time since
 * minus on-CPU and run-queue time since (block_exec, block_delay), so
 * that waits add up to off_cpu_ns.
 */
struct tdbpf_wake {
	__u64 block_ns;
	__u64 block_at;
	__u64 block_exec;
	__u64 block_delay;
	__u64 pending_wait;
	__u32 pending_slot;	/* slot + 1 of the last waker, 0: settled */
	__u32 early_kind;
	__u32 early_tid;
	__u32 early_seq;
	__u32 block_seq;
	__u32 early_tgid;
	/* the TCP socket a send of the task is in (may wait for space) */
	__u64 send_sk;
	/* the socket it last sent on: what it polls for space, likely */
	__u64 last_send_sk;
	/* ktime when its cgroup's CPU limit took it off its CPU, 0 not */
	__u64 throttle_ns;
	/*
	 * Its group's run queue on its CPU when it last became runnable,
	 * and that queue's throttled time then (cfs_rq's
	 * throttled_clock_self_time): what its group's limit held it since
	 */
	__u64 throttle_rq;
	__u64 throttle_base;
	/* its run_delay as of its last switch-in's end, 0 unseen yet */
	__u64 delay_seen;
	/* sampled: the window that wrote the state above */
	__u32 gen;
	__u32 pad;
	/* sampled: the start of the wait its last wakeup ended, on its
	 * run queue's clock; 0 unknown */
	__u64 sleep_rq;
	struct tdbpf_wait waits[TDBPF_NR_WAITS];
};

/*
 * Bytes of struct tdbpf_task before its counters: a record of the task
 * iterator is these plus one struct tdbpf_count per programmed counter,
 * then with the graph a struct tdbpf_rec_waits, the slots it counts and
 * the task's run-queue wait (__u64 ns) read after them, which the record's
 * runq_wait_ns gives way to: no hold in the slots is missing from it.
 */
#define TDBPF_TASK_HDR_SIZE	__builtin_offsetof(struct tdbpf_task, ctr)

/*
 * In a record, the task's waker slots in use that follow: the first
 * @wakers of its wakers' half, then the first @holders of its holders'
 * (each half is filled from its start); both 0 if it never blocked.
 */
struct tdbpf_rec_waits {
	__u32 wakers;
	__u32 holders;
};

/* Per-CPU state: the task on this CPU and the readings at its switch-in. */
struct tdbpf_cpu {
	__u32 tid;		/* tracked task whose switch-in took prev[] */
	__u32 pad;
	__u64 valid[TDBPF_EV_WORDS];	/* bit i: prev[i] holds a good
					 * reading */
	/*
	 * The task's own accounting at that switch-in: the baselines of a
	 * task older than the attach that is first seen when it switches
	 * out, so that its first slice counts whole.
	 */
	__u64 in_exec;
	__u64 in_faults;
	__u64 in_nvcsw;
	__u64 in_nivcsw;
	struct tdbpf_count prev[TDBPF_MAX_EVENTS];
};

/*
 * Spans (--span): intervals of a thread named after the operator they
 * run. A task's open spans are a stack in its task storage, at most
 * TDBPF_SPAN_DEPTH deep (deeper ones are counted, their time the
 * deepest kept's); what the task does is charged to the innermost, at
 * each boundary and at each switch. A span's id is its uprobe's cookie
 * (1..TDBPF_SPAN_UPROBES, names known to user space), or the FNV-1a hash
 * of its USDT name with the top bit set (names in the span_names map).
 */
#define TDBPF_SPAN_DEPTH	8
#define TDBPF_SPAN_NAME		32
#define TDBPF_SPAN_UPROBES	64
#define TDBPF_SPAN_MAX_DEFAULT	16384
/* a slice's pieces of spans, scaled to its on-CPU time at its end */
#define TDBPF_SPAN_PENDING	16

struct tdbpf_spans {
	__u32 depth;		/* open spans, may exceed TDBPF_SPAN_DEPTH */
	__u32 seen;		/* the marks below were set */
	__u64 id[TDBPF_SPAN_DEPTH];
	__u64 in_ns;		/* CLOCK_MONOTONIC at the slice's start */
	__u64 in_exec;		/* se.sum_exec_runtime then */
	__u64 in_steal;		/* the CPU's steal clock then (spans.bpf.h) */
	/* the last checkpoint: boundary, switch-in or flush */
	__u64 mark_ns;		/* CLOCK_MONOTONIC then, while on CPU */
	__u64 mark_steal;	/* the CPU's steal clock then */
	__u64 mark_delay;	/* sched_info.run_delay then */
	__u64 mark_faults;	/* min_flt + maj_flt then */
	__u64 out_ns;		/* CLOCK_MONOTONIC at switch-out, 0 on CPU */
	__u64 out_exec;		/* se.sum_exec_runtime then */
	/* this slice's clock time in spans so far, by span */
	__u32 nr_pend;
	__u32 pad;
	__u64 pend_id[TDBPF_SPAN_PENDING];
	__u64 pend_ns[TDBPF_SPAN_PENDING];
	/*
	 * Counters: its own baselines (the readings at its switch-in or last
	 * boundary), so that a boundary writes nothing another task reads;
	 * @gen counts its switch-ins, which a boundary preempted midway
	 * sees change (the switches charged the time then), @cvalid that
	 * @cbase holds readings
	 */
	__u32 gen;
	__u32 cvalid;
	__u64 cbase[TDBPF_MAX_EVENTS];
};

struct tdbpf_span_key {
	__u32 tid;
	__u32 tgid;
	__u64 id;
};

/* A span's sums in one thread; blocked = off - runq (user space) */
struct tdbpf_span_sums {
	__u64 entries;
	__u64 on_cpu_ns;
	__u64 runq_ns;		/* run-queue wait while it was innermost */
	__u64 off_ns;		/* switch-out to switch-in, run queue too */
	__u64 faults;		/* page faults, from the task's own count */
	/*
	 * Waits of tracked tasks it ended (--wakeups, the graph): it was
	 * the innermost span of the waker at the wakeup; their blocked
	 * time, block to wakeup. Sampled: the windows' (user space scales)
	 */
	__u64 woke;
	__u64 woke_ns;
	__u64 ctr[TDBPF_MAX_EVENTS];	/* counter deltas, unscaled */
};

/* a USDT span's name in the span_names map: tgid 0, id its hash */
struct tdbpf_span_name_key {
	__u32 tgid;
	__u32 pad;
	__u64 id;
};

/* Losses, summed over the per-CPU stats array (off the hot path). */
enum tdbpf_stat {
	TDBPF_STAT_READ_ERR,	/* bpf_perf_event_read_value failed */
	TDBPF_STAT_MAP_FULL,	/* a task could not be added to the map */
	TDBPF_STAT_UNSEEN,	/* slices charged whose switch-in was unseen */
	TDBPF_STAT_WAITS_FULL,	/* waits charged to a task's last waker slot */
	TDBPF_STAT_SOCK_NEW,	/* flows entered in the socket registry */
	TDBPF_STAT_SOCK_UNRESOLVED,	/* socket wakes with no peer told */
	TDBPF_STAT_SPAN_LOST,	/* span sums that found no room */
	TDBPF_STAT_SPAN_UNMATCHED,	/* a span exit matching no open span */
	TDBPF_STAT_SPAN_DEEP,	/* span enters beyond TDBPF_SPAN_DEPTH */
	TDBPF_NR_STATS,
};

/* What the BPF side tracks, set in rodata before load. */
enum tdbpf_track {
	TDBPF_TRACK_TGID,	/* tgids in the filter map (-p, -- CMD) */
	TDBPF_TRACK_TID,	/* tids in the filter map (-t) */
	TDBPF_TRACK_ALL,	/* every task except the idle tasks (-a) */
};

/*
 * Who is tracked, in a map of its own that starts a page (the BPF
 * variable track, bpf/shared.bpf.h): the mode (enum tdbpf_track, set by
 * user space before load) sits right before the bits, in the same page
 * as the first 32,704 ids' (all of them where pid_max is 32768, the
 * default below 32 CPUs), so the early exit of a switch touches one page.
 * nr_live: the tasks with storage now; --max-tasks bounds it.
 */
struct tdbpf_filter {
	__u32 track_mode;
	__u32 nr_live;
	__u64 track_bits[TDBPF_TRACK_WORDS];
	/* read-free: tasks exited and not yet freed (TDBPF_TASK_EXITING) */
	__u32 nr_exiting;
	/*
	 * Read-free, counts since the start (wrapping): exits, and exits
	 * settled (freed, or never in the map). The last report waits for
	 * the exits before its stop, not for the machine to stop exiting.
	 */
	__u32 nr_exited;
	__u32 nr_settled;
};

/* The size claims above, checked wherever this header compiles. */
_Static_assert(TDBPF_MAX_EVENTS >= 65, "Granite Rapids L1-L3 needs 65");
/*
 * A Java thread's name as HotSpot's thread__start USDT probe gives it,
 * recorded by the new thread itself (bpf/jvm.bpf.c), keyed by its tid:
 * threads a JVM starts after the attach, named whole (the kernel keeps
 * 15 bytes). @len: the name's bytes, cut to TDBPF_JNAME_LEN - 1.
 */
#define TDBPF_JNAME_LEN		128	/* a power of two (BPF masks by it) */
#define TDBPF_JNAMES_MAX	16384	/* threads started between collects */
struct tdbpf_jname {
	__u32 tgid;
	__u32 len;
	char name[TDBPF_JNAME_LEN];
};

_Static_assert(sizeof(struct tdbpf_count) == 24, "24 bytes per counter");
_Static_assert(TDBPF_TASK_HDR_SIZE == 192, "192 bytes of ours per task");
_Static_assert(sizeof(struct tdbpf_task) ==
		       TDBPF_TASK_HDR_SIZE +
			       TDBPF_MAX_EVENTS * sizeof(struct tdbpf_count),
	       "a task's entry is its header and its counters");
_Static_assert(TDBPF_STORAGE_ELEM_HDR + sizeof(struct tdbpf_task) == 1992,
	       "a task's storage element is 1,992 bytes");
_Static_assert(TDBPF_STORAGE_ELEM_HDR + sizeof(struct tdbpf_task) <= 2048,
	       "a task's storage element fits a 2 KiB object");
_Static_assert(TDBPF_TASK_HDR_SIZE % 8 == 0 &&
		       sizeof(struct tdbpf_count) % 8 == 0,
	       "waker slots are 8-byte aligned in an iterator record");
_Static_assert((TDBPF_NR_WAITS & (TDBPF_NR_WAITS - 1)) == 0,
	       "TDBPF_NR_WAITS is a power of two (BPF masks by it)");
_Static_assert((4096 - __builtin_offsetof(struct tdbpf_filter, track_bits)) *
			       8 == 32704,
	       "the mode and the first 32,704 ids share a page");

#endif /* TDBPF_H */
