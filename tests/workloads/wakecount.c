// SPDX-License-Identifier: GPL-2.0
/*
 * wakecount: two threads that count the wakeups they cause, for the test
 * of tdbpf's wakeup counts and wait times.
 *
 *   waker  N times: sleep 200 us (nanosleep: a timer wakes it), write a
 *          byte to pipe A, read the answer from pipe B
 *   waitee N times: read pipe A (blocked there: the waker is asleep when
 *          it gets there), answer on pipe B
 *
 * Before each write the waker checks in /proc that the waitee is asleep
 * (it sleeps nowhere but in that read), yielding until it is: so each
 * write finds it blocked on an empty pipe, even when a loaded machine
 * delays it past the 200 us, but for a write that comes after the
 * waitee's state became S and before it left its run queue: that read
 * does not block (rare; a TCG guest's paused vCPU shows it).
 * The waker is woken by a timer at most N times (one nanosleep each; a
 * timer that fires before it sleeps wakes nobody): it counts the
 * nanosleeps that blocked (its voluntary switches around each, from
 * getrusage). The waitee clocks its reads (CLOCK_MONOTONIC around the
 * call).
 *
 * usage: wakecount [-n N]
 * stdout: "tid=<tid> name=<name> cpu_ns=<ns>" per thread, then
 * "wakeups=N waitee_blocked_ns=<ns> waker_slept=<n>".
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "workload.h"


static long n = 2000;
static int a[2], b[2];
static long long blocked_ns;
static long slept;
static volatile long waitee_tid;

static struct self self[2] = { { "waker", 0, 0 }, { "waitee", 0, 0 } };

/* Is thread @tid asleep (state S)? /proc/self/task/TID/stat's third field. */
static int asleep(long tid)
{
	char path[64], buf[256], *p;
	ssize_t r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	r = (ssize_t)fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (r <= 0)
		return 0;
	buf[r] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static void *waker(void *arg)
{
	struct timespec ts;
	struct rusage r0, r1;
	char c = 'x';

	(void)arg;
	pthread_setname_np(pthread_self(), "waker");
	for (long i = 0; i < n; i++) {
		ts.tv_sec = 0;
		ts.tv_nsec = 200000;
		getrusage(RUSAGE_THREAD, &r0);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		getrusage(RUSAGE_THREAD, &r1);
		slept += r1.ru_nvcsw > r0.ru_nvcsw;
		while (!waitee_tid || !asleep(waitee_tid))
			sched_yield();
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			exit(1);
	}
	self_done(&self[0]);
	return NULL;
}

static void *waitee(void *arg)
{
	long long t0;
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "waitee");
	waitee_tid = syscall(SYS_gettid);
	for (long i = 0; i < n; i++) {
		t0 = clock_ns(CLOCK_MONOTONIC);
		if (read(a[0], &c, 1) != 1)
			exit(1);
		blocked_ns += clock_ns(CLOCK_MONOTONIC) - t0;
		if (write(b[1], &c, 1) != 1)
			exit(1);
	}
	self_done(&self[1]);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t1, t2;
	int opt;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n' || (n = atol(optarg)) < 1) {
			fprintf(stderr, "usage: wakecount [-n N]\n");
			return 2;
		}
	}
	if (pipe(a) || pipe(b))
		return 1;
	if (pthread_create(&t2, NULL, waitee, NULL) ||
	    pthread_create(&t1, NULL, waker, NULL))
		return 1;
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	for (int i = 0; i < 2; i++)
		self_print(&self[i]);
	printf("wakeups=%ld waitee_blocked_ns=%lld waker_slept=%ld\n", n,
	       blocked_ns, slept);
	return 0;
}
