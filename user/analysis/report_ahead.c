// SPDX-License-Identifier: GPL-2.0
/*
 * A report's tasks, decoded in order for a writer. Decoding a task of a
 * TMA model (scale 50-70 counters, evaluate the tree twice when an event
 * is missing, walk it to the bottleneck) costs half as much as writing
 * it as JSON, and the two do not depend on each other: so where it pays
 * (a TMA tree, many tasks, a second CPU), a worker thread decodes up to
 * AHEAD_SLOTS tasks ahead while the writer formats. The writer still
 * sees every task in report order, and the same bytes come out.
 *
 * The two sides meet on two counters, tasks decoded and tasks written.
 * One that catches up with the other spins a little before it sleeps:
 * a sleep and a wakeup cost tens of us on a VM, more than a batch of
 * tasks. A sleeper is woken only when what it waits for is there, and
 * the worker, when the ring is full, waits for half of it to be free:
 * so the JSON writer, the slower side, rarely makes a system call. One
 * walk at a time (tdbpf writes one report at a time); a second one
 * decodes in place.
 */
/* report.h first: <sched.h>, under <pthread.h>, defines a SCHED_IDLE */
#include "analysis/report.h"
#include "analysis/report_ahead.h"
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * 64 decoded tasks (~100 KiB): a first touch costs tens of us a page on
 * some VMs, so the ring is kept for every report of the run.
 */
#define AHEAD_SLOTS   64
#define AHEAD_PUBLISH 4	   /* each side says how far it got this often */
#define AHEAD_SPINS   4096 /* ~100 us of pause, then sleep */

/* 0: a thread for any report with a tree, even on one CPU (tests) */
int report_ahead_min = 512;

static struct {
	struct task_decoded *ring;
	const struct report *rep;
	pthread_t th;
	bool busy;	       /* a walk is threaded now */
	atomic_int done;       /* tasks decoded */
	atomic_int taken;      /* tasks the writer is done with */
	atomic_bool stop;      /* the writer left early */
	atomic_int want_done;  /* the writer sleeps until done >= it */
	atomic_int want_taken; /* the worker sleeps until taken >= it */
	pthread_mutex_t mu;
	pthread_cond_t cv;
} ah = {
	.want_done = INT_MAX,
	.want_taken = INT_MAX,
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
};

/* who sleeps on @v, and until what */
static atomic_int *want_of(atomic_int *v)
{
	return v == &ah.done ? &ah.want_done : &ah.want_taken;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/*
 * Wait until @v reaches @want (or the walk stops), pausing @spins times
 * before sleeping; @v's value.
 */
static int wait_until(atomic_int *v, int want, int spins)
{
	int x, k;

	for (k = 0; k < spins; k++) {
		x = atomic_load_explicit(v, memory_order_acquire);
		if (x >= want || atomic_load(&ah.stop))
			return x;
		cpu_relax();
	}
	/*
	 * The target is set before the last look: a publish() after that
	 * look sees it and wakes us (both sequentially consistent). Only
	 * a publish that reaches it wakes us: no sleep is cut short.
	 */
	pthread_mutex_lock(&ah.mu);
	atomic_store(want_of(v), want);
	while ((x = atomic_load(v)) < want && !atomic_load(&ah.stop))
		pthread_cond_wait(&ah.cv, &ah.mu);
	atomic_store(want_of(v), INT_MAX);
	pthread_mutex_unlock(&ah.mu);
	return x;
}

static void publish(atomic_int *v, int x)
{
	atomic_store(v, x);
	if (atomic_load(want_of(v)) <= x) {
		pthread_mutex_lock(&ah.mu);
		pthread_cond_broadcast(&ah.cv);
		pthread_mutex_unlock(&ah.mu);
	}
}

static void *decode_ahead(void *arg)
{
	int i, nr = ah.rep->nr, taken = 0;

	(void)arg;
	for (i = 0; i < nr; i++) {
		/* slot i % AHEAD_SLOTS held task i - AHEAD_SLOTS */
		if (i - taken >= AHEAD_SLOTS) {
			publish(&ah.done, i);
			taken = wait_until(&ah.taken, i - AHEAD_SLOTS / 2 + 1,
					   AHEAD_SPINS);
			if (atomic_load(&ah.stop))
				return NULL;
		}
		report_decode_task(ah.rep, i, &ah.ring[i % AHEAD_SLOTS]);
		if ((i + 1) % AHEAD_PUBLISH == 0 || i + 1 == nr)
			publish(&ah.done, i + 1);
	}
	return NULL;
}

static bool worth_a_thread(const struct report *rep)
{
	/* without a tree a task decodes in nanoseconds: not worth a thread */
	if (ah.busy || rep->level <= 0 || rep->nr < report_ahead_min)
		return false;
	return !report_ahead_min || sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

void report_ahead_start(struct report_ahead *a, const struct report *rep)
{
	sigset_t all, old;

	a->rep = rep;
	a->next = 0;
	a->seen_done = 0;
	a->threaded = false;
	if (!worth_a_thread(rep))
		return;
	if (!ah.ring && !(ah.ring = malloc(AHEAD_SLOTS * sizeof(*ah.ring))))
		return;
	ah.rep = rep;
	atomic_store(&ah.done, 0);
	atomic_store(&ah.taken, 0);
	atomic_store(&ah.stop, false);
	/* signals stay with the event loop's signalfd, never the worker */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	/* no thread: decode in the writer, as for a small report */
	a->threaded = !pthread_create(&ah.th, NULL, decode_ahead, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	ah.busy = a->threaded;
}

const struct task_decoded *report_ahead_next(struct report_ahead *a)
{
	int i = a->next;

	if (i >= a->rep->nr)
		return NULL;
	a->next++;
	if (!a->threaded) {
		report_decode_task(a->rep, i, &a->one);
		return &a->one;
	}
	/* the tasks before @i are written: their slots may be reused */
	if (i % AHEAD_PUBLISH == 0 || i >= a->seen_done)
		publish(&ah.taken, i);
	if (i >= a->seen_done)
		a->seen_done = wait_until(&ah.done, i + 1, AHEAD_SPINS);
	return &ah.ring[i % AHEAD_SLOTS];
}

void report_ahead_stop(struct report_ahead *a)
{
	if (!a->threaded)
		return;
	pthread_mutex_lock(&ah.mu);
	atomic_store(&ah.stop, true);
	pthread_cond_broadcast(&ah.cv);
	pthread_mutex_unlock(&ah.mu);
	pthread_join(ah.th, NULL);
	ah.busy = false;
	a->threaded = false;
}
