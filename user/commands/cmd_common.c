// SPDX-License-Identifier: GPL-2.0
/* What the subcommands share: model lookup, levels. */
#include <stdio.h>
#include <string.h>
#include "commands/cmd.h"

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


_Static_assert(OPT_MAX_TARGETS <= TARGETS_MAX,
	       "every -p/-t the options take must fit the targets' table");

void target_ids_of(struct target_ids *ids, const struct options *o)
{
	memset(ids, 0, sizeof(*ids));
	memcpy(ids->pids, o->pids, o->nr_pids * sizeof(o->pids[0]));
	ids->nr_pids = o->nr_pids;
	memcpy(ids->tids, o->tids, o->nr_tids * sizeof(o->tids[0]));
	ids->nr_tids = o->nr_tids;
	ids->all = o->all;
	ids->cgroup = o->cgroup != NULL;
}
