// SPDX-License-Identifier: GPL-2.0
/*
 * What the /metrics tests share (prom_test.h): the processes a test
 * starts, a tdbpf serving /metrics, an HTTP client, the exposition
 * parsed, a busy thread.
 */
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "itest.h"
#include "prom_test.h"

/*
 * Every process a test starts, so that a failed assertion (cmocka jumps
 * out of the test) still ends them in the teardown: no server or tdbpf
 * outlives the test.
 */
static pid_t children[8];
char scratch_dir[128];

void track(pid_t pid)
{
	int i;

	for (i = 0; i < 8; i++)
		if (children[i] <= 0) {
			children[i] = pid;
			return;
		}
}

pid_t start_tracked(char *const argv[], struct child *w)
{
	pid_t pid = start_workload(argv, 0, w);

	track(w->pid);
	return pid;
}

int teardown(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		if (children[i] > 0 && waitpid(children[i], NULL, WNOHANG) == 0) {
			kill(children[i], SIGTERM);
			if (wait_for(children[i], 10) < 0)
				print_message("pid %d killed\n", children[i]);
		}
		children[i] = 0;
	}
	if (scratch_dir[0]) {
		if (remove_tree(scratch_dir))
			print_message("could not remove %s\n", scratch_dir);
		scratch_dir[0] = 0;
	}
	return 0;
}

/* ---- a tdbpf serving /metrics ----------------------------------------- */


/* Start tdbpf --listen 127.0.0.1:0 @args...; wait for its address. */
void start_tdbpf(struct server *s, const char *const *args)
{
	struct spawn_opts o = { .out = s->out ? IO_CREATE : IO_KEEP,
				.out_path = s->out,
				.err = IO_CREATE,
				.err_path = s->err };
	char *argv[32], line[256], *p;
	int n = 0, i;
	FILE *f;

	snprintf(s->err, sizeof(s->err), "%s", tmp_path("tdbpf.err"));
	argv[n++] = (char *)tdbpf_bin();
	argv[n++] = "--listen";
	argv[n++] = "127.0.0.1:0";
	if (s->report)
		argv[n++] = "-j";
	argv[n++] = "-o";
	argv[n++] = s->report ? (char *)s->report : "/dev/null";
	while (*args && n < 30)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	s->port = 0;
	s->pid = spawn_with(argv, &o).pid;
	assert_true(s->pid > 0);
	track(s->pid);
	for (i = 0; i < 500 && !s->port; i++) {
		usleep(20000);
		f = fopen(s->err, "r");
		while (f && fgets(line, sizeof(line), f))
			if ((p = strstr(line, "serving http://127.0.0.1:")))
				s->port = atoi(p + strlen("serving http://127.0.0.1:"));
		if (f)
			fclose(f);
	}
	if (!s->port) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		fail_msg("tdbpf did not say where it serves (see %s)", s->err);
	}
}

/* tdbpf --listen ... -p @pid */
void start_tdbpf_on(struct server *s, pid_t pid)
{
	char pidarg[32];
	const char *args[] = { "-p", pidarg, NULL };

	snprintf(pidarg, sizeof(pidarg), "%d", pid);
	start_tdbpf(s, args);
}

int stop_tdbpf(struct server *s)
{
	int rc;

	kill(s->pid, SIGINT);
	rc = wait_for(s->pid, 20);
	unlink(s->err);
	return rc;
}

/* ---- a small HTTP client: exact bytes, for the bad requests ----------- */

int connect_port(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}


/* Send @req as is and read the reply until the server closes. */
int http_raw(int port, const char *req, size_t len, struct reply *r,
	     int timeout_ms)
{
	struct pollfd p;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *sep;
	double t0 = mono_s();
	int fd = connect_port(port);
	ssize_t got;

	memset(r, 0, sizeof(*r));
	if (fd < 0 || !buf) {
		free(buf);
		return -1;
	}
	while (len) {
		got = write(fd, req, len);
		if (got <= 0)
			break;	/* the server may answer and close early */
		req += got;
		len -= (size_t)got;
	}
	p.fd = fd;
	p.events = POLLIN;
	for (;;) {
		if (poll(&p, 1, timeout_ms) <= 0)
			break;
		if (cap - n < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = 0;
	r->secs = mono_s() - t0;
	if (sscanf(buf, "HTTP/1.%*d %d", &r->status) != 1) {
		free(buf);
		return -1;
	}
	sep = strstr(buf, "\r\n\r\n");
	r->body = strdup(sep ? sep + 4 : "");
	if (sep)
		*sep = 0;
	r->head = buf;
	return 0;
}

int http_get(int port, const char *path, const char *accept,
	     struct reply *r)
{
	char req[2048];

	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s%s%sConnection: close\r\n\r\n",
		 path, accept ? "Accept: " : "", accept ? accept : "",
		 accept ? "\r\n" : "");
	return http_raw(port, req, strlen(req), r, 10000);
}

void reply_free(struct reply *r)
{
	free(r->head);
	free(r->body);
}

/* GET @path must be answered, with HTTP @status; the reply in @r. */
void get_expect(int port, const char *path, const char *accept,
		int status, struct reply *r)
{
	assert_int_equal(http_get(port, path, accept, r), 0);
	assert_int_equal(r->status, status);
}

/* ---- the exposition, parsed ------------------------------------------- */


int parse_samples(const char *body, struct sample *s, int max)
{
	const char *p = body, *e;
	char line[512], *sp;
	size_t len;
	int n = 0;

	for (; p && *p && n < max; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		len = e ? (size_t)(e - p) : strlen(p);
		if (*p == '#' || !len || len >= sizeof(line))
			continue;
		memcpy(line, p, len);
		line[len] = 0;
		sp = strrchr(line, ' ');	/* label values here: no spaces */
		if (!sp || (size_t)(sp - line) >= sizeof(s[n].key))
			continue;
		*sp = 0;
		strcpy(s[n].key, line);
		s[n].v = strtod(sp + 1, NULL);
		n++;
	}
	return n;
}

double sample_of(const struct sample *s, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].key, key))
			return s[i].v;
	return NAN;
}

bool have(const char *cmd)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "command -v %s >/dev/null 2>&1", cmd);
	return system(buf) == 0;
}

/* The busy thread: spins until told to stop; its own CPU clock is read. */
volatile int busy_stop;

void *busy_main(void *arg)
{
	volatile uint64_t x = 1;

	(void)arg;
	prctl(PR_SET_NAME, "busy", 0, 0, 0);
	while (!busy_stop)
		x = x * 6364136223846793005ULL + 1;
	return NULL;
}
