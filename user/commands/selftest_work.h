/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdbpf selftest's workload: threads with long and short slices and
 * threads that migrate, parked (blocked) before and after their work so
 * that a window opened and closed while they are parked starts and ends
 * at a switch, for tdbpf and for the kernel's per-thread counters alike.
 */
#ifndef TDBPF_SELFTEST_WORK_H
#define TDBPF_SELFTEST_WORK_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#define WORK_MAX_THREADS	8

enum work_kind {
	WORK_LONG,	/* long busy slices, then a sleep */
	WORK_SHORT,	/* many short slices: a little work, a yield/sleep */
	WORK_MIGRATE,	/* busy on one CPU after another (affinity) */
	WORK_NR_KINDS
};

struct work;

struct work_thread {
	struct work *w;
	pthread_t th;
	pid_t tid;
	enum work_kind kind;
	char name[16];
};

struct work {
	struct work_thread t[WORK_MAX_THREADS];
	int nr;
	int ncpu;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int parked;	/* threads blocked at the current gate */
	int gate;	/* 0: before the work, 1: after it, 2: exit */
	int err;	/* a thread could not start: errno */
};

/* Start @w's threads (@nr, at most WORK_MAX_THREADS); parked at gate 0. */
int work_start(struct work *w, int nr);
/*
 * Wait until every thread is parked (blocked off-CPU, as /proc says) at
 * the current gate; 0, or -ETIMEDOUT after @ms.
 */
int work_wait_parked(struct work *w, int ms);
/* Open the next gate: the threads run their work (or exit). */
void work_release(struct work *w);
/* Let the threads exit and join them. */
void work_stop(struct work *w);

const char *work_kind_name(enum work_kind k);

#endif /* TDBPF_SELFTEST_WORK_H */
