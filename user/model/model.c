// SPDX-License-Identifier: GPL-2.0
/* The list of CPU models, lookup by name, and event-name matching. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "model/model.h"
#include "support/array.h"

const struct model *const models[] = {
	&model_broadwellx,
	&model_broadwell,
	&model_icelakex,
	&model_icelake,
	&model_sapphirerapids,
	&model_skylakex,
	&model_cascadelakex,
	&model_skylake,
	&model_emeraldrapids,
	&model_graniterapids,
	&model_amdzen4,
	&model_amdzen5,
	&model_neoverse_n1,
	&model_neoverse_n2,
	&model_neoverse_v1,
	&model_neoverse_v2,
	&model_armv8,
	&model_software,
	NULL,
};

static const struct {
	const char *alias;
	const struct model *model;
} aliases[] = {
	{ "bdx", &model_broadwellx },
	{ "bdw", &model_broadwell },
	{ "icx", &model_icelakex },
	{ "icl", &model_icelake },
	{ "spr", &model_sapphirerapids },
	{ "skx", &model_skylakex },
	{ "clx", &model_cascadelakex },
	{ "skl", &model_skylake },
	{ "emr", &model_emeraldrapids },
	{ "gnr", &model_graniterapids },
	{ "zen4", &model_amdzen4 },
	{ "zen5", &model_amdzen5 },
	{ "n1", &model_neoverse_n1 },
	{ "n2", &model_neoverse_n2 },
	{ "v1", &model_neoverse_v1 },
	{ "v2", &model_neoverse_v2 },
	{ "sw", &model_software },
};

const struct model *model_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; models[i]; i++)
		if (!strcasecmp(models[i]->name, name))
			return models[i];
	for (i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcasecmp(aliases[i].alias, name))
			return aliases[i].model;
	return NULL;
}

void model_names(char *buf, size_t len, bool tree)
{
	size_t i, off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; models[i]; i++) {
		if (tree && !models[i]->max_level)
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s",
				off ? ", " : "", models[i]->name);
	}
}

#define NAME_MAX_LEN	256
#define MAX_TERMS	8

static int term_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Canonical form of an event name, so that perf's expression spelling
 * "cpu@EV\,cmask\=1@", its unescaped form "cpu@EV,cmask=1@" and the
 * command-line form "cpu/EV,cmask=1/" compare equal: lower case, no
 * backslashes, "cpu/ev,term=value,.../" with terms sorted, numbers in
 * hex, and a bare flag ("edge") written "edge=0x1". "cpu/EV/" is "ev".
 * Returns -1 when the name does not fit or is malformed.
 */
static int canon_name(const char *in, char *out, size_t outlen)
{
	char buf[NAME_MAX_LEN], *body, *terms[MAX_TERMS], *tok, *save;
	char tbuf[MAX_TERMS][64];
	size_t n = 0, len;
	int nt = 0, i, off;
	char close;

	for (; *in; in++) {
		if (*in == '\\')
			continue;
		if (n + 1 >= sizeof(buf))
			return -1;
		buf[n++] = (char)tolower((unsigned char)*in);
	}
	buf[n] = '\0';

	if (strncmp(buf, "cpu@", 4) && strncmp(buf, "cpu/", 4)) {
		if (n + 1 > outlen)
			return -1;
		memcpy(out, buf, n + 1);
		return 0;
	}
	close = buf[3];
	len = strlen(buf);
	if (len < 5 || buf[len - 1] != close)
		return -1;
	buf[len - 1] = '\0';
	body = buf + 4;

	tok = strtok_r(body, ",", &save);
	if (!tok)
		return -1;
	off = snprintf(out, outlen, "%s", tok);
	while ((tok = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(tok, '='), *end;
		unsigned long long v = 1;

		if (nt == MAX_TERMS)
			return -1;
		if (eq) {
			*eq = '\0';
			v = strtoull(eq + 1, &end, 0);
			if (end == eq + 1 || *end)
				return -1;
		}
		snprintf(tbuf[nt], sizeof(tbuf[nt]), "%s=%#llx", tok, v);
		terms[nt] = tbuf[nt];
		nt++;
	}
	if (!nt)	/* cpu/EV/ is just EV */
		return off < (int)outlen ? 0 : -1;

	qsort(terms, nt, sizeof(terms[0]), term_cmp);
	off = snprintf(out, outlen, "cpu/%s", buf + 4);
	for (i = 0; i < nt && off < (int)outlen; i++)
		off += snprintf(out + off, outlen - off, ",%s", terms[i]);
	if (off < (int)outlen)
		off += snprintf(out + off, outlen - off, "/");
	return off < (int)outlen ? 0 : -1;
}

int model_event_index(const struct model *m, const char *name)
{
	char want[NAME_MAX_LEN], have[NAME_MAX_LEN];
	int i;

	if (!m || !name || canon_name(name, want, sizeof(want)))
		return -1;
	for (i = 0; i < m->nr_events; i++) {
		if (canon_name(m->events[i].name, have, sizeof(have)))
			continue;
		if (!strcmp(want, have))
			return i;
	}
	return -1;
}
