/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A task's waker slots (struct tdbpf_wait, filled by tdbpf_waking): who
 * ended its waits, how often, and how much blocked time they ended.
 * Slots are keyed by (kind, tid, tgid); these add and subtract them by key, so
 * that interval deltas and merged tables stay exact.
 */
#ifndef TDBPF_WAITS_H
#define TDBPF_WAITS_H

#include <linux/types.h>
#include "tdbpf.h"

/*
 * A pseudo-kind, user space only: blocked time that no seen wakeup ended
 * (blocked since before the window, or a wakeup tdbpf did not see).
 */
#define WAKER_UNSEEN	TDBPF_NR_WAKER_KINDS
#define WAKER_KINDS	(TDBPF_NR_WAKER_KINDS + 1)

/* Add @src's slots into @dst by waker; the last slot spills. */
void waits_add(struct tdbpf_wait *dst, const struct tdbpf_wait *src);
/* @out = @cur minus @prev's slot of the same key (saturating at 0). */
void waits_sub(struct tdbpf_wait *out, const struct tdbpf_wait *cur,
	       const struct tdbpf_wait *prev);
/* Total wait time and wakeups over the slots. */
__u64 waits_total(const struct tdbpf_wait *w, __u64 *wakeups);

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
