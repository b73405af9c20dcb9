// SPDX-License-Identifier: GPL-2.0
/*
 * The floor for tdbpf's sched_switch cost, measured on the same machine:
 * an empty program, and programs that do nothing but K counter reads from
 * a perf event array laid out like tdbpf's (event * nr_cpus + cpu).
 * bench/floor.c loads one of them at a time; the kernel's bpf_stats give
 * run_time_ns / run_cnt.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 nr_cpus = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} counters SEC(".maps");

/* one store per run, so the reads have a consumer; races do not matter */
__u64 sink;

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_empty)
{
	return 0;
}

/*
 * K counter reads of this CPU's counters: the first @timed with their
 * enabled and running times (bpf_perf_event_read_value), the rest
 * value-only (bpf_perf_event_read), as tdbpf reads a group's members.
 */
static __always_inline int read_k(const int k, const int timed)
{
	struct bpf_perf_event_value v;
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 sum = 0;
	int i;

#pragma unroll
	for (i = 0; i < k; i++) {
		if (i >= timed)
			sum += bpf_perf_event_read(&counters,
						   i * nr_cpus + cpu);
		else if (!bpf_perf_event_read_value(&counters,
						    i * nr_cpus + cpu, &v,
						    sizeof(v)))
			sum += v.counter;
	}
	sink = sum;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_read1)
{
	return read_k(1, 1);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_read4)
{
	return read_k(4, 4);
}

/* the same four counters read as tdbpf reads one group of four */
SEC("tp_btf/sched_switch")
int BPF_PROG(floor_read4grp)
{
	return read_k(4, 1);
}

/*
 * Where the rest of a tracked switch goes: the lookup of the task's entry,
 * as tdbpf does it (a hash keyed by tid, the entry present) and as task
 * storage would. Two lookups per run, prev's and next's.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} tstore SEC(".maps");

/*
 * The target's floor for a tracked switch that reads no counter (the
 * software model): an empty program plus the one task-storage lookup
 * tdbpf makes, prev's entry.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(floor_tstore1, bool preempt, struct task_struct *prev)
{
	__u32 *a = bpf_task_storage_get(&tstore, prev, 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (a)
		sink += *a;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_tstore2, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 *a = bpf_task_storage_get(&tstore, prev, 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u32 *b = bpf_task_storage_get(&tstore, next, 0,
					BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (a && b)
		sink += *a + *b;
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u64);
} present SEC(".maps");

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_hashhit2, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 a = prev->pid, b = next->pid;
	__u64 z = 0, *x, *y;

	x = bpf_map_lookup_elem(&present, &a);
	if (!x) {
		/* first sight; every later switch finds it */
		bpf_map_update_elem(&present, &a, &z, BPF_NOEXIST);
		return 0;
	}
	y = bpf_map_lookup_elem(&present, &b);
	if (y)
		sink += *x + *y;
	return 0;
}

/* The floor of tdbpf_waking: an empty program on sched_waking. */
SEC("tp_btf/sched_waking")
int BPF_PROG(floor_wempty)
{
	return 0;
}

/* The floor of the socket hooks: an empty program at every send's end. */
SEC("tp_btf/sock_send_length")
int BPF_PROG(floor_sempty)
{
	return 0;
}

/*
 * The floor of a uprobe span (--span BINARY:FUNC): empty programs at a
 * function's entry and return, what the traps cost without tdbpf's work.
 */
SEC("uprobe")
int floor_uempty(struct pt_regs *ctx)
{
	return 0;
}

SEC("uretprobe")
int floor_urempty(struct pt_regs *ctx)
{
	return 0;
}
