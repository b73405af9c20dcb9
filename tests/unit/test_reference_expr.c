// SPDX-License-Identifier: GPL-2.0
/*
 * The reference tests' own evaluator of perf's metric language, on fixed
 * expressions with known values: the other test_reference_* trust it.
 */
#include "reference/reference.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evaluator),
		cmocka_unit_test(test_lexer_ids),
	};

	return cmocka_run_group_tests_name("reference_expr", tests, NULL, NULL);
}
