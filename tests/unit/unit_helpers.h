/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the unit tests; include after <cmocka.h>. */
#ifndef TDBPF_UNIT_HELPERS_H
#define TDBPF_UNIT_HELPERS_H

#include <stdio.h>
#include <stdlib.h>

/* What was written to @f (a tmpfile), as a string; closes @f. */
static inline char *slurp(FILE *f)
{
	long len = ftell(f);
	char *buf;

	assert_true(len >= 0);
	buf = malloc(len + 1);
	assert_non_null(buf);
	rewind(f);
	assert_int_equal(fread(buf, 1, len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

#endif /* TDBPF_UNIT_HELPERS_H */
