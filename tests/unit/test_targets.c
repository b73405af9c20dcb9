// SPDX-License-Identifier: GPL-2.0
/*
 * targets_threads(): how many threads the targets have now, which sizes
 * the report table touched before the run. Checked against a process
 * whose thread count this test sets itself.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "sources/targets.h"
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NR_EXTRA 5

static pthread_barrier_t hold;

static void *parked(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&hold);	/* until the test has counted */
	return NULL;
}

/* Threads of the whole machine now, from /proc/PID/task. */
static size_t count_proc_tasks(void)
{
	DIR *d = opendir("/proc"), *t;
	struct dirent *e, *te;
	char path[300];
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", e->d_name);
		t = opendir(path);
		if (!t)
			continue;	/* exited meanwhile */
		while ((te = readdir(t)))
			n += te->d_name[0] != '.';
		closedir(t);
	}
	closedir(d);
	return n;
}

static void test_threads(void **state)
{
	pthread_t th[NR_EXTRA];
	struct target_ids o;
	size_t all, seen;
	int i;

	(void)state;
	assert_int_equal(pthread_barrier_init(&hold, NULL, NR_EXTRA + 1), 0);
	for (i = 0; i < NR_EXTRA; i++)
		assert_int_equal(pthread_create(&th[i], NULL, parked, NULL), 0);

	memset(&o, 0, sizeof(o));
	/* -p: the Threads: line of each process */
	o.pids[o.nr_pids++] = getpid();
	assert_int_equal(targets_threads(&o, 0), NR_EXTRA + 1);
	/* the same process as the launched command, and -t ids, add up */
	o.tids[o.nr_tids++] = 1;
	o.tids[o.nr_tids++] = 2;
	assert_int_equal(targets_threads(&o, getpid()),
			 2 * (NR_EXTRA + 1) + 2);
	/* a process gone counts nothing */
	memset(&o, 0, sizeof(o));
	o.pids[o.nr_pids++] = 0x3fffffff;
	assert_int_equal(targets_threads(&o, 0), 0);

	/* -a: every thread of the machine, as /proc lists them */
	memset(&o, 0, sizeof(o));
	o.all = true;
	all = targets_threads(&o, 0);
	seen = count_proc_tasks();
	assert_true(all >= NR_EXTRA + 1);
	/* other processes come and go between the two counts */
	if (all + 32 < seen || seen + 32 < all)
		fail_msg("-a: %zu threads, /proc lists %zu", all, seen);

	pthread_barrier_wait(&hold);
	for (i = 0; i < NR_EXTRA; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&hold);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
