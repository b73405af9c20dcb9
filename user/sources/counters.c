// SPDX-License-Identifier: GPL-2.0
/*
 * Open the counters the BPF program reads: every group of the plan on every
 * online CPU, counting whatever runs there (pid=-1, cpu=N). The BPF side
 * attributes the counts to tasks, so no per-task events are needed and a
 * context switch costs no PMU reprogramming.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "sources/counters.h"
#include "support/error.h"

static int perf_event_open(struct perf_event_attr *attr, int cpu, int group)
{
	return (int)syscall(__NR_perf_event_open, attr, -1, cpu, group,
			    PERF_FLAG_FD_CLOEXEC);
}

int cpus_online(bool *online, int ncpu)
{
	char buf[4096];
	int a, b, n = 0, i;
	char *p = buf;
	FILE *f;

	memset(online, 0, ncpu * sizeof(*online));
	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		for (i = 0; i < ncpu; i++)
			online[i] = true;
		return ncpu;
	}
	fclose(f);
	/* "0-3,5,7-8" */
	while (*p && *p != '\n') {
		if (sscanf(p, "%d", &a) != 1)
			break;
		b = a;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '-') {
			p++;
			if (sscanf(p, "%d", &b) != 1)
				break;
			while (*p >= '0' && *p <= '9')
				p++;
		}
		for (i = a; i <= b && i < ncpu; i++) {
			if (i >= 0 && !online[i]) {
				online[i] = true;
				n++;
			}
		}
		if (*p == ',')
			p++;
	}
	return n;
}

void counters_attr(struct perf_event_attr *attr, const struct model_event *e)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = e->type;
	attr->config = e->config;
	attr->config1 = e->config1;
	attr->config2 = e->config2;
	attr->exclude_user = !!(e->excl & EVF_EXCL_USER);
	attr->exclude_kernel = !!(e->excl & EVF_EXCL_KERNEL);
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* counting only; the kernel multiplexes groups that do not fit */
	attr->inherit = 0;
}

static const char *open_hint(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		return "run as root or grant CAP_PERFMON (and check kernel.perf_event_paranoid)";
	/* a PMU that will not count: the scheduling breakdown still can */
	case ENOENT:
	case EOPNOTSUPP:
		return "this PMU does not have that event: pick the right --model or let tdbpf detect it, or trace without counters: --model software";
	case EINVAL:
		return "the PMU rejected the encoding or the group: check --model and --smt, or trace without counters: --model software";
	case EMFILE:
		return "too many open files: raise the limit with ulimit -n";
	case EBUSY:
		return "another user holds the PMU exclusively (stop it and retry), or trace without counters: --model software";
	default:
		return "see perf_event_open(2), or trace without counters: --model software";
	}
}

int counters_open(struct counters *c, const struct event_plan *plan, int ncpu,
		  char *err, size_t errlen)
{
	struct perf_event_attr attr;
	bool *online;
	int cpu, s, i, g;

	c->ncpu = ncpu;
	/* the task's own accounting (EV_TASK) needs no counter */
	c->nr = plan->nr_counters;
	c->fds = malloc(sizeof(int) * (size_t)(c->nr ? c->nr : 1) *
			(size_t)ncpu);
	online = calloc((size_t)ncpu, sizeof(*online));
	if (!c->fds || !online) {
		free(online);
		error_set(err, errlen, "out of memory opening counters");
		return -1;
	}
	for (i = 0; i < c->nr * ncpu; i++)
		c->fds[i] = -1;
	cpus_online(online, ncpu);

	for (cpu = 0; cpu < ncpu; cpu++) {
		if (!online[cpu])
			continue;
		for (s = 0; s < c->nr; s++) {
			const struct model_event *e = plan->evd[s];
			int g = plan->group[s], lead = plan->leader[g];
			int gfd = lead == s ? -1 : c->fds[lead * ncpu + cpu];
			int fd;

			counters_attr(&attr, e);
			/*
			 * A member added under a leader that is already
			 * counting is not scheduled until the context is
			 * rescheduled, which on a CPU context that never
			 * rotates is never (running stays 0). So leaders
			 * start disabled and are enabled once complete.
			 */
			attr.disabled = lead == s;
			fd = perf_event_open(&attr, cpu, gfd);
			if (fd < 0) {
				int e2 = errno;

				error_set(err, errlen,
					 "cannot open counter %s (type %u config 0x%llx) on CPU %d: %s; %s",
					 e->name, e->type,
					 (unsigned long long)e->config, cpu,
					 strerror(e2), open_hint(e2));
				free(online);
				counters_close(c);
				errno = e2;
				return -1;
			}
			c->fds[s * ncpu + cpu] = fd;
		}
		for (g = 0; g < plan->nr_groups; g++) {
			int fd;

			if (plan->leader[g] >= c->nr)
				continue;	/* the task's own accounting */
			fd = c->fds[plan->leader[g] * ncpu + cpu];

			if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
				error_set(err, errlen,
					 "cannot enable counter group %d on CPU %d: %s",
					 g, cpu, strerror(errno));
				free(online);
				counters_close(c);
				return -1;
			}
		}
	}
	free(online);
	return 0;
}

void counters_close(struct counters *c)
{
	int i;

	if (!c->fds)
		return;
	for (i = 0; i < c->nr * c->ncpu; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	c->fds = NULL;
}
