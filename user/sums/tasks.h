/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-side task table: per-task sums pulled from the BPF map, tasks
 * that exited (kept after their map entry is deleted), name folding.
 */
#ifndef TDBPF_TASKS_H
#define TDBPF_TASKS_H

#include <limits.h>
#include "support/hash.h"
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "sums/names.h"
#include "tdbpf.h"

struct task_row {
	__u32 tid;		/* 0 for a folded row */
	__u32 pid;		/* tgid */
	char comm[TDBPF_COMM_LEN + 2];	/* folded rows: "worker-*" */
	/*
	 * The whole name a runtime gives it (a JVM's thread name), longer
	 * than comm, interned (names.h); NULL: comm is all there is.
	 * Folded rows: their members' names joined (fold_join()).
	 */
	const char *name;
	bool exited;
	int nr_tasks;		/* tasks folded into this row (1 if none) */
	struct tdbpf_sched sched;
	/*
	 * In a table with waits (wakeups traced), its waker slots:
	 * w_nr in use of w_cap at the table's wait[w_at] (tasks_waits()).
	 * Only those in use: most tasks have one or two wakers, and
	 * TDBPF_NR_WAITS slots in each row of 10,000 made every table
	 * 5 MB bigger, the report and a scrape slower.
	 */
	__u32 w_at;
	__u16 w_nr;
	__u16 w_cap;
	/*
	 * As many as the table's nr_ev: rows are sized to the events
	 * programmed, not to TDBPF_MAX_EVENTS (10,000 tasks x 72 slots
	 * would be 17 MiB per table).
	 */
	struct tdbpf_count ctr[];
};

struct task_table {
	char *mem;		/* nr rows of row_size bytes: see tasks_row() */
	size_t nr;
	size_t cap;
	size_t row_size;
	int nr_ev;		/* counters per row */
	bool waits;		/* rows have waker slots */
	struct hash_index index;	/* tid -> row + 1 (0 = empty) */
	/* the rows' waker slots: wait_nr used (some by no row) of wait_cap */
	struct tdbpf_wait *wait;
	size_t wait_nr;
	size_t wait_cap;
};

/* The scheduling sums: @d += @s; @d = @a - @b (saturating at 0); zero. */
void sched_add(struct tdbpf_sched *d, const struct tdbpf_sched *s);
void sched_sub(struct tdbpf_sched *d, const struct tdbpf_sched *a,
	       const struct tdbpf_sched *b);
void sched_clear(struct tdbpf_sched *d);
/* @nr_ev counters: @d += @s */
void counts_add(struct tdbpf_count *d, const struct tdbpf_count *s,
		int nr_ev);
/* @d = @c - @p (NULL: zero), each field saturating; @d may be @c */
void counts_sub(struct tdbpf_count *d, const struct tdbpf_count *c,
		const struct tdbpf_count *p, int nr_ev);
/*
 * What "a task changed" means, both here. sched_changed(): did anything
 * happen between @prev and @cur that earns a row in an interval report
 * (time, a switch)? task_increment(): is there anything to add to a
 * counter that only grows (every sum, every count)? window_gap_ns is in
 * neither: a part of a slice's on-CPU time, it moves only with it.
 */
bool sched_changed(const struct tdbpf_sched *cur,
		   const struct tdbpf_sched *prev);
/*
 * Row @cur's increment since @base, the row as the last increment left
 * it (zeroed when new): its sums into @ds, its @nr_ev counts into @d. A
 * source that restarted the tid (smaller sums) counts anew: @base is
 * zeroed first (@row_size bytes). True if anything is to be added.
 */
bool task_increment(const struct task_row *cur, struct task_row *base,
		    size_t row_size, int nr_ev, struct tdbpf_sched *ds,
		    struct tdbpf_count *d);

/* An empty table whose rows hold TDBPF_MAX_EVENTS counters. */
void tasks_init(struct task_table *t);
/*
 * Rows of @t hold @nr_ev counters, and waker slots if @waits; only while
 * @t is empty. tasks_set_events() keeps whether rows have waker slots.
 */
int tasks_set_layout(struct task_table *t, int nr_ev, bool waits);
int tasks_set_events(struct task_table *t, int nr_ev);
/* An empty @out takes the row layout of @in. */
void tasks_layout_like(struct task_table *out, const struct task_table *in);
/* Room for @nr rows in all, so that filling @t moves no row. */
int tasks_reserve(struct task_table *t, size_t nr);
/*
 * tasks_reserve(), and every row's memory touched now: on a VM the first
 * touch of a page costs tens of microseconds, 20-70 ms for the 20 MB of
 * 10,000 rows of 72 counters, which a run pays at its start this way
 * rather than in its first report.
 */
int tasks_prefault(struct task_table *t, size_t nr);

static inline struct task_row *tasks_row(const struct task_table *t,
					 size_t i)
{
	return (struct task_row *)(t->mem + i * t->row_size);
}

/*
 * The waker slots of row @r of @t, *@n of them; NULL (and 0) if @t's
 * rows have none or @r none yet. Valid until slots are added to @t.
 */
static inline struct tdbpf_wait *tasks_waits(const struct task_table *t,
					     const struct task_row *r, int *n)
{
	*n = t->waits ? r->w_nr : 0;
	return *n ? t->wait + r->w_at : NULL;
}

/* Add @n slots @w (a list, or BPF's fixed slots) to row @r of @t. */
int tasks_add_waits(struct task_table *t, struct task_row *r,
		    const struct tdbpf_wait *w, int n);
/* Row @d of @dt becomes a copy of row @s of @st, its slots too. */
int tasks_copy_row(struct task_table *dt, struct task_row *d,
		   const struct task_table *st, const struct task_row *s);
/* Row @d of @out: the slots of @c (of @cur) less @p's (of @prev). */
int tasks_sub_waits(struct task_table *out, struct task_row *d,
		    const struct task_table *cur, const struct task_row *c,
		    const struct task_table *prev, const struct task_row *p);

/* What a row is called: its whole name, else its comm. */
/*
 * Rows folded together: their task counts, at most INT_MAX (a replayed
 * file's counts are whatever it says).
 */
static inline int tasks_count_add(int a, int b)
{
	return b > 0 && a > INT_MAX - b ? INT_MAX : a + b;
}

static inline const char *task_name(const struct task_row *r)
{
	return r->name ? r->name : r->comm;
}

void tasks_free(struct task_table *t);
void tasks_reset(struct task_table *t);
/* Row for @tid, or NULL (never creates one). */
struct task_row *tasks_find(const struct task_table *t, __u32 tid);
/* Row for @tid, created zeroed if missing; NULL on allocation failure. */
struct task_row *tasks_get(struct task_table *t, __u32 tid);
/*
 * Append a zeroed row without indexing it by tid: for rows read back
 * from a report, where folded rows share tid 0.
 */
struct task_row *tasks_append(struct task_table *t);
/*
 * Add the BPF sums @s (a delta or a final entry) and its waker slots
 * @waits (BPF's TDBPF_NR_WAITS, or NULL) to @tid's row.
 */
int tasks_add(struct task_table *t, const struct tdbpf_task *s,
	      const struct tdbpf_wait *waits, int nr_ev);
/* tasks_add() with a list of @nr_waits slots (a record's, in use only). */
int tasks_add_slots(struct task_table *t, const struct tdbpf_task *s,
		    const struct tdbpf_wait *waits, int nr_waits, int nr_ev);
/* Zero the sums of @tid's row, if any (keeps the row and its name). */
void tasks_clear(struct task_table *t, __u32 tid);
/* Add every row of @src into @dst (by tid). */
int tasks_merge(struct task_table *dst, const struct task_table *src,
		int nr_ev);
/*
 * Rows of @cur minus the row of the same tid in @prev (interval deltas);
 * rows with nothing new in the interval are left out.
 */
int tasks_diff(const struct task_table *cur, const struct task_table *prev,
	       struct task_table *out, int nr_ev);
/*
 * tasks_diff() in place: @cur becomes @cur minus @prev, without a table
 * of its own (the final report's: a third table of 10,000 rows was
 * fresh memory, which costs tens of ms on a VM).
 */
int tasks_sub(struct task_table *cur, const struct task_table *prev);

/*
 * Fold names: the key instances share, their instance numbers starred
 * ("worker-12" -> "worker-*", "parse3" -> "parse*", "sink" -> "sink",
 * and a Flink subtask "Map (2/3)#0" -> "Map (" STAR "/3)#" STAR).
 * Folding a key keeps it.
 */
void fold_name(const char *comm, char *out, size_t outlen);
/*
 * What a folded row shows: @disp (a member's name, or what joins so far
 * gave) joined with @name of the same key, only the instance numbers
 * that differ starred.
 */
void fold_join(char *disp, size_t len, const char *name);
/*
 * Build @out with one row per folded name of @in (task_name()): a name
 * only one thread carries stays whole; a row of several shows
 * fold_join() of its members' names (and of their comms).
 */
int tasks_fold(const struct task_table *in, struct task_table *out,
	       int nr_ev);

#endif /* TDBPF_TASKS_H */
