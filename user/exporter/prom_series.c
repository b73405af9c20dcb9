// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics series table (prom_table.h): a series per label set,
 * created while --listen-max-series allows (then `other`), found by its
 * labels, ended once the one process or thread it names has gone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/prom_table.h"
#include "support/hash.h"
#include "support/text.h"

/*
 * A label value as the exposition formats want it: backslash, double
 * quote and newline escaped, and valid UTF-8 (Prometheus rejects the
 * whole scrape otherwise; a thread name can hold any byte): each byte
 * outside a valid sequence becomes U+FFFD. @dst needs 3 bytes per byte
 * of @s, plus one.
 */
char *prom_esc_label(char *dst, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, l;

	while (i < n) {
		switch (u[i]) {
		case '\\':
			*dst++ = '\\';
			*dst++ = '\\';
			i++;
			continue;
		case '"':
			*dst++ = '\\';
			*dst++ = '"';
			i++;
			continue;
		case '\n':
			*dst++ = '\\';
			*dst++ = 'n';
			i++;
			continue;
		}
		l = text_utf8_seq(u + i, n - i);
		if (!l) {
			memcpy(dst, "\xef\xbf\xbd", 3);
			dst += 3;
			i++;
			continue;
		}
		memcpy(dst, u + i, l);
		dst += l;
		i += l;
	}
	*dst = '\0';
	return dst;
}


static uint64_t key_hash(const struct prom_key *k)
{
	uint64_t h = hash_str(HASH_FNV_INIT, k->comm);

	h = hash_mix(h, 0xff);	/* not a byte of a name */
	h = hash_str(h, k->thread);
	h = hash_str(h, k->container);
	h = hash_str(h, k->pod);
	h = hash_mix(h, k->pid);
	return hash_mix(h, k->tid);
}

static bool key_is(const struct prom_series *s, const struct prom_key *k)
{
	return s->pid == k->pid && s->tid == k->tid &&
	       !strcmp(s->comm, k->comm) && !strcmp(s->thread, k->thread) &&
	       !strcmp(s->container, k->container) && !strcmp(s->pod, k->pod);
}

struct series_key {
	const struct prom_state *st;
	const struct prom_key *k;
};

static bool series_is(const void *ctx, size_t i)
{
	const struct series_key *sk = ctx;

	return key_is(sk->st->series[i], sk->k);
}

static struct prom_series *series_new(const struct prom_state *st,
				      const struct prom_key *k, bool other)
{
	size_t nr = (size_t)st->plan->nr, nn = (size_t)prom_nr_nodes(st);
	size_t labels = 3 * (sizeof(k->comm) + sizeof(k->thread)) +
			sizeof(k->container) + sizeof(k->pod) + 96;
	struct prom_series *s;
	char *p;

	s = calloc(1, sizeof(*s) + 2 * nr * sizeof(struct tdbpf_count) +
			      (nr + nn) * sizeof(double) + labels);
	if (!s)
		return NULL;
	s->raw = (struct tdbpf_count *)(s + 1);
	s->delta = s->raw + nr;
	s->scaled = (double *)(s->delta + nr);
	s->tma = s->scaled + nr;
	s->labels = (char *)(s->tma + nn);
	memcpy(s->comm, k->comm, sizeof(s->comm));
	memcpy(s->thread, k->thread, sizeof(s->thread));
	memcpy(s->container, k->container, sizeof(s->container));
	memcpy(s->pod, k->pod, sizeof(s->pod));
	s->pid = k->pid;
	s->tid = k->tid;
	/* every series of a family carries the same label names */
	p = s->labels;
	p += sprintf(p, "comm=\"");
	p = prom_esc_label(p, other ? "other" : k->comm);
	p += sprintf(p, "\",thread=\"");
	p = prom_esc_label(p, other ? "other" : k->thread);
	*p++ = '"';
	*p = '\0';
	if (st->labels & (LISTEN_LABEL_PID | LISTEN_LABEL_TID)) {
		if (other)
			p += sprintf(p, ",pid=\"\"");
		else
			p += sprintf(p, ",pid=\"%u\"", k->pid);
	}
	if (st->labels & LISTEN_LABEL_TID) {
		if (other)
			p += sprintf(p, ",tid=\"\"");
		else
			p += sprintf(p, ",tid=\"%u\"", k->tid);
	}
	/* hex and a UUID: nothing to escape; only where there is one */
	if (!other && k->container[0])
		p += sprintf(p, ",container_id=\"%s\"", k->container);
	if (!other && k->pod[0])
		sprintf(p, ",pod_uid=\"%s\"", k->pod);
	return s;
}

static int index_rebuild(struct prom_state *st, size_t cap)
{
	struct hash_index x = { 0 };
	struct prom_key k;
	size_t i;

	if (hash_index_init(&x, 0, cap))
		return -ENOMEM;
	for (i = 0; i < (size_t)st->nr_series; i++) {
		const struct prom_series *s = st->series[i];

		memset(&k, 0, sizeof(k));
		memcpy(k.comm, s->comm, sizeof(k.comm));
		memcpy(k.thread, s->thread, sizeof(k.thread));
		memcpy(k.container, s->container, sizeof(k.container));
		memcpy(k.pod, s->pod, sizeof(k.pod));
		k.pid = s->pid;
		k.tid = s->tid;
		*hash_find(&x, key_hash(&k), NULL, NULL) = i + 1;
	}
	hash_index_free(&st->index);
	st->index = x;
	return 0;
}

/* The series of @k, created while there is room; else `other`. */
struct prom_series *prom_series_get(struct prom_state *st,
				    const struct prom_key *k)
{
	struct series_key sk = { st, k };
	struct prom_series *s, **arr;
	size_t *slot = hash_find(&st->index, key_hash(k), series_is, &sk);

	if (*slot)
		return st->series[*slot - 1];
	if (st->nr_live_series >= st->max_series)
		goto other;
	if ((size_t)(st->nr_series + 1) * 2 > st->index.cap) {
		if (index_rebuild(st, st->index.cap * 2))
			goto other;
		return prom_series_get(st, k);
	}
	arr = realloc(st->series, (size_t)(st->nr_series + 1) * sizeof(*arr));
	if (!arr)
		goto other;
	st->series = arr;
	s = series_new(st, k, false);
	if (!s)
		goto other;
	st->series[st->nr_series++] = s;
	*slot = (size_t)st->nr_series;
	st->nr_live_series++;
	return s;
other:
	if (!st->other) {
		struct prom_key none = { .comm = "" };

		st->other = series_new(st, &none, true);
	}
	return st->other;
}

int prom_series_init(struct prom_state *st)
{
	return index_rebuild(st, 64);
}

void prom_series_free(struct prom_state *st)
{
	int i;

	for (i = 0; i < st->nr_series; i++)
		free(st->series[i]);
	free(st->series);
	free(st->other);
	hash_index_free(&st->index);
}


/* Series that identify one process or thread end once it has gone. */
int prom_series_expire(struct prom_state *st)
{
	int i, j, ended = 0;

	if (!(st->labels & (LISTEN_LABEL_PID | LISTEN_LABEL_TID)))
		return 0;
	for (i = 0; i < st->nr_series; i++) {
		struct prom_series *s = st->series[i];

		if (s->live) {
			s->idle = 0;
			continue;
		}
		/* shown once with its final sums, then gone (stale) */
		if (++s->idle < 2)
			continue;
		free(s);
		st->series[i] = NULL;
		st->nr_live_series--;
		ended++;
	}
	if (!ended)
		return 0;
	for (i = j = 0; i < st->nr_series; i++)
		if (st->series[i])
			st->series[j++] = st->series[i];
	st->nr_series = j;
	return index_rebuild(st, st->index.cap);
}
