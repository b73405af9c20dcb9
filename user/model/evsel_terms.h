/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two halves of the -e parser share: model/evsel.c reads the
 * grammar (names, groups, modifiers), model/evsel_terms.c what a PMU's
 * terms and a tracepoint mean on this machine (sysfs and tracefs files).
 * For those two files only; the terms know nothing of the grammar.
 */
#ifndef TDBPF_EVSEL_TERMS_H
#define TDBPF_EVSEL_TERMS_H

#include <stdbool.h>
#include <stddef.h>
#include "model/evsel_env.h"
#include "model/model.h"

struct evsel_list;

struct evsel_ctx {
	struct evsel_list *l;	/* the grammar's: what was read so far */
	const struct evsel_env *env;
	char *err;
	size_t errlen;
	const char *tracefs;
	/* where a tracefs that env->mount_tracefs mounts is named */
	char *mounted;
	size_t mounted_len;
};

static inline bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* @s[0..len) is a name that may be a path element: no "." or "..". */
static inline bool is_word(const char *s, size_t len)
{
	size_t i;

	if (!len || s[0] == '.')
		return false;
	for (i = 0; i < len; i++)
		if (!word_char(s[i]))
			return false;
	return true;
}


/*
 * pmu/terms/ of event @ev (@s[0..len), the closing '/' included) into @e;
 * a name= term goes to @rename. 0, or -1 with c->err.
 */
int evsel_parse_pmu(struct evsel_ctx *c, const char *ev, const char *s,
		    size_t len, struct model_event *e, char *rename);
/* Tracepoint @sys:@name of event @ev into @e: its id from tracefs. */
int evsel_parse_tracepoint(struct evsel_ctx *c, const char *ev,
			   const char *sys, size_t slen, const char *name,
			   size_t nlen, struct model_event *e);

/*
 * The tracepoints of subsystem @sys (@slen bytes) whose names match the
 * glob @pat (@plen bytes, fnmatch(3): * ? [...]), as perf expands
 * -e 'sys:pat*': @each called with each name, in name order, until it
 * fails. 0, or -1 with the error (none matches, no tracefs).
 */
int evsel_glob_tracepoints(struct evsel_ctx *c, const char *sys, size_t slen,
			   const char *pat, size_t plen,
			   int (*each)(struct evsel_ctx *c, const char *name,
				       void *arg),
			   void *arg);

#endif /* TDBPF_EVSEL_TERMS_H */
