// SPDX-License-Identifier: GPL-2.0
/*
 * pipe_pingpong: context-switch microbenchmark, the fallback for
 * `perf bench sched pipe -T` where perf is not installed.
 *
 * usage: pipe_pingpong [-n LOOPS] [-c CPU] [-s MS] [-t]
 *
 * Two threads, "ping" and "pong", pass a 4-byte token back and forth over
 * two pipes LOOPS times (default 1000000).  With -c both are pinned to one
 * CPU, so every hand-off is two context switches on that CPU: the cost a
 * sched_switch tracer adds shows up directly in usecs/op.  -s waits MS
 * milliseconds first (and prints "pid=<pid>") so a tracer can attach.
 * -t: a TCP connection on loopback (TCP_NODELAY) instead of the pipes,
 * for the cost of socket hooks: each hand-off is a send, a softirq that
 * delivers it and wakes the reader, and a receive.
 *
 * The result lines follow perf bench's format so one parser reads both:
 *     Total time: 5.123 [sec]
 *       5.123456 usecs/op
 *         195178 ops/sec
 * then one "tid=<tid> name=<name> cpu_ns=<ns>" line per thread, its own
 * CPU clock read just before it returns (for the tests: every slice of
 * these threads is a few microseconds).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "workload.h"


static long loops = 1000000;
static int ping_pipe[2], pong_pipe[2];
static long long elapsed_ns;

/* what each thread reports of itself */
static struct self self[2] = { { "ping", 0, 0 }, { "pong", 0, 0 } };

static void xfer(int fd, int *tok, int out)
{
	ssize_t r;

	do
		r = out ? write(fd, tok, sizeof(*tok)) :
			  read(fd, tok, sizeof(*tok));
	while (r < 0 && errno == EINTR);
	if (r != sizeof(*tok)) {
		fprintf(stderr, "pipe_pingpong: %s: %s\n", out ? "write" : "read",
			r < 0 ? strerror(errno) : "short transfer");
		exit(1);
	}
}

static void *ping_main(void *arg)
{
	long long t0;
	int tok = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "ping");
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (long i = 0; i < loops; i++) {
		xfer(ping_pipe[1], &tok, 1);
		xfer(pong_pipe[0], &tok, 0);
	}
	elapsed_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	self_done(&self[0]);
	return NULL;
}

static void *pong_main(void *arg)
{
	int tok;

	(void)arg;
	pthread_setname_np(pthread_self(), "pong");
	for (long i = 0; i < loops; i++) {
		xfer(ping_pipe[0], &tok, 0);
		tok++;
		xfer(pong_pipe[1], &tok, 1);
	}
	self_done(&self[1]);
	return NULL;
}

/*
 * One TCP connection on loopback standing in for both pipes: ping
 * writes and reads its end, pong the other.
 */
static int tcp_pair(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int l, c, s, one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || c < 0 || bind(l, (void *)&a, sizeof(a)) ||
	    listen(l, 1) || getsockname(l, (void *)&a, &len) ||
	    connect(c, (void *)&a, sizeof(a)))
		return -1;
	s = accept(l, NULL, NULL);
	if (s < 0)
		return -1;
	close(l);
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	ping_pipe[1] = pong_pipe[0] = c;
	ping_pipe[0] = pong_pipe[1] = s;
	return 0;
}

int main(int argc, char **argv)
{
	long cpu = -1, delay_ms = -1;
	pthread_t ping, pong;
	double secs;
	int opt, tcp = 0;

	while ((opt = getopt(argc, argv, "n:c:s:t")) != -1) {
		switch (opt) {
		case 'n': loops = parse_num(optarg, "-n", 1, 1000000000); break;
		case 'c':
			cpu = parse_num(optarg, "-c", 0, CPU_SETSIZE - 1);
			break;
		case 's': delay_ms = parse_num(optarg, "-s", 0, 3600000); break;
		case 't': tcp = 1; break;
		default:
			fprintf(stderr, "usage: pipe_pingpong [-n LOOPS] [-c CPU] "
				"[-s MS] [-t]\n");
			return 2;
		}
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (delay_ms >= 0) {
		struct timespec ts = { delay_ms / 1000,
				       (delay_ms % 1000) * 1000000 };

		printf("pid=%d\n", getpid());
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}

	if (cpu >= 0) {
		cpu_set_t set;

		/* set on the process before the threads exist: both inherit */
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "pipe_pingpong: cannot pin to CPU %ld: "
				"%s\n", cpu, strerror(errno));
			return 1;
		}
	}

	if (tcp ? tcp_pair() : pipe(ping_pipe) || pipe(pong_pipe)) {
		perror(tcp ? "pipe_pingpong: TCP on loopback" :
			     "pipe_pingpong: pipe");
		return 1;
	}
	if (pthread_create(&pong, NULL, pong_main, NULL) ||
	    pthread_create(&ping, NULL, ping_main, NULL)) {
		fprintf(stderr, "pipe_pingpong: pthread_create failed\n");
		return 1;
	}
	pthread_join(ping, NULL);
	pthread_join(pong, NULL);

	secs = elapsed_ns / 1e9;
	printf("# Executed %ld pipe operations between two threads\n\n", loops);
	printf("%14s: %.3f [sec]\n\n", "Total time", secs);
	printf("%15.6f usecs/op\n", elapsed_ns / 1e3 / loops);
	printf("%15d ops/sec\n", (int)(loops / secs));
	for (int i = 0; i < 2; i++)
		self_print(&self[i]);
	return 0;
}
