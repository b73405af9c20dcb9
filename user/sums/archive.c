// SPDX-License-Identifier: GPL-2.0
/*
 * Folding exited tasks by name, for runs that serve /metrics for days:
 * the per-tid rows of exited tasks would otherwise grow by a row per
 * thread that ever lived (about 200 bytes each, several times over:
 * archive, snapshot, the exposition's own per-tid base). A folded row is
 * keyed by (process, folded name), so memory follows the number of names,
 * not of threads.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sums/archive.h"
#include "sums/waits.h"

static uint64_t key_hash(__u32 pid, const char *name)
{
	return hash_str(HASH_FNV_INIT ^ pid, name);
}

/* Is row @row of the folded table @ctx's (pid, name)? */
struct fold_match {
	const struct task_table *t;
	__u32 pid;
	const char *name;
};

static bool fold_is(const void *ctx, size_t row)
{
	const struct fold_match *m = ctx;
	const struct task_row *d = tasks_row(m->t, row);

	return d->pid == m->pid && !strcmp(d->comm, m->name);
}

/*
 * Row @d of @out += row @s of @a less row @b of @base (@b may be NULL):
 * sums, counters and waker slots, so that a folded name keeps the graph
 * edges of the threads it took.
 */
static int add_less(struct task_table *out, struct task_row *d,
		    const struct task_table *a, const struct task_row *s,
		    const struct task_table *base, const struct task_row *b,
		    int nr_ev)
{
	static const struct tdbpf_sched none;
	struct tdbpf_count ctr[TDBPF_MAX_EVENTS];
	struct tdbpf_wait w[TDBPF_NR_WAITS];
	const struct tdbpf_wait *sw, *bw = NULL;
	struct tdbpf_sched diff;
	int n, bn = 0;

	sched_sub(&diff, &s->sched, b ? &b->sched : &none);
	sched_add(&d->sched, &diff);
	counts_sub(ctr, s->ctr, b ? b->ctr : NULL, nr_ev);
	counts_add(d->ctr, ctr, nr_ev);
	sw = tasks_waits(a, s, &n);
	if (!n)
		return 0;
	if (b)
		bw = tasks_waits(base, b, &bn);
	waits_sub(w, sw, n, bw, bn);
	return tasks_add_waits(out, d, w, n);
}

int archive_fold(struct task_table *archive, struct task_table *base,
		 __u32 *next_key)
{
	struct task_table out;
	struct hash_index x = { 0 };	/* (pid, name) -> out row + 1 */
	int nr_ev = archive->nr_ev, ret = 0;
	size_t i;

	tasks_init(&out);
	tasks_layout_like(&out, archive);
	if (hash_index_init(&x, archive->nr, 64))
		return -ENOMEM;
	/* folded rows first, in their order, so their keys are found */
	for (i = 0; i < archive->nr && !ret; i++) {
		const struct task_row *r = tasks_row(archive, i);
		struct task_row *d;

		if (!archive_is_folded(r))
			continue;
		d = tasks_get(&out, r->tid);
		if (!d) {
			ret = -ENOMEM;
			break;
		}
		if (tasks_copy_row(&out, d, archive, r)) {
			ret = -ENOMEM;
			break;
		}
		*hash_find(&x, key_hash(r->pid, r->comm), NULL, NULL) = out.nr;
	}
	for (i = 0; i < archive->nr && !ret; i++) {
		const struct task_row *r = tasks_row(archive, i);
		struct task_row *d = NULL, *b;
		char name[sizeof(r->comm)];
		struct fold_match m = { &out, r->pid, name };
		size_t *slot;

		if (archive_is_folded(r))
			continue;
		fold_name(r->comm, name, sizeof(name));
		slot = hash_find(&x, key_hash(r->pid, name), fold_is, &m);
		if (*slot)
			d = tasks_row(&out, *slot - 1);
		if (!d) {
			d = tasks_get(&out, (*next_key)++);
			if (!d) {
				ret = -ENOMEM;
				break;
			}
			*slot = out.nr;
			d->pid = r->pid;
			memcpy(d->comm, name, sizeof(d->comm));
			d->exited = true;
			d->nr_tasks = 0;
		}
		b = base ? tasks_find(base, r->tid) : NULL;
		if (add_less(&out, d, archive, r, base, b, nr_ev)) {
			ret = -ENOMEM;
			break;
		}
		d->nr_tasks = tasks_count_add(d->nr_tasks, r->nr_tasks);
		if (b)
			tasks_clear(base, r->tid);
	}
	hash_index_free(&x);
	if (ret) {
		tasks_free(&out);
		return ret;
	}
	tasks_free(archive);
	*archive = out;
	return 0;
}

void archive_hide_keys(struct task_table *t)
{
	size_t i;

	/* the index goes stale: a report table is not looked up by tid */
	for (i = 0; i < t->nr; i++)
		if (archive_is_folded(tasks_row(t, i)))
			tasks_row(t, i)->tid = 0;
}
