// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline: a six-stage stream graph of threads joined by bounded queues,
 * with a bottleneck of a known kind at a known stage, for the tests of
 * tdbpf's graph verdict.
 *
 *   source -> parse -> enrich -> score -> format -> sink
 *
 * Every stage does a little work per record (-u US of CPU, default 20)
 * and hands it on through a queue of 4 records (mutex and condition
 * variables), so the stages around the bottleneck block on its queues:
 * upstream on a full queue, downstream on an empty one.
 *
 * usage: pipeline [-b STAGE] [-k KIND] [-u US] [-n RECORDS] [-d SECONDS]
 *   -b STAGE  the bottleneck, 0-5 (default 2, enrich)
 *   -k KIND   cpu:     it burns 400 us of CPU per record
 *             sleep:   it waits 200 us per record in nanosleep (a timer)
 *             timerfd: it waits 200 us per record on a timerfd
 *             process: it waits for another process (a forked helper that
 *                      sleeps 200 us, then answers over a pipe)
 *             starved: it burns 100 us per record on CPU 1, where two
 *                      other processes burn CPU all the time; every other
 *                      stage runs on CPU 0
 *   -d SECONDS  stop after that long (default 3), or after -n RECORDS
 *
 * stdout: "pid=<pid>", then at the end one line per stage thread,
 * "tid=<tid> name=<name> cpu_ns=<ns> records=<n>", and the helpers'
 * pids as "helper=<pid>" lines.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include "workload.h"

#define NSTAGES		6
#define QCAP		4

enum kind { K_CPU, K_SLEEP, K_TIMERFD, K_PROCESS, K_STARVED };

static const char *const kind_name[] = { "cpu", "sleep", "timerfd", "process",
					 "starved" };
static const char *const stage_name[NSTAGES] = {
	"source", "parse", "enrich", "score", "format", "sink",
};


static struct wq q[NSTAGES - 1];
static int bottleneck = 2, work_us = 20;
static enum kind kind = K_SLEEP;
static long records = -1;
static atomic_int stop;
static int req_pipe[2], ans_pipe[2];	/* K_PROCESS: to and from the helper */

struct stage {
	pthread_t th;
	int idx;
	pid_t tid;
	long long cpu_ns;
	long n;
};

/* What the bottleneck does per record, by kind. */
static void bottleneck_work(int tfd)
{
	struct timespec ts = { 0, 200000 };
	struct itimerspec its = { .it_value = { 0, 200000 } };
	uint64_t exp;
	char c = 'r';

	switch (kind) {
	case K_CPU:
		burn_ns(400000);
		break;
	case K_SLEEP:
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		break;
	case K_TIMERFD:
		timerfd_settime(tfd, 0, &its, NULL);
		while (read(tfd, &exp, sizeof(exp)) < 0 && errno == EINTR)
			;
		break;
	case K_PROCESS:
		if (write(req_pipe[1], &c, 1) != 1 ||
		    read(ans_pipe[0], &c, 1) != 1)
			atomic_store(&stop, 1);
		break;
	case K_STARVED:
		burn_ns(100000);
		break;
	}
}

static void *stage_main(void *arg)
{
	struct stage *s = arg;
	uint64_t v = 0;
	int tfd = -1;

	pthread_setname_np(pthread_self(), stage_name[s->idx]);
	s->tid = (pid_t)syscall(SYS_gettid);
	if (kind == K_STARVED)
		pin_cpu(s->idx == bottleneck ? 1 : 0);
	if (s->idx == bottleneck && kind == K_TIMERFD)
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	for (;;) {
		if (s->idx == 0) {
			if (atomic_load(&stop) || (records >= 0 && s->n >= records))
				break;
			v = (uint64_t)s->n;
		} else if (!wq_pop(&q[s->idx - 1], &v)) {
			break;
		}
		burn_ns(work_us * 1000LL);
		if (s->idx == bottleneck)
			bottleneck_work(tfd);
		s->n++;
		if (s->idx < NSTAGES - 1)
			wq_push(&q[s->idx], v + 1);
	}
	if (s->idx < NSTAGES - 1)
		wq_close(&q[s->idx]);
	s->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* K_PROCESS: answer each request after 200 us, from another process. */
static void helper_answer(void)
{
	struct timespec ts;
	char c;

	while (read(req_pipe[0], &c, 1) == 1) {
		ts.tv_sec = 0;
		ts.tv_nsec = 200000;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		if (write(ans_pipe[1], &c, 1) != 1)
			break;
	}
	_exit(0);
}

static void helper_burn(void)
{
	volatile uint64_t x = 1;

	pin_cpu(1);
	for (;;)
		x = x * 6364136223846793005ULL + 1;
}

static pid_t helper(void (*fn)(void))
{
	pid_t p = fork();

	if (p == 0) {
		signal(SIGTERM, SIG_DFL);
		fn();
	}
	return p;
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

int main(int argc, char **argv)
{
	struct stage st[NSTAGES];
	pid_t helpers[2] = { -1, -1 };
	double secs = 3;
	long long end;
	int opt, i, k;

	while ((opt = getopt(argc, argv, "b:k:u:n:d:")) != -1) {
		switch (opt) {
		case 'b':
			bottleneck = atoi(optarg);
			break;
		case 'k':
			for (k = 0; k < 5 && strcmp(optarg, kind_name[k]); k++)
				;
			if (k == 5) {
				fprintf(stderr, "pipeline: -k cpu|sleep|timerfd|process|starved\n");
				return 2;
			}
			kind = (enum kind)k;
			break;
		case 'u':
			work_us = atoi(optarg);
			break;
		case 'n':
			records = atol(optarg);
			break;
		case 'd':
			secs = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: pipeline [-b STAGE] [-k KIND] [-u US] [-n RECORDS] [-d SECONDS]\n");
			return 2;
		}
	}
	if (bottleneck < 0 || bottleneck >= NSTAGES || secs <= 0) {
		fprintf(stderr, "pipeline: -b wants 0-5, -d seconds > 0\n");
		return 2;
	}
	announce_pid();
	if (kind == K_PROCESS) {
		if (pipe(req_pipe) || pipe(ans_pipe))
			return 1;
		helpers[0] = helper(helper_answer);
	}
	if (kind == K_STARVED && sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
		helpers[0] = helper(helper_burn);
		helpers[1] = helper(helper_burn);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (i = 0; i < NSTAGES - 1; i++)
		wq_init(&q[i], QCAP);
	for (i = 0; i < NSTAGES; i++) {
		memset(&st[i], 0, sizeof(st[i]));
		st[i].idx = i;
		if (pthread_create(&st[i].th, NULL, stage_main, &st[i]))
			return 1;
	}
	end = clock_ns(CLOCK_MONOTONIC) + (long long)(secs * NSEC);
	while (!atomic_load(&stop) && clock_ns(CLOCK_MONOTONIC) < end &&
	       (records < 0 || st[0].n < records))
		usleep(10000);
	atomic_store(&stop, 1);
	for (i = 0; i < NSTAGES; i++)
		pthread_join(st[i].th, NULL);
	for (i = 0; i < 2; i++) {
		if (helpers[i] <= 0)
			continue;
		printf("helper=%d\n", helpers[i]);
		kill(helpers[i], SIGKILL);
		waitpid(helpers[i], NULL, 0);
	}
	printf("bottleneck=%s kind=%s\n", stage_name[bottleneck],
	       kind_name[kind]);
	for (i = 0; i < NSTAGES; i++)
		printf("tid=%d name=%s cpu_ns=%lld records=%ld\n", st[i].tid,
		       stage_name[i], st[i].cpu_ns, st[i].n);
	return 0;
}
