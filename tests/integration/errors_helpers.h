/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_errors and test_errors_causes: run ./tdbpf and assert
 * its one-line refusal ("tdbpf: <problem>; <fix>") with key words, and
 * the root-only cases' skip.
 */
#ifndef TDBPF_TEST_ERRORS_HELPERS_H
#define TDBPF_TEST_ERRORS_HELPERS_H

#include <pwd.h>
#include "helpers.h"
#include "refusals.h"

#endif /* TDBPF_TEST_ERRORS_HELPERS_H */
