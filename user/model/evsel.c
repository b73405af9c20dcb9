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
#include <linux/perf_event.h>
#include "model/evsel.h"
#include "model/evsel_terms.h"
#include "support/array.h"
#include "support/error.h"

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

static const struct named *lookup(const struct named *t, size_t n,
				  const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(t[i].name) == len && !strncmp(t[i].name, name, len))
			return &t[i];
	return NULL;
}

/* ---- one event ------------------------------------------------------- */

/*
 * :u, :k or :uk (perf's modifiers; others, like :p for precise sampling,
 * mean nothing to a count). @mods without the colon.
 */
static int parse_mods(struct evsel_ctx *c, const char *ev,
		      const char *mods, size_t len, __u8 *excl)
{
	bool u = false, k = false;
	size_t i;

	if (!len)
		return error_set(c->err, c->errlen,
				 "empty modifier in event '%s'; give :u, :k or none",
				 ev);
	for (i = 0; i < len; i++) {
		if (mods[i] == 'u')
			u = true;
		else if (mods[i] == 'k')
			k = true;
		else
			return error_set(c->err, c->errlen,
					 "modifier '%c' of event '%s' is not supported by tdbpf; use :u (user only), :k (kernel only) or none",
					 mods[i], ev);
	}
	*excl = (u ? 0 : EVF_EXCL_USER) | (k ? 0 : EVF_EXCL_KERNEL);
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
/*
 * Event @s (@len bytes) checked for what no event holds and copied into
 * @ev (EVSEL_NAME_LEN); 0, or -1 with the error.
 */
static int event_text(struct evsel_ctx *c, const char *s, size_t len,
		      char *ev)
{
	size_t i;

	if (!len)
		return error_set(c->err, c->errlen,
				 "empty event in -e; give EVENT[,EVENT...], e.g. -e cpu-clock,sched:sched_switch");
	for (i = 0; i < len; i++)
		if (!word_char(s[i]) && !strchr(":/=,", s[i]))
			return error_set(c->err, c->errlen,
					 "bad character '%c' in event '%.*s'; see perf list for the syntax",
					 s[i], (int)len, s);
	if (len >= EVSEL_NAME_LEN - 8)
		return error_set(c->err, c->errlen, "event '%.40s...' is too long",
				 s);
	memcpy(ev, s, len);
	ev[len] = '\0';
	if (c->l->nr >= EVSEL_MAX)
		return error_set(c->err, c->errlen,
				 "too many events at '%s': tdbpf counts at most %d",
				 ev, EVSEL_MAX);
	return 0;
}

/*
 * An event by name: perf's software or hardware names, rNNNN, or a
 * tracepoint sys:name, into @e; @end: where its name ends in @s (@len
 * bytes, @ev its copy), a ':' and its modifiers after it. 0, or -1 with
 * the error.
 */
static int parse_named(struct evsel_ctx *c, const char *ev, const char *s,
		       size_t len, struct model_event *e, size_t *end)
{
	const char *colon = memchr(s, ':', len);
	size_t nlen = colon ? (size_t)(colon - s) : len;
	const struct named *n;

	*end = nlen;
	if ((n = lookup(sw_names, ARRAY_SIZE(sw_names), s, nlen))) {
		e->type = PERF_TYPE_SOFTWARE;
		e->config = n->config;
		if (n->config == PERF_COUNT_SW_CPU_CLOCK ||
		    n->config == PERF_COUNT_SW_TASK_CLOCK)
			e->unit = "msec";	/* counts ns */
	} else if ((n = lookup(hw_names, ARRAY_SIZE(hw_names), s, nlen))) {
		e->type = PERF_TYPE_HARDWARE;
		e->config = n->config;
	} else if (nlen == 10 && !strncmp(s, "bpf-output", 10)) {
		return error_set(c->err, c->errlen,
				 "event 'bpf-output' is an output channel for BPF programs, not a count; drop it");
	} else if (nlen >= 2 && nlen <= 17 && s[0] == 'r' &&
		   all_hex(s + 1, nlen - 1)) {
		e->type = PERF_TYPE_RAW;
		e->config = strtoull(s + 1, NULL, 16);
	} else if (colon) {
		/* sys:name[:mods] */
		const char *name = colon + 1;
		size_t rest = len - nlen - 1;
		const char *c2 = memchr(name, ':', rest);
		size_t tlen = c2 ? (size_t)(c2 - name) : rest;

		if (evsel_parse_tracepoint(c, ev, s, nlen, name, tlen, e))
			return -1;
		*end = nlen + 1 + tlen;
	} else {
		return error_set(c->err, c->errlen,
				 "unknown event '%s'; give a perf software or hardware event name (cpu-clock, cycles, ...), a tracepoint sys:name, rNNNN or pmu/term=value/",
				 ev);
	}
	return 0;
}

/*
 * The name of the event being added: as written (@ev, @len bytes), with
 * its group's modifiers @gmods (@gmlen bytes; NULL: none) added, or its
 * name= (@rename). 0, or -1 with the error.
 */
static int name_event(struct evsel_ctx *c, const char *ev, size_t len,
		      const char *rename, const char *gmods, size_t gmlen)
{
	char *d = c->l->name[c->l->nr];

	if (rename[0]) {
		snprintf(d, EVSEL_NAME_LEN, "%s", rename);
	} else if (gmods && len + gmlen + 2 <= EVSEL_NAME_LEN) {
		memcpy(d, ev, len);
		d[len] = ':';
		memcpy(d + len + 1, gmods, gmlen);
		d[len + 1 + gmlen] = '\0';
	} else if (gmods) {
		return error_set(c->err, c->errlen, "event '%s' is too long", ev);
	} else {
		snprintf(d, EVSEL_NAME_LEN, "%s", ev);
	}
	return 0;
}

/* @e given before, by name or as the same count: the error, -1. */
static int given_before(struct evsel_ctx *c, const struct model_event *e)
{
	int k;

	for (k = 0; k < c->l->nr; k++) {
		const struct model_event *o = &c->l->ev[k];

		if (!strcmp(o->name, e->name) ||
		    (o->type == e->type && o->config == e->config &&
		     o->config1 == e->config1 && o->config2 == e->config2 &&
		     o->excl == e->excl))
			return error_set(c->err, c->errlen,
					 "event '%s' is the same as '%s', given before; give each event once",
					 e->name, o->name);
	}
	return 0;
}

static int parse_event(struct evsel_ctx *c, const char *s, size_t len,
		       const char *gmods, size_t gmlen, int group);

/* A tracepoint glob's matches, each parsed as if written out. */
struct glob_each {
	const char *sys, *mods;	/* "sys", ":mods" or "" */
	size_t slen, mlen;
	const char *gmods;
	size_t gmlen;
	int group;
};

static int glob_one(struct evsel_ctx *c, const char *name, void *arg)
{
	const struct glob_each *g = arg;
	char ev[EVSEL_NAME_LEN];
	int n;

	n = snprintf(ev, sizeof(ev), "%.*s:%s%.*s", (int)g->slen, g->sys,
		     name, (int)g->mlen, g->mods);
	if (n < 0 || (size_t)n >= sizeof(ev))
		return error_set(c->err, c->errlen,
				 "event '%.*s:%s' is too long", (int)g->slen,
				 g->sys, name);
	return parse_event(c, ev, (size_t)n, g->gmods, g->gmlen, g->group);
}

/*
 * sys:pat[:mods], pat with * ? or [: a glob (no PMU term has them). In
 * the name only: a match is parsed again with the modifiers, which must
 * not make it a glob again (it did, forever, for "a:b:c[").
 */
static bool is_glob(const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len), *end;
	size_t n;

	if (!colon || memchr(s, '/', len))
		return false;
	end = memchr(colon + 1, ':', len - (size_t)(colon + 1 - s));
	n = (size_t)((end ? end : s + len) - colon);
	return memchr(colon, '*', n) || memchr(colon, '?', n) ||
	       memchr(colon, '[', n);
}

static int parse_glob(struct evsel_ctx *c, const char *s, size_t len,
		      const char *gmods, size_t gmlen, int group)
{
	const char *colon = memchr(s, ':', len), *pat = colon + 1, *m;
	struct glob_each g = { .sys = s, .slen = (size_t)(colon - s),
			       .mods = "", .gmods = gmods, .gmlen = gmlen,
			       .group = group };
	size_t plen = len - g.slen - 1;

	m = memchr(pat, ':', plen);
	if (m) {
		g.mods = m;
		g.mlen = len - (size_t)(m - s);
		plen = (size_t)(m - pat);
	}
	return evsel_glob_tracepoints(c, g.sys, g.slen, pat, plen, glob_one,
				      &g);
}

static int parse_event(struct evsel_ctx *c, const char *s, size_t len,
		       const char *gmods, size_t gmlen, int group)
{
	struct evsel_list *l = c->l;
	char ev[EVSEL_NAME_LEN], rename[EVSEL_NAME_LEN] = "";
	const char *mods = NULL;
	struct model_event *e;
	size_t mlen = 0, n;

	if (is_glob(s, len))
		return parse_glob(c, s, len, gmods, gmlen, group);
	if (event_text(c, s, len, ev))
		return -1;
	e = &l->ev[l->nr];
	memset(e, 0, sizeof(*e));
	e->kind = EV_USER;
	e->fixed = -1;
	e->unit = "";

	if (memchr(s, '/', len)) {
		/* pmu/terms/mods or pmu/terms/:mods, as perf writes them */
		n = len;
		while (s[n - 1] != '/')
			n--;
		if (n < len) {
			mods = s + n + (s[n] == ':');
			mlen = len - (size_t)(mods - s);
		}
		if (evsel_parse_pmu(c, ev, s, n, e, rename))
			return -1;
	} else {
		if (parse_named(c, ev, s, len, e, &n))
			return -1;
		if (n < len) {
			mods = ev + n + 1;
			mlen = len - n - 1;
		}
	}
	if (mods && memchr(mods, ':', mlen))
		return error_set(c->err, c->errlen,
				 "bad event '%s': one modifier list at most, e.g. cycles:u",
				 ev);
	if (mods && parse_mods(c, ev, mods, mlen, &e->excl))
		return -1;
	if (!mods && gmods && parse_mods(c, ev, gmods, gmlen, &e->excl))
		return -1;
	if (name_event(c, ev, len, rename, mods ? NULL : gmods, gmlen))
		return -1;
	e->name = l->name[l->nr];
	if (given_before(c, e))
		return -1;
	l->group[l->nr] = group;
	l->nr++;
	return 0;
}

const char *evsel_known_name(bool hw, size_t i)
{
	if (hw)
		return i < ARRAY_SIZE(hw_names) ? hw_names[i].name : NULL;
	return i < ARRAY_SIZE(sw_names) ? sw_names[i].name : NULL;
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
	struct evsel_ctx c = {
		.l = l, .env = env, .err = err, .errlen = errlen,
		.tracefs = env->tracefs,
		.mounted = l->tracefs, .mounted_len = sizeof(l->tracefs),
	};
	const char *p = spec, *body, *gm;
	size_t n, gmlen;
	int first, k;

	if (!*spec)
		return error_set(err, errlen,
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
				return error_set(err, errlen,
						 "unbalanced '{' in -e '%s'; write groups as {a,b}, not nested",
						 spec);
			if (p == body)
				return error_set(err, errlen,
						 "empty group {} in -e '%s'", spec);
			gm = NULL;
			gmlen = 0;
			if (p[1] == ':') {
				gm = p + 2;
				gmlen = event_len(gm);
				if (!gmlen)
					return error_set(err, errlen,
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
					return error_set(err, errlen,
							 "empty event in group of -e '%s'",
							 spec);
			}
			if (l->nr - first > GROUP_MAX_EVENTS)
				return error_set(err, errlen,
						 "group of %d events in -e '%s'; at most %d",
						 l->nr - first, spec,
						 GROUP_MAX_EVENTS);
			l->nr_groups++;
			p++;
			if (gm)
				p = gm + gmlen;
		} else if (*p == '}') {
			return error_set(err, errlen,
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
				return error_set(err, errlen,
						 "trailing ',' in -e '%s'", spec);
		} else if (*p == '}') {
			return error_set(err, errlen,
					 "unbalanced '}' in -e '%s'", spec);
		} else if (*p) {
			return error_set(err, errlen,
					 "expected ',' before '%s' in -e '%s'", p,
					 spec);
		}
	}
	for (k = 0; k < l->nr; k++)
		l->ev[k].name = l->name[k];
	return 0;
}
