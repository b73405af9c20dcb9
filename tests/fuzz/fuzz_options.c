// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: parse_options on an argv made of the input split at
 * NUL bytes (argv[0] is "tdbpf"). Beyond memory safety, the contract:
 * a rejection is one line, an accepted invocation is self-consistent.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/options.h"
#include "commands/subcommands.h"

#define MAX_ARGS	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS + 2], *buf, *p, *end;
	struct options o;
	char err[512];
	int argc = 0, rc;

	/* a private, NUL-terminated copy: getopt may permute argv */
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[argc++] = "tdbpf";
	for (p = buf, end = buf + size; p < end && argc <= MAX_ARGS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	err[0] = 0;
	rc = parse_options(argc, argv, &o, err, sizeof(err));
	if (rc) {
		if (rc != -1 || !err[0] || strchr(err, '\n'))
			abort();
	} else if (o.cmd == CMD_TRACE) {
		/*
		 * exactly one kind of target (-G taking -a's place), or a
		 * command alone; a command beside one bounds the run
		 */
		int n = (o.nr_pids > 0) + (o.nr_tids > 0) + o.all +
			(o.cgroup != NULL);

		if (n > 1 || (!n && !o.argv) ||
		    o.argv_bounds != (n && o.argv != NULL))
			abort();
		if (o.nr_pids > OPT_MAX_TARGETS || o.nr_tids > OPT_MAX_TARGETS)
			abort();
		if (o.duration < 0 || o.interval_ms < 0 || o.top < 0 ||
		    o.level < 0 || o.level > 3 || (o.sep && o.json))
			abort();
		if (o.argv && !o.argv[0])
			abort();
	} else if (o.cmd == CMD_DECODE && !o.model) {
		abort();
	}
	free(buf);
	return 0;
}
