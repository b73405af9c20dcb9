/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the test workloads. Each workload is a program of
 * its own (one .c, no library), so these are static inline here.
 */
#ifndef TDBPF_WORKLOAD_H
#define TDBPF_WORKLOAD_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define NSEC	1000000000LL

static inline long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/*
 * "pid=N" first, line buffered: a test reads it, and the lines that
 * follow, through a pipe as they are printed.
 */
static inline void announce_pid(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("pid=%d\n", getpid());
}

/*
 * "tid=N name=S cpu_ns=N": a thread's own CPU clock as it ends, the line
 * the tests hold tdbpf's figures to (tests/lib: parse_thread_lines()).
 */
static inline void thread_line(long tid, const char *name, long long cpu_ns)
{
	printf("tid=%ld name=%s cpu_ns=%lld\n", tid, name, cpu_ns);
}

/* What a thread reports of itself, filled in as it ends (self_done()). */
struct self {
	const char *name;
	long tid;
	long long cpu_ns;
};

/* The calling thread's tid and CPU time so far, into @s. */
static inline void self_done(struct self *s)
{
	s->tid = syscall(SYS_gettid);
	s->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* @s's line, as thread_line() prints it. */
static inline void self_print(const struct self *s)
{
	thread_line(s->tid, s->name, s->cpu_ns);
}

/* @s, the argument of option @opt, as a number @min..@max; else exit 2. */
static inline long parse_num(const char *s, const char *opt, long min,
			     long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end || errno || v < min || v > max) {
		fprintf(stderr, "%s: %s wants a number %ld..%ld, not '%s'\n",
			program_invocation_short_name, opt, min, max, s);
		exit(2);
	}
	return v;
}

/* @s, the argument of option @opt, as seconds > 0; else exit 2. */
static inline double parse_secs(const char *s, const char *opt)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end || !(v > 0)) {
		fprintf(stderr, "%s: %s wants seconds > 0, not '%s'\n",
			program_invocation_short_name, opt, s);
		exit(2);
	}
	return v;
}

/* Burn @ns of this thread's own CPU time, whatever its run-queue wait. */
static inline void burn_ns(long long ns)
{
	long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	volatile uint64_t x = 1;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 200; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

/*
 * @n rounds of xorshift64 on @x, its new value: CPU work in registers
 * alone, which no cache or memory stall makes cost more.
 */
static inline uint64_t xorshift_rounds(uint64_t x, int n)
{
	for (int k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	/* x stays live without a shared store */
	__asm__ volatile("" : "+r"(x));
	return x;
}

/* Run the calling thread on @cpu only. */
static inline void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A gate threads wait at: each arrives (gate_arrive()) and waits until
 * the main thread, once as many as it started are there (gate_wait()),
 * opens it (gate_open()); one open from the start lets them through.
 */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int arrived;
	bool open;
};

#define GATE_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false }

static inline void gate_arrive(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->arrived++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* Until @n threads have arrived at @g. */
static inline void gate_wait(struct gate *g, int n)
{
	pthread_mutex_lock(&g->lock);
	while (g->arrived < n)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static inline void gate_open(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->open = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

/*
 * A bounded FIFO of record numbers between threads (mutex and condition
 * variables, as stream engines' in-process queues): a producer blocks on a
 * full one, a consumer on an empty one, so stages wait on each other.
 */
#define WQ_MAX	64

struct wq {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	uint64_t slot[WQ_MAX];
	unsigned int cap, head, count;
	bool closed;
};

static inline void wq_init(struct wq *q, unsigned int cap)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	q->cap = cap < 1 ? 1 : cap > WQ_MAX ? WQ_MAX : cap;
	q->head = q->count = 0;
	q->closed = false;
}

static inline void wq_push(struct wq *q, uint64_t v)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == q->cap)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->slot[(q->head + q->count++) % q->cap] = v;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

/* 0 once the queue is closed and empty */
static inline int wq_pop(struct wq *q, uint64_t *v)
{
	int got = 0;

	pthread_mutex_lock(&q->lock);
	while (!q->count && !q->closed)
		pthread_cond_wait(&q->not_empty, &q->lock);
	if (q->count) {
		*v = q->slot[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
		got = 1;
		pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

static inline void wq_close(struct wq *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

#endif /* TDBPF_WORKLOAD_H */
