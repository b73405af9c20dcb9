// SPDX-License-Identifier: GPL-2.0
/* An array that grows as it is appended to (array.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "support/array.h"

int array_grow(void *pv, size_t *cap, size_t nr, size_t size, size_t min)
{
	size_t n = *cap ? 2 * *cap : min;
	void *v;

	if (nr < *cap)
		return 0;
	/* *@pv is a T *, not a void *: read and written as bytes */
	memcpy(&v, pv, sizeof(v));
	v = realloc(v, n * size);
	if (!v)
		return -ENOMEM;
	memcpy(pv, &v, sizeof(v));
	*cap = n;
	return 0;
}

int array_copy(void *pv, size_t *cap, const void *src, size_t nr,
	       size_t size)
{
	void *v;

	memcpy(&v, pv, sizeof(v));
	if (nr > *cap) {
		v = realloc(v, nr * size);
		if (!v)
			return -ENOMEM;
		memcpy(pv, &v, sizeof(v));
		*cap = nr;
	}
	if (nr)
		memcpy(v, src, nr * size);
	return 0;
}
