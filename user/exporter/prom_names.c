// SPDX-License-Identifier: GPL-2.0
/*
 * /metrics labels (prom_table.h): a task's process name (its main
 * thread's row, else what the last scrape knew, else the host's, through
 * st->process_name) and the label set its increments go to.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exporter/prom_table.h"
#include "sums/archive.h"
#include "support/hash.h"

struct pcomm_entry {
	__u32 tgid;		/* 0 = empty */
	char comm[TDBPF_COMM_LEN + 1];
};

struct pcomm_map {
	struct pcomm_entry *e;	/* nr of them, room for the table's rows */
	size_t nr;
	struct hash_index x;	/* tgid -> entry + 1 */
};

/* the id leads the entry: hash_find_id's lookup */
_Static_assert(offsetof(struct pcomm_entry, tgid) == 0, "tgid first");

static size_t *pcomm_slot(const struct pcomm_map *m, __u32 tgid)
{
	return hash_find_id(&m->x, m->e, sizeof(*m->e), tgid);
}

static struct pcomm_entry *pcomm_find(const struct pcomm_map *m, __u32 tgid)
{
	size_t *slot;

	if (!m)
		return NULL;
	slot = pcomm_slot(m, tgid);
	return *slot ? &m->e[*slot - 1] : NULL;
}

/* The entry of @tgid, added (unnamed) if new. */
static struct pcomm_entry *pcomm_add(struct pcomm_map *m, __u32 tgid)
{
	size_t *slot = pcomm_slot(m, tgid);
	struct pcomm_entry *e;

	if (*slot)
		return &m->e[*slot - 1];
	e = &m->e[m->nr++];
	e->tgid = tgid;
	e->comm[0] = '\0';
	*slot = m->nr;
	return e;
}

void prom_names_free(struct pcomm_map *m)
{
	if (m) {
		free(m->e);
		hash_index_free(&m->x);
	}
	free(m);
}

static void copy_name(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * tgid -> process name for the tgids of @cur: the main thread's own row
 * when the table has it (the newest name), else what the previous scrape
 * knew, else st->process_name. Rebuilt each update so it never outgrows the table.
 */
int prom_names_update(struct prom_state *st, const struct task_table *cur)
{
	struct pcomm_map *m = calloc(1, sizeof(*m));
	struct pcomm_entry *e, *old;
	size_t i;

	if (!m)
		return -ENOMEM;
	/* at most one entry per row */
	m->e = calloc(cur->nr + 1, sizeof(*m->e));
	if (!m->e || hash_index_init(&m->x, cur->nr, 64)) {
		prom_names_free(m);
		return -ENOMEM;
	}
	for (i = 0; i < cur->nr; i++) {
		const struct task_row *r = tasks_row(cur, i);

		if (!r->pid || r->tid != r->pid)
			continue;
		e = pcomm_add(m, r->pid);
		copy_name(e->comm, sizeof(e->comm), r->comm);
	}
	for (i = 0; i < cur->nr; i++) {
		const struct task_row *r = tasks_row(cur, i);

		if (!r->pid || pcomm_find(m, r->pid))
			continue;
		e = pcomm_add(m, r->pid);
		old = pcomm_find(st->pcomm, r->pid);
		if (old)
			memcpy(e->comm, old->comm, sizeof(e->comm));
		else if (st->process_name)
			st->process_name(r->pid, e->comm, sizeof(e->comm));
	}
	prom_names_free(st->pcomm);
	st->pcomm = m;
	return 0;
}


/* The labels @r has now. */
void prom_key_of(const struct prom_state *st, const struct task_row *r,
		 struct prom_key *k)
{
	struct pcomm_entry *e = pcomm_find(st->pcomm, r->pid);
	const struct task_cgroup *c;

	memset(k, 0, sizeof(*k));
	if (e)
		memcpy(k->comm, e->comm, sizeof(k->comm));
	if (st->labels & LISTEN_LABEL_TID)
		copy_name(k->thread, sizeof(k->thread), task_name(r));
	else
		fold_name(task_name(r), k->thread, sizeof(k->thread));
	if (st->labels & (LISTEN_LABEL_PID | LISTEN_LABEL_TID))
		k->pid = r->pid;
	if (st->labels & LISTEN_LABEL_TID)
		k->tid = r->tid;
	/* bounded: as many more series as containers run these names */
	c = st->cgroups ? cgroups_find(st->cgroups, r->pid) : NULL;
	if (c) {
		memcpy(k->container, c->id, sizeof(k->container));
		memcpy(k->pod, c->pod, sizeof(k->pod));
	}
}
