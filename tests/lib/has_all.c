// SPDX-License-Identifier: GPL-2.0
/* The strings a test's text must hold (has_all.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "has_all.h"

void has_all(const char *s, const char *const *want)
{
	for (; *want; want++)
		if (!s || !strstr(s, *want)) {
			print_error("no \"%s\" in:\n%s\n", *want, s ? s : "(null)");
			fail();
		}
}
