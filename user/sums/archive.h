/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exited tasks of a long --listen run, folded by name so that memory does
 * not grow with churn: once a scrape has counted a task's final sums, its
 * row is added to one row per process and folded thread name, which the
 * final report shows (tid 0, "(N) name-*", as --per-name does).
 */
#ifndef TDBPF_ARCHIVE_H
#define TDBPF_ARCHIVE_H

#include "sums/tasks.h"

/*
 * Keys of folded rows: above PID_MAX_LIMIT (2^22), so never a tid. The
 * table needs a key per row; reports show these rows with tid 0.
 */
#define ARCHIVE_FOLDED_TID	4194304u

static inline bool archive_is_folded(const struct task_row *r)
{
	return r->tid >= ARCHIVE_FOLDED_TID;
}

/*
 * Fold every per-tid row of @archive (exited tasks) into the row of its
 * process and folded name, less what @base holds for that tid (charged
 * before the run started; that base row is then zeroed, as the tid may
 * come back as another task). Folded rows stay. @next_key: the next
 * folded key to hand out, kept by the caller. 0 or -ENOMEM (@archive is
 * then unchanged).
 */
int archive_fold(struct task_table *archive, struct task_table *base,
		 __u32 *next_key);

/* A report's rows: folded ones show tid 0 (their key is no tid). */
void archive_hide_keys(struct task_table *t);

#endif /* TDBPF_ARCHIVE_H */
