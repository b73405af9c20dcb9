/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The socket hooks' programs (bpf/sockets.bpf.c), chosen before load:
 * for each hook its tracepoint where the kernel has it, else the kernel
 * function it sits in, through fentry/fexit or else a kprobe.
 */
#ifndef TDBPF_SOCK_HOOKS_H
#define TDBPF_SOCK_HOOKS_H

#include <stdbool.h>

struct tracer;

/* The kinds of hook, in the order they are tried. */
enum sock_hook_kind {
	SOCK_HOOK_TRACEPOINT,
	SOCK_HOOK_FENTRY,
	SOCK_HOOK_KPROBE,
	SOCK_HOOK_NONE,
};

/*
 * "tracepoint", "fentry" or "kprobe" (TDBPF_SOCK_HOOKS: the first kind
 * to try, for tests of the older kernels' paths) into *@kind; -EINVAL
 * for another word.
 */
int sock_hooks_kind(const char *word, enum sock_hook_kind *kind);

/*
 * Autoload each hook's chosen programs, none of the others; when a hook
 * the rest needs has none, no socket program at all (@on false: none
 * either). Sets the BPF side's track_sockets. With -v, one line a hook
 * says what was chosen.
 */
void sock_hooks_choose(struct tracer *t, bool on);

#endif /* TDBPF_SOCK_HOOKS_H */
