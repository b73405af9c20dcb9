/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one small hash: task rows by tid and by name, folded rows by
 * process and name, /metrics series by labels, process names by tgid.
 * An index of slots over entries the caller keeps in its own array: each
 * slot is 0 (empty) or an entry's position + 1, a power-of-two number of
 * them, found by linear probing, kept at most half full by the caller.
 * Hand-written: glibc's hsearch_r keys by string only and cannot grow a
 * table, and these lookups (by tid, by process and name) sit on the
 * collect's path (a scrape of 10,000 tasks looks up each), where a static
 * inline probe with the caller's match inlined costs a few ns.
 */
#ifndef TDBPF_HASH_H
#define TDBPF_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct hash_index {
	size_t *slot;		/* entry + 1, 0 = empty */
	size_t cap;		/* a power of two, 0 before the first init */
};

#define HASH_FNV_INIT	0xcbf29ce484222325ull	/* FNV-1a, 64-bit */

/* FNV-1a: mix one byte (or a small word) into @h. */
static inline uint64_t hash_mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

/* FNV-1a over the bytes of @s. */
static inline uint64_t hash_str(uint64_t h, const char *s)
{
	while (*s)
		h = hash_mix(h, (unsigned char)*s++);
	return h;
}

/* Fibonacci hashing: ids (tids, tgids) are dense; spread neighbours. */
static inline uint64_t hash_id(uint32_t id)
{
	return ((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32;
}

/*
 * @x with room for @n entries at half load, at least @min slots (a power
 * of two), all empty; what it held is dropped. 0 or -ENOMEM (@x kept).
 */
int hash_index_init(struct hash_index *x, size_t n, size_t min);
void hash_index_free(struct hash_index *x);
/* Every slot empty, the size kept. */
void hash_index_clear(struct hash_index *x);

/*
 * The slot of the entry with hash @h that @eq(@ctx, entry) accepts, or
 * the empty slot where such an entry goes: *slot is its position + 1, or
 * 0. @eq NULL: the first empty slot (inserting what cannot be there).
 * @x must have been initialised.
 */
static inline size_t *hash_find(const struct hash_index *x, uint64_t h,
				bool (*eq)(const void *ctx, size_t entry),
				const void *ctx)
{
	size_t mask = x->cap - 1, i;

	for (i = (size_t)h & mask; x->slot[i]; i = (i + 1) & mask)
		if (eq && eq(ctx, x->slot[i] - 1))
			break;
	return &x->slot[i];
}

/*
 * By id: entries @size bytes apart from @v, each starting with its
 * 32-bit id (a tid, a tgid); the slot of the one whose id is @id, or the
 * empty slot where it goes.
 */
struct hash_id_key {
	const char *v;
	size_t size;
	uint32_t id;
};

static inline bool hash_id_is(const void *ctx, size_t entry)
{
	const struct hash_id_key *k = ctx;
	uint32_t id;

	memcpy(&id, k->v + entry * k->size, sizeof(id));
	return id == k->id;
}

static inline size_t *hash_find_id(const struct hash_index *x,
				   const void *v, size_t size, uint32_t id)
{
	const struct hash_id_key k = { v, size, id };

	return hash_find(x, hash_id(id), hash_id_is, &k);
}

#endif /* TDBPF_HASH_H */
