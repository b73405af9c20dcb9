// SPDX-License-Identifier: GPL-2.0
/*
 * Probing kernel functions for hooks (fnhooks.h), as libbpf-tools do it
 * (trace_helpers.c: fentry_can_attach, kprobe_exists): a trampoline is
 * tried for real, since a kernel can have the BTF and still refuse it
 * (no ftrace direct calls on its architecture, a locked-down kernel).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "sources/fnhooks.h"
#include "support/array.h"

bool fnhooks_fentry(const struct btf *btf, const char *fn)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = BPF_TRACE_FENTRY);
	int id, fd, link;

	id = btf ? btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC) : -1;
	if (id < 0)
		return false;
	o.attach_btf_id = (__u32)id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "tdbpf_probe", "GPL", insns,
			   ARRAY_SIZE(insns), &o);
	if (fd < 0)
		return false;
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link >= 0)
		close(link);
	close(fd);
	return link >= 0;
}

/* The kernel takes kprobes: the perf PMU libbpf uses, or tracefs's */
static bool kprobes_on(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

/* Every @fns found in @path (its name the first word of a line, or the
 * third of kallsyms' text symbols) marked in @have; false: no file. */
static bool scan(const char *path, bool kallsyms, const char *const *fns,
		 bool *have, size_t n)
{
	FILE *f = fopen(path, "re");
	char line[256], name[128], type;
	size_t i;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (kallsyms) {
			if (sscanf(line, "%*s %c %127s", &type, name) != 2 ||
			    (type != 't' && type != 'T'))
				continue;
		} else if (sscanf(line, "%127s", name) != 1) {
			continue;
		}
		for (i = 0; i < n; i++)
			if (!strcmp(name, fns[i]))
				have[i] = true;
	}
	fclose(f);
	return true;
}

void fnhooks_kprobes(const char *const *fns, bool *have, size_t n)
{
	static const char *const ftrace[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	size_t i;

	memset(have, 0, n * sizeof(*have));
	if (!kprobes_on())
		return;
	for (i = 0; i < ARRAY_SIZE(ftrace); i++)
		if (scan(ftrace[i], false, fns, have, n))
			return;
	scan("/proc/kallsyms", true, fns, have, n);
}
