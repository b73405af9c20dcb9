// SPDX-License-Identifier: GPL-2.0
/*
 * Machine detection. CPUID (via /proc/cpuinfo) says which event tables
 * apply; the kernel's PMU driver (sysfs) says whether it will accept them.
 * Both must agree before any raw event is programmed: a wrong table counts
 * something else without any error.
 */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "model/detect.h"
#include "support/array.h"
#include "support/readfile.h"

#define EVSRC	"/sys/bus/event_source/devices"
#define SW_ONLY	"using the software model (scheduling breakdown only)"

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

/* a one-line sysfs/procfs file under @root, trimmed; -1 if unreadable */
static int read_line(const char *root, const char *p, char *buf, size_t len)
{
	char path[512];

	path_of(path, sizeof(path), root, p);
	return read_small(path, buf, len) || !buf[0] ? -1 : 0;
}

/* what the CPU says it is: CPUID on x86, MIDR on Arm */
struct cpuinfo {
	char vendor[32];
	char name[96];
	int family;
	int model;
	int stepping;
	int siblings;
	int cores;
	enum cpu_vendor v;
	bool has_midr;
	unsigned int midr;
	char flags[4096];	/* x86 feature flags, " " around each */
};

#define MIDR_IMPL(m)	((m) >> 24 & 0xff)
#define MIDR_VARIANT(m)	((m) >> 20 & 0xf)
#define MIDR_PART(m)	((m) >> 4 & 0xfff)
#define MIDR_REV(m)	((m) & 0xf)
#define MIDR_ARM	0x41

/* arm64 /proc/cpuinfo: "CPU implementer : 0x41", "CPU part : 0xd49" */
static const struct {
	const char *key;
	int shift;
	unsigned int mask;
} midr_keys[] = {
	{ "CPU implementer", 24, 0xff },
	{ "CPU variant", 20, 0xf },
	{ "CPU part", 4, 0xfff },
	{ "CPU revision", 0, 0xf },
};

/*
 * The first processor's block of /proc/cpuinfo: 0, -errno when it cannot
 * be read, -EINVAL when it names neither a vendor nor a CPU implementer
 */
static int read_cpuinfo(const char *root, struct cpuinfo *ci)
{
	char path[512], *line = NULL;
	bool seen = false;
	size_t i, cap = 0;
	FILE *f;

	memset(ci, 0, sizeof(*ci));
	ci->family = ci->model = ci->stepping = -1;
	path_of(path, sizeof(path), root, "/proc/cpuinfo");
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* getline: a flags line is longer than any fixed buffer we'd pick */
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':'), *k = line, *v, *e;

		if (line[0] == '\n' && seen)
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
		else if (!strcmp(k, "stepping"))
			ci->stepping = atoi(v);
		else if (!strcmp(k, "siblings"))
			ci->siblings = atoi(v);
		else if (!strcmp(k, "cpu cores"))
			ci->cores = atoi(v);
		else if (!strcmp(k, "flags"))
			snprintf(ci->flags, sizeof(ci->flags), " %s ", v);
		for (i = 0; i < ARRAY_SIZE(midr_keys); i++) {
			if (strcmp(k, midr_keys[i].key))
				continue;
			ci->midr |= ((unsigned int)strtoul(v, NULL, 0) &
				     midr_keys[i].mask) << midr_keys[i].shift;
			if (!i)
				ci->has_midr = true;
		}
		seen = ci->vendor[0] || ci->has_midr;
	}
	free(line);
	fclose(f);
	/* cpuinfo's "CPU architecture: 8"; the register says 0xf on arm64 */
	if (ci->has_midr)
		ci->midr |= 0xfu << 16;
	return seen ? 0 : -EINVAL;
}

/*
 * The MIDR as perf reads it (tools/perf/arch/arm64/util/header.c): sysfs
 * first, where the kernel shows the register itself; cpuinfo's fields
 * otherwise.
 */
static void read_midr(const char *root, struct cpuinfo *ci)
{
	char buf[64], *end;
	unsigned long long v;

	if (read_line(root, "/sys/devices/system/cpu/cpu0/regs/identification"
		      "/midr_el1", buf, sizeof(buf)))
		return;
	v = strtoull(buf, &end, 16);
	if (end == buf || *end)
		return;
	ci->midr = (unsigned int)v;
	ci->has_midr = true;
}

static void cpu_identify(const char *root, struct cpuinfo *ci,
			 struct detect_info *d)
{
	int ok = read_cpuinfo(root, ci);

	read_midr(root, ci);
	if (!strcmp(ci->vendor, "GenuineIntel"))
		ci->v = VENDOR_INTEL;
	else if (!strcmp(ci->vendor, "AuthenticAMD"))
		ci->v = VENDOR_AMD;
	else if (ci->has_midr && MIDR_IMPL(ci->midr) == MIDR_ARM)
		ci->v = VENDOR_ARM;

	if (ci->has_midr && !ci->vendor[0])
		snprintf(d->cpu_desc, sizeof(d->cpu_desc), "%s CPU "
			 "implementer 0x%02x part 0x%03x r%up%u (MIDR 0x%08x)",
			 ci->v == VENDOR_ARM ? "Arm" : "arm64",
			 MIDR_IMPL(ci->midr), MIDR_PART(ci->midr),
			 MIDR_VARIANT(ci->midr), MIDR_REV(ci->midr), ci->midr);
	else if (ok == 0)
		snprintf(d->cpu_desc, sizeof(d->cpu_desc), "%.80s (%.16s %d-%02X)",
			 ci->name[0] ? ci->name : "unknown CPU", ci->vendor,
			 ci->family, ci->model < 0 ? 0 : ci->model);
	else if (ok == -EINVAL)
		snprintf(d->cpu_desc, sizeof(d->cpu_desc),
			 "unknown CPU (/proc/cpuinfo names no vendor_id or CPU implementer)");
	else
		snprintf(d->cpu_desc, sizeof(d->cpu_desc),
			 "unknown CPU (no /proc/cpuinfo: %s)", strerror(-ok));
}

static bool match_one(const struct model_match *mm, const struct cpuinfo *ci)
{
	if (mm->vendor != ci->v)
		return false;
	if (mm->implementer)
		return ci->has_midr &&
		       MIDR_IMPL(ci->midr) == mm->implementer &&
		       MIDR_PART(ci->midr) == mm->part &&
		       (MIDR_VARIANT(ci->midr) << 4 | MIDR_REV(ci->midr)) >=
			       mm->rev_lo;
	/* an unknown stepping matches only a model's every stepping */
	return ci->family == (int)mm->family &&
	       ci->model >= (int)mm->model_lo &&
	       ci->model <= (int)mm->model_hi &&
	       (ci->stepping < 0 ? mm->step_lo == 0 && mm->step_hi >= 0xf :
		ci->stepping >= (int)mm->step_lo &&
		ci->stepping <= (int)mm->step_hi);
}

/* The models' own matches, in table order: the first that fits wins. */
static const struct model *model_for(const struct cpuinfo *ci)
{
	int i, k;

	for (i = 0; models[i]; i++)
		for (k = 0; k < models[i]->nr_match; k++)
			if (match_one(&models[i]->match[k], ci))
				return models[i];
	return NULL;
}

/* A model for this Arm part, but from a later revision on: which */
static const struct model_match *later_revision(const struct cpuinfo *ci,
						const struct model **m)
{
	int i, k;

	for (i = 0; ci->has_midr && models[i]; i++) {
		for (k = 0; k < models[i]->nr_match; k++) {
			const struct model_match *mm = &models[i]->match[k];

			if (mm->implementer &&
			    mm->implementer == MIDR_IMPL(ci->midr) &&
			    mm->part == MIDR_PART(ci->midr)) {
				*m = models[i];
				return mm;
			}
		}
	}
	return NULL;
}

/* "a, b": the models of @v (all of them when none is), for messages */
static void vendor_models(enum cpu_vendor v, char *buf, size_t len)
{
	size_t off = 0;
	int i, k;

	for (i = 0; models[i]; i++) {
		for (k = 0; k < models[i]->nr_match; k++)
			if (models[i]->match[k].vendor == v)
				break;
		if (k == models[i]->nr_match)
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s",
				off ? ", " : "", models[i]->name);
	}
	if (!off)
		model_names(buf, len, true);
}

/*
 * The directory of the core PMU @pattern names ("cpu", or a prefix with
 * '*' such as "armv8_*": the lowest name that has it), into @out.
 */
static bool find_pmu(const char *root, const char *pattern, char *out,
		     size_t len)
{
	size_t n = strcspn(pattern, "*");
	char path[512], p[256];
	struct dirent *de;
	bool found = false;
	DIR *dir;

	if (!pattern[n]) {
		snprintf(p, sizeof(p), EVSRC "/%s", pattern);
		if (!exists(root, p))
			return false;
		snprintf(out, len, "%s", pattern);
		return true;
	}
	path_of(path, sizeof(path), root, EVSRC);
	dir = opendir(path);
	if (!dir)
		return false;
	while ((de = readdir(dir))) {
		if (strncmp(de->d_name, pattern, n) ||
		    strlen(de->d_name) >= len)
			continue;
		if (!found || strcmp(de->d_name, out) < 0)
			snprintf(out, len, "%s", de->d_name);
		found = true;
	}
	closedir(dir);
	return found;
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

/*
 * An Arm core that no TopDown model fits (@why): the generic Armv8 model
 * when its PMU has cycles and instructions, with a note naming the
 * Neoverse events the PMU lacks (V2's are a superset of the others').
 */
static int armv8_fallback(const char *root, struct detect_info *d,
			  const char *why)
{
	const char *gone = missing_event(root, d->pmu, model_armv8.pmu_events);
	const struct model *nv = &model_neoverse_v2;
	char miss[256] = "", p[256];
	size_t n = 0;
	int i;

	if (gone)
		return software(d, "%s: %s, and %s/%s/events has no %s for the generic Arm model",
				d->cpu_desc, why, EVSRC, d->pmu, gone);
	for (i = 0; i < nv->nr_events; i++) {
		snprintf(p, sizeof(p), EVSRC "/%s/events/%s", d->pmu,
			 nv->events[i].name);
		if (!exists(root, p) && n < sizeof(miss))
			n += snprintf(miss + n, sizeof(miss) - n, "%s%s",
				      n ? " " : "", nv->events[i].name);
	}
	d->model = &model_armv8;
	d->gp_counters = model_armv8.gp_smt_off;
	snprintf(d->note, sizeof(d->note), "%s: %s; %s%s: using the generic Arm model (cycles, instructions, IPC)",
		 d->cpu_desc, why,
		 n ? "its PMU lacks the Neoverse events " : "", miss);
	return 0;
}

/* A CPU without a model of its own: why, or the generic Arm model. */
static int no_model(const char *root, const struct cpuinfo *ci,
		    struct detect_info *d)
{
	const struct model *later = NULL;
	const struct model_match *mm = later_revision(ci, &later);
	char names[512];

	if (mm)
		return software(d, "%s: the %s model is for r%up%u and later, where perf's formulas differ",
				d->cpu_desc, later->name, mm->rev_lo >> 4,
				mm->rev_lo & 0xf);
	if (ci->has_midr)
		return armv8_fallback(root, d, "no TopDown model in tdbpf for it");
	vendor_models(ci->v, names, sizeof(names));
	return software(d, "%s%s has no TopDown model in tdbpf (models: %s)",
			d->hybrid ? "hybrid " : "", d->cpu_desc, names);
}

/*
 * Does the kernel's PMU run @m: its driver, its events, its slots per
 * cycle? True if so; else false with @rc what detect_machine() returns,
 * after the fallback (software, or the generic Arm model).
 */
static bool pmu_runs(const char *root, const struct model *m,
		     const struct cpuinfo *ci, struct detect_info *d, int *rc)
{
	char buf[128], p[256], pmu_name[64] = "";
	unsigned long slots = 0;
	const char *miss;

	snprintf(p, sizeof(p), EVSRC "/%s/caps/pmu_name", d->pmu);
	read_line(root, p, pmu_name, sizeof(pmu_name));
	/*
	 * A driver that does not know the CPU (e.g. "generic_arch_v4" in some
	 * VMs) has no counter constraints for it: the raw events would be
	 * scheduled on counters that cannot count them.
	 */
	if (m->pmu_name && pmu_name[0] && strcmp(pmu_name, m->pmu_name)) {
		*rc = software(d, "the kernel's PMU driver is '%s', not '%s' as %s implies",
			       pmu_name, m->pmu_name, d->cpu_desc);
		return false;
	}
	miss = m->pmu_events ? missing_event(root, d->pmu, m->pmu_events) :
			       NULL;
	if (miss && ci->has_midr) {
		snprintf(buf, sizeof(buf), "the %s model needs %s", m->name,
			 miss);
		*rc = armv8_fallback(root, d, buf);
		return false;
	}
	if (miss) {
		*rc = software(d, "the %s model needs the kernel's %s event, absent from %s/%s/events",
			       m->name, miss, EVSRC, d->pmu);
		return false;
	}
	if (!m->slots)
		return true;
	snprintf(p, sizeof(p), EVSRC "/%s/caps/slots", d->pmu);
	if (read_line(root, p, buf, sizeof(buf)) == 0)
		slots = strtoul(buf, NULL, 0);
	/* perf's #slots: a width other than the formulas' is wrong */
	if (slots && slots != (unsigned long)m->slots) {
		*rc = software(d, "%s reports %lu slots per cycle in %s/%s/caps/slots, but the %s model has %d",
			       d->cpu_desc, slots, EVSRC, d->pmu, m->name,
			       m->slots);
		return false;
	}
	if (!slots)
		snprintf(d->note, sizeof(d->note), "no slots in %s/%s/caps/slots (kernel before 6.2, or a PMU before v3.4): using the %s's %d slots per cycle",
			 EVSRC, d->pmu, m->name, m->slots);
	return true;
}

/* The GP counters @m may use here, and the notes on why fewer. */
static void gp_counters(const struct model *m, const struct cpuinfo *ci,
			struct detect_info *d)
{
	size_t n;

	d->gp_counters = d->smt ? m->gp_smt_on : m->gp_smt_off;
	if (m->gp_flag) {
		char want[64];

		n = strlen(d->note);
		snprintf(want, sizeof(want), " %s ", m->gp_flag);
		if (!strstr(ci->flags, want) && m->gp_legacy < d->gp_counters) {
			d->gp_counters = m->gp_legacy;
			snprintf(d->note + n, sizeof(d->note) - n, "%sno '%s' in /proc/cpuinfo (a hypervisor hiding it?): the PMU has %d counters, packing for them",
				 n ? "; " : "", m->gp_flag, m->gp_legacy);
		}
	}
	if (d->nmi_watchdog && d->gp_counters > 1) {
		n = strlen(d->note);
		d->gp_counters--;
		snprintf(d->note + n, sizeof(d->note) - n, "%sthe NMI watchdog holds a counter: packing for %d general counters; 'sysctl kernel.nmi_watchdog=0' frees it",
			 n ? "; " : "", d->gp_counters);
	}
	if (d->hybrid) {
		n = strlen(d->note);
		snprintf(d->note + n, sizeof(d->note) - n, "%shybrid CPU: only the P-cores (cpu_core PMU) are counted",
			 n ? "; " : "");
	}
}

int detect_machine(const char *root, struct detect_info *d)
{
	struct cpuinfo ci;
	const struct model *m;
	const char *pmu;
	char buf[128];
	int rc;

	memset(d, 0, sizeof(*d));
	if (!root)
		root = "";

	cpu_identify(root, &ci, d);

	/* smt/active is what the scheduler uses; cpuinfo for old kernels */
	if (read_line(root, "/sys/devices/system/cpu/smt/active", buf,
		      sizeof(buf)) == 0)
		d->smt = !strcmp(buf, "1");
	else
		d->smt = ci.cores > 0 && ci.siblings > ci.cores;
	if (read_line(root, "/proc/sys/kernel/nmi_watchdog", buf,
		      sizeof(buf)) == 0)
		d->nmi_watchdog = atoi(buf) != 0;

	m = model_for(&ci);
	/* without a model, where the core PMU of such a CPU would be */
	pmu = m ? m->pmu : ci.has_midr ? "armv8_*" : "cpu";
	if (!find_pmu(root, pmu, d->pmu, sizeof(d->pmu))) {
		/* hybrid x86: only the P-cores run the big-core events */
		if (strcmp(pmu, "cpu") ||
		    !find_pmu(root, "cpu_core", d->pmu, sizeof(d->pmu)))
			return software(d, "%s%s%s: no hardware PMU exposed (no %s/%s)",
					d->cpu_desc, m ? ", model " : "",
					m ? m->name : "", EVSRC, pmu);
		d->hybrid = true;
	}
	if (!m)
		return no_model(root, &ci, d);
	if (!pmu_runs(root, m, &ci, d, &rc))
		return rc;
	d->model = m;
	gp_counters(m, &ci, d);
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
