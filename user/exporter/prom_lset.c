// SPDX-License-Identifier: GPL-2.0
/*
 * Series found by the text of their labels (prom_table.h): the waits'
 * and the spans', whose label sets are made whole per scrape, as no key
 * of fields can hold a waker's or a span's name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/prom_table.h"

/* An entry's labels: its first member */
static const char *labels_of(const void *e)
{
	return *(char *const *)e;
}

void *prom_lset_new(const char *labels, size_t size)
{
	char **e = calloc(1, size);

	if (e && !(*e = strdup(labels))) {
		free(e);
		e = NULL;
	}
	return e;
}

void prom_lset_entry_free(void *e)
{
	if (e)
		free(*(char **)e);
	free(e);
}

static int rebuild(struct prom_lset *s, size_t cap)
{
	struct hash_index x = { 0 };
	int i;

	if (hash_index_init(&x, 0, cap))
		return -ENOMEM;
	for (i = 0; i < s->nr; i++)
		*hash_find(&x, hash_str(HASH_FNV_INIT, labels_of(s->v[i])),
			   NULL, NULL) = (size_t)i + 1;
	hash_index_free(&s->index);
	s->index = x;
	return 0;
}

struct lset_key {
	const struct prom_lset *s;
	const char *labels;
};

static bool lset_is(const void *ctx, size_t i)
{
	const struct lset_key *k = ctx;

	return !strcmp(labels_of(k->s->v[i]), k->labels);
}

int prom_lset_get(struct prom_lset *s, const char *labels, size_t size,
		  int max, void **out)
{
	struct lset_key k = { s, labels };
	size_t *slot;
	void **arr;

	*out = NULL;
	if (!s->index.cap && rebuild(s, 64))
		return -ENOMEM;
	slot = hash_find(&s->index, hash_str(HASH_FNV_INIT, labels), lset_is,
			 &k);
	if (*slot) {
		*out = s->v[*slot - 1];
		return 0;
	}
	if (s->nr >= max)
		return 0;
	if ((size_t)(s->nr + 1) * 2 > s->index.cap) {
		if (rebuild(s, s->index.cap * 2))
			return 0;
		return prom_lset_get(s, labels, size, max, out);
	}
	arr = realloc(s->v, (size_t)(s->nr + 1) * sizeof(*arr));
	if (!arr)
		return 0;
	s->v = arr;
	*out = prom_lset_new(labels, size);
	if (*out) {
		s->v[s->nr++] = *out;
		*slot = (size_t)s->nr;
	}
	return 0;
}

void prom_lset_free(struct prom_lset *s)
{
	int i;

	for (i = 0; i < s->nr; i++)
		prom_lset_entry_free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->nr = 0;
	hash_index_free(&s->index);
}
