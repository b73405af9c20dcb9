// SPDX-License-Identifier: GPL-2.0
/*
 * netstage: one stage of a stream graph whose stages run on different
 * hosts (network namespaces in the tests) joined by TCP: it reads
 * records from one connection it accepts, works on each, and writes it
 * to the next stage's address. Small socket buffers keep the stages in
 * lock step, as bounded queues do, so the slow stage is the bottleneck.
 *
 * usage: netstage [-i PORT] [-o ADDR:PORT] [-c US] [-s US] [-r BYTES]
 *                 [-p SECS] [-d SECS] NAME
 *   -i PORT       read records from the one connection accepted on PORT
 *                 (any address); without, a source that makes them
 *   -o ADDR:PORT  write them to ADDR:PORT (retried until it listens);
 *                 without, a sink that counts them
 *   -c US         CPU work per record (its own CPU clock)
 *   -s US         a sleep per record (nanosleep)
 *   -r BYTES      record size (default 1024)
 *   -p SECS       pause that long once connected, before the first record
 *                 (a source that starts late: the next stage blocks in
 *                 its read meanwhile)
 *   -d SECS       stop after SECS (default 30), or when the input ends
 *   NAME          the process's name (comm), e.g. gen, relay, sink
 *
 * stdout: "pid=<pid>", "ready" once connected both ways, and at the end
 * "records=<n>".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "workload.h"

static void die(const char *what)
{
	fprintf(stderr, "netstage: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void small_buffers(int fd)
{
	int sz = 4096;

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static int accept_one(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), c;

	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	small_buffers(l);
	a.sin_port = htons((unsigned short)port);
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1))
		die("listen");
	c = accept(l, NULL, NULL);
	if (c < 0)
		die("accept");
	return c;
}

static int connect_to(const char *spec, double deadline_s)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char addr[64], *colon;
	int fd;

	snprintf(addr, sizeof(addr), "%s", spec);
	colon = strrchr(addr, ':');
	if (!colon) {
		fprintf(stderr, "netstage: -o wants ADDR:PORT, not '%s'\n", spec);
		exit(2);
	}
	*colon = 0;
	a.sin_port = htons((unsigned short)parse_num(colon + 1, "-o", 1, 65535));
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		fprintf(stderr, "netstage: -o wants an IPv4 address, not '%s'\n",
			addr);
		exit(2);
	}
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			die("socket");
		small_buffers(fd);
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			return fd;
		close(fd);
		if (clock_ns(CLOCK_MONOTONIC) / 1e9 > deadline_s)
			die("connect");
		usleep(20000);
	}
}

/* All @n bytes of @buf read from @fd, or written to it (@wr): 0, or -1. */
static int xfer_all(int fd, char *buf, size_t n, bool wr)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = wr ? write(fd, buf + done, n - done) :
				 read(fd, buf + done, n - done);

		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static void burn_us(long us)
{
	long long end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + us * 1000LL;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	long in_port = 0, cpu_us = 0, sleep_us = 0, rbytes = 1024;
	double secs = 30, pause_s = 0, end;
	long long records = 0;
	int in = -1, o = -1, c;
	char *buf;

	while ((c = getopt(argc, argv, "i:o:c:s:r:p:d:")) != -1) {
		switch (c) {
		case 'i':
			in_port = parse_num(optarg, "-i", 1, 65535);
			break;
		case 'o':
			out = optarg;
			break;
		case 'c':
			cpu_us = parse_num(optarg, "-c", 0, 10000000);
			break;
		case 's':
			sleep_us = parse_num(optarg, "-s", 0, 10000000);
			break;
		case 'r':
			rbytes = parse_num(optarg, "-r", 1, 1 << 20);
			break;
		case 'p':
			pause_s = parse_secs(optarg, "-p");
			break;
		case 'd':
			secs = parse_secs(optarg, "-d");
			break;
		default:
			fprintf(stderr, "usage: netstage [-i PORT] [-o ADDR:PORT] [-c US] [-s US] [-r BYTES] [-p SECS] [-d SECS] NAME\n");
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "netstage: give the stage's NAME\n");
		return 2;
	}
	prctl(PR_SET_NAME, argv[optind]);
	signal(SIGPIPE, SIG_IGN);
	announce_pid();
	buf = calloc(1, (size_t)rbytes);
	if (!buf)
		die("calloc");
	end = clock_ns(CLOCK_MONOTONIC) / 1e9 + secs;
	if (out)
		o = connect_to(out, end);
	if (in_port)
		in = accept_one((int)in_port);
	printf("ready\n");
	if (pause_s > 0)
		usleep((useconds_t)(pause_s * 1e6));
	while (clock_ns(CLOCK_MONOTONIC) / 1e9 < end) {
		if (in >= 0 && xfer_all(in, buf, (size_t)rbytes, false))
			break;
		if (cpu_us)
			burn_us(cpu_us);
		if (sleep_us)
			usleep((useconds_t)sleep_us);
		if (o >= 0 && xfer_all(o, buf, (size_t)rbytes, true))
			break;
		records++;
	}
	printf("records=%lld\n", records);
	return 0;
}
