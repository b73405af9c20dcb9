// SPDX-License-Identifier: GPL-2.0
/*
 * Error lines that must be cut keep their ends: the problem first, the
 * fix last; the quoted argument in the middle gives way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "support/error.h"

static void test_fits_whole(void **state)
{
	char b[32];

	(void)state;
	error_fit(b, sizeof(b), "short; fix");
	assert_string_equal(b, "short; fix");
	/* 31 bytes and the NUL: exactly full, nothing cut */
	error_fit(b, sizeof(b), "0123456789012345678901234567890");
	assert_string_equal(b, "0123456789012345678901234567890");
}

static void test_middle_cut(void **state)
{
	char b[32], line[] = "problem 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'; the fix";

	(void)state;
	error_fit(b, sizeof(b), line);
	assert_int_equal(strlen(b), 31);
	/* (32 - 1 - 5) / 3 = 8 bytes of the start, 18 of the end */
	assert_string_equal(b, "problem [...]xxxxxxxx'; the fix");
	/* in place */
	error_fit(line, sizeof(b), line);
	assert_string_equal(line, b);
}

/* error_set() on a 3,000-byte argument: the 512-byte line ends in the fix */
static void test_error_set_keeps_fix(void **state)
{
	char arg[3001], err[512];

	(void)state;
	memset(arg, 'x', sizeof(arg) - 1);
	arg[sizeof(arg) - 1] = 0;
	assert_int_equal(error_set(err, sizeof(err),
				   "invalid --listen '%s'\n; give HOST:PORT, e.g. --listen 127.0.0.1:9100",
				   arg),
			 -1);
	assert_int_equal(strlen(err), 511);
	assert_true(!strncmp(err, "invalid --listen 'xxx", 21));
	assert_non_null(strstr(err, "[...]"));
	/* the newline made printable, the fix whole */
	assert_non_null(strstr(err,
			       "'?; give HOST:PORT, e.g. --listen 127.0.0.1:9100"));
	assert_null(strchr(err, '\n'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fits_whole),
		cmocka_unit_test(test_middle_cut),
		cmocka_unit_test(test_error_set_keeps_fix),
	};

	return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
