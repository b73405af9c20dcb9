/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel features tdbpf can do without (docs/kernels.md): probed at
 * start, each missing one's programs or calls left out, and named in one
 * line on stderr. What it cannot do without (BTF, tp_btf, task storage,
 * the task iterator) fails the load instead.
 */
#ifndef TDBPF_KFEATURES_H
#define TDBPF_KFEATURES_H

#include <stdbool.h>

enum kfeature {
	KF_SWITCH_STATE,	/* sched_switch's prev_state argument, 5.18 */
	KF_LOOP,		/* bpf_loop(), 5.17 */
	KF_PERCPU_LOOKUP,	/* bpf_map_lookup_percpu_elem(), 5.19 */
	KF_NR,
};

/*
 * A comma-separated list of the names above (prev_state, bpf_loop,
 * percpu_lookup) into the bits of *@off: TDBPF_KERNEL_LACKS, a test hook
 * that makes a feature this kernel has look missing. -EINVAL, with the
 * word that is not one in *@bad, for another word.
 */
int kfeatures_parse(const char *list, unsigned int *off, const char **bad);

/*
 * The bits of the features this kernel has, less those of @off; the
 * helpers' probes (a program loaded each) only when @helpers (the graph
 * and --span use them).
 */
unsigned int kfeatures_probe(unsigned int off, bool helpers);

/*
 * One line on stderr for each feature missing from @have that this run
 * uses (@wakeups: the graph's; @switch_runs: a program at every switch),
 * saying what it does without it.
 */
void kfeatures_report(unsigned int have, bool wakeups, bool switch_runs);

#endif /* TDBPF_KFEATURES_H */
