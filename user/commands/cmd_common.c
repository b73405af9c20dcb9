// SPDX-License-Identifier: GPL-2.0
/* What the subcommands share: error lines, model lookup, levels. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "commands/cmd.h"
#include "support/text.h"

void errorf(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* names quoted from the command line stay on one printable line */
	text_printable(msg, sizeof(msg), msg, NULL, 0);
	fprintf(stderr, "tdbpf: %s\n", msg);
}

const struct model *find_model_or_say(const char *name)
{
	const struct model *m = model_find(name);
	char list[512];

	if (m)
		return m;
	model_names(list, sizeof(list), false);
	errorf("unknown model '%s'; use one of: %s", name, list);
	return NULL;
}

/* GP counters for @m: the detected budget when @m is this machine's. */
int gp_budget(const struct model *m, bool smt, const struct detect_info *d)
{
	if (d && d->model == m && d->gp_counters > 0)
		return d->gp_counters;
	return smt ? m->gp_smt_on : m->gp_smt_off;
}

int level_for(const struct model *m, int asked)
{
	if (!asked || asked > m->max_level)
		return m->max_level;
	return asked;
}

