/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the integration tests share about tdbpf itself: where the binary
 * and the workloads are, whether this machine can trace, when a run has
 * attached, and the parts of its JSON report most tests look at.
 * Compiled once into the test library (tests/lib/).
 */
#ifndef TDBPF_TEST_ITEST_H
#define TDBPF_TEST_ITEST_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <json-c/json.h>
#include "proc.h"

/* $TDBPF_BIN, else ./tdbpf (tests run from the repository root). */
const char *tdbpf_bin(void);
/* $TDBPF_BUILD, else build. */
const char *build_dir(void);
/* Path of a workload binary in the build dir (static buffer rotation). */
const char *workload(const char *name);
/* Root with BPF and BTF: 0; else -1, with one line that says why. */
int need_bpf(void);
/*
 * Skip the test unless @check (need_bpf(), need_root(): 0, else -1 with
 * the line that says why) is 0. A macro: cmocka's skip() is expanded in
 * the test's own binary, where it names the test's file and line.
 */
#define SKIP_UNLESS(check)          \
	do {                        \
		if ((check) != 0)   \
			skip();     \
	} while (0)
/*
 * javac and java (Debian: openjdk-17-jdk-headless): 0; else -1, with
 * one line that says why.
 */
int need_java(void);
/*
 * tests/workloads/jvm/@main (a .java, with the sources beside it that it
 * uses) compiled into the new directory @dir; the test fails if not.
 */
void javac_into(const char *dir, const char *main);

/*
 * Call @fn on each of @pid's /proc/PID/fdinfo files, where the kernel
 * describes each BPF link and map a process holds, until it returns
 * true; whether one did.
 */
bool fdinfo_each(pid_t pid, bool (*fn)(FILE *f, void *ctx), void *ctx);
/*
 * The tracepoints @pid's BPF links are attached to, as a string of
 * " name" words (tp_name of each raw tracepoint link, and " iter:TARGET"
 * for an iterator link); "" when it has none yet.
 */
void tp_links(pid_t pid, char *out, size_t len);
/* Whether tdbpf @pid has attached and started its run. */
bool tdbpf_attached(pid_t pid);
/* Whether tdbpf @pid has attached and started its run within @timeout_ms. */
bool wait_attached(pid_t pid, int timeout_ms);
/*
 * Start a workload that prints "pid=N" first (stdin on a pipe when
 * @with_stdin) into @w; that N.
 */
pid_t start_workload(char *const argv[], int with_stdin, struct child *w);

json_object *json_file(const char *path);
/* The first candidate of the graph verdict; NULL if it has none. */
json_object *first_candidate(json_object *doc);
/*
 * The first candidate's "comm" and "reason" (into @name and @reason, of
 * @len each) in the JSON report text @out; false when it has none.
 */
bool verdict_of(const char *out, char *name, char *reason, size_t len);
/*
 * The table's bottleneck line in @text, unwrapped: its continuations
 * (wrapped at a space, indented 2) joined with one space, into @buf of
 * @len; false when @text has none.
 */
bool table_verdict(const char *text, char *buf, size_t len);
/*
 * The span the table's bottleneck line @line names within its task ("; in
 * it: NAME N% of @whose on-CPU", @whose "its" or "their"): the test fails
 * unless there is one and it is @name; N.
 */
int span_in_it(const char *line, const char *whose, const char *name);
/* The task object of @tid in a report's "tasks", or NULL. */
json_object *find_task(json_object *doc, int tid);
/* The on-CPU time (ns) of the tasks of @doc that @match takes, with @arg */
double tasks_on_cpu(json_object *doc,
		    bool (*match)(json_object *t, const void *arg),
		    const void *arg);
/* The task of @tid, named @what in the error; the test fails without it. */
json_object *report_task(json_object *doc, int tid, const char *what);

/* One "tid=N name=S cpu_ns=N" line of the spinners workload. */
struct thread_line {
	int tid;
	char name[32];
	long long cpu_ns;
};

int parse_thread_lines(const char *text, struct thread_line *t, int max);
/*
 * A finished run's two outputs: the workload's @want thread lines in @out
 * (into @t, room for @max) and the JSON report at @path, parsed.
 */
json_object *threads_and_report(const char *out, struct thread_line *t,
				int max, int want, const char *path);
/* |got - want| within @rel of want plus @abs_ns (a thread's exit path). */
void assert_close(const char *what, double got, double want, double rel,
		  double abs_ns);
/*
 * @sum, tdbpf's on-CPU time of a process whose @threads threads exited,
 * against its CPU clock @clock_ns: within @rel (and 5 ms) of it below;
 * above, by no more than that and the threads' exit paths.
 */
void assert_process_sum(double sum, double clock_ns, long long threads,
			double rel);

#endif /* TDBPF_TEST_ITEST_H */
