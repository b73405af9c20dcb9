// SPDX-License-Identifier: GPL-2.0
/* The strings a test's text must hold, or must not (has_all.h). */
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

void has_none(const char *s, const char *const *unwanted)
{
	if (!s)
		fail_msg("no text to look for \"%s\" in", *unwanted);
	for (; *unwanted; unwanted++)
		if (strstr(s, *unwanted)) {
			print_error("\"%s\" in:\n%s\n", *unwanted, s);
			fail();
		}
}

bool str_in(char *const *v, int nr, const char *s)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

int lines_with(const char *text, const char *what)
{
	const char *p = text;
	int n = 0;

	while (p && (p = strstr(p, what))) {
		n++;
		p = strchr(p, '\n');
	}
	return n;
}
