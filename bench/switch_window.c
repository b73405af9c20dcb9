// SPDX-License-Identifier: GPL-2.0
/*
 * switch_window: per slice of one process, the on-CPU time the kernel
 * charges (se.sum_exec_runtime's growth) against the counter window tdbpf
 * charges counters for (cpu-clock from switch-in to switch-out
 * tracepoint), and why they differ: whether the slice's exec_start is the
 * run queue clock of the wakeup that queued it (the clock update that
 * wakeup_preempt() let __schedule() skip), and whether it came from idle.
 * bench/switch_window.sh runs it beside a pipe ping-pong, pinned and free.
 *
 * usage: switch_window PID
 * stdout: "attached" once attached, then, when PID has exited, the
 * summary and the histogram of the per-slice gap (docs/accuracy.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "switch_window.h"
#include "switch_window.skel.h"

#define MAX_CPUS	1024

static struct sw_slice *sl;
static size_t nr, cap;

static int take(void *ctx, void *data, size_t size)
{
	(void)ctx;
	if (size < sizeof(*sl))
		return 0;
	if (nr == cap) {
		void *p = realloc(sl, (cap = cap ? cap * 2 : 65536) *
					      sizeof(*sl));

		if (!p)
			return -ENOMEM;
		sl = p;
	}
	memcpy(&sl[nr++], data, sizeof(*sl));
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* "p10 p50 p90 p99" of @v (sorted in place), in microseconds */
static void pcts(long long *v, size_t n)
{
	static const double q[] = { 0.10, 0.50, 0.90, 0.99 };
	size_t i;

	if (!n) {
		printf("-");
		return;
	}
	qsort(v, n, sizeof(*v), cmp_ll);
	for (i = 0; i < sizeof(q) / sizeof(q[0]); i++)
		printf("%sp%.0f %.2f", i ? ", " : "", q[i] * 100,
		       v[(size_t)(q[i] * (n - 1))] / 1e3);
}

static void report(void)
{
	static long long off[MAX_CPUS];
	static const long long edge[] = { 0, 500, 1000, 2000, 4000, 6000,
					  8000, 10000, 20000 };
	enum { NE = sizeof(edge) / sizeof(edge[0]) };
	long long *gap = calloc(nr + 1, sizeof(*gap));
	long long *dgap = calloc(nr + 1, sizeof(*dgap));
	long long *ogap = calloc(nr + 1, sizeof(*ogap));
	long long *dpre = calloc(nr + 1, sizeof(*dpre));
	long long *opre = calloc(nr + 1, sizeof(*opre));
	size_t hist[2][NE + 1] = { { 0 } }, nd = 0, no = 0, idle = 0, i, k;
	size_t start_is_clock = 0;
	double on = 0, win = 0, g = 0, gd = 0, gidle = 0;
	bool seen[MAX_CPUS] = { false };
	char lab[32];

	if (!gap || !dgap || !ogap || !dpre || !opre) {
		fprintf(stderr, "switch_window: out of memory\n");
		exit(1);
	}
	/*
	 * cpu-clock counts local_clock() from its enable, the run queue
	 * clock is local_clock() as of its last update: their least
	 * difference on a CPU (right after an update) is the offset.
	 */
	for (i = 0; i < nr; i++) {
		const struct sw_slice *s = &sl[i];
		long long a = (long long)(s->in_clk - s->in_rq_clock);
		long long b = (long long)(s->out_clk - s->out_rq_clock);

		if (s->cpu >= MAX_CPUS)
			continue;
		if (!seen[s->cpu] || a < off[s->cpu])
			off[s->cpu] = a;
		if (b < off[s->cpu])
			off[s->cpu] = b;
		seen[s->cpu] = true;
	}
	for (i = 0; i < nr; i++) {
		const struct sw_slice *s = &sl[i];
		long long e = (long long)(s->out_sum - s->in_sum);
		long long w = (long long)(s->out_clk - s->in_clk);
		long long pre;
		bool dated = s->wake_rq_clock &&
			     s->wake_rq_clock == s->in_rq_clock;

		if (s->cpu >= MAX_CPUS)
			continue;
		pre = (long long)(s->in_clk - s->in_rq_clock) - off[s->cpu];
		gap[i] = e - w;
		on += e;
		win += w;
		g += e - w;
		start_is_clock += s->in_start == s->in_rq_clock_task;
		if (s->from_idle) {
			idle++;
			gidle += e - w;
		}
		if (dated) {
			dgap[nd] = e - w;
			dpre[nd++] = pre;
			gd += e - w;
		} else {
			ogap[no] = e - w;
			opre[no++] = pre;
		}
		for (k = 0; k < NE && gap[i] >= edge[k]; k++)
			;
		hist[dated][k]++;
	}
	printf("%zu slices: on-CPU %.1f ms (sum_exec_runtime), counter windows %.1f ms (cpu-clock, switch-in to switch-out): gap %.1f ms, %.1f%% of on-CPU\n",
	       nr, on / 1e6, win / 1e6, g / 1e6, on ? 100 * g / on : 0);
	printf("exec_start is the run queue's task clock at the switch-in: %.2f%% of slices\n",
	       nr ? 100.0 * start_is_clock / nr : 0);
	printf("dated from their wakeup (exec_start = rq clock at sched_wakeup): %.1f%% of slices, %.1f ms of the gap\n",
	       nr ? 100.0 * nd / nr : 0, gd / 1e6);
	printf("switched in from idle: %.1f%% of slices, %.1f ms of the gap\n",
	       nr ? 100.0 * idle / nr : 0, gidle / 1e6);
	printf("gap per slice, us: dated from wakeup: ");
	pcts(dgap, nd);
	printf("; others: ");
	pcts(ogap, no);
	printf("\nswitch-in tracepoint after the clock exec_start took, us: dated from wakeup: ");
	pcts(dpre, nd);
	printf("; others: ");
	pcts(opre, no);
	printf("\nhistogram of the gap per slice (us): slices dated from wakeup / others\n");
	for (k = 0; k <= NE; k++) {
		if (!hist[0][k] && !hist[1][k])
			continue;
		if (k == 0)
			snprintf(lab, sizeof(lab), "< 0");
		else if (k == NE)
			snprintf(lab, sizeof(lab), ">= %g", edge[k - 1] / 1e3);
		else
			snprintf(lab, sizeof(lab), "%g-%g", edge[k - 1] / 1e3,
				 edge[k] / 1e3);
		printf("  %-8s %7zu / %7zu  (%5.1f%% / %5.1f%%)\n", lab, hist[1][k],
		       hist[0][k], nr ? 100.0 * hist[1][k] / nr : 0,
		       nr ? 100.0 * hist[0][k] / nr : 0);
	}
	free(gap);
	free(dgap);
	free(ogap);
	free(dpre);
	free(opre);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct switch_window_bpf *skel;
	struct ring_buffer *rb;
	char proc[64];
	int ncpu, i, pid;

	if (argc != 2 || (pid = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: switch_window PID\n");
		return 2;
	}
	skel = switch_window_bpf__open();
	if (!skel)
		return 1;
	skel->rodata->tgid = pid;
	if (switch_window_bpf__load(skel)) {
		fprintf(stderr, "switch_window: cannot load the BPF programs (root?)\n");
		return 1;
	}
	ncpu = libbpf_num_possible_cpus();
	for (i = 0; i < ncpu; i++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(a),
			.config = PERF_COUNT_SW_CPU_CLOCK,
		};
		int fd = syscall(SYS_perf_event_open, &a, -1, i, -1, 0);

		if (fd < 0 && errno != ENODEV) {
			perror("switch_window: perf_event_open cpu-clock");
			return 1;
		}
		if (fd >= 0)
			bpf_map_update_elem(bpf_map__fd(skel->maps.clocks),
					    &i, &fd, BPF_ANY);
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.slices), take, NULL,
			      NULL);
	if (!rb || switch_window_bpf__attach(skel)) {
		fprintf(stderr, "switch_window: cannot attach\n");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached\n");
	fflush(stdout);
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	while (!stop && !access(proc, F_OK))
		ring_buffer__poll(rb, 100);
	ring_buffer__consume(rb);
	if (skel->bss->lost)
		printf("%llu slices lost (ring buffer full)\n",
		       (unsigned long long)skel->bss->lost);
	report();
	ring_buffer__free(rb);
	switch_window_bpf__destroy(skel);
	free(sl);
	return 0;
}
