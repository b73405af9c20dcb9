// SPDX-License-Identifier: GPL-2.0
/*
 * syscounts: threads that each make a known, different number of
 * getppid() and getpgid() system calls, for the exact end-to-end test of
 * counter attribution (tdbpf -e syscalls:sys_enter_getppid), and that
 * know their own accounting, for the software model's test against
 * /proc.
 *
 * usage: syscounts [-n WORKERS] [-m SCALE] [-c CHURN] [-w] [-P] [-x]
 *
 *   sc-I    worker I: SCALE * (I + 1) + I getppid() and SCALE / 2 *
 *           (I + 1) + 3 * I getpgid(0) calls, in 16 chunks, moving to CPU
 *           (I + chunk) % CPUs between chunks (sched_setaffinity), so
 *           every worker runs on every CPU; it touches 8 * (I + 1) fresh
 *           pages and sleeps 200 us between chunks
 *   ch-K    churn: while the workers run, CHURN short threads are made
 *           one after another (up to 4 alive); ch-K makes K % 97 + 1
 *           getppid() and K % 13 getpgid(0) calls and exits
 *
 * The calls go through syscall(2): nothing else in the process makes
 * them (glibc and the thread library call neither).
 * -x: each thread, getppid() N times, also makes each call J of
 *     extra_calls.h extra_count(N, J) times (0 to 2), before its first
 *     chunk: with getppid and getpgid, 72 events each counted exactly.
 *
 * stdout: "pid=<pid>" first; "ready" once the workers wait at the gate;
 * one "tid=<tid> name=<name> getppid=<n> getpgid=<n>" line per thread
 * (churn threads and workers), then "done".
 * -w: after "ready", print a "pre ..." line per worker (below) and wait
 *     for a line on stdin before opening the gate, so a tracer can
 *     attach first.
 * -P: after the work, the workers park (blocked on a condition
 *     variable); once every one is asleep with its accounting still,
 *     print a "post ..." line per worker and "parked", and wait for a
 *     line on stdin (or EOF) before letting them exit.
 * "pre"/"post" lines: "<pre|post> tid=<tid> minflt=<n> majflt=<n>
 * nvcsw=<n> nivcsw=<n> exec_ns=<n> migrations=<n>", from
 * /proc/self/task/TID/stat, status, schedstat and sched, read while the
 * worker sleeps.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"
#include "extra_calls.h"

#define CHUNKS		16
#define MAX_WORKERS	64
#define CHURN_ALIVE	4

struct worker {
	pthread_t th;
	int idx;
	pid_t tid;
	long getppid_n, getpgid_n;
};

static int nworkers = 4, scale = 20000, nchurn = 200, ncpu = 1;
static struct worker workers[MAX_WORKERS];
/* the workers start together, and park at the end (-P) */
static struct gate start = GATE_INIT, parking = GATE_INIT;
static int park, extra;
static atomic_int working;

static void calls(long ppid, long pgid)
{
	long i;

	for (i = 0; i < ppid; i++)
		syscall(SYS_getppid);
	for (i = 0; i < pgid; i++)
		syscall(SYS_getpgid, 0);
}

/* -x: the other calls of a thread that makes @ppid getppid() calls */
static void extra_calls_make(long ppid)
{
	unsigned int j;
	long k;

	if (!extra)
		return;
	for (j = 0; j < NR_EXTRA_CALLS; j++)
		for (k = 0; k < extra_count(ppid, j); k++)
			syscall(extra_calls[j].nr, -1L, 0L, 0L, 0L, 0L, 0L);
}

static void move_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* a CPU we may not use (cpuset): stay where we are */
	sched_setaffinity(0, sizeof(set), &set);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	long page = sysconf(_SC_PAGESIZE), pages = 8L * (w->idx + 1), k;
	long ppid = (long)scale * (w->idx + 1) + w->idx;
	long pgid = (long)scale / 2 * (w->idx + 1) + 3L * w->idx;
	struct timespec nap = { 0, 200000 };
	char name[16];
	volatile char *mem;
	int c;

	w->tid = (pid_t)syscall(SYS_gettid);
	snprintf(name, sizeof(name), "sc-%d", w->idx);
	pthread_setname_np(pthread_self(), name);
	gate_arrive(&start);

	mem = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	extra_calls_make(ppid);
	for (c = 0; c < CHUNKS; c++) {
		move_to((w->idx + c) % ncpu);
		calls(ppid / CHUNKS + (c == 0 ? ppid % CHUNKS : 0),
		      pgid / CHUNKS + (c == 0 ? pgid % CHUNKS : 0));
		if (mem != MAP_FAILED)
			for (k = c; k < pages; k += CHUNKS)
				mem[k * page] = 1;
		nanosleep(&nap, NULL);
	}
	w->getppid_n = ppid;
	w->getpgid_n = pgid;
	atomic_fetch_sub(&working, 1);

	gate_arrive(&parking);
	return NULL;
}

struct churn {
	pthread_t th;
	int k;
	pid_t tid;
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;
	char name[16];

	c->tid = (pid_t)syscall(SYS_gettid);
	snprintf(name, sizeof(name), "ch-%d", c->k);
	pthread_setname_np(pthread_self(), name);
	calls(c->k % 97 + 1, c->k % 13);
	extra_calls_make(c->k % 97 + 1);
	return NULL;
}

/* Churn threads while any worker works: made, joined, reported. */
static void *churner(void *arg)
{
	struct churn *ring = calloc(CHURN_ALIVE, sizeof(*ring));
	int made = 0, joined = 0;

	(void)arg;
	if (!ring)
		return NULL;
	while (made < nchurn) {
		struct churn *c = &ring[made % CHURN_ALIVE];

		if (made - joined == CHURN_ALIVE) {
			pthread_join(c->th, NULL);
			printf("tid=%d name=ch-%d getppid=%d getpgid=%d\n",
			       c->tid, c->k, c->k % 97 + 1, c->k % 13);
			joined++;
		}
		c->k = made;
		if (pthread_create(&c->th, NULL, churn_main, c))
			break;
		made++;
		/* spread them over the workers' run */
		if (atomic_load(&working))
			usleep(500);
	}
	while (joined < made) {
		struct churn *c = &ring[joined % CHURN_ALIVE];

		pthread_join(c->th, NULL);
		printf("tid=%d name=ch-%d getppid=%d getpgid=%d\n", c->tid,
		       c->k, c->k % 97 + 1, c->k % 13);
		joined++;
	}
	free(ring);
	return NULL;
}

/* ---- a sleeping thread's own accounting, from /proc -------------------- */

struct acct {
	unsigned long long minflt, majflt, nvcsw, nivcsw, exec_ns, migr;
	char state;
};

static int slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return 0;
}

static unsigned long long after(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	if (!p)
		return ~0ULL;
	p += strlen(key);
	while (*p == ' ' || *p == '\t' || *p == ':')
		p++;
	return strtoull(p, NULL, 10);
}

static int read_acct(pid_t tid, struct acct *a)
{
	char path[96], buf[8192], *p;

	memset(a, 0, sizeof(*a));	/* compared whole, padding too */
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (slurp(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt */
	if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %llu %*u %llu",
			 &a->state, &a->minflt, &a->majflt) != 3)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	if (slurp(path, buf, sizeof(buf)))
		return -1;
	a->nvcsw = after(buf, "\nvoluntary_ctxt_switches:");
	a->nivcsw = after(buf, "\nnonvoluntary_ctxt_switches:");
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	if (slurp(path, buf, sizeof(buf)))
		return -1;
	a->exec_ns = strtoull(buf, NULL, 10);
	snprintf(path, sizeof(path), "/proc/self/task/%d/sched", tid);
	a->migr = slurp(path, buf, sizeof(buf)) ? ~0ULL :
						  after(buf, "se.nr_migrations");
	return 0;
}

/*
 * Each worker's accounting once it sleeps and stays still: /proc shows
 * S as soon as the thread set its state, a little before it switches
 * out, so wait until two readings 20 ms apart agree.
 */
static void print_still(const char *tag)
{
	struct acct a, b;
	int i, tries;

	for (i = 0; i < nworkers; i++) {
		for (tries = 0; tries < 500; tries++) {
			if (read_acct(workers[i].tid, &a))
				break;
			usleep(20000);
			if (read_acct(workers[i].tid, &b))
				break;
			if (a.state == 'S' && b.state == 'S' &&
			    !memcmp(&a, &b, sizeof(a)))
				break;
		}
		printf("%s tid=%d minflt=%llu majflt=%llu nvcsw=%llu nivcsw=%llu exec_ns=%llu migrations=%llu\n",
		       tag, workers[i].tid, b.minflt, b.majflt, b.nvcsw,
		       b.nivcsw, b.exec_ns, b.migr);
	}
}

static void wait_line(void)
{
	char line[64];

	if (!fgets(line, sizeof(line), stdin))
		clearerr(stdin);
}

int main(int argc, char **argv)
{
	pthread_t ch;
	int opt, i, go_wait = 0;

	while ((opt = getopt(argc, argv, "n:m:c:wPx")) != -1) {
		switch (opt) {
		case 'n': nworkers = atoi(optarg); break;
		case 'm': scale = atoi(optarg); break;
		case 'c': nchurn = atoi(optarg); break;
		case 'w': go_wait = 1; break;
		case 'P': park = 1; break;
		case 'x': extra = 1; break;
		default:
			fprintf(stderr, "usage: syscounts [-n WORKERS] [-m SCALE] [-c CHURN] [-w] [-P] [-x]\n");
			return 2;
		}
	}
	if (nworkers < 1 || nworkers > MAX_WORKERS || scale < 16 ||
	    nchurn < 0) {
		fprintf(stderr, "syscounts: -n 1..%d, -m >= 16, -c >= 0\n",
			MAX_WORKERS);
		return 2;
	}
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	announce_pid();
	/* without -P the workers end as they arrive there */
	parking.open = !park;
	atomic_store(&working, nworkers);
	for (i = 0; i < nworkers; i++) {
		workers[i].idx = i;
		if (pthread_create(&workers[i].th, NULL, worker_main,
				   &workers[i]))
			return 1;
	}
	gate_wait(&start, nworkers);
	printf("ready\n");
	if (go_wait) {
		print_still("pre");
		wait_line();
	}
	gate_open(&start);
	if (pthread_create(&ch, NULL, churner, NULL))
		return 1;
	pthread_join(ch, NULL);

	gate_wait(&parking, nworkers);
	for (i = 0; i < nworkers; i++)
		printf("tid=%d name=sc-%d getppid=%ld getpgid=%ld\n",
		       workers[i].tid, i, workers[i].getppid_n,
		       workers[i].getpgid_n);
	if (park) {
		print_still("post");
		printf("parked\n");
		wait_line();
		gate_open(&parking);
	}
	for (i = 0; i < nworkers; i++)
		pthread_join(workers[i].th, NULL);
	printf("done\n");
	return 0;
}
