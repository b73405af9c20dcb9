// SPDX-License-Identifier: GPL-2.0
/*
 * The Arm Neoverse models (TopdownL1, Cycle_Accounting) against perf's
 * own event and metric JSON: every check of reference/ for each of them
 * (see reference/reference.h).
 */
#include "reference/reference.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		MODEL_TESTS(7, "neoverse-n1"),
		MODEL_TESTS(8, "neoverse-n2"),
		MODEL_TESTS(9, "neoverse-v1"),
		MODEL_TESTS(10, "neoverse-v2"),
	};

	return ref_run("reference_arm", tests, sizeof(tests) / sizeof(tests[0]));
}
