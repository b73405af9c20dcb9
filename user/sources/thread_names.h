/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole thread names a runtime told (a JVM's, jvm_attach.h), by tid, and
 * the naming of task rows from them at each collect: a row of a known
 * tid in the same process gets the name (struct task_row's name); any
 * other keeps its comm.
 */
#ifndef TDBPF_THREAD_NAMES_H
#define TDBPF_THREAD_NAMES_H

#include <stddef.h>
#include <linux/types.h>
#include "support/hash.h"
#include "sums/tasks.h"

struct thread_name {
	__u32 tid, pid;
	const char *name;	/* interned (names.h) */
};

struct thread_names {
	struct thread_name *v;
	size_t nr, cap;
	struct hash_index index;	/* tid -> v + 1 */
};

void thread_names_init(struct thread_names *n);
void thread_names_free(struct thread_names *n);
/* @tid of process @pid is called @name (the newest wins). 0 or -ENOMEM. */
int thread_names_add(struct thread_names *n, __u32 pid, __u32 tid,
		     const char *name);
/* The name of @tid if it is of process @pid; NULL otherwise. */
const char *thread_names_find(const struct thread_names *n, __u32 pid,
			      __u32 tid);
/*
 * Each row of @t whose tid @n knows, in the same process, gets its name,
 * unless its comm is that name already.
 */
void thread_names_apply(const struct thread_names *n, struct task_table *t);

#endif /* TDBPF_THREAD_NAMES_H */
