// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU variables in the kernel's BTF: the .data..percpu DATASEC lists
 * each variable with its offset in the section. A variable's address on
 * a CPU is that CPU's per-CPU base plus its offset, so two variables are
 * the same distance apart on every CPU.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "sources/percpu.h"

static int var_offset(const struct btf *btf, const struct btf_type *sec,
		      const char *name, __s64 *off)
{
	const struct btf_var_secinfo *v = btf_var_secinfos(sec);
	int i;

	for (i = 0; i < btf_vlen(sec); i++, v++) {
		const struct btf_type *t = btf__type_by_id(btf, v->type);

		if (t && !strcmp(btf__name_by_offset(btf, t->name_off), name)) {
			*off = v->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int percpu_distance(const struct btf *btf, const char *from, const char *to,
		    __s64 *d)
{
	const struct btf_type *sec;
	__s64 a, b;
	int id;

	id = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	if (id < 0)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	if (var_offset(btf, sec, from, &a) || var_offset(btf, sec, to, &b))
		return -ENOENT;
	*d = b - a;
	return 0;
}
