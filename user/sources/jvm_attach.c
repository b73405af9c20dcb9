// SPDX-License-Identifier: GPL-2.0
/*
 * HotSpot's attach protocol (jvm_attach.h), as its Linux listener speaks
 * it: a UNIX socket /tmp/.java_pidN in the JVM's root; a request of
 * NUL-terminated strings, "1" (the protocol), the command and three
 * arguments; the answer a result code line, then the command's output.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/openat2.h>
#include "sources/jvm_attach.h"
#include "tdbpf.h"

/*
 * How long the listener may take to start, and the dump to come (in
 * all, and between two reads: the threads named by then are kept); the
 * threads one dump may name. What the other end sends is the target's
 * to choose: bounded in time and size.
 */
#define START_WAIT_MS	2000
#define ANSWER_WAIT_S	5
#define DUMP_MAX_THREADS	TDBPF_MAX_TASKS_DEFAULT

/* The libjvm.so process @pid maps, as a path from here; false none. */
bool jvm_libjvm_path(pid_t pid, char *path, size_t len)
{
	char maps[64], line[PATH_MAX + 128], *p;
	bool found = false;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (!p || !strstr(p, "/libjvm.so"))
			continue;
		p[strcspn(p, "\n")] = 0;
		/* its root: a JVM in a container maps its own file */
		snprintf(path, len, "/proc/%d/root%s", pid, p);
		found = true;
	}
	fclose(f);
	return found;
}

bool jvm_is_jvm(pid_t pid)
{
	char path[PATH_MAX + 64];

	return jvm_libjvm_path(pid, path, sizeof(path));
}

/*
 * From /proc/PID/status: the pid in its own namespace (the last NSpid,
 * which names its files) and whether it catches SIGQUIT (HotSpot's
 * handler, which starts the listener). -errno if it is gone.
 */
static int jvm_status(pid_t pid, pid_t *nspid, bool *quit)
{
	char path[64], line[256], *p;
	unsigned long long caught;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	*nspid = pid;
	*quit = false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "NSpid:", 6) && (p = strrchr(line, '\t')))
			*nspid = (pid_t)atoi(p + 1);
		if (sscanf(line, "SigCgt: %llx", &caught) == 1)
			*quit = caught & (1ULL << (SIGQUIT - 1));
	}
	fclose(f);
	return 0;
}

/* Connect to @path; -errno. */
static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = ANSWER_WAIT_S };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/*
 * The trigger file /tmp/.attach_pidNS in @pid's root, made new: its
 * links resolved inside that root (RESOLVE_IN_ROOT), never one there
 * already (O_EXCL), so that a process that plants a link cannot make
 * root create a file elsewhere. 0, 1 when one is there already (another
 * attacher's: left to it), or -errno.
 */
static int make_trigger(pid_t pid, pid_t ns, char *rel, size_t len)
{
	struct open_how how = {
		.flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		.mode = 0600,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char root[64];
	int dir, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	snprintf(rel, len, "tmp/.attach_pid%d", ns);
	dir = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, dir, rel, &how, sizeof(how));
	if (fd < 0)
		fd = -errno;
	else
		close(fd);
	close(dir);
	return fd == -EEXIST ? 1 : fd < 0 ? fd : 0;
}

/*
 * The listener's socket, started if need be: the trigger file, SIGQUIT,
 * then wait for the socket to appear. An fd or -errno.
 */
static int open_listener(pid_t pid)
{
	char sock[96], trig[96], rel[48];
	struct timespec ms = { .tv_nsec = 10 * 1000000L };
	struct stat st;
	pid_t ns = pid;
	bool quit = false;
	int e, i, made;

	e = jvm_status(pid, &ns, &quit);
	if (e)
		return e;
	snprintf(sock, sizeof(sock), "/proc/%d/root/tmp/.java_pid%d", pid, ns);
	if (!stat(sock, &st) && S_ISSOCK(st.st_mode))
		return connect_to(sock);
	/* no handler: SIGQUIT's default action would end the process */
	if (!quit)
		return -ENOTSUP;
	made = make_trigger(pid, ns, rel, sizeof(rel));
	if (made < 0)
		return made;
	e = kill(pid, SIGQUIT) ? -errno : -ETIMEDOUT;
	for (i = 0; e == -ETIMEDOUT && i < START_WAIT_MS / 10; i++) {
		if (!stat(sock, &st) && S_ISSOCK(st.st_mode))
			e = 0;
		else
			nanosleep(&ms, NULL);
	}
	snprintf(trig, sizeof(trig), "/proc/%d/root/%s", pid, rel);
	if (!made)
		unlink(trig);
	return e ? e : connect_to(sock);
}

bool jvm_dump_line(const char *line, char *name, size_t len, __u32 *tid)
{
	const char *nid = NULL, *p, *q;
	unsigned long v;
	char *end;

	if (line[0] != '"')
		return false;
	/* the last "nid=": a name may hold anything, the fields after not */
	for (p = line; (p = strstr(p, " nid=")); p++)
		nid = p;
	if (!nid)
		return false;
	for (q = nid; q > line && *q != '"'; q--)
		;
	if (q == line)
		return false;
	errno = 0;
	v = strtoul(nid + 5, &end, 0);
	if (errno || end == nid + 5 || !v || v > 0xffffffffUL)
		return false;
	snprintf(name, len, "%.*s", (int)(q - line - 1), line + 1);
	*tid = (__u32)v;
	return true;
}

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* The dump from @fd, each thread's line into @n; the threads named. */
static int read_dump(int fd, pid_t pid, struct thread_names *n)
{
	FILE *f = fdopen(fd, "r");
	char line[1024], name[TDBPF_NAME_MAX];
	time_t end = now_s() + ANSWER_WAIT_S;
	int got = 0, e = 0;
	__u32 tid;

	if (!f) {
		close(fd);
		return -errno;
	}
	/* the result code: 0, or the listener refused the command */
	if (!fgets(line, sizeof(line), f) || atoi(line) != 0)
		e = -EPROTO;
	while (!e && got < DUMP_MAX_THREADS && fgets(line, sizeof(line), f)) {
		/* a dump that never ends: what it named so far */
		if (now_s() > end)
			break;
		if (jvm_dump_line(line, name, sizeof(name), &tid)) {
			e = thread_names_add(n, (__u32)pid, tid, name);
			got++;
		}
	}
	fclose(f);
	return e ? e : got;
}

int jvm_thread_names(pid_t pid, struct thread_names *n)
{
	static const char req[] = "1\0threaddump\0\0\0";
	int fd = open_listener(pid);

	if (fd < 0)
		return fd;
	/* sizeof: the string's own NUL ends the third argument */
	if (write(fd, req, sizeof(req)) != (ssize_t)sizeof(req)) {
		int e = -errno;

		close(fd);
		return e ? e : -EIO;
	}
	return read_dump(fd, pid, n);
}
