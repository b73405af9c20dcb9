/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the offline model tests (test_models, test_intel_models):
 * run `tdbpf list -j` and `tdbpf decode -j` as a user does and read their
 * JSON. Kept apart from helpers.h: other tests have a jstr_of() of their own
 * that does not fail on a missing key.
 */
#ifndef TDBPF_TEST_MODELS_H
#define TDBPF_TEST_MODELS_H

#include <math.h>
#include "helpers.h"
#include "model_cmds.h"

#endif /* TDBPF_TEST_MODELS_H */
