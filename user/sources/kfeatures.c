// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel features tdbpf can do without (kfeatures.h): each found the
 * way bcc's libbpf-tools do, by the kernel's BTF or by loading a program
 * that calls the helper.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "sources/kfeatures.h"

static const struct {
	const char *name;	/* TDBPF_KERNEL_LACKS's word */
	const char *what;	/* the feature, as the line names it */
	const char *since;	/* the release that brought it */
	const char *without;	/* what this run does instead */
	bool graph;		/* used by the graph (--wakeups) only */
} kf[KF_NR] = {
	[KF_SWITCH_STATE] = { "prev_state", "sched_switch's prev_state",
			      "5.18",
			      "a block is told from a preemption by the task's state at the switch",
			      false },
	[KF_LOOP] = { "bpf_loop", "bpf_loop", "5.17",
		      "the walk over a CPU's last holders is off: a run-queue wait goes to the newest one, the rest to cpu-unseen",
		      true },
	[KF_PERCPU_LOOKUP] = { "percpu_lookup", "bpf_map_lookup_percpu_elem",
			       "5.19",
			       "run-queue waits charged to other CPUs' holders are off: a wait is its own CPU's",
			       true },
};

int kfeatures_parse(const char *list, unsigned int *off, const char **bad)
{
	static char word[64];
	const char *p = list, *e;
	size_t n;
	int i;

	*off = 0;
	while (p && *p) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		for (i = 0; i < KF_NR; i++)
			if (strlen(kf[i].name) == n &&
			    !strncmp(kf[i].name, p, n))
				break;
		if (i == KF_NR) {
			snprintf(word, sizeof(word), "%.*s", (int)n, p);
			*bad = word;
			return -EINVAL;
		}
		*off |= 1U << i;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/*
 * Linux 5.18 gave sched_switch its prev_state argument: true where the
 * BTF's prototype of the tracepoint (its typedef is a pointer to one,
 * the context first) has five parameters. No BTF: true, told at load.
 */
static bool switch_has_state(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *p;
	bool ok = true;
	int id;

	if (!btf)
		return true;
	id = btf__find_by_name_kind(btf, "btf_trace_sched_switch",
				    BTF_KIND_TYPEDEF);
	p = id < 0 ? NULL : btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (p && btf_is_ptr(p))
		p = btf__type_by_id(btf, p->type);
	if (p && btf_is_func_proto(p))
		ok = btf_vlen(p) >= 5;
	btf__free(btf);
	return ok;
}

static bool has_helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, id,
				       NULL) > 0;
}

unsigned int kfeatures_probe(unsigned int off, bool helpers)
{
	unsigned int have = 0;

	if (switch_has_state())
		have |= 1U << KF_SWITCH_STATE;
	if (helpers && has_helper(BPF_FUNC_loop))
		have |= 1U << KF_LOOP;
	if (helpers && has_helper(BPF_FUNC_map_lookup_percpu_elem))
		have |= 1U << KF_PERCPU_LOOKUP;
	return have & ~off;
}

void kfeatures_report(unsigned int have, bool wakeups, bool switch_runs)
{
	int i;

	for (i = 0; i < KF_NR; i++)
		if (!(have & (1U << i)) && (kf[i].graph ? wakeups : switch_runs))
			fprintf(stderr, "tdbpf: kernel lacks %s (Linux %s): %s\n",
				kf[i].what, kf[i].since, kf[i].without);
}
