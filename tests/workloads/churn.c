// SPDX-License-Identifier: GPL-2.0
/*
 * churn: tens of thousands of short-lived threads, for tdbpf's conservation
 * and map-pressure tests.
 *
 * usage: churn [-n TOTAL] [-c CONCURRENT] [-w WORK_US] [-z SLEEP_US] [-s MS]
 *
 * Creates TOTAL threads (default 20000), at most CONCURRENT alive at once
 * (default 64); each is named "churn-<i>", burns WORK_US microseconds of its
 * own CPU time (default 200) and exits; -z has it sleep SLEEP_US first (a
 * wait a timer ends, for the graph of exited threads).  -s waits MS
 * milliseconds before the first thread so a tracer can attach.
 *
 * stdout: "pid=<pid>" first; at the end "threads=<n> cpu_ns=<ns>" with the
 * process CPU clock (CLOCK_PROCESS_CPUTIME_ID, which includes every exited
 * thread) read after the last thread has been joined, i.e. fully gone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define STACK_SIZE	(64 * 1024)	/* creation cost, not stack, matters */

static long long work_ns, sleep_ns;

static void *churn_main(void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg;
	char name[16];
	long long end;
	uint64_t x = i | 1;

	snprintf(name, sizeof(name), "churn-%u", i % 10000000u);
	pthread_setname_np(pthread_self(), name);
	if (sleep_ns) {
		struct timespec ts = { sleep_ns / 1000000000,
				       sleep_ns % 1000000000 };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}

	/* CPU time, not wall time: the work must not depend on load */
	end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + work_ns;
	do
		x = xorshift_rounds(x, 500);
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end);
	return NULL;
}

int main(int argc, char **argv)
{
	long total = 20000, conc = 64, work_us = 200, delay_ms = 0;
	pthread_attr_t attr;
	pthread_t *ring;
	long created = 0, joined = 0;
	int opt, err;

	while ((opt = getopt(argc, argv, "n:c:w:z:s:")) != -1) {
		switch (opt) {
		case 'n': total = parse_num(optarg, "-n", 0, 100000000); break;
		case 'c': conc = parse_num(optarg, "-c", 1, 10000); break;
		case 'w': work_us = parse_num(optarg, "-w", 0, 10000000); break;
		case 'z': sleep_ns = parse_num(optarg, "-z", 0, 10000000) * 1000; break;
		case 's': delay_ms = parse_num(optarg, "-s", 0, 3600000); break;
		default:
			fprintf(stderr, "usage: churn [-n TOTAL] [-c CONCURRENT] "
				"[-w WORK_US] [-z SLEEP_US] [-s MS]\n");
			return 2;
		}
	}
	work_ns = work_us * 1000;

	announce_pid();

	if (delay_ms) {
		struct timespec ts = { delay_ms / 1000,
				       (delay_ms % 1000) * 1000000 };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}

	ring = calloc(conc, sizeof(*ring));
	if (!ring)
		return 1;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);

	/*
	 * A FIFO of joinable threads: when CONCURRENT are alive, join the
	 * oldest before creating the next.  The work is uniform, so the
	 * oldest is also about the first to finish.
	 */
	while (created < total) {
		pthread_t *slot = &ring[created % conc];

		if (created - joined == conc) {
			pthread_join(*slot, NULL);
			joined++;
		}
		err = pthread_create(slot, &attr, churn_main,
				     (void *)(uintptr_t)created);
		if (err == EAGAIN && created > joined) {
			/* out of tasks for a moment: let one finish, retry */
			pthread_join(ring[joined % conc], NULL);
			joined++;
			continue;
		}
		if (err) {
			fprintf(stderr, "churn: pthread_create: %s "
				"(check ulimit -u and kernel.threads-max)\n",
				strerror(err));
			break;
		}
		created++;
	}
	while (joined < created) {
		pthread_join(ring[joined % conc], NULL);
		joined++;
	}

	printf("threads=%ld cpu_ns=%lld\n", created,
	       clock_ns(CLOCK_PROCESS_CPUTIME_ID));
	pthread_attr_destroy(&attr);
	free(ring);
	return created == total ? 0 : 1;
}
