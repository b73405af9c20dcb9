/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What test_prom, test_prom_http, test_prometheus and test_containers
 * share: the processes a test starts (ended in the teardown whatever
 * fails), a tdbpf serving /metrics, a small HTTP client that sends exact
 * bytes, the exposition parsed into samples, and a busy thread to be
 * measured. Compiled once into the test library (tests/lib/).
 */
#ifndef TDBPF_TEST_PROM_TEST_H
#define TDBPF_TEST_PROM_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "proc.h"

/* a test's scratch directory: the teardown removes it when it is set */
extern char scratch_dir[128];
/* the busy thread spins until this is set */
extern volatile int busy_stop;

/* A tdbpf serving /metrics. */
struct server {
	pid_t pid;
	int port;
	char err[128];		/* its stderr file */
	const char *report;	/* -j -o REPORT, else -o /dev/null */
	const char *out;	/* its stdout (a command's), else inherited */
};

/* An HTTP reply, read until the server closed. */
struct reply {
	int status;
	char *head;		/* status line and headers */
	char *body;
	double secs;
};

/* One sample line of an exposition. */
struct sample {
	char key[320];		/* name{labels} */
	double v;
};

/*
 * Every process a test starts is tracked, so that a failed assertion
 * (cmocka jumps out of the test) still ends them in teardown(), the
 * tests' cmocka teardown, which also removes scratch_dir.
 */
void track(pid_t pid);
int teardown(void **state);
/* A workload that prints "pid=N" first (start_workload()) into @w, tracked; N. */
pid_t start_tracked(char *const argv[], struct child *w);
/* Start tdbpf --listen 127.0.0.1:0 @args...; wait for its address. */
void start_tdbpf(struct server *s, const char *const *args);
/* tdbpf --listen ... -p @pid */
void start_tdbpf_on(struct server *s, pid_t pid);
/* SIGINT, then its exit status (-1: it did not end in 20 s). */
int stop_tdbpf(struct server *s);
/* A TCP connection to 127.0.0.1:@port, or -1. */
int connect_port(int port);
/* Send @req as is and read the reply until the server closes. */
int http_raw(int port, const char *req, size_t len, struct reply *r,
	     int timeout_ms);
/* GET @path (with Accept: @accept unless NULL), Connection: close. */
int http_get(int port, const char *path, const char *accept,
	     struct reply *r);
void reply_free(struct reply *r);
/* GET @path must be answered, with HTTP @status; the reply in @r. */
void get_expect(int port, const char *path, const char *accept,
		int status, struct reply *r);
/* The sample lines of exposition @body into @s (room for @max): how many. */
int parse_samples(const char *body, struct sample *s, int max);
/* The value of sample @key ("name{labels}"); NAN when there is none. */
double sample_of(const struct sample *s, int n, const char *key);
/* Whether the shell finds command @cmd. */
bool have(const char *cmd);
/* A thread named "busy" that spins until busy_stop is set. */
void *busy_main(void *arg);

#endif /* TDBPF_TEST_PROM_TEST_H */
