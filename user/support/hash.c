// SPDX-License-Identifier: GPL-2.0
/* The one small hash (hash.h): sizing and clearing its index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "support/hash.h"

int hash_index_init(struct hash_index *x, size_t n, size_t min)
{
	size_t cap = 1, *slot;

	while (cap < min || cap < n * 2)
		cap *= 2;
	slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	free(x->slot);
	x->slot = slot;
	x->cap = cap;
	return 0;
}

void hash_index_free(struct hash_index *x)
{
	free(x->slot);
	x->slot = NULL;
	x->cap = 0;
}

void hash_index_clear(struct hash_index *x)
{
	if (x->slot)
		memset(x->slot, 0, x->cap * sizeof(*x->slot));
}
