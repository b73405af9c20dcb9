// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: evsel_parse on the input as one -e argument, against
 * the sysfs and tracefs fixture of tests/fixtures/evsel (run from the
 * repository root). Beyond memory safety, the contract: a refusal is one
 * line; an accepted list holds names safe to print unescaped, groups
 * numbered in order, each group within GROUP_MAX_EVENTS.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/evsel.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct evsel_env env = {
		.pmu_dir = "tests/fixtures/evsel/pmu",
		.tracefs = "tests/fixtures/evsel/tracing",
	};
	static struct evsel_list l;
	char *spec, err[512];
	const char *p;
	int i, n;

	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = 0;
	evsel_init(&l);
	err[0] = 0;
	if (evsel_parse(&l, spec, &env, err, sizeof(err))) {
		if (!err[0] || strchr(err, '\n'))
			abort();
		free(spec);
		return 0;
	}
	for (i = 0, n = 1; i < l.nr; i++) {
		for (p = l.ev[i].name; *p; p++)
			if (*p <= 0x20 || *p >= 0x7f || *p == '"' ||
			    *p == '\\')
				abort();
		if (i && l.group[i] != l.group[i - 1]) {
			if (l.group[i] != l.group[i - 1] + 1)
				abort();
			n = 1;
		} else if (i && ++n > GROUP_MAX_EVENTS) {
			abort();
		}
	}
	if (l.nr && l.group[l.nr - 1] != l.nr_groups - 1)
		abort();
	free(spec);
	return 0;
}
