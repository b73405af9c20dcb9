// SPDX-License-Identifier: GPL-2.0
/* Whole thread names by tid (thread_names.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "sources/thread_names.h"

void thread_names_init(struct thread_names *n)
{
	memset(n, 0, sizeof(*n));
}

void thread_names_free(struct thread_names *n)
{
	free(n->v);
	hash_index_free(&n->index);
	memset(n, 0, sizeof(*n));
}

/* the id leads the entry: hash_find_id's lookup */
_Static_assert(offsetof(struct thread_name, tid) == 0, "tid first");

static size_t *slot_of(const struct thread_names *n, __u32 tid)
{
	return hash_find_id(&n->index, n->v, sizeof(*n->v), tid);
}

/* Room for one more, the index kept at most half full. */
static int grow(struct thread_names *n)
{
	size_t cap = n->cap ? 2 * n->cap : 256, i;
	struct thread_name *v;

	if (n->nr < n->cap)
		return 0;
	v = realloc(n->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	n->v = v;
	if (hash_index_init(&n->index, cap, 256))
		return -ENOMEM;
	n->cap = cap;
	for (i = 0; i < n->nr; i++)
		*slot_of(n, n->v[i].tid) = i + 1;
	return 0;
}

int thread_names_add(struct thread_names *n, __u32 pid, __u32 tid,
		     const char *name)
{
	const char *s = names_intern(name);
	size_t *slot;

	if (!s || grow(n))
		return -ENOMEM;
	slot = slot_of(n, tid);
	if (!*slot) {
		n->v[n->nr++] = (struct thread_name){ .tid = tid };
		*slot = n->nr;
	}
	/* a tid reused by another process: the newer one's */
	n->v[*slot - 1].pid = pid;
	n->v[*slot - 1].name = s;
	return 0;
}

const char *thread_names_find(const struct thread_names *n, __u32 pid,
			      __u32 tid)
{
	size_t *slot;

	if (!n->nr)
		return NULL;
	slot = slot_of(n, tid);
	return *slot && n->v[*slot - 1].pid == pid ? n->v[*slot - 1].name :
						      NULL;
}

void thread_names_apply(const struct thread_names *n, struct task_table *t)
{
	size_t i;

	for (i = 0; n->nr && i < t->nr; i++) {
		struct task_row *r = tasks_row(t, i);
		const char *s = thread_names_find(n, r->pid, r->tid);

		/* one the comm holds whole adds nothing (nor a JSON "name") */
		if (s && strcmp(s, r->comm))
			r->name = s;
	}
}
