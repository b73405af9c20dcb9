// SPDX-License-Identifier: GPL-2.0
/*
 * leaderexit: a main thread that ends (pthread_exit) while its process
 * goes on, for tdbpf's integration tests: the leader stays a zombie
 * until its last thread ends, and must be counted once.
 *
 * usage: leaderexit
 *
 * The main thread burns about 0.2 s of CPU and ends; its thread burns
 * about 0.5 s and ends the process. stdout: one "tid=<tid> name=<name>
 * cpu_ns=<ns>" line per thread, each from the thread's own CPU clock
 * just before it ends.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

/* Burn @ns of this thread's CPU time; print its line; return. */
static void burn_and_say(const char *name, long long ns)
{
	burn_ns(ns);
	thread_line((long)syscall(SYS_gettid), name,
		    clock_ns(CLOCK_THREAD_CPUTIME_ID));
}

static void *worker(void *arg)
{
	(void)arg;
	burn_and_say("worker", NSEC / 2);
	return NULL;
}

int main(void)
{
	pthread_t th;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pthread_create(&th, NULL, worker, NULL))
		return 1;
	burn_and_say("leaderexit", NSEC / 5);
	pthread_exit(NULL);
}
