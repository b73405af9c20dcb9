/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks shared by test_attach and test_attach_counters: a thread's
 * on-CPU time against its own CLOCK_THREAD_CPUTIME_ID, and its coverage
 * against the slices no tracepoint showed.
 *
 * Tolerance: 2% of the thread's clock (the bound) plus 1 ms, for
 * the exit path a thread runs after it read its clock.
 */
#ifndef TDBPF_TEST_ATTACH_HELPERS_H
#define TDBPF_TEST_ATTACH_HELPERS_H

#include <math.h>
#include "helpers.h"
#include "attach_checks.h"

#endif /* TDBPF_TEST_ATTACH_HELPERS_H */
