// SPDX-License-Identifier: GPL-2.0
/*
 * Where a slice's on-CPU time starts and ends against the counter window
 * tdbpf reads (docs/accuracy.md, "Counters against on-CPU time"). For
 * each slice of one process, at its switch-in and switch-out tracepoints:
 * this CPU's cpu-clock counter (what tdbpf charges: local_clock() since
 * the counter was enabled), se.sum_exec_runtime and se.exec_start (what
 * the kernel charges), and the run queue's clock; at its wakeup
 * (sched_wakeup, where the enqueue happens) the run queue's clock too, so
 * that a slice whose exec_start is that clock is one the kernel dates
 * from its wakeup. One record per slice goes to user space
 * (bench/switch_window.c), which makes the histograms.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "switch_window.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 tgid;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} clocks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} slices SEC(".maps");

/* the slice under way on this CPU, if it is one of ours */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sw_slice);
} cur SEC(".maps");

/* the run queue clock at each of our tasks' last wakeup */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} woke SEC(".maps");

__u64 lost;

static __u64 clock_now(void)
{
	struct bpf_perf_event_value v = {};

	if (bpf_perf_event_read_value(&clocks, BPF_F_CURRENT_CPU, &v,
				      sizeof(v)))
		return 0;
	return v.counter;
}

/* a fair task's run queue (ours are all fair) */
static struct rq *rq_of(struct task_struct *p)
{
	return BPF_CORE_READ(p, se.cfs_rq, rq);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sw_wakeup, struct task_struct *p)
{
	__u32 pid = p->pid;
	__u64 clk;

	if (p->tgid != tgid)
		return 0;
	clk = BPF_CORE_READ(rq_of(p), clock);
	bpf_map_update_elem(&woke, &pid, &clk, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sw_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u64 now = clock_now(), *w;
	struct sw_slice *s, *r;
	struct rq *rq;
	__u32 z = 0, pid;

	s = bpf_map_lookup_elem(&cur, &z);
	if (!s || !now)
		return 0;
	if (prev->tgid == tgid && s->pid == prev->pid && s->in_clk) {
		rq = rq_of(prev);
		s->out_clk = now;
		s->out_sum = prev->se.sum_exec_runtime;
		s->out_rq_clock = BPF_CORE_READ(rq, clock);
		r = bpf_ringbuf_reserve(&slices, sizeof(*r), 0);
		if (r) {
			__builtin_memcpy(r, s, sizeof(*r));
			bpf_ringbuf_submit(r, 0);
		} else {
			lost++;
		}
	}
	s->in_clk = 0;
	s->pid = 0;
	if (next->tgid != tgid)
		return 0;
	pid = next->pid;
	rq = rq_of(next);
	s->cpu = bpf_get_smp_processor_id();
	s->pid = pid;
	s->from_idle = prev->pid == 0;
	s->in_clk = now;
	s->in_sum = next->se.sum_exec_runtime;
	s->in_start = next->se.exec_start;
	s->in_rq_clock = BPF_CORE_READ(rq, clock);
	s->in_rq_clock_task = BPF_CORE_READ(rq, clock_task);
	w = bpf_map_lookup_elem(&woke, &pid);
	s->wake_rq_clock = w ? *w : 0;
	if (w)
		bpf_map_delete_elem(&woke, &pid);
	return 0;
}
