// SPDX-License-Identifier: GPL-2.0
/*
 * The Intel models (TMA levels 1-3) against perf's own event and
 * metric JSON: every check of reference/ for each of them (see
 * reference/reference.h).
 */
#include "reference/reference.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		MODEL_TESTS(0, "broadwellx"),
		MODEL_TESTS(1, "broadwell"),
		MODEL_TESTS(2, "icelakex"),
		MODEL_TESTS(3, "icelake"),
		MODEL_TESTS(4, "sapphirerapids"),
		MODEL_TESTS(11, "skylakex"),
		MODEL_TESTS(12, "cascadelakex"),
		MODEL_TESTS(13, "skylake"),
		MODEL_TESTS(14, "emeraldrapids"),
		MODEL_TESTS(15, "graniterapids"),
	};

	return ref_run("reference_intel", tests, sizeof(tests) / sizeof(tests[0]));
}
