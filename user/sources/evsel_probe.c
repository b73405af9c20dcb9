// SPDX-License-Identifier: GPL-2.0
/*
 * The -e events against this machine (evsel_probe.h): where tracefs is
 * (mounting it as perf does), and whether the kernel opens each group,
 * with the reason in one line when it does not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "sources/counters.h"
#include "sources/evsel_probe.h"
#include "support/array.h"
#include "support/error.h"
#include "support/readfile.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

static bool has_events(const char *dir)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* As perf does: where tracefs is not mounted, mount it where it belongs. */
static int mount_tracefs(char *dir, size_t len)
{
	if (mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) ||
	    !has_events(tracefs_dirs[0]))
		return -1;
	snprintf(dir, len, "%s", tracefs_dirs[0]);
	return 0;
}

void evsel_env_system(struct evsel_env *env)
{
	size_t i;

	env->pmu_dir = "/sys/bus/event_source/devices";
	env->tracefs = NULL;
	env->mount_tracefs = mount_tracefs;
	for (i = 0; i < ARRAY_SIZE(tracefs_dirs); i++)
		if (has_events(tracefs_dirs[i])) {
			env->tracefs = tracefs_dirs[i];
			break;
		}
}

static int paranoid(void)
{
	char buf[16];

	if (read_small("/proc/sys/kernel/perf_event_paranoid", buf,
		       sizeof(buf)))
		return 2;
	return atoi(buf);
}

int evsel_why(const struct model_event *e, int e2, const char *lead,
	      char *err, size_t len)
{
	bool hw = e->type == PERF_TYPE_HARDWARE || e->type == PERF_TYPE_RAW ||
		  e->type == PERF_TYPE_HW_CACHE;

	if (lead)
		return error_set(err, len,
				 "event '%s' cannot be counted in one group with '%s' (%s); put it in its own group",
				 e->name, lead, strerror(e2));
	switch (e2) {
	case EACCES:
	case EPERM:
		return error_set(err, len,
				 "event '%s' needs privileges (%s, kernel.perf_event_paranoid is %d); run as root or grant CAP_PERFMON",
				 e->name, strerror(e2), paranoid());
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (hw)
			return error_set(err, len,
					 "event '%s' cannot be counted here: no hardware PMU (%s; a VM without a virtual PMU?); drop it, or count it on a machine that has one",
					 e->name, strerror(e2));
		return error_set(err, len,
				 "event '%s' cannot be counted here: no PMU takes type %u config 0x%llx (%s); check the event against perf list",
				 e->name, e->type, (unsigned long long)e->config,
				 strerror(e2));
	case EINVAL:
		return error_set(err, len,
				 "event '%s' was rejected by its PMU (type %u config 0x%llx: %s); check its terms and modifiers against perf list",
				 e->name, e->type, (unsigned long long)e->config,
				 strerror(e2));
	case EMFILE:
		return error_set(err, len,
				 "event '%s': too many open files; raise the limit with ulimit -n",
				 e->name);
	case EBUSY:
		return error_set(err, len,
				 "event '%s': its PMU is held exclusively by another user; stop it and retry",
				 e->name);
	default:
		return error_set(err, len, "event '%s' cannot be counted: %s",
				 e->name, strerror(e2));
	}
}

static int open_one(const struct model_event *e, int cpu, int group_fd)
{
	struct perf_event_attr a;

	counters_attr(&a, e);
	/*
	 * The leader enabled, unlike the run's groups: Arm's driver leaves
	 * a disabled (OFF) leader out of its group check (arm_pmu.c's
	 * validate_event()), so a group of one event more than the counters
	 * would open, then never count. A probe counts for microseconds.
	 */
	a.disabled = 0;
	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

/*
 * evsel_probe(), saying which event failed (*@bad) and with which errno
 * (*@e2, 0 when only its group failed).
 */
static int probe_groups(const struct evsel_list *l, int cpu, int *bad,
			int *e2, char *err, size_t errlen)
{
	int fds[EVSEL_MAX], i, j, lead = -1, rc = 0;

	for (i = 0; i < l->nr; i++)
		fds[i] = -1;
	for (i = 0; i < l->nr && !rc; i++) {
		if (l->ev[i].kind == EV_UNSUP)
			continue;
		/* the group's first event the machine has leads it */
		if (lead < 0 || l->group[i] != l->group[lead])
			lead = i;
		fds[i] = open_one(&l->ev[i], cpu, lead == i ? -1 : fds[lead]);
		if (fds[i] >= 0)
			continue;
		*e2 = errno;
		*bad = i;
		/* alone it works: the group is what the PMU refuses */
		if (lead != i) {
			int fd = open_one(&l->ev[i], cpu, -1);

			if (fd >= 0) {
				close(fd);
				rc = evsel_why(&l->ev[i], *e2, l->ev[lead].name,
					       err, errlen);
				*e2 = 0;
				break;
			}
			*e2 = errno;
		}
		rc = evsel_why(&l->ev[i], *e2, NULL, err, errlen);
	}
	for (j = 0; j < l->nr; j++)
		if (fds[j] >= 0)
			close(fds[j]);
	return rc;
}

int evsel_probe(const struct evsel_list *l, int cpu, char *err,
		size_t errlen)
{
	int bad, e2;

	return probe_groups(l, cpu, &bad, &e2, err, errlen);
}

int evsel_probe_supported(struct evsel_list *l, int cpu, int *nr_unsup,
			  char *err, size_t errlen)
{
	int bad = -1, e2 = 0;

	*nr_unsup = 0;
	while (probe_groups(l, cpu, &bad, &e2, err, errlen)) {
		if (e2 != ENOENT && e2 != ENODEV && e2 != EOPNOTSUPP)
			return -1;
		/* each pass marks one: the loop ends within l->nr passes */
		snprintf(l->why[bad], sizeof(l->why[bad]), "%s", err);
		l->ev[bad].kind = EV_UNSUP;
		l->ev[bad].why = l->why[bad];
		(*nr_unsup)++;
	}
	return 0;
}
