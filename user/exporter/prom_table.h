/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the /metrics series (prom.h): prom.c makes and frees the state
 * and its update turns a scrape's task table into increments;
 * prom_names.c says which label set a task goes to; prom_series.c keeps
 * the series of each label set, prom_waits.c the waits' series,
 * prom_spans.c the spans', both found by their labels' text in a
 * prom_lset.c table.
 */
#ifndef TDBPF_PROM_TABLE_H
#define TDBPF_PROM_TABLE_H

#include "exporter/prom.h"

/* A label set: what a series is found by. */
struct prom_key {
	char comm[TDBPF_COMM_LEN + 1];
	char thread[PROM_THREAD_LEN];
	__u32 pid, tid;
	char container[CGROUP_ID_LEN];	/* "" outside a container */
	char pod[CGROUP_POD_LEN];	/* "" outside a pod */
};

/* TMA nodes each series keeps, 0 for a model without a tree. */
static inline int prom_nr_nodes(const struct prom_state *st)
{
	const struct model *m = st->plan->model;

	return m && m->max_level > 0 && st->plan->level > 0 ? m->nr_nodes : 0;
}

/* prom_names.c */
/*
 * tgid -> process name for the tgids of @cur: the main thread's own row
 * when the table has it (the newest name), else what the previous scrape
 * knew, else /proc. 0 or -ENOMEM.
 */
int prom_names_update(struct prom_state *st, const struct task_table *cur);
void prom_names_free(struct pcomm_map *m);
/* The labels @r has now. */
void prom_key_of(const struct prom_state *st, const struct task_row *r,
		 struct prom_key *k);

/* prom_series.c */
/* The series of @k, created while there is room; else `other` (or NULL). */
struct prom_series *prom_series_get(struct prom_state *st,
				    const struct prom_key *k);
/* Series that identify one process or thread end once it has gone. */
int prom_series_expire(struct prom_state *st);
/* The series table of a new @st (prom_init()): 0 or -ENOMEM. */
int prom_series_init(struct prom_state *st);
/* Every series of @st freed (prom_free()). */
void prom_series_free(struct prom_state *st);

/* prom_lset.c */
/*
 * The entry of @labels in @s, else a new one of @size bytes (zeroed,
 * @labels copied) while @s holds fewer than @max: 0 and the entry at
 * *@out, NULL there past @max or out of memory for it (the caller's
 * `other` series then); -ENOMEM when no index could be made at all.
 */
int prom_lset_get(struct prom_lset *s, const char *labels, size_t size,
		  int max, void **out);
/* Every entry of @s and @s's own memory. */
void prom_lset_free(struct prom_lset *s);
/* An entry outside a set (an `other`): @size bytes, @labels copied. */
void *prom_lset_new(const char *labels, size_t size);
void prom_lset_entry_free(void *e);

/* prom_waits.c */
/*
 * Add @r's waker slots since the last update to the wait series of its
 * series @s (a task waker by its series' labels, a kind by name).
 */
int prom_waits_update(struct prom_state *st, const struct task_table *cur,
		      const struct task_row *r, const struct prom_series *s);
void prom_waits_free(struct prom_state *st);

/* prom_spans.c */
/* The scrape's span rows (st->span_cur) by tid: 0 or -ENOMEM. */
int prom_spans_begin(struct prom_state *st);
/*
 * Add the spans of @r since the last update to the span series of its
 * series @s. 0 or -ENOMEM.
 */
int prom_spans_update(struct prom_state *st, const struct task_row *r,
		      const struct prom_series *s);
void prom_spans_free(struct prom_state *st);

#endif /* TDBPF_PROM_TABLE_H */
