/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Distances between the kernel's per-CPU variables, from its BTF, for the
 * BPF side to find this CPU's preempt count and hrtimer bases from its
 * run queue (see tdbpf_waking in bpf/wakeups.bpf.c).
 */
#ifndef TDBPF_PERCPU_H
#define TDBPF_PERCPU_H

#include <linux/types.h>

struct btf;

/*
 * Offset of per-CPU variable @to minus that of @from in @btf's
 * .data..percpu section into *@d; -ENOENT if either is not there.
 */
int percpu_distance(const struct btf *btf, const char *from, const char *to,
		    __s64 *d);

#endif /* TDBPF_PERCPU_H */
