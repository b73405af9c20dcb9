/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the test workloads. Each workload is a program of
 * its own (one .c, no library), so these are static inline here.
 */
#ifndef TDBPF_WORKLOAD_H
#define TDBPF_WORKLOAD_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NSEC	1000000000LL

static inline long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/*
 * "pid=N" first, line buffered: a test reads it, and the lines that
 * follow, through a pipe as they are printed.
 */
static inline void announce_pid(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("pid=%d\n", getpid());
}

/* @s, the argument of option @opt, as a number @min..@max; else exit 2. */
static inline long parse_num(const char *s, const char *opt, long min,
			     long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end || errno || v < min || v > max) {
		fprintf(stderr, "%s: %s wants a number %ld..%ld, not '%s'\n",
			program_invocation_short_name, opt, min, max, s);
		exit(2);
	}
	return v;
}

/* @s, the argument of option @opt, as seconds > 0; else exit 2. */
static inline double parse_secs(const char *s, const char *opt)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end || !(v > 0)) {
		fprintf(stderr, "%s: %s wants seconds > 0, not '%s'\n",
			program_invocation_short_name, opt, s);
		exit(2);
	}
	return v;
}

#endif /* TDBPF_WORKLOAD_H */
