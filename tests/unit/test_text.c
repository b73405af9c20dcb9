// SPDX-License-Identifier: GPL-2.0
/* The printable-text sanitizer: what it replaces, where it cuts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support/text.h"

static void test_control_bytes(void **state)
{
	char b[32];

	(void)state;
	/* UTF-8 stays (error lines quote names as they are) */
	assert_string_equal(text_printable(b, sizeof(b), "a\nb\x1b[0m\x7f\xc3\xa9",
					   NULL, 0),
			    "a?b?[0m?\xc3\xa9");
	assert_string_equal(text_printable(b, sizeof(b), "a\xc3\xa9z", NULL,
					   TEXT_ASCII),
			    "a??z");
	/* a CSV separator of several characters */
	assert_string_equal(text_printable(b, sizeof(b), "w,1;2\t", ",;", 0),
			    "w?1?2?");
}

static void test_cut(void **state)
{
	char b[8], s[] = "abc\n";

	(void)state;
	assert_string_equal(text_printable(b, sizeof(b), "0123456789", NULL,
					   0),
			    "0123456");
	assert_string_equal(text_printable(b, sizeof(b), "0123456789", NULL,
					   TEXT_ELLIPSIS),
			    "0123...");
	assert_string_equal(text_printable(b, sizeof(b), "0123", NULL,
					   TEXT_ELLIPSIS),
			    "0123");
	/* in place */
	assert_string_equal(text_printable(s, sizeof(s), s, NULL, 0), "abc?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_bytes),
		cmocka_unit_test(test_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
