// SPDX-License-Identifier: GPL-2.0
/*
 * -e EVENT[,EVENT...], in perf's event syntax (perf-list(1)):
 *
 *   cpu-clock, page-faults, cs, ...   software events, perf's names
 *   cycles, instructions, ...         hardware events (a PMU must exist)
 *   sys:name                          tracepoint, its id from tracefs
 *   rNNNN                             raw event of the core PMU (hex)
 *   pmu/term=val,term,.../            a PMU of /sys/bus/event_source, its
 *                                     terms placed by its format/ files
 *                                     or taken from its events/ aliases
 *   {a,b,...}                         one group: counted together
 *   EVENT:u, EVENT:k, {..}:u          user or kernel only
 *
 * The name a report shows is the event as written (perf stat does the
 * same), with a group's modifier appended to its members; name=N renames
 * a PMU event. Names are kept to letters, digits and "_.-:/=,{}" so that
 * a report prints them without escaping.
 *
 * Written by hand: libpfm4 and libtraceevent resolve names, but neither
 * parses perf's own syntax (perf's parser is flex/bison inside perf).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "model/evsel.h"

struct named {
	const char *name;
	__u64 config;
};

/* perf's names (tools/perf/util/parse-events.c), aliases included */
static const struct named sw_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_COUNT_SW_DUMMY },
	{ "cgroup-switches", 11 /* PERF_COUNT_SW_CGROUP_SWITCHES */ },
};

static const struct named hw_names[] = {
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* perf terms tdbpf has no use for: it counts, it never samples */
static const char *const unsupported_terms[] = {
	"period", "freq", "branch_type", "time", "call-graph", "stack-size",
	"inherit", "no-inherit", "overwrite", "no-overwrite", "max-stack",
	"percore", "aux-output", "aux-sample-size", "metric-id", "raw",
	"legacy-cache", "hardware", "driver-config", "cpu",
};

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	/* it quotes the user's text: one printable line */
	for (p = err; len && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -1;
}

static const struct named *lookup(const struct named *t, int n,
				  const char *name, size_t len)
{
	int i;

	for (i = 0; i < n; i++)
		if (strlen(t[i].name) == len && !strncmp(t[i].name, name, len))
			return &t[i];
	return NULL;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* @s[0..len) is a name that may be a path element: no "." or "..". */
static bool is_word(const char *s, size_t len)
{
	size_t i;

	if (!len || s[0] == '.')
		return false;
	for (i = 0; i < len; i++)
		if (!word_char(s[i]))
			return false;
	return true;
}

/* A whole file of at most @len - 1 bytes, trailing newline cut. */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

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

struct ctx {
	struct evsel_list *l;
	const struct evsel_env *env;
	char *err;
	size_t errlen;
	const char *tracefs;
};

/*
 * :u, :k or :uk (perf's modifiers; others, like :p for precise sampling,
 * mean nothing to a count). @mods without the colon.
 */
static int parse_mods(struct ctx *c, const char *ev, const char *mods,
		      size_t len, __u8 *excl)
{
	bool u = false, k = false;
	size_t i;

	if (!len)
		return fail(c->err, c->errlen,
			    "empty modifier in event '%s'; give :u, :k or none",
			    ev);
	for (i = 0; i < len; i++) {
		if (mods[i] == 'u')
			u = true;
		else if (mods[i] == 'k')
			k = true;
		else
			return fail(c->err, c->errlen,
				    "modifier '%c' of event '%s' is not supported by tdbpf; use :u (user only), :k (kernel only) or none",
				    mods[i], ev);
	}
	*excl = (u ? 0 : EVF_EXCL_USER) | (k ? 0 : EVF_EXCL_KERNEL);
	return 0;
}

/* Bits of "config:0-7,21" placed from @v; @v must fit them. */
static int place_bits(struct ctx *c, const char *ev, const char *term,
		      const char *fmt, __u64 v, struct model_event *e)
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
		return fail(c->err, c->errlen,
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
		return fail(c->err, c->errlen,
			    "value 0x%llx of term '%s' in event '%s' does not fit its %d bits (%s)",
			    (unsigned long long)v, term, ev, bits, fmt);
	*dst |= placed;
	return 0;
bad:
	return fail(c->err, c->errlen,
		    "cannot read the format of term '%s' ('%s') for event '%s'",
		    term, fmt, ev);
}

static int apply_terms(struct ctx *c, const char *ev, const char *pmu,
		       const char *terms, size_t len, int depth,
		       struct model_event *e, char *rename);

/* One term "key[=value]" of PMU @pmu. */
static int apply_term(struct ctx *c, const char *ev, const char *pmu,
		      const char *t, size_t len, int depth,
		      struct model_event *e, char *rename)
{
	const char *eq = memchr(t, '=', len);
	size_t klen = eq ? (size_t)(eq - t) : len;
	char key[64], path[512], buf[512];
	__u64 v = 1;
	int i, r;

	if (!klen || klen >= sizeof(key) || !is_word(t, klen))
		return fail(c->err, c->errlen,
			    "bad term '%.*s' in event '%s'; write pmu/term=value,.../",
			    (int)len, t, ev);
	memcpy(key, t, klen);
	key[klen] = '\0';
	if (!strcmp(key, "name")) {
		size_t vlen = eq ? len - klen - 1 : 0;

		if (!vlen || vlen >= EVSEL_NAME_LEN || !is_word(eq + 1, vlen))
			return fail(c->err, c->errlen,
				    "bad name= in event '%s'; give letters, digits, '_', '-' or '.'",
				    ev);
		memcpy(rename, eq + 1, vlen);
		rename[vlen] = '\0';
		return 0;
	}
	for (i = 0; i < N(unsupported_terms); i++)
		if (!strcmp(key, unsupported_terms[i]))
			return fail(c->err, c->errlen,
				    "term '%s' of event '%s' is not supported by tdbpf (it counts, it does not sample); drop it",
				    key, ev);
	if (eq && parse_num(eq + 1, len - klen - 1, &v))
		return fail(c->err, c->errlen,
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
	return fail(c->err, c->errlen,
		    "unknown term '%s' in event '%s': PMU '%s' has no format/%s nor events/%s; see %s/%s/format and events",
		    key, ev, pmu, key, key, c->env->pmu_dir, pmu);
}

static int apply_terms(struct ctx *c, const char *ev, const char *pmu,
		       const char *terms, size_t len, int depth,
		       struct model_event *e, char *rename)
{
	size_t i = 0, j;

	while (i < len) {
		for (j = i; j < len && terms[j] != ','; j++)
			;
		if (j == i)
			return fail(c->err, c->errlen,
				    "empty term in event '%s'; write pmu/term=value,term/",
				    ev);
		if (apply_term(c, ev, pmu, terms + i, j - i, depth, e, rename))
			return -1;
		i = j + 1;
		if (j < len && i == len)
			return fail(c->err, c->errlen,
				    "empty term in event '%s'; write pmu/term=value,term/",
				    ev);
	}
	return 0;
}

/* pmu/terms/ (@slash: the first '/'; @end: after the closing '/') */
static int parse_pmu(struct ctx *c, const char *ev, const char *s,
		     size_t len, struct model_event *e, char *rename)
{
	const char *slash = memchr(s, '/', len);
	size_t plen = (size_t)(slash - s);
	char pmu[64], path[512], buf[64];
	__u64 type;
	int r;

	if (len < 3 || s[len - 1] != '/' || slash >= s + len - 2 ||
	    memchr(slash + 1, '/', (size_t)(s + len - 1 - (slash + 1))))
		return fail(c->err, c->errlen,
			    "bad event '%s'; write pmu/term=value,.../ (e.g. cpu/event=0xc2,umask=0x1/)",
			    ev);
	if (plen >= sizeof(pmu) || !is_word(s, plen))
		return fail(c->err, c->errlen,
			    "bad PMU name in event '%s'; see %s for the PMUs",
			    ev, c->env->pmu_dir);
	memcpy(pmu, s, plen);
	pmu[plen] = '\0';
	snprintf(path, sizeof(path), "%s/%s/type", c->env->pmu_dir, pmu);
	r = read_small(path, buf, sizeof(buf));
	if (r == -EACCES || r == -EPERM)
		return fail(c->err, c->errlen,
			    "cannot read %s for event '%s': needs privileges; run as root",
			    path, ev);
	if (r || parse_num(buf, strlen(buf), &type) || type > 0xffffffffULL)
		return fail(c->err, c->errlen,
			    "no PMU '%s' on this machine for event '%s' (no %s/%s); see that directory for the PMUs there",
			    pmu, ev, c->env->pmu_dir, pmu);
	e->type = (__u32)type;
	return apply_terms(c, ev, pmu, slash + 1,
			   (size_t)(s + len - 1 - (slash + 1)), 0, e, rename);
}

static int parse_tracepoint(struct ctx *c, const char *ev, const char *sys,
			    size_t slen, const char *name, size_t nlen,
			    struct model_event *e)
{
	char path[512], buf[32];
	struct stat st;
	__u64 id;
	int r;

	if (!is_word(sys, slen) || !is_word(name, nlen))
		return fail(c->err, c->errlen,
			    "bad tracepoint '%s'; write subsystem:event, e.g. sched:sched_switch",
			    ev);
	if (!c->tracefs && c->env->mount_tracefs &&
	    !c->env->mount_tracefs(c->l->tracefs, sizeof(c->l->tracefs)))
		c->tracefs = c->l->tracefs;
	if (!c->tracefs)
		return fail(c->err, c->errlen,
			    "tracepoint '%s' needs tracefs, which is not mounted; mount it: mount -t tracefs nodev /sys/kernel/tracing",
			    ev);
	snprintf(path, sizeof(path), "%s/events/%.*s/%.*s/id", c->tracefs,
		 (int)slen, sys, (int)nlen, name);
	r = read_small(path, buf, sizeof(buf));
	if (r == -EACCES || r == -EPERM)
		return fail(c->err, c->errlen,
			    "cannot read the id of tracepoint '%s' (%s): needs privileges; run as root",
			    ev, path);
	if (r) {
		snprintf(path, sizeof(path), "%s/events/%.*s", c->tracefs,
			 (int)slen, sys);
		if (stat(path, &st))
			return fail(c->err, c->errlen,
				    "unknown tracepoint '%s': no subsystem '%.*s' in %s/events; list them with perf list tracepoint",
				    ev, (int)slen, sys, c->tracefs);
		return fail(c->err, c->errlen,
			    "unknown tracepoint '%s': subsystem '%.*s' has no event '%.*s'; list them with ls %s",
			    ev, (int)slen, sys, (int)nlen, name, path);
	}
	if (parse_num(buf, strlen(buf), &id))
		return fail(c->err, c->errlen,
			    "tracepoint '%s' has a bad id '%s'", ev, buf);
	e->type = PERF_TYPE_TRACEPOINT;
	e->config = id;
	return 0;
}

static bool all_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return len > 0;
}

/*
 * One event @s[0..len), group modifiers @gmods (or NULL), into the next
 * slot of the list, in group @group.
 */
static int parse_event(struct ctx *c, const char *s, size_t len,
		       const char *gmods, size_t gmlen, int group)
{
	struct evsel_list *l = c->l;
	struct model_event *e;
	char ev[EVSEL_NAME_LEN], rename[EVSEL_NAME_LEN] = "";
	const char *mods = NULL, *colon;
	const struct named *n;
	size_t base = len, mlen = 0, i;
	int k;

	if (!len)
		return fail(c->err, c->errlen,
			    "empty event in -e; give EVENT[,EVENT...], e.g. -e cpu-clock,sched:sched_switch");
	for (i = 0; i < len; i++)
		if (!word_char(s[i]) && !strchr(":/=,", s[i]))
			return fail(c->err, c->errlen,
				    "bad character '%c' in event '%.*s'; see perf list for the syntax",
				    s[i], (int)len, s);
	if (len >= sizeof(ev) - 8)
		return fail(c->err, c->errlen, "event '%.40s...' is too long",
			    s);
	memcpy(ev, s, len);
	ev[len] = '\0';
	if (l->nr >= EVSEL_MAX)
		return fail(c->err, c->errlen,
			    "too many events at '%s': tdbpf counts at most %d",
			    ev, EVSEL_MAX);
	e = &l->ev[l->nr];
	memset(e, 0, sizeof(*e));
	e->kind = EV_USER;
	e->fixed = -1;
	e->unit = "";

	if (s[len - 1] != '/' && memchr(s, '/', len)) {
		/* pmu/terms/mods or pmu/terms/:mods, as perf writes them */
		const char *last = s + len;

		while (last > s && last[-1] != '/')
			last--;
		base = (size_t)(last - s);
		mods = last + (last[0] == ':');
		mlen = len - (size_t)(mods - s);
	}
	if (memchr(s, '/', base)) {
		if (parse_pmu(c, ev, s, base, e, rename))
			return -1;
	} else {
		colon = memchr(s, ':', len);
		base = colon ? (size_t)(colon - s) : len;
		if ((n = lookup(sw_names, N(sw_names), s, base))) {
			e->type = PERF_TYPE_SOFTWARE;
			e->config = n->config;
			if (n->config == PERF_COUNT_SW_CPU_CLOCK ||
			    n->config == PERF_COUNT_SW_TASK_CLOCK)
				e->unit = "msec";	/* counts ns */
		} else if ((n = lookup(hw_names, N(hw_names), s, base))) {
			e->type = PERF_TYPE_HARDWARE;
			e->config = n->config;
		} else if (base == 10 && !strncmp(s, "bpf-output", 10)) {
			return fail(c->err, c->errlen,
				    "event 'bpf-output' is an output channel for BPF programs, not a count; drop it");
		} else if (base >= 2 && base <= 17 && s[0] == 'r' &&
			   all_hex(s + 1, base - 1)) {
			e->type = PERF_TYPE_RAW;
			e->config = strtoull(s + 1, NULL, 16);
		} else if (colon) {
			/* sys:name[:mods] */
			const char *name = colon + 1;
			size_t rest = len - base - 1;
			const char *c2 = memchr(name, ':', rest);
			size_t nlen = c2 ? (size_t)(c2 - name) : rest;

			if (parse_tracepoint(c, ev, s, base, name, nlen, e))
				return -1;
			base += 1 + nlen;
		} else {
			return fail(c->err, c->errlen,
				    "unknown event '%s'; give a perf software or hardware event name (cpu-clock, cycles, ...), a tracepoint sys:name, rNNNN or pmu/term=value/",
				    ev);
		}
		if (base < len) {
			mods = ev + base + 1;
			mlen = len - base - 1;
		}
	}
	if (mods && memchr(mods, ':', mlen))
		return fail(c->err, c->errlen,
			    "bad event '%s': one modifier list at most, e.g. cycles:u",
			    ev);
	if (mods && parse_mods(c, ev, mods, mlen, &e->excl))
		return -1;
	if (!mods && gmods && parse_mods(c, ev, gmods, gmlen, &e->excl))
		return -1;

	/* its name: as written, a group's modifier added, or name= */
	if (rename[0])
		snprintf(l->name[l->nr], EVSEL_NAME_LEN, "%s", rename);
	else if (!mods && gmods && len + gmlen + 2 <= EVSEL_NAME_LEN) {
		char *d = l->name[l->nr];

		memcpy(d, ev, len);
		d[len] = ':';
		memcpy(d + len + 1, gmods, gmlen);
		d[len + 1 + gmlen] = '\0';
	} else if (!mods && gmods)
		return fail(c->err, c->errlen, "event '%s' is too long", ev);
	else
		snprintf(l->name[l->nr], EVSEL_NAME_LEN, "%s", ev);
	e->name = l->name[l->nr];
	for (k = 0; k < l->nr; k++) {
		const struct model_event *o = &l->ev[k];

		if (!strcmp(o->name, e->name) ||
		    (o->type == e->type && o->config == e->config &&
		     o->config1 == e->config1 && o->config2 == e->config2 &&
		     o->excl == e->excl))
			return fail(c->err, c->errlen,
				    "event '%s' is the same as '%s', given before; give each event once",
				    e->name, o->name);
	}
	l->group[l->nr] = group;
	l->nr++;
	return 0;
}

/* ---- the list --------------------------------------------------------- */

void evsel_init(struct evsel_list *l)
{
	memset(l, 0, sizeof(*l));
}

/* End of the event starting at @s: a ',' or '}' outside pmu/.../ */
static size_t event_len(const char *s)
{
	bool in_pmu = false;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '/')
			in_pmu = !in_pmu;
		else if (!in_pmu && (s[i] == ',' || s[i] == '}' ||
				     s[i] == '{'))
			break;
	}
	return i;
}

int evsel_parse(struct evsel_list *l, const char *spec,
		const struct evsel_env *env, char *err, size_t errlen)
{
	struct ctx c = { .l = l, .env = env, .err = err, .errlen = errlen,
			 .tracefs = env->tracefs };
	const char *p = spec, *body, *gm;
	size_t n, gmlen;
	int first, k;

	if (!*spec)
		return fail(err, errlen,
			    "empty -e; give EVENT[,EVENT...], e.g. -e cpu-clock,sched:sched_switch");
	if (l->tracefs[0])
		c.tracefs = l->tracefs;
	while (*p) {
		if (*p == '{') {
			/* a group: find its end, then its modifiers */
			body = ++p;
			while (*p && *p != '}' && *p != '{')
				p += *p == ',' ? 1 : (event_len(p) ? event_len(p) : 1);
			if (*p != '}')
				return fail(err, errlen,
					    "unbalanced '{' in -e '%s'; write groups as {a,b}, not nested",
					    spec);
			if (p == body)
				return fail(err, errlen,
					    "empty group {} in -e '%s'", spec);
			gm = NULL;
			gmlen = 0;
			if (p[1] == ':') {
				gm = p + 2;
				gmlen = event_len(gm);
				if (!gmlen)
					return fail(err, errlen,
						    "empty group modifier in -e '%s'; give :u or :k",
						    spec);
			}
			first = l->nr;
			while (body < p) {
				n = event_len(body);
				if (body + n > p)
					n = (size_t)(p - body);
				if (parse_event(&c, body, n, gm, gmlen,
						l->nr_groups))
					return -1;
				body += n;
				if (*body == ',')
					body++;
				if (body == p && body[-1] == ',')
					return fail(err, errlen,
						    "empty event in group of -e '%s'",
						    spec);
			}
			if (l->nr - first > GROUP_MAX_EVENTS)
				return fail(err, errlen,
					    "group of %d events in -e '%s'; at most %d",
					    l->nr - first, spec,
					    GROUP_MAX_EVENTS);
			l->nr_groups++;
			p++;
			if (gm)
				p = gm + gmlen;
		} else if (*p == '}') {
			return fail(err, errlen,
				    "unbalanced '}' in -e '%s'", spec);
		} else {
			n = event_len(p);
			if (parse_event(&c, p, n, NULL, 0, l->nr_groups))
				return -1;
			l->nr_groups++;
			p += n;
		}
		if (*p == ',') {
			p++;
			if (!*p)
				return fail(err, errlen,
					    "trailing ',' in -e '%s'", spec);
		} else if (*p == '}') {
			return fail(err, errlen,
				    "unbalanced '}' in -e '%s'", spec);
		} else if (*p) {
			return fail(err, errlen,
				    "expected ',' before '%s' in -e '%s'", p,
				    spec);
		}
	}
	for (k = 0; k < l->nr; k++)
		l->ev[k].name = l->name[k];
	return 0;
}

/* ---- the machine -------------------------------------------------------- */

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
	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++)
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
		return fail(err, len,
			    "event '%s' cannot be counted in one group with '%s' (%s); put it in its own group",
			    e->name, lead, strerror(e2));
	switch (e2) {
	case EACCES:
	case EPERM:
		return fail(err, len,
			    "event '%s' needs privileges (%s, kernel.perf_event_paranoid is %d); run as root or grant CAP_PERFMON",
			    e->name, strerror(e2), paranoid());
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		if (hw)
			return fail(err, len,
				    "event '%s' cannot be counted here: no hardware PMU (%s; a VM without a virtual PMU?); drop it, or count it on a machine that has one",
				    e->name, strerror(e2));
		return fail(err, len,
			    "event '%s' cannot be counted here: no PMU takes type %u config 0x%llx (%s); check the event against perf list",
			    e->name, e->type, (unsigned long long)e->config,
			    strerror(e2));
	case EINVAL:
		return fail(err, len,
			    "event '%s' was rejected by its PMU (type %u config 0x%llx: %s); check its terms and modifiers against perf list",
			    e->name, e->type, (unsigned long long)e->config,
			    strerror(e2));
	case EMFILE:
		return fail(err, len,
			    "event '%s': too many open files; raise the limit with ulimit -n",
			    e->name);
	case EBUSY:
		return fail(err, len,
			    "event '%s': its PMU is held exclusively by another user; stop it and retry",
			    e->name);
	default:
		return fail(err, len, "event '%s' cannot be counted: %s",
			    e->name, strerror(e2));
	}
}

static int open_one(const struct model_event *e, int cpu, int group_fd)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = e->type;
	a.config = e->config;
	a.config1 = e->config1;
	a.config2 = e->config2;
	a.exclude_user = !!(e->excl & EVF_EXCL_USER);
	a.exclude_kernel = !!(e->excl & EVF_EXCL_KERNEL);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = group_fd < 0;
	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

int evsel_probe(const struct evsel_list *l, int cpu, char *err,
		size_t errlen)
{
	int fds[EVSEL_MAX], i, j, lead = -1, e2, rc = 0;

	for (i = 0; i < l->nr; i++)
		fds[i] = -1;
	for (i = 0; i < l->nr && !rc; i++) {
		if (!i || l->group[i] != l->group[i - 1])
			lead = i;
		fds[i] = open_one(&l->ev[i], cpu, lead == i ? -1 : fds[lead]);
		if (fds[i] >= 0)
			continue;
		e2 = errno;
		/* alone it works: the group is what the PMU refuses */
		if (lead != i) {
			int fd = open_one(&l->ev[i], cpu, -1);

			if (fd >= 0) {
				close(fd);
				rc = evsel_why(&l->ev[i], e2, l->ev[lead].name,
					       err, errlen);
				break;
			}
			e2 = errno;
		}
		rc = evsel_why(&l->ev[i], e2, NULL, err, errlen);
	}
	for (j = 0; j < l->nr; j++)
		if (fds[j] >= 0)
			close(fds[j]);
	return rc;
}
