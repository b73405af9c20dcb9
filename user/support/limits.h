/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resource limits (ulimit): raise the open-file limit to what a run
 * needs when the hard limit allows, as perf does, and when a limit is
 * what made something fail, name it and its fix rather than the errno
 * it surfaced as (libbpf reports a failed allocation as ESRCH, "the
 * kernel lacks BTF").
 */
#ifndef TDBPF_LIMITS_H
#define TDBPF_LIMITS_H

#include <stddef.h>

/*
 * Make room for @need open files: raise the soft RLIMIT_NOFILE up to the
 * hard one. 0, or -1 with @err ("...; raise it") when the hard limit is
 * lower.
 */
int limits_nofile(size_t need, char *err, size_t len);

/*
 * Make room for @need bytes of stack: raise the soft RLIMIT_STACK up to
 * the hard one (the main thread's stack grows under the limit of the
 * moment). 0, or -1 with @err when the hard limit is lower.
 */
int limits_stack(size_t need, char *err, size_t len);

/*
 * After a failure: when the address-space limit (ulimit -v) is set and
 * leaves no room (32 MiB cannot be mapped), what to say about it, else
 * NULL. The text is a fix, for after the "; ".
 */
const char *limits_memory_hint(void);

/* In a launched command, before exec: the limits as tdbpf found them. */
void limits_restore(void);

/* After a failure: when no file descriptor is left, what to say, else NULL. */
const char *limits_nofile_hint(void);

#endif /* TDBPF_LIMITS_H */
