// SPDX-License-Identifier: GPL-2.0
/*
 * PMU terms and tracepoints of -e (evsel_terms.h): "cpu/event=0xc2,
 * umask=0x1/" placed into config bits by the PMU's format/ files (or
 * taken from its events/ aliases), "sched:sched_switch" resolved to its
 * id in tracefs, "syscalls:sys_enter_*" expanded over it. Reads files
 * and directories only: fixtures stand in for a machine.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/perf_event.h>
#include "model/evsel_terms.h"
#include "support/array.h"
#include "support/error.h"
#include "support/readfile.h"

/* perf terms tdbpf has no use for: it counts, it never samples */
static const char *const unsupported_terms[] = {
	"period", "freq", "branch_type", "time", "call-graph", "stack-size",
	"inherit", "no-inherit", "overwrite", "no-overwrite", "max-stack",
	"percore", "aux-output", "aux-sample-size", "metric-id", "raw",
	"legacy-cache", "hardware", "driver-config", "cpu",
};

/* "0x1f", "31": a whole number, nothing after it */
static int parse_num(const char *s, size_t len, __u64 *v)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf) || s[0] == '-' || s[0] == '+')
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return errno || *end ? -1 : 0;
}

/* ---- one event ------------------------------------------------------- */

/* Bits of "config:0-7,21" placed from @v; @v must fit them. */
static int place_bits(struct evsel_ctx *c, const char *ev,
		      const char *term, const char *fmt, __u64 v,
		      struct model_event *e)
{
	__u64 *dst, placed = 0;
	const char *p;
	int lo, hi, n, bits = 0, b;

	if (!strncmp(fmt, "config:", 7)) {
		dst = &e->config;
		p = fmt + 7;
	} else if (!strncmp(fmt, "config1:", 8)) {
		dst = &e->config1;
		p = fmt + 8;
	} else if (!strncmp(fmt, "config2:", 8)) {
		dst = &e->config2;
		p = fmt + 8;
	} else {
		return error_set(c->err, c->errlen,
				 "term '%s' of event '%s' goes to '%s', which tdbpf cannot program; use config=, config1= or config2=",
				 term, ev, fmt);
	}
	while (*p) {
		if (sscanf(p, "%d%n", &lo, &n) != 1 || lo < 0 || lo > 63)
			goto bad;
		p += n;
		hi = lo;
		if (*p == '-') {
			p++;
			if (sscanf(p, "%d%n", &hi, &n) != 1 || hi < lo ||
			    hi > 63)
				goto bad;
			p += n;
		}
		for (b = lo; b <= hi; b++, bits++) {
			if (bits < 64 && (v >> bits & 1))
				placed |= 1ULL << b;
			*dst &= ~(1ULL << b);
		}
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (bits < 64 && v >> bits)
		return error_set(c->err, c->errlen,
				 "value 0x%llx of term '%s' in event '%s' does not fit its %d bits (%s)",
				 (unsigned long long)v, term, ev, bits, fmt);
	*dst |= placed;
	return 0;
bad:
	return error_set(c->err, c->errlen,
			 "cannot read the format of term '%s' ('%s') for event '%s'",
			 term, fmt, ev);
}

static int apply_terms(struct evsel_ctx *c, const char *ev,
		       const char *pmu, const char *terms, size_t len,
		       int depth, struct model_event *e, char *rename);

/* One term "key[=value]" of PMU @pmu. */
static int apply_term(struct evsel_ctx *c, const char *ev,
		      const char *pmu, const char *t, size_t len, int depth,
		      struct model_event *e, char *rename)
{
	const char *eq = memchr(t, '=', len);
	size_t klen = eq ? (size_t)(eq - t) : len;
	char key[64], path[512], buf[512];
	__u64 v = 1;
	size_t i;
	int r;

	if (!klen || klen >= sizeof(key) || !is_word(t, klen))
		return error_set(c->err, c->errlen,
				 "bad term '%.*s' in event '%s'; write pmu/term=value,.../",
				 (int)len, t, ev);
	memcpy(key, t, klen);
	key[klen] = '\0';
	if (!strcmp(key, "name")) {
		size_t vlen = eq ? len - klen - 1 : 0;

		if (!vlen || vlen >= EVSEL_NAME_LEN || !is_word(eq + 1, vlen))
			return error_set(c->err, c->errlen,
					 "bad name= in event '%s'; give letters, digits, '_', '-' or '.'",
					 ev);
		memcpy(rename, eq + 1, vlen);
		rename[vlen] = '\0';
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(unsupported_terms); i++)
		if (!strcmp(key, unsupported_terms[i]))
			return error_set(c->err, c->errlen,
					 "term '%s' of event '%s' is not supported by tdbpf (it counts, it does not sample); drop it",
					 key, ev);
	if (eq && parse_num(eq + 1, len - klen - 1, &v))
		return error_set(c->err, c->errlen,
				 "value '%.*s' of term '%s' in event '%s' is not a number; give e.g. %s=0x1c",
				 (int)(len - klen - 1), eq + 1, key, ev, key);
	if (!strcmp(key, "config") || !strcmp(key, "config1") ||
	    !strcmp(key, "config2")) {
		__u64 *dst = key[6] == '1' ? &e->config1 :
			     key[6] == '2' ? &e->config2 : &e->config;

		*dst = v;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%s/format/%s", c->env->pmu_dir, pmu,
		 key);
	if (!read_small(path, buf, sizeof(buf)))
		return place_bits(c, ev, key, buf, v, e);
	/* an alias: events/NAME holds "event=0x3c,umask=0x1" */
	snprintf(path, sizeof(path), "%s/%s/events/%s", c->env->pmu_dir, pmu,
		 key);
	r = read_small(path, buf, sizeof(buf));
	if (!r && !eq && depth == 0)
		return apply_terms(c, ev, pmu, buf, strlen(buf), 1, e, rename);
	return error_set(c->err, c->errlen,
			 "unknown term '%s' in event '%s': PMU '%s' has no format/%s nor events/%s; see %s/%s/format and events",
			 key, ev, pmu, key, key, c->env->pmu_dir, pmu);
}

static int apply_terms(struct evsel_ctx *c, const char *ev,
		       const char *pmu, const char *terms, size_t len,
		       int depth, struct model_event *e, char *rename)
{
	size_t i = 0, j;

	while (i < len) {
		for (j = i; j < len && terms[j] != ','; j++)
			;
		if (j == i)
			return error_set(c->err, c->errlen,
					 "empty term in event '%s'; write pmu/term=value,term/",
					 ev);
		if (apply_term(c, ev, pmu, terms + i, j - i, depth, e, rename))
			return -1;
		i = j + 1;
		if (j < len && i == len)
			return error_set(c->err, c->errlen,
					 "empty term in event '%s'; write pmu/term=value,term/",
					 ev);
	}
	return 0;
}

/* pmu/terms/ (@slash: the first '/'; @end: after the closing '/') */
int evsel_parse_pmu(struct evsel_ctx *c, const char *ev, const char *s,
		    size_t len, struct model_event *e, char *rename)
{
	const char *slash = memchr(s, '/', len);
	size_t plen = (size_t)(slash - s);
	char pmu[64], path[512], buf[64];
	__u64 type;
	int r;

	if (len < 3 || s[len - 1] != '/' || slash >= s + len - 2 ||
	    memchr(slash + 1, '/', (size_t)(s + len - 1 - (slash + 1))))
		return error_set(c->err, c->errlen,
				 "bad event '%s'; write pmu/term=value,.../ (e.g. cpu/event=0xc2,umask=0x1/)",
				 ev);
	if (plen >= sizeof(pmu) || !is_word(s, plen))
		return error_set(c->err, c->errlen,
				 "bad PMU name in event '%s'; see %s for the PMUs",
				 ev, c->env->pmu_dir);
	memcpy(pmu, s, plen);
	pmu[plen] = '\0';
	snprintf(path, sizeof(path), "%s/%s/type", c->env->pmu_dir, pmu);
	r = read_small(path, buf, sizeof(buf));
	if (r == -EACCES || r == -EPERM)
		return error_set(c->err, c->errlen,
				 "cannot read %s for event '%s': needs privileges; run as root",
				 path, ev);
	if (r || parse_num(buf, strlen(buf), &type) || type > 0xffffffffULL)
		return error_set(c->err, c->errlen,
				 "no PMU '%s' on this machine for event '%s' (no %s/%s); see that directory for the PMUs there",
				 pmu, ev, c->env->pmu_dir, pmu);
	e->type = (__u32)type;
	return apply_terms(c, ev, pmu, slash + 1,
			   (size_t)(s + len - 1 - (slash + 1)), 0, e, rename);
}

/* tracefs, mounted as perf does if it is not; else -1 with the error */
static int need_tracefs(struct evsel_ctx *c, const char *ev)
{
	if (!c->tracefs && c->env->mount_tracefs &&
	    !c->env->mount_tracefs(c->mounted, c->mounted_len))
		c->tracefs = c->mounted;
	if (!c->tracefs)
		return error_set(c->err, c->errlen,
				 "tracepoint '%s' needs tracefs, which is not mounted; mount it: mount -t tracefs nodev /sys/kernel/tracing",
				 ev);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int evsel_glob_tracepoints(struct evsel_ctx *c, const char *sys, size_t slen,
			   const char *pat, size_t plen,
			   int (*each)(struct evsel_ctx *c, const char *name,
				       void *arg),
			   void *arg)
{
	char dir[512], glob[EVSEL_NAME_LEN], ev[EVSEL_NAME_LEN];
	char *names[TDBPF_MAX_EVENTS + 1];
	struct dirent *d;
	size_t n = 0, i;
	int ret = -1;
	DIR *dp;

	snprintf(ev, sizeof(ev), "%.*s:%.*s", (int)slen, sys, (int)plen, pat);
	if (!is_word(sys, slen) || plen >= sizeof(glob))
		return error_set(c->err, c->errlen,
				 "bad tracepoint '%s'; write subsystem:event, e.g. syscalls:sys_enter_*",
				 ev);
	if (need_tracefs(c, ev))
		return -1;
	snprintf(glob, sizeof(glob), "%.*s", (int)plen, pat);
	snprintf(dir, sizeof(dir), "%s/events/%.*s", c->tracefs, (int)slen,
		 sys);
	dp = opendir(dir);
	if (!dp)
		return error_set(c->err, c->errlen,
				 "unknown tracepoint '%s': no subsystem '%.*s' in %s/events; list them with perf list tracepoint",
				 ev, (int)slen, sys, c->tracefs);
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || fnmatch(glob, d->d_name, 0))
			continue;
		if (n < ARRAY_SIZE(names) && !(names[n] = strdup(d->d_name)))
			goto out;
		n++;
	}
	if (!n) {
		error_set(c->err, c->errlen,
			  "no tracepoint matches '%s'; list them with ls %s",
			  ev, dir);
		goto out;
	}
	if (n > ARRAY_SIZE(names) - 1) {
		error_set(c->err, c->errlen,
			  "'%s' matches %zu tracepoints; tdbpf counts at most %d events: narrow the pattern",
			  ev, n, TDBPF_MAX_EVENTS);
		n = ARRAY_SIZE(names);
		goto out;
	}
	qsort(names, n, sizeof(names[0]), by_name);
	for (i = 0; i < n; i++)
		if (each(c, names[i], arg))
			goto out;
	ret = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	closedir(dp);
	return ret;
}

int evsel_parse_tracepoint(struct evsel_ctx *c, const char *ev,
			   const char *sys, size_t slen, const char *name,
			   size_t nlen, struct model_event *e)
{
	char path[512], buf[32];
	struct stat st;
	__u64 id;
	int r;

	if (!is_word(sys, slen) || !is_word(name, nlen))
		return error_set(c->err, c->errlen,
				 "bad tracepoint '%s'; write subsystem:event, e.g. sched:sched_switch",
				 ev);
	if (need_tracefs(c, ev))
		return -1;
	snprintf(path, sizeof(path), "%s/events/%.*s/%.*s/id", c->tracefs,
		 (int)slen, sys, (int)nlen, name);
	r = read_small(path, buf, sizeof(buf));
	if (r == -EACCES || r == -EPERM)
		return error_set(c->err, c->errlen,
				 "cannot read the id of tracepoint '%s' (%s): needs privileges; run as root",
				 ev, path);
	if (r) {
		snprintf(path, sizeof(path), "%s/events/%.*s", c->tracefs,
			 (int)slen, sys);
		if (stat(path, &st))
			return error_set(c->err, c->errlen,
					 "unknown tracepoint '%s': no subsystem '%.*s' in %s/events; list them with perf list tracepoint",
					 ev, (int)slen, sys, c->tracefs);
		return error_set(c->err, c->errlen,
				 "unknown tracepoint '%s': subsystem '%.*s' has no event '%.*s'; list them with ls %s",
				 ev, (int)slen, sys, (int)nlen, name, path);
	}
	if (parse_num(buf, strlen(buf), &id))
		return error_set(c->err, c->errlen,
				 "tracepoint '%s' has a bad id '%s'", ev, buf);
	e->type = PERF_TYPE_TRACEPOINT;
	e->config = id;
	return 0;
}
