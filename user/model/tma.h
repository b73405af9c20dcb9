/* SPDX-License-Identifier: GPL-2.0 */
/* Model-independent TMA tree evaluation and bottleneck selection. */
#ifndef TDBPF_TMA_H
#define TDBPF_TMA_H

#include "model/model.h"

struct tma_result {
	double val[MODEL_MAX_NODES];	/* fraction, NAN if not computable */
	bool over[MODEL_MAX_NODES];	/* over threshold, parents included */
	int bottleneck;			/* deepest node on the path, -1 none */
	char path[128];			/* e.g. "Backend.Memory.DRAM" */
};

/*
 * Evaluate @m's tree on scaled counts @ev (NAN for missing) down to
 * @level, mark thresholds and follow the largest node over its threshold
 * down the tree.
 */
void tma_decode(const struct model *m, const double *ev, bool smt, int level,
		struct tma_result *r);
/*
 * The same on the scaled counts @slot of @plan's slots: each slot's
 * count as its model event's (NAN where no slot counts one). The report
 * decodes a task, /metrics a series' increment, so.
 */
void tma_decode_plan(const struct event_plan *plan, const double *slot,
		     int level, struct tma_result *r);

#endif /* TDBPF_TMA_H */
