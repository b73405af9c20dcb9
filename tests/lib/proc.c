// SPDX-License-Identifier: GPL-2.0
/* The tests' processes: start, read, wait (proc.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "proc.h"

/* longer than any command a test runs; shorter than a guest's timeout */
#define READ_ALL_MAX_S 300

/* In the child: stream @fd where @k says (@end: its pipe's end). */
static bool child_stream(int fd, enum child_io k, const char *path, int end)
{
	int rw = fd ? O_WRONLY : O_RDONLY, f = -1;

	switch (k) {
	case IO_KEEP:
		return true;
	case IO_PIPE:
		f = end;
		break;
	case IO_AS_OUT:
		f = 1;
		break;
	case IO_NULL:
		f = open("/dev/null", rw | O_CLOEXEC);
		break;
	case IO_CREATE:
		f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		break;
	case IO_EXISTING:
		f = open(path, rw | O_CLOEXEC);
		break;
	}
	return f >= 0 && dup2(f, fd) == fd;
}

/* In the child: its streams, environment and identity, then @argv. */
static void child_exec(char *const argv[], const struct spawn_opts *o,
		       int pe[3][2])
{
	int bin = o->as_user ? open(argv[0], O_RDONLY | O_CLOEXEC) : -1;
	int i;

	if (!child_stream(1, o->out, o->out_path, pe[1][1]) ||
	    !child_stream(2, o->err, o->err_path, pe[2][1]) ||
	    !child_stream(0, o->in, NULL, pe[0][0]))
		_exit(125);
	for (i = 0; o->env && o->env[i]; i++)
		if (strchr(o->env[i], '='))
			putenv(o->env[i]);
		else
			unsetenv(o->env[i]);
	if (o->as_user &&
	    (setgroups(0, NULL) || setgid(o->gid) || setuid(o->uid)))
		_exit(125);
	if (o->in_child && o->in_child(o->ctx))
		_exit(125);
	if (o->as_user)
		fexecve(bin, argv, environ);
	else if (o->search_path)
		execvp(argv[0], argv);
	else
		execv(argv[0], argv);
	_exit(127);
}

static void arg_push(struct argbuf *a, const char *s)
{
	if (a->n >= ARGBUF_MAX)
		fail_msg("more than %d arguments", ARGBUF_MAX);
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

void arg_add(struct argbuf *a, ...)
{
	const char *s;
	va_list ap;

	va_start(ap, a);
	while ((s = va_arg(ap, const char *)))
		arg_push(a, s);
	va_end(ap);
}

void arg_addv(struct argbuf *a, const char *const *list)
{
	for (; *list; list++)
		arg_push(a, *list);
}

struct child spawn_with(char *const argv[], const struct spawn_opts *o)
{
	enum child_io k[3] = { o->in, o->out, o->err };
	struct child c = { .pid = -1, .in = -1, .out = -1, .err = -1 };
	int pe[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } }, i;

	for (i = 0; i < 3; i++)
		if (k[i] == IO_PIPE && pipe2(pe[i], O_CLOEXEC))
			goto out;
	c.pid = fork();
	if (c.pid == 0)
		child_exec(argv, o, pe);
	if (c.pid < 0)
		goto out;
	/* the child's ends are its own now; the test keeps the others */
	c.in = pe[0][1];
	c.out = pe[1][0];
	c.err = pe[2][0];
	pe[0][1] = pe[1][0] = pe[2][0] = -1;
out:
	for (i = 0; i < 6; i++)
		if (pe[i / 2][i % 2] >= 0)
			close(pe[i / 2][i % 2]);
	return c;
}

struct child spawn(char *const argv[], int with_stdin)
{
	struct spawn_opts o = { .in = with_stdin ? IO_PIPE : IO_KEEP,
				.out = IO_PIPE };

	return spawn_with(argv, &o);
}

struct child spawn_both(char *const argv[])
{
	struct spawn_opts o = { .out = IO_PIPE, .err = IO_PIPE };

	return spawn_with(argv, &o);
}

char *read_line(int fd, char *buf, size_t len, int timeout_ms)
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

bool wait_line(int fd, const char *what, int timeout_ms)
{
	char line[512];

	while (read_line(fd, line, sizeof(line), timeout_ms))
		if (strstr(line, what))
			return true;
	return false;
}

char *read_all(int fd)
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

char *file_text(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *s;

	if (fd < 0)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	s = read_all(fd);
	close(fd);
	return s;
}

int wait_for(pid_t pid, int timeout_s)
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

int end_child(const struct child *c, int sig, int timeout_s)
{
	kill(c->pid, sig);
	free(read_all(c->out));
	return wait_for(c->pid, timeout_s);
}

void stop_workload(struct child *w)
{
	kill(w->pid, SIGKILL);
	wait_for(w->pid, 10);
	close(w->out);
}

int run(char *const argv[], char **out, int timeout_s)
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

int remove_tree(const char *path)
{
	return run((char *[]){ "/bin/rm", "-rf", (char *)path, NULL }, NULL,
		   30);
}

int vshell(const char *head, const char *fmt, va_list ap)
{
	char cmd[4096];
	int n = snprintf(cmd, sizeof(cmd), "%s", head), m;

	assert_true(n >= 0 && (size_t)n < sizeof(cmd));
	m = vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
	assert_true(m >= 0 && (size_t)m < sizeof(cmd) - (size_t)n);
	return system(cmd);
}

int shell(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vshell("", fmt, ap);
	va_end(ap);
	return rc;
}

void proc_each(const char *sub,
	       void (*fn)(const char *path, const char *name, void *ctx),
	       void *ctx)
{
	DIR *proc = opendir("/proc"), *d;
	char dir[300], path[600];
	struct dirent *p, *e;

	assert_non_null(proc);
	while ((p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/%s", p->d_name, sub);
		d = opendir(dir);
		if (!d)
			continue;	/* ended meanwhile */
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			fn(path, e->d_name, ctx);
		}
		closedir(d);
	}
	closedir(proc);
}

unsigned long long proc_hex(const char *path, const char *key)
{
	unsigned long long v = ~0ULL;
	char line[256];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			sscanf(line + strlen(key), "%llx", &v);
	if (f)
		fclose(f);
	return v;
}

unsigned long long status_hex(pid_t pid, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return proc_hex(path, key);
}

void write_bytes(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "we");

	if (!f)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	assert_int_equal(fwrite(s, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

void write_text(const char *path, const char *s)
{
	write_bytes(path, s, strlen(s));
}

void write_in(const char *dir, const char *name, const char *s)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_text(path, s);
}

double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Both of @c's streams into @buf until they close or @deadline: whether
 * they closed (else the child is still writing: a hang).
 */
static bool read_both(struct child *c, char *buf[2], double deadline)
{
	struct pollfd p[2] = { { .fd = c->out, .events = POLLIN },
			       { .fd = c->err, .events = POLLIN } };
	size_t cap[2] = { 4096, 4096 }, n[2] = { 0, 0 };
	int i, open_fds = 2;

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
	return !open_fds;
}

int run_capture(char *const argv[], char *const env[], uid_t uid, gid_t gid,
		int timeout_s, struct run_result *r)
{
	struct spawn_opts o = { .out = IO_PIPE, .err = IO_PIPE, .env = env,
				.as_user = uid != (uid_t)-1, .uid = uid,
				.gid = gid };
	char *buf[2] = { malloc(4096), malloc(4096) };
	double t0, deadline;
	struct child c;
	bool closed;
	int st;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!buf[0] || !buf[1])
		return -1;
	t0 = mono_s();
	deadline = t0 + timeout_s;
	c = spawn_with(argv, &o);
	if (c.pid < 0) {
		free(buf[0]);
		free(buf[1]);
		return -1;
	}
	closed = read_both(&c, buf, deadline);
	r->out = buf[0];
	r->err = buf[1];
	while (closed && waitpid(c.pid, &st, WNOHANG) != c.pid) {
		closed = mono_s() < deadline;
		usleep(1000);
	}
	if (!closed) {
		/* still writing, or not gone, at the deadline: a hang */
		kill(c.pid, SIGKILL);
		waitpid(c.pid, &st, 0);
		r->secs = mono_s() - t0;
		return r->status = -1;
	}
	r->secs = mono_s() - t0;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r->status;
}

void run_result_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

int count_lines(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		if (*s == '\n' || !s[1])
			n++;
	return n;
}

char *ring_printf(struct str_ring *r, const char *fmt, ...)
{
	va_list ap;

	r->i = (r->i + 1) % 4;
	va_start(ap, fmt);
	vsnprintf(r->buf[r->i], sizeof(r->buf[r->i]), fmt, ap);
	va_end(ap);
	return r->buf[r->i];
}

char *tmp_path(const char *tag)
{
	static struct str_ring ring;

	return ring_printf(&ring, "/tmp/tdbpf-test-%d-%s", getpid(), tag);
}
