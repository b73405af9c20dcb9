// SPDX-License-Identifier: GPL-2.0
/*
 * Machine detection. CPUID (via /proc/cpuinfo) says which event tables
 * apply; the kernel's PMU driver (sysfs) says whether it will accept them.
 * Both must agree before any raw event is programmed: a wrong table counts
 * something else without any error.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "detect.h"

#define EVSRC	"/sys/bus/event_source/devices"
#define SW_ONLY	"using the software model (scheduling breakdown only)"

/* CPUID family 6 models of mapfile.csv that we have tables for */
static const struct {
	unsigned int model;
	const struct model *m;
	const char *pmu_name;	/* caps/pmu_name of the kernel driver */
} cpus[] = {
	{ 0x4f, &model_broadwellx, "broadwell" },
	{ 0x3d, &model_broadwell, "broadwell" },
	{ 0x47, &model_broadwell, "broadwell" },
	{ 0x6a, &model_icelakex, "icelake" },
	{ 0x6c, &model_icelakex, "icelake" },
	{ 0x7d, &model_icelake, "icelake" },
	{ 0x7e, &model_icelake, "icelake" },
	{ 0x8f, &model_sapphirerapids, "sapphire_rapids" },
};

/* PERF_METRICS events the kernel must expose for the slots models */
static const char *const td_l1[] = {
	"topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
	"topdown-be-bound", "slots", NULL,
};
static const char *const td_l2[] = {
	"topdown-heavy-ops", "topdown-br-mispredict", "topdown-fetch-lat",
	"topdown-mem-bound", NULL,
};

static void path_of(char *buf, size_t len, const char *root, const char *p)
{
	snprintf(buf, len, "%s%s", root, p);
}

static bool exists(const char *root, const char *p)
{
	char path[512];
	struct stat st;

	path_of(path, sizeof(path), root, p);
	return stat(path, &st) == 0;
}

/* first line of a small sysfs/procfs file, trimmed; -1 if unreadable */
static int read_line(const char *root, const char *p, char *buf, size_t len)
{
	char path[512];
	FILE *f;
	size_t n;

	path_of(path, sizeof(path), root, p);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return 0;
}

struct cpuinfo {
	char vendor[32];
	char name[96];
	int family;
	int model;
	int siblings;
	int cores;
};

/* the first processor's block of /proc/cpuinfo */
static int read_cpuinfo(const char *root, struct cpuinfo *ci)
{
	char path[512], line[512];
	FILE *f;

	memset(ci, 0, sizeof(*ci));
	ci->family = ci->model = -1;
	path_of(path, sizeof(path), root, "/proc/cpuinfo");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *k = line, *v, *e;

		if (line[0] == '\n' && ci->vendor[0])
			break;		/* end of the first processor */
		if (!colon)
			continue;
		*colon = 0;
		v = colon + 1;
		for (e = colon; e > k && isspace((unsigned char)e[-1]);)
			*--e = 0;
		while (isspace((unsigned char)*v))
			v++;
		v[strcspn(v, "\n")] = 0;
		if (!strcmp(k, "vendor_id"))
			snprintf(ci->vendor, sizeof(ci->vendor), "%s", v);
		else if (!strcmp(k, "model name"))
			snprintf(ci->name, sizeof(ci->name), "%s", v);
		else if (!strcmp(k, "cpu family"))
			ci->family = atoi(v);
		else if (!strcmp(k, "model"))
			ci->model = atoi(v);
		else if (!strcmp(k, "siblings"))
			ci->siblings = atoi(v);
		else if (!strcmp(k, "cpu cores"))
			ci->cores = atoi(v);
	}
	fclose(f);
	return ci->vendor[0] ? 0 : -1;
}

/* fall back; the reason is "<why>: using the software model (...)" */
static int software(struct detect_info *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int software(struct detect_info *d, const char *fmt, ...)
{
	size_t room = sizeof(d->reason) - sizeof(": " SW_ONLY) + 1;
	va_list ap;

	d->model = &model_software;
	d->gp_counters = 0;
	va_start(ap, fmt);
	vsnprintf(d->reason, room, fmt, ap);
	va_end(ap);
	strcat(d->reason, ": " SW_ONLY);
	return 1;
}

/* "<pmu dir>/events/<name>" for every name, or the first one missing */
static const char *missing_event(const char *root, const char *pmu,
				 const char *const *names)
{
	char p[256];

	for (; *names; names++) {
		snprintf(p, sizeof(p), EVSRC "/%s/events/%s", pmu, *names);
		if (!exists(root, p))
			return *names;
	}
	return NULL;
}

int detect_machine(const char *root, struct detect_info *d)
{
	struct cpuinfo ci;
	char buf[128], p[256], pmu_name[64] = "";
	const struct model *m = NULL;
	const char *want_pmu = NULL, *miss;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!root)
		root = "";

	if (read_cpuinfo(root, &ci) == 0)
		snprintf(d->cpu_desc, sizeof(d->cpu_desc), "%.80s (%.16s %d-%02X)",
			 ci.name[0] ? ci.name : "unknown CPU", ci.vendor,
			 ci.family, ci.model < 0 ? 0 : ci.model);
	else
		snprintf(d->cpu_desc, sizeof(d->cpu_desc),
			 "unknown CPU (no /proc/cpuinfo)");

	/* smt/active is what the scheduler uses; cpuinfo for old kernels */
	if (read_line(root, "/sys/devices/system/cpu/smt/active", buf,
		      sizeof(buf)) == 0)
		d->smt = !strcmp(buf, "1");
	else
		d->smt = ci.cores > 0 && ci.siblings > ci.cores;
	if (read_line(root, "/proc/sys/kernel/nmi_watchdog", buf,
		      sizeof(buf)) == 0)
		d->nmi_watchdog = atoi(buf) != 0;

	if (exists(root, EVSRC "/cpu")) {
		snprintf(d->pmu, sizeof(d->pmu), "cpu");
	} else if (exists(root, EVSRC "/cpu_core")) {
		/* hybrid: only the P-cores run the big-core events */
		d->hybrid = true;
		snprintf(d->pmu, sizeof(d->pmu), "cpu_core");
	} else {
		return software(d, "no hardware PMU (no %s/cpu)", EVSRC);
	}
	snprintf(p, sizeof(p), EVSRC "/%s/caps/pmu_name", d->pmu);
	read_line(root, p, pmu_name, sizeof(pmu_name));

	if (strcmp(ci.vendor, "GenuineIntel") || ci.family != 6)
		return software(d, "%s has no TopDown model in tdbpf (Intel "
				"family 6 only)", d->cpu_desc);
	for (i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		if (cpus[i].model == (unsigned int)ci.model) {
			m = cpus[i].m;
			want_pmu = cpus[i].pmu_name;
		}
	}
	if (!m)
		return software(d, "%s%s has no TopDown model in tdbpf "
				"(Broadwell, Ice Lake, Sapphire Rapids)",
				d->hybrid ? "hybrid " : "", d->cpu_desc);
	/*
	 * A driver that does not know the CPU (e.g. "generic_arch_v4" in some
	 * VMs) has no counter constraints for it: the raw events would be
	 * scheduled on counters that cannot count them.
	 */
	if (pmu_name[0] && strcmp(pmu_name, want_pmu))
		return software(d, "the kernel's PMU driver is '%s', not '%s' "
				"as %s implies", pmu_name, want_pmu,
				d->cpu_desc);
	if (m == &model_icelakex || m == &model_icelake ||
	    m == &model_sapphirerapids) {
		miss = missing_event(root, d->pmu, td_l1);
		if (!miss && m == &model_sapphirerapids)
			miss = missing_event(root, d->pmu, td_l2);
		if (miss)
			return software(d, "the %s model needs the kernel's "
					"%s event (PERF_METRICS), absent from "
					"%s/%s/events", m->name, miss, EVSRC,
					d->pmu);
	}
	d->model = m;
	d->gp_counters = d->smt ? m->gp_smt_on : m->gp_smt_off;
	if (d->nmi_watchdog && d->gp_counters > 1) {
		d->gp_counters--;
		snprintf(d->note, sizeof(d->note), "the NMI watchdog holds a "
			 "counter: packing for %d general counters; "
			 "'sysctl kernel.nmi_watchdog=0' frees it",
			 d->gp_counters);
	}
	if (d->hybrid) {
		size_t n = strlen(d->note);

		snprintf(d->note + n, sizeof(d->note) - n, "%shybrid CPU: "
			 "only the P-cores (cpu_core PMU) are counted",
			 n ? "; " : "");
	}
	return 0;
}

/* CONFIG_HZ= in one kernel config file, plain or gzipped; 0 if absent */
static int config_hz(const char *path)
{
	gzFile f = gzopen(path, "r");	/* reads plain files as they are */
	char line[256];
	int hz = 0;

	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line))) {
		if (!strncmp(line, "CONFIG_HZ=", 10)) {
			hz = atoi(line + 10);
			break;
		}
	}
	gzclose(f);
	return hz > 0 ? hz : 0;
}

int detect_hz(const char *root)
{
	struct utsname u;
	char rel[300], path[512];
	int hz = 0;

	if (!uname(&u)) {
		snprintf(rel, sizeof(rel), "/boot/config-%s", u.release);
		path_of(path, sizeof(path), root, rel);
		hz = config_hz(path);
	}
	if (!hz) {
		path_of(path, sizeof(path), root, "/proc/config.gz");
		hz = config_hz(path);
	}
	return hz;
}
