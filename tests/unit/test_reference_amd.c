// SPDX-License-Identifier: GPL-2.0
/*
 * The AMD models (PipelineL1-L2) against perf's own event and
 * metric JSON: every check of reference/ for each of them (see
 * reference/reference.h).
 */
#include "reference/reference.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		MODEL_TESTS(5, "amdzen4"),
		MODEL_TESTS(6, "amdzen5"),
	};

	return ref_run("reference_amd", tests, sizeof(tests) / sizeof(tests[0]));
}
