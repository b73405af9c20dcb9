// SPDX-License-Identifier: GPL-2.0
/* Target liveness (targets.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "sources/targets.h"
#include "support/readfile.h"

/*
 * A thread exists and is not a zombie. /proc/TID/task/TID/stat describes
 * that thread alone: /proc/PID/stat would sum the CPU time of every thread
 * of the process at each call, which at 10,000 threads costs milliseconds.
 */
/* the initial PID namespace's inode number (PROC_PID_INIT_INO, 3.8+) */
#define HOST_PID_NS_INO	0xEFFFFFFCU

const char *targets_pid_ns_problem(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) || st.st_ino == HOST_PID_NS_INO)
		return NULL;
	return "running in a PID namespace of its own (a container): the kernel's thread ids are not the ones /proc shows here; run it in the host's (podman or docker run --pid=host, hostPID: true in Kubernetes) with CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_KILL, CAP_SETUID, CAP_SETGID, CAP_SETPCAP and seccomp unconfined (docs/examples/tdbpf-daemonset.yaml)";
}

bool targets_id_alive(pid_t id)
{
	char path[80], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", id, id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	p = strrchr(buf, ')');	/* comm may hold spaces and parens */
	if (!p || p[1] != ' ')
		return true;
	return p[2] != 'Z' && p[2] != 'X';
}

/* The targets themselves: -p, -t, the command. */
static bool named_alive(struct targets *t)
{
	const struct target_ids *o = &t->ids;
	int i;

	/* first: a command that bounds -a (or -p) ends the run with it */
	if (t->child)
		return !launch_reap(t->child);
	/* a cgroup may be empty for a while: -G runs until stopped, as -a */
	if (o->all || o->cgroup)
		return true;
	for (i = 0; i < o->nr_pids; i++) {
		if (t->watched[i] ? !t->gone[i] :
				    /* no pidfd (old kernel): ask kill() */
				    kill(o->pids[i], 0) == 0 || errno == EPERM)
			return true;
	}
	for (i = 0; i < o->nr_tids; i++)
		if (targets_id_alive(o->tids[i]))
			return true;
	return false;
}

bool targets_alive(struct targets *t)
{
	if (named_alive(t))
		return true;
	/* a launcher that forked and exited: its children are the work */
	if (!t->followed_alive || !t->followed_alive(t->followed_ctx))
		return false;
	if (!t->said_followed) {
		fprintf(stderr,
			"tdbpf: the targets exited; following the processes they forked until those exit too (Ctrl-C stops)\n");
		t->said_followed = true;
	}
	return true;
}

/* A watched process exited: stop the run if it was the last target. */
static int on_exit_pid(struct loop *l, pid_t pid, void *arg)
{
	struct targets *t = arg;
	int i;

	for (i = 0; i < t->ids.nr_pids; i++)
		if (t->ids.pids[i] == pid)
			t->gone[i] = true;
	if (!targets_alive(t))
		loop_stop(l);
	return 0;
}

void targets_watch(struct targets *t, struct loop *l,
		   const struct target_ids *o, struct launch *child)
{
	int i;

	memset(t, 0, sizeof(*t));
	t->ids = *o;
	t->child = child && child->pid > 0 ? child : NULL;
	if (t->child) {
		/*
		 * Its exit is seen at once; launch_reap() collects it. No
		 * pidfd: the tick's launch_reap() sees it within TICK_MS.
		 */
		loop_set_prio(loop_add_pid(l, t->child->pid, on_exit_pid, t),
			      LOOP_PRIO_STOP);
		return;
	}
	for (i = 0; i < o->nr_pids; i++) {
		struct loop_source *s = loop_add_pid(l, o->pids[i],
						     on_exit_pid, t);

		loop_set_prio(s, LOOP_PRIO_STOP);
		t->watched[i] = s != NULL;
	}
}

/* The number after @key in /proc/@pid/status, or 0. */
static size_t status_num(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t n = 0, kl = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl)) {
			n = strtoul(line + kl, NULL, 10);
			break;
		}
	fclose(f);
	return n;
}

pid_t targets_tgid(pid_t id)
{
	pid_t tgid = (pid_t)status_num(id, "Tgid:");

	return tgid ? tgid : id;
}

size_t targets_threads(const struct target_ids *o, pid_t child)
{
	char buf[128], *slash;
	size_t n = (size_t)o->nr_tids;
	FILE *f;
	int i;

	if (o->all) {
		/* /proc/loadavg: "... running/threads last_pid" */
		f = fopen("/proc/loadavg", "re");
		if (f && fgets(buf, sizeof(buf), f) &&
		    (slash = strchr(buf, '/')))
			n = strtoul(slash + 1, NULL, 10);
		if (f)
			fclose(f);
		return n;
	}
	for (i = 0; i < o->nr_pids; i++)
		n += status_num(o->pids[i], "Threads:");
	if (child > 0)
		n += status_num(child, "Threads:");
	return n;
}

void targets_process_name(__u32 tgid, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	if (read_head(path, buf, len) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

const char *targets_comm(__u32 tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/comm", tid);
	n = read_head(path, buf, len);
	if (n < 0)
		return NULL;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\0'))
		n--;
	buf[n] = '\0';
	return n ? buf : NULL;
}
