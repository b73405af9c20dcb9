// SPDX-License-Identifier: GPL-2.0
/* Waker slots: add, subtract and name them (see waits.h). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "sums/waits.h"

static bool same_waker(const struct tdbpf_wait *a, const struct tdbpf_wait *b)
{
	return a->kind == b->kind && a->tid == b->tid && a->tgid == b->tgid;
}

/* The slot of @key, in its half (include/tdbpf.h), as BPF does. */
static struct tdbpf_wait *slot_for(struct tdbpf_wait *w,
				   const struct tdbpf_wait *key)
{
	int base = TDBPF_KIND_HOLDS(key->kind) ? TDBPF_WAKER_SLOTS : 0, i;
	struct tdbpf_wait *last = &w[base + TDBPF_WAKER_SLOTS - 1];

	for (i = base; i < base + TDBPF_WAKER_SLOTS - 1; i++) {
		if (w[i].kind == TDBPF_WAKER_NONE) {
			w[i].kind = key->kind;
			w[i].tid = key->tid;
			w[i].tgid = key->tgid;
		}
		if (same_waker(&w[i], key))
			return &w[i];
	}
	last->kind = base ? TDBPF_HOLDER_UNSEEN : TDBPF_WAKER_SPILL;
	last->tid = 0;
	last->tgid = 0;
	return last;
}

void waits_add(struct tdbpf_wait *dst, const struct tdbpf_wait *src)
{
	struct tdbpf_wait *d;
	int i;

	for (i = 0; i < TDBPF_NR_WAITS; i++) {
		if (src[i].kind == TDBPF_WAKER_NONE ||
		    (!src[i].wakeups && !src[i].wait_ns))
			continue;
		d = slot_for(dst, &src[i]);
		d->wakeups += src[i].wakeups;
		d->wait_ns += src[i].wait_ns;
	}
}

static __u64 sub_sat(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

void waits_sub(struct tdbpf_wait *out, const struct tdbpf_wait *cur,
	       const struct tdbpf_wait *prev)
{
	int i, j;

	for (i = 0; i < TDBPF_NR_WAITS; i++) {
		const struct tdbpf_wait *p = NULL;

		out[i] = cur[i];
		if (!prev || cur[i].kind == TDBPF_WAKER_NONE)
			continue;
		for (j = 0; j < TDBPF_NR_WAITS && !p; j++)
			if (same_waker(&prev[j], &cur[i]))
				p = &prev[j];
		if (!p)
			continue;
		out[i].wakeups = sub_sat(cur[i].wakeups, p->wakeups);
		out[i].wait_ns = sub_sat(cur[i].wait_ns, p->wait_ns);
	}
}

__u64 waits_total(const struct tdbpf_wait *w, __u64 *wakeups)
{
	__u64 t = 0, n = 0;
	int i;

	for (i = 0; i < TDBPF_NR_WAITS; i++) {
		if (w[i].kind == TDBPF_WAKER_NONE)
			continue;
		t += w[i].wait_ns;
		n += w[i].wakeups;
	}
	if (wakeups)
		*wakeups = n;
	return t;
}

static const struct {
	const char *name, *what;
} kinds[WAKER_KINDS] = {
	[TDBPF_WAKER_NONE] = { "none", "nothing" },
	[TDBPF_WAKER_TASK] = { NULL, "a task of the graph" },
	[TDBPF_WAKER_PROCESS] = { "other-process", "another process" },
	[TDBPF_WAKER_THREAD] = { "untracked-thread",
				 "threads of its process not traced" },
	[TDBPF_WAKER_KTHREAD] = { "kthread",
				  "kernel threads (kworker: I/O, work queues)" },
	[TDBPF_WAKER_HARDIRQ] = { "irq", "interrupts (device I/O)" },
	[TDBPF_WAKER_SOFTIRQ] = { "softirq",
				  "softirqs (network, block I/O, timer wheel)" },
	[TDBPF_WAKER_TIMER] = { "timer", "timers (sleeps, timerfd, timeouts)" },
	[TDBPF_WAKER_IDLE] = { "idle", "the idle task" },
	[TDBPF_WAKER_SPILL] = { "other-wakers",
				"more wakers than tdbpf keeps per task" },
	[TDBPF_WAKER_ENDPOINT] = { "endpoint",
				   "peers on other hosts or namespaces" },
	[TDBPF_WAKER_SOCKET] = { "unresolved socket",
				 "sockets whose peer tdbpf could not tell" },
	[TDBPF_HOLDER_TASK] = { NULL, "a task of the graph on its CPU" },
	[TDBPF_HOLDER_OTHER] = { "cpu-other", "tasks outside the graph" },
	[TDBPF_HOLDER_UNSEEN] = { "cpu-unseen",
				  "tasks older than the CPU's last slices" },
	[TDBPF_HOLDER_LIMIT] = { "cpu-limit", "its cgroup's CPU limit" },
	[WAKER_UNSEEN] = { "unseen", "no wakeup tdbpf saw" },
};

const char *waker_kind_name(unsigned int kind)
{
	return kind < WAKER_KINDS ? kinds[kind].name : "unknown";
}

unsigned int waker_kind_by_name(const char *name)
{
	unsigned int k;

	for (k = 0; k < WAKER_KINDS; k++)
		if (kinds[k].name && !strcmp(kinds[k].name, name))
			return k;
	return TDBPF_WAKER_PROCESS;
}

const char *waker_kind_what(unsigned int kind)
{
	return kind < WAKER_KINDS ? kinds[kind].what : "unknown";
}
