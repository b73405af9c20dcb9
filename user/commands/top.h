/* SPDX-License-Identifier: GPL-2.0 */
/* tdbpf top: a live full-screen view of the targets (top.c). */
#ifndef TDBPF_TOP_H
#define TDBPF_TOP_H

#include <stdbool.h>
#include <stdio.h>
#include "commands/options.h"
#include "model/model.h"

/*
 * Trace what @o asks for with @plan and draw it every -I until q, a
 * signal, -d or the targets' exit; the whole run's report to @out with
 * -o. The exit code; errors are one line, after the terminal is back.
 */
/* stdin and stdout are a terminal top can draw on and read keys from. */
bool top_has_terminal(void);
int top_run(const struct options *o, const struct event_plan *plan,
	    FILE *out);

#endif /* TDBPF_TOP_H */
