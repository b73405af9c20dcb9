// SPDX-License-Identifier: GPL-2.0
/*
 * spinners: threads with known CPU use, for tdbpf's integration tests.
 *
 * Each thread reads its own CLOCK_THREAD_CPUTIME_ID just before it ends and
 * the main thread prints it, so a test can compare tdbpf's per-thread on-CPU
 * time with the kernel's own clock for the very same thread.
 *
 * usage: spinners [-n N] [-l LATE] [-e EARLY] [-s SLEEPERS] [-d SECONDS] [-w]
 *                 [-m]
 *
 *   spin-I     burns about (I+1)/N of each 10 ms period, sleeps the rest
 *              (short sleeps, so it switches voluntarily)
 *   late-K     created 1 s after the work starts (after an attacher attached),
 *              burns half of each period until the end
 *   early-K    spins 0.5 s and exits long before the end
 *   sleeper-K  wakes every 50 ms for 50 us of work
 *
 * stdout: "pid=<pid>" first; "ready" once every initial thread exists; at
 * the end one "tid=<tid> name=<name> cpu_ns=<ns>" line per created thread.
 * -w: after "ready", wait for a line on stdin or SIGUSR1 before the work
 * (and the -d clock) starts, so a tracer can attach first.  -m: each spin-I
 * thread moves to the next CPU every 100 ms (its affinity), so that it
 * runs on every CPU however busy another load keeps one of them.  EOF on stdin
 * leaves SIGUSR1 as the only start signal.  SIGINT/SIGTERM end the run early
 * and still print every line.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define PERIOD_NS	10000000LL	/* one duty cycle: 10 ms */

enum kind { SPIN, LATE, EARLY, SLEEPER };

struct worker {
	pthread_t th;
	enum kind kind;
	double duty;		/* share of each period spent burning */
	char name[16];		/* comm is at most 15 bytes */
	int index;		/* I of spin-I */
	pid_t tid;		/* written by the thread itself */
	long long cpu_ns;	/* its own CPU clock just before it ends */
};

static atomic_int stop;
static atomic_int go_signal;
static int move_cpus;		/* -m */

static struct gate start = GATE_INIT;
static long long work_start;	/* CLOCK_MONOTONIC ns when the gate opened */


static void sleep_ns(long long ns)
{
	struct timespec ts = { ns / NSEC, ns % NSEC };

	while (nanosleep(&ts, &ts) && errno == EINTR && !atomic_load(&stop))
		;
}

/* Burn @ns of this thread's own CPU time, whatever the run-queue wait. */
static void burn_cpu(long long ns)
{
	long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	do
		x = xorshift_rounds(x, 2000);
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end &&
	       !atomic_load_explicit(&stop, memory_order_relaxed));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN), k;
	long long until;

	pthread_setname_np(pthread_self(), w->name);
	w->tid = syscall(SYS_gettid);

	gate_arrive(&start);

	switch (w->kind) {
	case SPIN:
	case LATE:
		for (k = 0; !atomic_load(&stop); k++) {
			/* -m: 10 periods on each CPU in turn, from its own */
			if (move_cpus && w->kind == SPIN && k % 10 == 0)
				pin_cpu((w->index + k / 10) % ncpus);
			burn_cpu(PERIOD_NS * w->duty);
			if (w->duty < 1.0)
				sleep_ns(PERIOD_NS * (1.0 - w->duty));
		}
		break;
	case EARLY:
		/* wall time: it must be gone well before the run ends */
		until = work_start + NSEC / 2;
		while (!atomic_load(&stop) &&
		       clock_ns(CLOCK_MONOTONIC) < until)
			burn_cpu(1000000);
		break;
	case SLEEPER:
		while (!atomic_load(&stop)) {
			sleep_ns(50000000);
			burn_cpu(50000);
		}
		break;
	}
	w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		atomic_store(&go_signal, 1);
	else
		atomic_store(&stop, 1);
}

/* counts are capped at 100000, so "sleeper-99999" always fits in 16 */
static void name_worker(struct worker *w, const char *prefix, int k)
{
	snprintf(w->name, sizeof(w->name), "%s-%u", prefix,
		 (unsigned int)k % 100000u);
}

static void start_worker(struct worker *w)
{
	int err = pthread_create(&w->th, NULL, worker_main, w);

	if (err) {
		fprintf(stderr, "spinners: pthread_create %s: %s\n", w->name,
			strerror(err));
		exit(1);
	}
}

/* Block until a line arrives on stdin or SIGUSR1 (or a stop signal). */
static void wait_for_go(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	char c;

	while (!atomic_load(&go_signal) && !atomic_load(&stop)) {
		int n = poll(&pfd, pfd.fd >= 0 ? 1 : 0, 100);

		if (n <= 0 || !(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		for (;;) {
			ssize_t r = read(0, &c, 1);

			if (r == 1 && c == '\n')
				return;
			if (r == 1)
				continue;
			if (r < 0 && errno == EINTR)
				continue;
			/* EOF or error: nobody will write; wait for SIGUSR1 */
			fprintf(stderr,
				"spinners: stdin closed, waiting for SIGUSR1\n");
			pfd.fd = -1;
			break;
		}
	}
}

/* a thread count */
static int parse_int(const char *s, const char *opt)
{
	return (int)parse_num(s, opt, 0, 100000);
}

int main(int argc, char **argv)
{
	int n = 4, n_late = 0, n_early = 0, n_sleep = 0, wait = 0;
	double secs = 5.0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct worker *w;
	int total, initial, i, k, opt;
	long long late_at, end;

	while ((opt = getopt(argc, argv, "n:l:e:s:d:wm")) != -1) {
		switch (opt) {
		case 'n': n = parse_int(optarg, "-n"); break;
		case 'l': n_late = parse_int(optarg, "-l"); break;
		case 'e': n_early = parse_int(optarg, "-e"); break;
		case 's': n_sleep = parse_int(optarg, "-s"); break;
		case 'w': wait = 1; break;
		case 'm': move_cpus = 1; break;
		case 'd': secs = parse_secs(optarg, "-d"); break;
		default:
			fprintf(stderr, "usage: spinners [-n N] [-l LATE] [-e EARLY] [-s SLEEPERS] [-d SECONDS] [-w] [-m]\n");
			return 2;
		}
	}

	announce_pid();

	/* no SA_RESTART: the main thread's sleeps and poll must wake */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	initial = n + n_early + n_sleep;
	total = initial + n_late;
	w = calloc(total ? total : 1, sizeof(*w));
	if (!w)
		return 1;
	for (i = 0, k = 0; k < n; k++, i++) {
		w[i].kind = SPIN;
		w[i].duty = (double)(k + 1) / n;
		w[i].index = k;
		name_worker(&w[i], "spin", k);
	}
	for (k = 0; k < n_early; k++, i++) {
		w[i].kind = EARLY;
		name_worker(&w[i], "early", k);
	}
	for (k = 0; k < n_sleep; k++, i++) {
		w[i].kind = SLEEPER;
		name_worker(&w[i], "sleeper", k);
	}
	for (k = 0; k < n_late; k++, i++) {
		w[i].kind = LATE;
		w[i].duty = 0.5;
		name_worker(&w[i], "late", k);
	}

	for (i = 0; i < initial; i++)
		start_worker(&w[i]);
	gate_wait(&start, initial);
	printf("ready\n");

	if (wait)
		wait_for_go();

	/* before the open: a thread let through reads it */
	work_start = clock_ns(CLOCK_MONOTONIC);
	gate_open(&start);

	end = work_start + (long long)(secs * NSEC);
	/* late threads at 1 s, or half way through a shorter run */
	late_at = work_start +
		  (secs > 2.0 ? NSEC : (long long)(secs * NSEC / 2));
	k = 0;
	while (!atomic_load(&stop)) {
		long long now = clock_ns(CLOCK_MONOTONIC);

		if (now >= end)
			break;
		if (k == 0 && now >= late_at) {
			for (i = initial; i < total; i++)
				start_worker(&w[i]);
			k = 1;
		}
		sleep_ns(10000000);
	}
	atomic_store(&stop, 1);
	if (k == 0)
		total = initial;	/* stopped before the late ones began */

	for (i = 0; i < total; i++)
		pthread_join(w[i].th, NULL);
	for (i = 0; i < total; i++)
		thread_line(w[i].tid, w[i].name, w[i].cpu_ns);
	free(w);
	return 0;
}
