/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which kernel functions this kernel lets a BPF program hook, and how:
 * fentry/fexit (a BPF trampoline) or a kprobe. Probed, not assumed: a
 * function may be inlined, renamed or not built in, and a kernel may
 * have no trampolines for its architecture or no kprobes at all.
 */
#ifndef TDBPF_FNHOOKS_H
#define TDBPF_FNHOOKS_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

/*
 * fentry and fexit on @fn: a function of that name in the kernel's BTF
 * @btf, and a program that does nothing loaded for it and attached.
 */
bool fnhooks_fentry(const struct btf *btf, const char *fn);

/*
 * kprobes on each of @fns (@n of them) into @have: the kernel takes
 * kprobes, and ftrace lists the function (available_filter_functions:
 * not inlined everywhere, not blacklisted), or, without tracefs, it is
 * a text symbol in /proc/kallsyms.
 */
void fnhooks_kprobes(const char *const *fns, bool *have, size_t n);

#endif /* TDBPF_FNHOOKS_H */
