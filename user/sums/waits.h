/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A task's waker slots (struct tdbpf_wait, filled by tdbpf_waking): who
 * ended its waits, how often, and how much blocked time they ended.
 * Slots are keyed by (kind, tid, tgid); these add and subtract them by key, so
 * that interval deltas and merged tables stay exact.
 */
#ifndef TDBPF_WAITS_H
#define TDBPF_WAITS_H

#include <stdbool.h>
#include <linux/types.h>
#include "tdbpf.h"

/*
 * A pseudo-kind, user space only: blocked time that no seen wakeup ended
 * (blocked since before the window, or a wakeup tdbpf did not see).
 */
#define WAKER_UNSEEN	TDBPF_NR_WAKER_KINDS
#define WAKER_KINDS	(TDBPF_NR_WAKER_KINDS + 1)

/* @a - @b, 0 if @b is larger: sums only grow, a smaller one restarted */
static inline __u64 sub_sat(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/* Do slots @a and @b hold the same waker (their key: kind, tid, tgid)? */
static inline bool same_waker(const struct tdbpf_wait *a,
			      const struct tdbpf_wait *b)
{
	return a->kind == b->kind && a->tid == b->tid && a->tgid == b->tgid;
}

/*
 * A task's slots are a list of @n (at most TDBPF_NR_WAITS), in any
 * order: as many as it had wakers and holders, up to TDBPF_WAKER_SLOTS
 * of each, the last of which takes the rest (TDBPF_WAKER_SPILL,
 * TDBPF_HOLDER_UNSEEN). BPF's fixed slots (empty: TDBPF_WAKER_NONE) are
 * such a list of TDBPF_NR_WAITS.
 */
/* Slots @dst must have room for to take @src's @n_src: at most all. */
int waits_need(const struct tdbpf_wait *dst, int n_dst,
	       const struct tdbpf_wait *src, int n_src);
/* Add @src's slots into the list @dst of *@n_dst by waker. */
void waits_add(struct tdbpf_wait *dst, int *n_dst,
	       const struct tdbpf_wait *src, int n_src);
/*
 * @out (@n_cur slots, may be @cur) = @cur minus @prev's slot of the same
 * key (saturating at 0).
 */
void waits_sub(struct tdbpf_wait *out, const struct tdbpf_wait *cur,
	       int n_cur, const struct tdbpf_wait *prev, int n_prev);
/* Total wait time and wakeups over @n slots. */
__u64 waits_total(const struct tdbpf_wait *w, int n, __u64 *wakeups);

/* The name of a waker that is no task: "irq", "timer", ...; NULL: task */
const char *waker_kind_name(unsigned int kind);
/*
 * The kind named @name by waker_kind_name(); TDBPF_WAKER_PROCESS (ended
 * by no task of the graph) for a name this tdbpf does not know.
 */
unsigned int waker_kind_by_name(const char *name);
/* What waiting on it means, for a verdict: "timers (sleeps, timerfd)" */
const char *waker_kind_what(unsigned int kind);

#endif /* TDBPF_WAITS_H */
