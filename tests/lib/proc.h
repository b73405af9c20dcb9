/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' one way to start a program (spawn_with(): each standard
 * stream inherited, on a pipe, /dev/null or a file), and what they do
 * with it after: read its lines or all it prints, wait for it with a
 * bound, run it to the end. Compiled once into the test library
 * (tests/lib/) rather than static in every test's headers.
 */
#ifndef TDBPF_TEST_PROC_H
#define TDBPF_TEST_PROC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Where one of a child's standard streams goes. */
enum child_io {
	IO_KEEP,	/* the test's own */
	IO_PIPE,	/* a pipe: struct child's in, out or err */
	IO_NULL,	/* /dev/null */
	IO_CREATE,	/* the stream's path, created or truncated */
	IO_EXISTING,	/* the stream's path as it is (a FIFO, a device) */
	IO_AS_OUT,	/* stderr only: where stdout goes */
};

struct spawn_opts {
	enum child_io in, out, err;
	const char *out_path, *err_path;
	/* "K=V" sets K, a bare "K" removes it; NULL-terminated, or NULL */
	char *const *env;
	/* run as @uid/@gid, the binary opened before the identity changes */
	bool as_user;
	uid_t uid;
	gid_t gid;
	/* argv[0] looked up in PATH (a tool the machine has: prometheus) */
	bool search_path;
	/* in the child just before exec (a limit); non-zero: exit 125 */
	int (*in_child)(void *ctx);
	void *ctx;
};

struct child {
	pid_t pid;	/* -1 when it could not start */
	int in;		/* its stdin, or -1 */
	int out;	/* its stdout, or -1 */
	int err;	/* its stderr, or -1 */
};

/* An argument list built a piece at a time, kept NULL-terminated. */
#define ARGBUF_MAX 64
struct argbuf {
	char *v[ARGBUF_MAX + 1];
	int n;
};

/* Append the strings before the NULL; the test fails if they do not fit. */
void arg_add(struct argbuf *a, ...) __attribute__((sentinel));
/* Append each string of NULL-terminated @list (as arg_add()). */
void arg_addv(struct argbuf *a, const char *const *list);

/*
 * Start @argv as @o says. In the child, a file that cannot be opened or
 * an identity that cannot be taken is exit 125, an exec that fails 127.
 */
struct child spawn_with(char *const argv[], const struct spawn_opts *o);
/* Start @argv with stdout (and stdin when @with_stdin) on pipes. */
struct child spawn(char *const argv[], int with_stdin);
/* Start @argv with stdout and stderr on pipes. */
struct child spawn_both(char *const argv[]);

/* Read one line from @fd (unbuffered, for handshakes); NULL on EOF. */
char *read_line(int fd, char *buf, size_t len, int timeout_ms);
/* Read @fd's lines until one contains @what; false on EOF or timeout. */
bool wait_line(int fd, const char *what, int timeout_ms);
/* Everything left on @fd until EOF (malloc'ed, NUL-terminated). */
char *read_all(int fd);
/* The whole of file @path (malloc'ed); the test fails if it cannot open. */
char *file_text(const char *path);
/* Wait for @pid up to @timeout_s; its exit status (128 + signal), or -1. */
int wait_for(pid_t pid, int timeout_s);
/*
 * Send @c @sig, read its stdout to the end (left open), wait for it up
 * to @timeout_s: its exit status as wait_for() gives it.
 */
int end_child(const struct child *c, int sig, int timeout_s);
/* Kill @w (SIGKILL), reap it, close its stdout. */
void stop_workload(struct child *w);
/* Run @argv to the end; its stdout in *@out (may be NULL). */
int run(char *const argv[], char **out, int timeout_s);
/* rm -rf @path (a test's scratch tree): its status, as run() gives it. */
int remove_tree(const char *path);
/*
 * The command line @head then @fmt... run by the shell (system()): its
 * status as system() gives it; the test fails if the line is too long.
 */
int vshell(const char *head, const char *fmt, va_list ap);
/* The command line @fmt... run by the shell, as vshell(). */
int shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct run_result {
	int status;	/* exit code, 128 + signal, or -1 on timeout */
	char *out;	/* stdout, malloc'ed */
	char *err;	/* stderr, malloc'ed */
	double secs;	/* wall time from fork to exit */
};

/*
 * Run @argv with environment changes @env (as spawn_opts' env) as
 * @uid/@gid when @uid is not (uid_t)-1, capturing both streams, for up
 * to @timeout_s: its status, also in @r.
 */
int run_capture(char *const argv[], char *const env[], uid_t uid, gid_t gid,
		int timeout_s, struct run_result *r);
void run_result_free(struct run_result *r);

/*
 * @fn(PATH, @name, @ctx) for each entry @name (not "." or "..") of
 * /proc/PID/@sub of every process, PATH its "/proc/PID/@sub/@name": a
 * process's threads ("task"), its fds' descriptions ("fdinfo"). A
 * process that ends meanwhile is passed over.
 */
void proc_each(const char *sub,
	       void (*fn)(const char *path, const char *name, void *ctx),
	       void *ctx);
/* The hex value after @key ("CapEff:") in status file @path; ~0 if none. */
unsigned long long proc_hex(const char *path, const char *key);
/* The same in /proc/@pid/status. */
unsigned long long status_hex(pid_t pid, const char *key);
/* @n bytes of @s as the file @path, made or emptied; the test fails if not. */
void write_bytes(const char *path, const char *s, size_t n);
/* Text @s as the file @path (as write_bytes()). */
void write_text(const char *path, const char *s);
/* Text @s as the file @dir/@name (as write_bytes()). */
void write_in(const char *dir, const char *name, const char *s);
/* Seconds on the monotonic clock. */
double mono_s(void);
/* Lines in @s (a last line without '\n' counts). */
int count_lines(const char *s);
/*
 * A rotation of static buffers for the paths the helpers make: each
 * string stays valid until four more come from the same ring.
 */
struct str_ring {
	char buf[4][512];
	int i;
};

/* @fmt... formatted into @r's next buffer. */
char *ring_printf(struct str_ring *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* /tmp/tdbpf-test-PID-@tag (a ring of its own). */
char *tmp_path(const char *tag);

#endif /* TDBPF_TEST_PROC_H */
