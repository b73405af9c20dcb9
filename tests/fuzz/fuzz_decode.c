// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the `tdbpf decode` input parser on arbitrary bytes,
 * for every model (event names differ per model, and so do the paths
 * through the name matcher).
 *
 * The parser's contract is checked too, not only its memory safety: on
 * success every count is NAN or a finite non-negative number below 2^64;
 * on failure every count is NAN and the error is one line. Counts that
 * parse are then decoded at every level, SMT on and off, as `tdbpf decode`
 * would.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/tma.h"
#include "sources/decode_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double ev[MODEL_MAX_EVENTS];
	char err[512];
	int i, k, rc;
	FILE *f;

	/* fmemopen of an empty buffer fails with EINVAL on glibc */
	if (!size)
		return 0;
	for (i = 0; models[i]; i++) {
		f = fmemopen((void *)data, size, "r");
		if (!f)
			abort();
		err[0] = 0;
		rc = decode_input_parse(f, models[i], ev, err, sizeof(err));
		fclose(f);
		for (k = 0; k < models[i]->nr_events; k++) {
			if (isnan(ev[k]))
				continue;
			if (rc || !(ev[k] >= 0 && ev[k] <= 18446744073709551616.0))
				abort();
		}
		if (rc && (!err[0] || strchr(err, '\n')))
			abort();
		if (!rc && models[i]->max_level) {
			struct tma_result r;
			int level;

			for (level = 1; level <= models[i]->max_level; level++) {
				tma_decode(models[i], ev, true, level, &r);
				tma_decode(models[i], ev, false, level, &r);
				if (r.bottleneck >= models[i]->nr_nodes ||
				    !memchr(r.path, 0, sizeof(r.path)))
					abort();
			}
		}
	}
	return 0;
}
