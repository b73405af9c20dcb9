// SPDX-License-Identifier: GPL-2.0
/*
 * Whole task names (names.h): interned in blocks that never move, found
 * again through the one small hash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "support/hash.h"
#include "sums/names.h"

#define BLOCK_SIZE	4096	/* > TDBPF_NAME_MAX: a name fits in one */

/* Every name stored: their pointers by hash, their text in blocks. */
static struct {
	const char **v;
	size_t nr, cap;
	struct hash_index index;
	char *block;		/* the newest block, its first 'used' in use */
	size_t used;
} store;

static bool name_is(const void *ctx, size_t i)
{
	return !strcmp(store.v[i], ctx);
}

/* Room for one more name, the index kept at most half full. */
static int grow(void)
{
	const char **v;
	size_t i;

	if (store.nr < store.cap)
		return 0;
	v = realloc(store.v, (store.cap ? 2 * store.cap : 64) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	store.v = v;
	store.cap = store.cap ? 2 * store.cap : 64;
	if (hash_index_init(&store.index, store.cap, 128))
		return -ENOMEM;
	for (i = 0; i < store.nr; i++)
		*hash_find(&store.index, hash_str(HASH_FNV_INIT, store.v[i]),
			   NULL, NULL) = i + 1;
	return 0;
}

/* @len bytes that stay where they are; NULL when out of memory. */
static char *take(size_t len)
{
	if (!store.block || store.used + len > BLOCK_SIZE) {
		/* the old block stays: names in it are still pointed to */
		store.block = malloc(BLOCK_SIZE);
		if (!store.block)
			return NULL;
		store.used = 0;
	}
	store.used += len;
	return store.block + store.used - len;
}

const char *names_intern(const char *s)
{
	char cut[TDBPF_NAME_MAX];
	size_t *slot, len;
	char *p;

	len = strnlen(s, sizeof(cut) - 1);
	memcpy(cut, s, len);
	cut[len] = '\0';
	if (grow())
		return NULL;
	slot = hash_find(&store.index, hash_str(HASH_FNV_INIT, cut), name_is,
			 cut);
	if (*slot)
		return store.v[*slot - 1];
	p = take(len + 1);
	if (!p)
		return NULL;
	memcpy(p, cut, len + 1);
	store.v[store.nr++] = p;
	*slot = store.nr;
	return p;
}
