/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Input of `tdbpf decode`: counts gathered elsewhere, one per line, either
 * "EVENT VALUE" or perf stat -x, CSV ("VALUE,UNIT,EVENT,...").
 */
#ifndef TDBPF_DECODE_INPUT_H
#define TDBPF_DECODE_INPUT_H

#include <stddef.h>
#include <stdio.h>
#include "model/model.h"

/*
 * Read counts for @m's events from @f into @ev (m->nr_events entries, set
 * to NAN first; events not given, or given as <not counted> or
 * <not supported>, stay NAN). Blank lines and lines starting with '#' are
 * skipped. Returns 0, or -1 with @err = "line N: <problem>; <fix>" for the
 * first bad line: unknown event, negative, non-numeric or overflowing
 * (> 2^64-1) value, or a second count for the same event.
 */
int decode_input_parse(FILE *f, const struct model *m, double *ev,
		       char *err, size_t errlen);

#endif /* TDBPF_DECODE_INPUT_H */
