/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF programs share: the configuration user space sets before
 * load, the maps, and the page of tracked ids. Each is defined once, in
 * shared.bpf.c (TDBPF_DEFINE_SHARED), and extern in every other object;
 * bpftool gen object links them into the one object whose skeleton
 * tracer.c loads (see the Makefile's BPF_SRC).
 */
#ifndef TDBPF_SHARED_BPF_H
#define TDBPF_SHARED_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tdbpf.h"

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

/* the definition in shared.bpf.c, a declaration elsewhere */
#ifdef TDBPF_DEFINE_SHARED
#define SHARED
#define INIT(...) = __VA_ARGS__
#else
#define SHARED extern
#define INIT(...)
#endif

/* Set by user space before load. */
SHARED const volatile __u32 nr_cpus INIT(1);
SHARED const volatile __u32 nr_events;
/* bit i: counter i leads a group (read with its times) */
SHARED const volatile __u64 group_leads[TDBPF_EV_WORDS] INIT({ 1 });
SHARED const volatile bool follow_children;
/*
 * CLOCK_MONOTONIC once the programs are attached: a task started later is
 * seen from its first slice and counts whole. Set by user space after the
 * attach, not before the load: loading can take long, and a task born
 * meanwhile ran unseen, so it counts from first sight. Until then no task
 * is taken for one born while we watch.
 */
SHARED __u64 attach_ns INIT((__u64)-1);
SHARED const volatile __u32 max_tasks INIT(TDBPF_MAX_TASKS_DEFAULT);
/* wakeups traced: blocking switch-outs take the clock for sched_waking */
SHARED const volatile bool track_wakeups;
/* bpf_map_lookup_percpu_elem() exists (5.19+): other CPUs' rings */
SHARED const volatile bool percpu_lookup;
/*
 * bpf_loop() exists (5.17+): the walk over a CPU's last slices. False:
 * the call is dead code, never verified, as the lookup's above.
 */
SHARED const volatile bool have_loop INIT(true);
/*
 * No counter and no wakeups (the software model): every sum is the
 * task's own accounting, so nothing needs a switch. The sums are read
 * from the task when a report asks (tdbpf_dump) and at its exit
 * (tdbpf_exit): no program runs at a switch at all.
 */
SHARED const volatile bool read_free;
/*
 * --span: the span programs are attached and the switch charges a
 * task's innermost open span too. False: none of it is even verified.
 */
SHARED const volatile bool track_spans;

/*
 * Sampled (the default graph): the wakeup programs run in windows only.
 * User space attaches them when a window opens and detaches them when
 * it closes (a switch program that also reads counters stays, and is
 * told by @sample_gen). A wait is charged at its wakeup, its length read from
 * the wakee's own accounting (wait.bpf.h): no program at its start.
 */
SHARED const volatile bool sampled;
/* The window open now, numbered from 1 by user space; 0 between them. */
SHARED __u32 sample_gen;

/*
 * Sampled, between windows: the window's programs do nothing. User
 * space attaches them before it opens a window (numbers it) and detaches
 * them after it closes it (zeroes it), so that a window is exactly the
 * time user space measured between the two stores: attaching and
 * detaching take milliseconds in a slow guest (a static key patched on
 * every CPU), time in which some programs ran and others did not.
 */
static __always_inline bool window_shut(void)
{
	return sampled && !sample_gen;
}

/*
 * Where this CPU's preempt count and hrtimer bases are, relative to its
 * run queue: per-CPU variables sit at the same distance from each other
 * on every CPU. User space reads the distances from the kernel's BTF
 * (the .data..percpu section), since typed ksyms of per-CPU variables
 * need them in kallsyms, which kernels without CONFIG_KALLSYMS_ALL lack.
 * 0: unknown (the waker's context then tells less, never something wrong).
 */
SHARED const volatile __s64 preempt_from_rq;
SHARED const volatile __s64 hrtimers_from_rq;
/*
 * With --span, a KVM guest's steal clock, the same way: the host's count
 * (ns) of the time it ran something else on this vCPU (struct
 * kvm_steal_time's steal, its first field), which the kernel leaves out
 * of tasks' on-CPU time. 0: none (not a KVM guest).
 */
SHARED const volatile __s64 steal_from_rq;

SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} counters SEC(".maps");

SHARED struct {
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
SHARED struct {
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
SHARED struct {
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
SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct tdbpf_task);
} tasks SEC(".maps");

/* The waker state of dead tasks (--wakeups), beside their sums in @tasks. */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct tdbpf_wake);
} dead_wakes SEC(".maps");


/* --span: a task's open spans and the marks they are charged from */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tdbpf_spans);
} span_store SEC(".maps");

/*
 * Span sums by (tid, span), kept after the thread dies: user space reads
 * them all at a collect. Full: counted (TDBPF_STAT_SPAN_LOST), and that
 * span's time stays its thread's.
 */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TDBPF_SPAN_MAX_DEFAULT);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct tdbpf_span_key);
	__type(value, struct tdbpf_span_sums);
} span_sums SEC(".maps");

/* a new span's sums, never written */
SHARED struct tdbpf_span_sums span_zero;

/* The names of USDT spans by id, their hash (tgid 0: one for all) */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct tdbpf_span_name_key);
	__type(value, char[TDBPF_SPAN_NAME]);
} span_names SEC(".maps");

SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TDBPF_NR_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/*
 * Tids that switched out dead: user space pops them and moves their sums
 * out of the map, so thread churn never fills it and needs no map scan.
 */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 65536);
	__type(value, __u32);
} exited SEC(".maps");

/*
 * With --wakeups, the last slices each CPU ran: who held it while a
 * tracked task waited for it (holders.bpf.h).
 */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tdbpf_ring);
} cpu_ring SEC(".maps");

/*
 * tgids (or tids with -t) to follow, one bit each; fork sets children's
 * bits with --children. A plain global variable: the test at every switch
 * of every task on the machine is a memory load, not a helper call.
 * Page-aligned, in .bss, whose mmap-able map value the kernel allocates
 * page-aligned: the mode starts a page whatever else is global and in
 * whatever order objects link (struct tdbpf_filter says what shares that
 * page). On a VM every page a switch touches that the scheduler has not
 * costs a page walk (about 30 ns here): the early exit touches one.
 */
SHARED struct tdbpf_filter track __attribute__((aligned(4096)));

#endif /* TDBPF_SHARED_BPF_H */
