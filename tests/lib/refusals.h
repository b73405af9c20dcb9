/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_errors and test_errors_causes: run ./tdbpf and assert
 * its one-line refusal ("tdbpf: <problem>; <fix>") with key words, and
 * the root-only cases' skip.
 * Compiled once into the test library (tests/lib/).
 */
#ifndef TDBPF_TEST_REFUSALS_H
#define TDBPF_TEST_REFUSALS_H

#include <sys/types.h>
#include "itest.h"
#include "proc.h"

#define NOBODY	65534

/*
 * Run tdbpf @args (NULL-terminated) as @uid (and gid @uid; (uid_t)-1:
 * as the test) with environment changes @env, for up to @timeout_s:
 * its status, both streams in @r.
 */
int run_tdbpf(uid_t uid, char *const env[], const char *const *args,
	      int timeout_s, struct run_result *r);

/* Run tdbpf with @args; assert the one-line refusal with every key word. */
void refused_as(uid_t uid, char *const env[], const char *const *args,
		const char *const *words);

#define ARGS(...)  ((const char *const[]){ __VA_ARGS__, NULL })
#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define REFUSED(args, words) refused_as((uid_t)-1, NULL, args, words)

int need_root(void);

#define NEED_ROOT() SKIP_UNLESS(need_root())

#endif /* TDBPF_TEST_REFUSALS_H */
