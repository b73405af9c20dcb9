/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every root integration test includes: the test library's
 * processes (proc.h), tdbpf helpers (itest.h) and JSON accessors
 * (json_get.h), compiled once into build/tests/lib/libtdbpftest.a, and
 * the two things that must be in each binary itself: the test filter
 * read before main(), and NEED_BPF()'s skip(). Tests run from the
 * repository root (make test does that).
 */
#ifndef TDBPF_TEST_HELPERS_H
#define TDBPF_TEST_HELPERS_H

#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "has_all.h"
#include "itest.h"
#include "json_get.h"
#include "proc.h"

/*
 * TDBPF_TEST_SKIP=PATTERN skips the tests whose names match (cmocka's
 * '*' and '?'), reported as skipped: make vmtest's guests leave out
 * the tests whose tolerances assume native speed (tests/vm/checks-x86
 * says which and why). TDBPF_TEST=PATTERN runs only the tests that
 * match (one test, again and again, to catch a rare failure). Before
 * main(), so no test's main() needs it; here, not in the library, as
 * a linker keeps no object of an archive that nothing calls.
 */
__attribute__((constructor)) static void skip_from_env(void)
{
	const char *p = getenv("TDBPF_TEST_SKIP");

	if (p && *p)
		cmocka_set_skip_filter(p);
	p = getenv("TDBPF_TEST");
	if (p && *p)
		cmocka_set_test_filter(p);
}

#define NEED_BPF() SKIP_UNLESS(need_bpf())

#endif /* TDBPF_TEST_HELPERS_H */
