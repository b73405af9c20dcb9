/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -r N, as perf stat -r: -- COMMAND run and traced N times, one report
 * of each name's mean figures and their spread (+- %, perf's relative
 * standard deviation of the mean), as a table, CSV (-x) or JSON (-j).
 */
#ifndef TDBPF_REPEAT_H
#define TDBPF_REPEAT_H

#include <stdio.h>
#include "commands/options.h"
#include "model/model.h"

/* The process exit code: the first failing run's status, else 0. */
int repeat_run(const struct options *o, const struct event_plan *plan,
	       FILE *out);

#endif /* TDBPF_REPEAT_H */
