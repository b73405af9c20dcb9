// SPDX-License-Identifier: GPL-2.0
/* Waker slots: add, subtract and name them (see waits.h). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include "sums/waits.h"

static bool empty(const struct tdbpf_wait *w)
{
	return w->kind == TDBPF_WAKER_NONE || (!w->wakeups && !w->wait_ns);
}

/*
 * Where @key goes in the list @w of @n: its own slot, or a new one at
 * @n while its half (wakers, holders) has room for one more than its
 * spill, or its half's spill slot, which *@key becomes (new at @n when
 * there is none yet).
 */
static int slot_for(const struct tdbpf_wait *w, int n, struct tdbpf_wait *key)
{
	bool holds = TDBPF_KIND_HOLDS(key->kind);
	int i, half = 0;

	for (i = 0; i < n; i++) {
		if (same_waker(&w[i], key))
			return i;
		half += TDBPF_KIND_HOLDS(w[i].kind) == holds;
	}
	if (half < TDBPF_WAKER_SLOTS - 1)
		return n;
	key->kind = holds ? TDBPF_HOLDER_UNSEEN : TDBPF_WAKER_SPILL;
	key->tid = 0;
	key->tgid = 0;
	for (i = 0; i < n; i++)
		if (same_waker(&w[i], key))
			return i;
	return n;
}

int waits_need(const struct tdbpf_wait *dst, int n_dst,
	       const struct tdbpf_wait *src, int n_src)
{
	int i, j, n = n_dst;

	for (i = 0; i < n_src && n < TDBPF_NR_WAITS; i++) {
		if (empty(&src[i]))
			continue;
		for (j = 0; j < n_dst && !same_waker(&dst[j], &src[i]); j++)
			;
		n += j == n_dst;
	}
	return n;
}

void waits_add(struct tdbpf_wait *dst, int *n_dst,
	       const struct tdbpf_wait *src, int n_src)
{
	int i, j;

	for (i = 0; i < n_src; i++) {
		struct tdbpf_wait key = src[i];

		if (empty(&key))
			continue;
		j = slot_for(dst, *n_dst, &key);
		if (j == *n_dst) {
			dst[j] = key;
			dst[j].wakeups = 0;
			dst[j].wait_ns = 0;
			(*n_dst)++;
		}
		dst[j].wakeups += src[i].wakeups;
		dst[j].wait_ns += src[i].wait_ns;
		if (src[i].longest_us > dst[j].longest_us)
			dst[j].longest_us = src[i].longest_us;
	}
}

void waits_sub(struct tdbpf_wait *out, const struct tdbpf_wait *cur,
	       int n_cur, const struct tdbpf_wait *prev, int n_prev)
{
	int i, j;

	for (i = 0; i < n_cur; i++) {
		const struct tdbpf_wait *p = NULL;

		out[i] = cur[i];
		for (j = 0; j < n_prev && !p; j++)
			if (same_waker(&prev[j], &cur[i]))
				p = &prev[j];
		if (!p)
			continue;
		out[i].wakeups = sub_sat(cur[i].wakeups, p->wakeups);
		out[i].wait_ns = sub_sat(cur[i].wait_ns, p->wait_ns);
		/* the longest is the interval's only if it grew in it */
		if (cur[i].longest_us == p->longest_us)
			out[i].longest_us = 0;
	}
}

__u64 waits_total(const struct tdbpf_wait *w, int n, __u64 *wakeups)
{
	__u64 t = 0, k = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (w[i].kind == TDBPF_WAKER_NONE)
			continue;
		t += w[i].wait_ns;
		k += w[i].wakeups;
	}
	if (wakeups)
		*wakeups = k;
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
