// SPDX-License-Identifier: GPL-2.0
/*
 * Word lists for shell completion, printed from the program's own tables
 * so that completion cannot drift from what the options accept (perf's
 * completion asks perf the same way: perf list --raw-dump). Options and
 * subcommands come from --help, which the completion reads itself.
 */
#include <string.h>
#include "commands/complete.h"
#include "commands/options.h"
#include "model/model.h"

int complete_print(FILE *out, const char *what)
{
	int i;

	if (!strcmp(what, "models")) {
		for (i = 0; models[i]; i++)
			fprintf(out, "%s\n", models[i]->name);
	} else if (!strcmp(what, "sort")) {
		for (i = 0; i < SORT_NR; i++)
			fprintf(out, "%s\n", sort_names[i]);
	} else {
		fprintf(stderr,
			"tdbpf: unknown completion list '%s'; use models or sort\n",
			what);
		return 2;
	}
	return fflush(out) ? 1 : 0;
}
