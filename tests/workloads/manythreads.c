// SPDX-License-Identifier: GPL-2.0
/*
 * manythreads: a process with many mostly idle threads, for tdbpf's scale
 * benchmark (attach time, map size, report time at 100..10000 threads).
 *
 * usage: manythreads [-n N] [-d SECONDS] [-p PERIOD_MS]
 *
 * N threads (default 100) named "mt-<i>", each waking every PERIOD_MS
 * (default 100 ms; at 10000 threads that is 100000 wake-ups/s) for a few
 * microseconds of work.  Wake-ups are spread evenly over the period so the
 * process switches steadily instead of in one burst.  Stacks are 64 KiB so
 * 10000 threads need ~640 MiB of address space but little memory.
 *
 * stdout: "pid=<pid>" first, "ready" once every thread has been created.
 * Runs SECONDS (default 30) or until SIGINT/SIGTERM, then joins every thread
 * and exits 0.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define STACK_SIZE	(64 * 1024)

static atomic_int stop;
static long nthreads;
static long long period_ns = 100000000LL;	/* wake-up period, -p */
static struct timespec base;	/* common time origin of every schedule */

static void ts_add(struct timespec *ts, long long ns)
{
	ns += ts->tv_nsec;
	ts->tv_sec += ns / NSEC;
	ts->tv_nsec = ns % NSEC;
}

static void *mt_main(void *arg)
{
	long i = (long)(intptr_t)arg;
	struct timespec next = base, now;
	uint64_t x = i | 1;
	char name[16];

	snprintf(name, sizeof(name), "mt-%lu", (unsigned long)i % 1000000ul);
	pthread_setname_np(pthread_self(), name);

	/* thread i's slot within the period */
	ts_add(&next, period_ns * i / nthreads);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		ts_add(&next, period_ns);
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* overloaded: skip missed slots, do not burst to catch up */
		while (next.tv_sec < now.tv_sec ||
		       (next.tv_sec == now.tv_sec &&
			next.tv_nsec < now.tv_nsec))
			ts_add(&next, period_ns);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		x = xorshift_rounds(x, 1000);	/* a few microseconds */
	}
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

int main(int argc, char **argv)
{
	double secs = 30.0;
	struct sigaction sa = { .sa_handler = on_signal };
	pthread_attr_t attr;
	pthread_t *th;
	struct timespec end, now;
	sigset_t block, old;
	long created = 0;
	int opt, err;

	nthreads = 100;
	while ((opt = getopt(argc, argv, "n:d:p:")) != -1) {
		switch (opt) {
		case 'n':
			nthreads = parse_num(optarg, "-n", 1, 1000000);
			break;
		case 'd':
			secs = parse_secs(optarg, "-d");
			break;
		case 'p':
			period_ns = parse_num(optarg, "-p (ms)", 1, 3600000) *
				    1000000LL;
			break;
		default:
			fprintf(stderr, "usage: manythreads [-n N] [-d SECONDS] "
				"[-p PERIOD_MS]\n");
			return 2;
		}
	}

	announce_pid();

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* workers never take the stop signals, so main's sleep is cut short */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);

	th = calloc(nthreads, sizeof(*th));
	if (!th)
		return 1;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	clock_gettime(CLOCK_MONOTONIC, &base);
	for (; created < nthreads; created++) {
		err = pthread_create(&th[created], &attr, mt_main,
				     (void *)(intptr_t)created);
		if (err) {
			fprintf(stderr, "manythreads: thread %ld: %s (check "
				"ulimit -u, kernel.threads-max, kernel.pid_max, "
				"vm.max_map_count)\n", created, strerror(err));
			atomic_store(&stop, 1);
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!atomic_load(&stop))
		printf("ready\n");

	clock_gettime(CLOCK_MONOTONIC, &end);
	ts_add(&end, (long long)(secs * NSEC));
	while (!atomic_load(&stop)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		/* EINTR from a stop signal ends this sleep early */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL);
	}
	atomic_store(&stop, 1);
	for (long i = 0; i < created; i++)
		pthread_join(th[i], NULL);
	pthread_attr_destroy(&attr);
	free(th);
	return created == nthreads ? 0 : 1;
}
