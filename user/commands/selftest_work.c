// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf selftest's workload (selftest_work.h). Its amounts are fixed
 * (loop iterations, rounds), not times: the same work takes 0.1 s here
 * and seconds in an emulator, and with fixed work its counts repeat.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "commands/selftest_work.h"
#include "support/readfile.h"

#define ROUNDS		40
#define LONG_ITERS	400000	/* per round: a slice of a few ms */
#define SHORT_ITERS	4000	/* per round, 10 short slices each */
#define FAULT_PAGES	4	/* fresh pages touched per round */

static const char *const kind_names[WORK_NR_KINDS] = {
	[WORK_LONG] = "long",
	[WORK_SHORT] = "short",
	[WORK_MIGRATE] = "migrate",
};

const char *work_kind_name(enum work_kind k)
{
	return kind_names[k];
}

static void spin(unsigned long n)
{
	unsigned long x = 0;

	/* the empty asm hides x from the optimiser, so the loop stays */
	while (n--) {
		x += n;
		__asm__ volatile("" : "+r"(x));
	}
}

static void nap(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

/* page faults the task takes itself: fresh anonymous pages */
static void touch_pages(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, FAULT_PAGES * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < FAULT_PAGES; i++)
		p[i * pg] = 1;
	munmap(p, FAULT_PAGES * pg);
}

static void run_round(struct work *w, struct work_thread *t, int r)
{
	cpu_set_t set;
	int i;

	switch (t->kind) {
	case WORK_LONG:
		spin(LONG_ITERS);
		nap(200000);
		break;
	case WORK_SHORT:
		for (i = 0; i < 10; i++) {
			spin(SHORT_ITERS);
			if (i & 1)
				sched_yield();
			else
				nap(20000);
		}
		break;
	case WORK_MIGRATE:
		CPU_ZERO(&set);
		CPU_SET(r % w->ncpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		spin(LONG_ITERS / 4);
		break;
	default:
		break;
	}
	touch_pages();
}

/* block at gate @g until the main thread opens it */
static void park(struct work *w, int g)
{
	pthread_mutex_lock(&w->lock);
	w->parked++;
	while (w->gate == g)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static void *thread_main(void *arg)
{
	struct work_thread *t = arg;
	struct work *w = t->w;
	int r;

	t->tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), t->name);
	park(w, 0);
	for (r = 0; r < ROUNDS; r++)
		run_round(w, t, r);
	park(w, 1);
	return NULL;
}

int work_start(struct work *w, int nr)
{
	int i, e;

	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (w->ncpu < 1)
		w->ncpu = 1;
	if (nr > WORK_MAX_THREADS)
		nr = WORK_MAX_THREADS;
	for (i = 0; i < nr; i++) {
		struct work_thread *t = &w->t[i];

		t->w = w;
		t->kind = (enum work_kind)(i % WORK_NR_KINDS);
		snprintf(t->name, sizeof(t->name), "st-%s-%d",
			 kind_names[t->kind], i);
		e = pthread_create(&t->th, NULL, thread_main, t);
		if (e) {
			w->err = e;
			break;
		}
		w->nr++;
	}
	return w->err ? -w->err : 0;
}

/* 'S' in /proc/self/task/TID/stat: blocked, off its CPU */
static bool sleeping(pid_t tid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (read_head(path, buf, sizeof(buf)) < 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

int work_wait_parked(struct work *w, int ms)
{
	int waited = 0, i, all;

	for (;;) {
		pthread_mutex_lock(&w->lock);
		all = w->parked == w->nr;
		pthread_mutex_unlock(&w->lock);
		for (i = 0; all && i < w->nr; i++)
			all = sleeping(w->t[i].tid);
		if (all)
			break;
		if (waited >= ms)
			return -ETIMEDOUT;
		nap(1000000);
		waited++;
	}
	/* 'S' is set before the switch-out itself: let it finish */
	nap(20000000);
	return 0;
}

void work_release(struct work *w)
{
	pthread_mutex_lock(&w->lock);
	w->parked = 0;
	w->gate++;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

void work_stop(struct work *w)
{
	int i;

	pthread_mutex_lock(&w->lock);
	w->gate = 2;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < w->nr; i++)
		pthread_join(w->t[i].th, NULL);
}
