// SPDX-License-Identifier: GPL-2.0
/* The processes' cgroups: a table by pid (cgroups.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sums/cgroups.h"
#include "support/array.h"

void cgroups_init(struct cgroup_table *t)
{
	memset(t, 0, sizeof(*t));
}

void cgroups_reset(struct cgroup_table *t)
{
	t->nr = 0;
	t->sorted = 0;
}

void cgroups_free(struct cgroup_table *t)
{
	free(t->v);
	cgroups_init(t);
}

int cgroups_add(struct cgroup_table *t, const struct task_cgroup *c)
{
	if (array_grow(&t->v, &t->cap, t->nr, sizeof(*t->v), 16))
		return -ENOMEM;
	t->v[t->nr++] = *c;
	return 0;
}

/* By pid, then by where each was added: qsort(3) is not stable */
static int by_pid(const void *a, const void *b, void *arg)
{
	const struct task_cgroup *v = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (v[i].pid != v[j].pid)
		return v[i].pid < v[j].pid ? -1 : 1;
	return i < j ? -1 : i > j;
}

void cgroups_sort(struct cgroup_table *t)
{
	struct task_cgroup *out;
	size_t i, n = 0, *idx;

	if (!t->nr)
		return;
	idx = malloc(t->nr * sizeof(*idx));
	out = malloc(t->nr * sizeof(*out));
	if (!idx || !out) {
		/* left unsorted: cgroups_find() scans what is not */
		free(idx);
		free(out);
		t->sorted = 0;
		return;
	}
	for (i = 0; i < t->nr; i++)
		idx[i] = i;
	qsort_r(idx, t->nr, sizeof(*idx), by_pid, t->v);
	/* the entry added first wins */
	for (i = 0; i < t->nr; i++)
		if (!n || out[n - 1].pid != t->v[idx[i]].pid)
			out[n++] = t->v[idx[i]];
	free(t->v);
	free(idx);
	t->v = out;
	t->nr = n;
	t->cap = n;
	t->sorted = n;
}

const struct task_cgroup *cgroups_find(const struct cgroup_table *t,
				       __u32 pid)
{
	size_t lo = 0, hi = t->sorted, i;

	if (!pid)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].pid == pid)
			return &t->v[mid];
		if (t->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* entries added since the sort: few, between two sorts */
	for (i = t->sorted; i < t->nr; i++)
		if (t->v[i].pid == pid)
			return &t->v[i];
	return NULL;
}

int cgroups_copy(struct cgroup_table *dst, const struct cgroup_table *src)
{
	if (dst == src)
		return 0;
	cgroups_reset(dst);
	if (array_copy(&dst->v, &dst->cap, src->v, src->nr, sizeof(*src->v)))
		return -ENOMEM;
	dst->nr = src->nr;
	dst->sorted = src->sorted;
	return 0;
}

int cgroups_nr_containers(const struct cgroup_table *t)
{
	size_t i;
	int n = 0;

	for (i = 0; t && i < t->nr; i++)
		n += t->v[i].id[0] != 0;
	return n;
}
