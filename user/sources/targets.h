/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Target liveness: a run stops when every target has exited. Processes
 * (-p, the launched command) are watched through pidfds in the event
 * loop; threads (-t), and processes where no pidfd could be had, are
 * polled on the loop's tick. -a never ends this way.
 */
#ifndef TDBPF_TARGETS_H
#define TDBPF_TARGETS_H

#include <stdbool.h>
#include <sys/types.h>
#include "commands/options.h"
#include "sources/launch.h"
#include "support/loop.h"

struct targets {
	const struct options *o;
	struct launch *child;		/* -- COMMAND, or NULL */
	bool gone[OPT_MAX_TARGETS];	/* -p targets whose pidfd fired */
	bool watched[OPT_MAX_TARGETS];	/* -p targets with a pidfd source */
};

/*
 * Watch @o's targets (and @child) in @l: a pidfd source for each process
 * where the kernel gives one. Call targets_alive() on every tick.
 */
void targets_watch(struct targets *t, struct loop *l,
		   const struct options *o, struct launch *child);
/*
 * Is any target left? Polls the ones without a pidfd (threads, old
 * kernels) and reaps an exited child.
 */
bool targets_alive(struct targets *t);
/*
 * How many threads @o's targets (and the launched @child, if > 0) have
 * now, from /proc: the rows a report will hold, at least.
 */
size_t targets_threads(const struct options *o, pid_t child);

#endif /* TDBPF_TARGETS_H */
