// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc peer reader (peer_reader.h). A request is a count of pids and
 * the pids; an answer is an error (0 or -errno), a count of flows and the
 * flows, each a struct sock_flow: both ends are this one binary, so the
 * struct's layout is the protocol. The reader trusts no request beyond its
 * sizes: all it can be made to do is read sockets out of /proc.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "sources/flows_proc.h"
#include "sources/peer_reader.h"
#include "support/privs.h"
#include "support/error.h"

/* far above any host's processes or sockets: a garbled count, not a host */
#define MAX_ITEMS	(1U << 22)
/* an answer slower than this: the reader is stuck (a /proc read in D) */
#define ANSWER_MS	10000

struct answer_head {
	int32_t err;
	uint32_t nr;
};

/* All of @len bytes to or from @fd; 0 or -errno (-EPIPE at an end). */
static int io_all(int fd, void *buf, size_t len, bool wr, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = wr ? POLLOUT : POLLIN };
	char *b = buf;
	ssize_t n;

	while (len) {
		if (timeout_ms >= 0) {
			n = poll(&p, 1, timeout_ms);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n ? -errno : -ETIMEDOUT;
		}
		n = wr ? send(fd, b, len, MSG_NOSIGNAL) : recv(fd, b, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The reader's one loop: a request, an answer, until tdbpf goes. */
static void serve(int fd)
{
	struct flow_table ft;
	struct answer_head h;
	uint32_t nr;
	__u32 *pids;

	flows_init(&ft);
	for (;;) {
		if (io_all(fd, &nr, sizeof(nr), false, -1) || nr > MAX_ITEMS)
			break;
		pids = malloc((nr ? nr : 1) * sizeof(*pids));
		if (!pids || io_all(fd, pids, nr * sizeof(*pids), false, -1))
			break;
		h.err = flows_read_pids(&ft, pids, nr);
		free(pids);
		h.nr = h.err ? 0 : (uint32_t)ft.nr;
		if (io_all(fd, &h, sizeof(h), true, -1) ||
		    io_all(fd, ft.v, h.nr * sizeof(*ft.v), true, -1))
			break;
	}
	_exit(0);
}

/*
 * The child, still with every privilege: it keeps its end of the pair as
 * fd 3 and nothing else that tdbpf had open (BPF objects, perf fds, the
 * --listen socket, outputs), stdin and stdout on /dev/null, stderr for a
 * fatal line. The terminal's signals are tdbpf's to act on: the reader
 * ends when tdbpf's end of the pair closes, or when tdbpf dies.
 */
static void child(int fd, pid_t parent)
{
	static const int ignored[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				       SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE,
				       SIGUSR1, SIGUSR2, SIGWINCH };
	sigset_t none;
	unsigned int i;
	int null;

	if (dup2(fd, 3) < 0)
		_exit(1);
	close_range(4, ~0U, 0);
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 3)
			close(null);
	}
	for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(0);	/* tdbpf died before the line above */
	prctl(PR_SET_NAME, "tdbpf-peers", 0, 0, 0);
	privs_drop_to_proc_reader();
	serve(3);
}

int peer_reader_start(struct peer_reader *r, char *err, size_t len)
{
	pid_t parent = getpid();
	int sv[2];

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		error_set(err, len, "cannot make a socket pair for the /proc peer reader: %s; raise the open files limit (ulimit -n)",
			 strerror(errno));
		return -1;
	}
	r->pid = fork();
	if (r->pid < 0) {
		error_set(err, len, "cannot fork the /proc peer reader: %s; raise the process limit (ulimit -u) or free memory",
			 strerror(errno));
		close(sv[0]);
		close(sv[1]);
		r->pid = 0;
		return -1;
	}
	if (r->pid == 0)
		child(sv[1], parent);
	close(sv[1]);
	r->fd = sv[0];
	return 0;
}

/* The reader's flows for @pids into @out; -errno when it failed us. */
static int ask(struct peer_reader *r, const __u32 *pids, size_t nr,
	       struct flow_table *out)
{
	uint32_t n = (uint32_t)nr, i;
	struct answer_head h;
	struct sock_flow f;
	int e;

	flows_reset(out);
	if (nr > MAX_ITEMS)
		return -E2BIG;
	e = io_all(r->fd, &n, sizeof(n), true, ANSWER_MS);
	if (!e)
		e = io_all(r->fd, (void *)pids, nr * sizeof(*pids), true,
			   ANSWER_MS);
	if (!e)
		e = io_all(r->fd, &h, sizeof(h), false, ANSWER_MS);
	if (!e && (h.nr > MAX_ITEMS || h.err > 0))
		e = -EPROTO;
	if (!e && h.err)
		return -ENOMEM;	/* flows_read_pids()'s one error */
	for (i = 0; !e && i < h.nr; i++) {
		e = io_all(r->fd, &f, sizeof(f), false, ANSWER_MS);
		if (e)
			break;
		f.comm[sizeof(f.comm) - 1] = 0;
		f.proto[sizeof(f.proto) - 1] = 0;
		if (flows_add(out, &f))
			return -ENOMEM;
	}
	return e;
}

int peer_reader_collect(struct peer_reader *r, struct flow_table *out,
			const struct task_table *t)
{
	size_t nr = 0;
	__u32 *pids = flows_task_pids(t, &nr);
	int err = 0, e;

	if (!pids)
		return -ENOMEM;
	if (r && r->pid > 0) {
		e = ask(r, pids, nr, out);
		if (e != -ENOMEM && e) {
			fprintf(stderr, "tdbpf: the /proc peer reader (pid %d) failed: %s; socket peers are read with tdbpf's own rights from now on (other users' processes show none)\n",
				(int)r->pid, strerror(-e));
			peer_reader_stop(r);
		} else {
			err = e;
			goto out;
		}
	}
	err = flows_read_pids(out, pids, nr);
out:
	free(pids);
	return err;
}

void peer_reader_stop(struct peer_reader *r)
{
	int i;

	if (!r || r->pid <= 0)
		return;
	/* its read ends; it cannot be signalled (its uid is its own) */
	close(r->fd);
	r->fd = -1;
	for (i = 0; i < 200; i++) {
		if (waitpid(r->pid, NULL, WNOHANG) != 0)
			break;
		usleep(5000);
	}
	/* one still in a /proc read dies with tdbpf (PR_SET_PDEATHSIG) */
	r->pid = 0;
}
