/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the root integration tests: run ./tdbpf and the workloads
 * as real processes, read what they print, parse tdbpf's JSON.
 * Tests run from the repository root (make test does that).
 */
#ifndef TDBPF_TEST_HELPERS_H
#define TDBPF_TEST_HELPERS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "json_get.h"

/* static helpers: each test binary uses only some of them */
#pragma GCC diagnostic ignored "-Wunused-function"

/*
 * TDBPF_TEST_SKIP=PATTERN skips the tests whose names match (cmocka's
 * '*' and '?'), reported as skipped: make vmtest's guests leave out
 * the tests whose tolerances assume native speed (tests/vm/checks-x86
 * says which and why). TDBPF_TEST=PATTERN runs only the tests that
 * match (one test, again and again, to catch a rare failure). Before
 * main(), so no test's main() needs it.
 */
__attribute__((constructor)) static void skip_from_env(void)
{
	const char *p = getenv("TDBPF_TEST_SKIP");

	if (p && *p)
		cmocka_set_skip_filter(p);
	p = getenv("TDBPF_TEST");
	if (p && *p)
		cmocka_set_test_filter(p);
}

static const char *tdbpf_bin(void)
{
	const char *p = getenv("TDBPF_BIN");

	return p ? p : "./tdbpf";
}

static const char *build_dir(void)
{
	const char *p = getenv("TDBPF_BUILD");

	return p ? p : "build";
}

/* Path of a workload binary in the build dir (static buffer rotation). */
static const char *workload(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/tests/workloads/%s", build_dir(),
		 name);
	return buf[i];
}

/* Skip unless root with BPF and BTF: say why in one line. */
static int need_bpf(void)
{
	if (geteuid() != 0) {
		print_message("integration tests need root (BPF, perf events): skipping\n");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		print_message("kernel has no BTF (/sys/kernel/btf/vmlinux): skipping\n");
		return -1;
	}
	return 0;
}

#define NEED_BPF()                   \
	do {                         \
		if (need_bpf())      \
			skip();      \
	} while (0)

struct child {
	pid_t pid;
	int out;	/* its stdout, or -1 */
	int in;		/* its stdin, or -1 */
};

/*
 * Call @fn on each of @pid's /proc/PID/fdinfo files, where the kernel
 * describes each BPF link and map a process holds, until it returns
 * true; whether one did.
 */
static bool fdinfo_each(pid_t pid, bool (*fn)(FILE *f, void *ctx),
			void *ctx)
{
	char path[320];
	struct dirent *e;
	bool done = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	d = opendir(path);
	while (d && !done && (e = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid,
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		done = fn(f, ctx);
		fclose(f);
	}
	if (d)
		closedir(d);
	return done;
}

struct link_words {
	char *out;
	size_t len, n;
};

static bool add_link_words(FILE *f, void *ctx)
{
	struct link_words *w = ctx;
	char line[256], name[64];

	while (fgets(line, sizeof(line), f)) {
		const char *pre = "";

		if (sscanf(line, "target_name: %63s", name) == 1)
			pre = "iter:";
		else if (sscanf(line, "tp_name: %63s", name) != 1)
			continue;
		if (w->n + strlen(pre) + strlen(name) + 2 < w->len)
			w->n += (size_t)snprintf(w->out + w->n, w->len - w->n,
						 " %s%s", pre, name);
	}
	return false;
}

/*
 * The tracepoints @pid's BPF links are attached to, as a string of
 * " name" words (tp_name of each raw tracepoint link, and " iter:TARGET"
 * for an iterator link); "" when it has none yet.
 */
static void tp_links(pid_t pid, char *out, size_t len)
{
	struct link_words w = { .out = out, .len = len };

	out[0] = 0;
	fdinfo_each(pid, add_link_words, &w);
}

/*
 * Whether tdbpf @pid has attached and started its run within
 * @timeout_ms. Attached: its task iterator's link is there; tracer.c
 * makes it after the skeleton's links, which come one at a time in
 * program order (a CI run once read sched_process_free's link with
 * sk_data_ready's, after it, not yet there). Loading and attaching
 * take 0.3 s here idle and more on a busy machine, hence a wait for the
 * link, not a time. The run starts one tick later (session.c,
 * take_base()): the 200 ms after are 50 ticks at HZ=250.
 */
static bool wait_attached(pid_t pid, int timeout_ms)
{
	char links[1024];
	int i;

	for (i = 0; i <= timeout_ms / 20; i++) {
		tp_links(pid, links, sizeof(links));
		if (strstr(links, " iter:task")) {
			usleep(200000);
			return true;
		}
		usleep(20000);
	}
	return false;
}

/* Start @argv with stdout (and stdin when @with_stdin) on pipes. */
static struct child spawn(char *const argv[], int with_stdin)
{
	struct child c = { .pid = -1, .out = -1, .in = -1 };
	int op[2], ip[2] = { -1, -1 };

	if (pipe2(op, O_CLOEXEC))
		return c;
	if (with_stdin && pipe2(ip, O_CLOEXEC))
		return c;
	c.pid = fork();
	if (c.pid == 0) {
		dup2(op[1], 1);
		if (with_stdin)
			dup2(ip[0], 0);
		execv(argv[0], argv);
		_exit(127);
	}
	close(op[1]);
	c.out = op[0];
	if (with_stdin) {
		close(ip[0]);
		c.in = ip[1];
	}
	return c;
}

/* Read one line from @fd (unbuffered, for handshakes); NULL on EOF. */
static char *read_line(int fd, char *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t n = 0;

	while (n + 1 < len) {
		if (poll(&p, 1, timeout_ms) <= 0)
			break;
		if (read(fd, buf + n, 1) != 1)
			break;
		if (buf[n] == '\n')
			break;
		n++;
	}
	buf[n] = 0;
	return n ? buf : NULL;
}

/*
 * Start a workload that prints "pid=N" first (stdin on a pipe when
 * @with_stdin) into @w; that N. Up to 30 s: make vmtest's emulated CPUs
 * on a loaded host took more than 5 to start one.
 */
static pid_t start_workload(char *const argv[], int with_stdin,
			    struct child *w)
{
	char line[64];
	int pid = -1;

	*w = spawn(argv, with_stdin);
	assert_true(w->pid > 0);
	assert_non_null(read_line(w->out, line, sizeof(line), 30000));
	assert_int_equal(sscanf(line, "pid=%d", &pid), 1);
	return pid;
}

/* longer than any command a test runs; shorter than a guest's timeout */
#ifndef READ_ALL_MAX_S
#define READ_ALL_MAX_S 300
#endif

/* Everything left on @fd until EOF (malloc'ed, NUL-terminated). */
static char *read_all(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	int waited = 0;
	ssize_t r;

	/*
	 * A pipe's end comes when its writers exit: bounded, so that a
	 * command that hangs fails its test, named, where the caller's
	 * wait_for() kills it, rather than stalling the whole run (a
	 * guest's only sign was its 900 s timeout).
	 */
	while (buf) {
		if (poll(&p, 1, 1000) == 0) {
			if (++waited < READ_ALL_MAX_S)
				continue;
			print_error("no end of output after %d s: the command hangs\n",
				    READ_ALL_MAX_S);
			break;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (cap - n < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	if (buf)
		buf[n] = 0;
	return buf;
}

/* The whole of file @path (malloc'ed); the test fails if it cannot open. */
static char *file_text(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *s;

	if (fd < 0)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	s = read_all(fd);
	close(fd);
	return s;
}

/* Wait for @pid up to @timeout_s; returns its exit status, or -1. */
static int wait_for(pid_t pid, int timeout_s)
{
	int st, i;

	for (i = 0; i < timeout_s * 50; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) :
					       128 + WTERMSIG(st);
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* Run @argv to the end; its stdout in *@out (may be NULL). */
static int run(char *const argv[], char **out, int timeout_s)
{
	struct child c = spawn(argv, 0);
	char *o;
	int rc;

	if (c.pid < 0)
		return -1;
	o = read_all(c.out);
	close(c.out);
	rc = wait_for(c.pid, timeout_s);
	if (out)
		*out = o;
	else
		free(o);
	return rc;
}

static json_object *json_file(const char *path)
{
	return json_object_from_file(path);
}

/* The first candidate of the graph verdict; NULL if it has none. */
static json_object *first_candidate(json_object *doc)
{
	json_object *g, *b;

	if (!json_object_object_get_ex(doc, "graph", &g) ||
	    !json_object_object_get_ex(g, "bottleneck", &b) ||
	    !json_object_array_length(b))
		return NULL;
	return json_object_array_get_idx(b, 0);
}

/* The task object of @tid in a report's "tasks", or NULL. */
static json_object *find_task(json_object *doc, int tid)
{
	json_object *tasks, *t;
	size_t i;

	if (!json_object_object_get_ex(doc, "tasks", &tasks))
		return NULL;
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		if (jint(t, "tid") == tid)
			return t;
	}
	return NULL;
}

/* The task of @tid, named @what in the error; the test fails without it. */
static json_object *report_task(json_object *doc, int tid, const char *what)
{
	json_object *t = find_task(doc, tid);

	if (!t) {
		print_error("%s (tid %d) missing from the report\n", what, tid);
		fail();
	}
	return t;
}

/* One "tid=N name=S cpu_ns=N" line of the spinners workload. */
struct thread_line {
	int tid;
	char name[32];
	long long cpu_ns;
};

static int parse_thread_lines(const char *text, struct thread_line *t,
			      int max)
{
	const char *p = text;
	int n = 0;

	while (p && *p && n < max) {
		if (sscanf(p, "tid=%d name=%31s cpu_ns=%lld", &t[n].tid,
			   t[n].name, &t[n].cpu_ns) == 3)
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/*
 * A finished run's two outputs: the workload's @want thread lines in @out
 * (into @t, room for @max) and the JSON report at @path, parsed.
 */
static json_object *threads_and_report(const char *out, struct thread_line *t,
				       int max, int want, const char *path)
{
	json_object *doc;

	assert_int_equal(parse_thread_lines(out, t, max), want);
	doc = json_file(path);
	assert_non_null(doc);
	return doc;
}

static char *tmp_path(const char *tag)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "/tmp/tdbpf-test-%d-%s", getpid(),
		 tag);
	return buf[i];
}

/* |got - want| within @rel of want plus @abs_ns (a thread's exit path). */
static void assert_close(const char *what, double got, double want,
			 double rel, double abs_ns)
{
	double d = got > want ? got - want : want - got;

	if (!(d <= rel * want + abs_ns)) {
		print_error("%s: got %.0f, want %.0f (diff %.2f%%, allowed %.1f%% + %.1f ms)\n",
			    what, got, want, want ? 100.0 * d / want : 0.0,
			    rel * 100, abs_ns / 1e6);
		fail();
	}
}

/* ---- runs with stdout and stderr captured (test_errors*, test_faults) - */

#include <grp.h>
#include <sys/types.h>

struct run_result {
	int status;	/* exit code, 128 + signal, or -1 on timeout */
	char *out;	/* stdout, malloc'ed */
	char *err;	/* stderr, malloc'ed */
	double secs;	/* wall time from fork to exit */
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * In a forked child: stdout to @out, stderr to @err, and @env applied
 * ("K=V" sets K, a bare "K" removes it).
 */
static void child_io(int out, int err, char *const env[])
{
	int i;

	dup2(out, 1);
	dup2(err, 2);
	for (i = 0; env && env[i]; i++)
		if (strchr(env[i], '='))
			putenv(env[i]);
		else
			unsetenv(env[i]);
}

/*
 * Run @argv with environment changes @env ("K=V" or "K" to unset,
 * NULL-terminated, may be NULL) as @uid/@gid when @uid is not (uid_t)-1,
 * capturing both streams. The binary is opened before the identity
 * changes (fexecve), so the test does not depend on the checkout being
 * reachable by that user.
 */
static int run_capture(char *const argv[], char *const env[], uid_t uid,
		       gid_t gid, int timeout_s, struct run_result *r)
{
	struct pollfd p[2];
	size_t cap[2] = { 4096, 4096 }, n[2] = { 0, 0 };
	char *buf[2];
	int op[2], ep[2], i, open_fds = 2, st;
	double t0, deadline;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	buf[0] = malloc(cap[0]);
	buf[1] = malloc(cap[1]);
	if (!buf[0] || !buf[1] || pipe2(op, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
		return -1;
	t0 = mono_s();
	pid = fork();
	if (pid == 0) {
		int fd = open(argv[0], O_RDONLY | O_CLOEXEC);

		child_io(op[1], ep[1], env);
		if (uid != (uid_t)-1 &&
		    (setgroups(0, NULL) || setgid(gid) || setuid(uid)))
			_exit(125);
		if (fd >= 0)
			fexecve(fd, argv, environ);
		_exit(127);
	}
	close(op[1]);
	close(ep[1]);
	p[0].fd = op[0];
	p[1].fd = ep[0];
	p[0].events = p[1].events = POLLIN;
	deadline = t0 + timeout_s;
	while (open_fds && mono_s() < deadline) {
		if (poll(p, 2, 100) <= 0)
			continue;
		for (i = 0; i < 2; i++) {
			ssize_t got;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (cap[i] - n[i] < 1024) {
				cap[i] *= 2;
				buf[i] = realloc(buf[i], cap[i]);
			}
			got = read(p[i].fd, buf[i] + n[i], cap[i] - n[i] - 1);
			if (got > 0) {
				n[i] += (size_t)got;
			} else {
				close(p[i].fd);
				p[i].fd = -1;
				open_fds--;
			}
		}
	}
	for (i = 0; i < 2; i++) {
		if (p[i].fd >= 0)
			close(p[i].fd);
		buf[i][n[i]] = 0;
	}
	r->out = buf[0];
	r->err = buf[1];
	if (open_fds) {
		/* still writing at the deadline: a hang */
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		r->secs = mono_s() - t0;
		return r->status = -1;
	}
	while (waitpid(pid, &st, WNOHANG) != pid) {
		if (mono_s() >= deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			r->secs = mono_s() - t0;
			return r->status = -1;
		}
		usleep(1000);
	}
	r->secs = mono_s() - t0;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r->status;
}

static void run_result_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* Lines in @s (a last line without '\n' counts). */
static int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		if (*s == '\n' || !s[1])
			n++;
	return n;
}

#endif /* TDBPF_TEST_HELPERS_H */
