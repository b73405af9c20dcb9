// SPDX-License-Identifier: GPL-2.0
/*
 * The default graph's windows, in which the wakeup programs run. Each
 * period of SAMPLE_PERIOD_MS holds SAMPLE_WINDOW_MS of them, at a random
 * place in the period (split in two when it wraps past its end): every
 * moment is in a window with the same chance, window / period, whatever
 * the workload's own rhythm, and the windows' share of any whole number
 * of periods is exactly that. A wait is in the sample when its wakeup
 * falls in a window (bpf/wakeups.bpf.c charges it whole), so each
 * waker's waits, scaled by period / window, are an unbiased estimate of
 * all of them (tracer_collect.c scales them). A window is the time
 * between user space's numbering it and zeroing that number, with its
 * programs attached before and detached after (window_shut() in BPF):
 * a slow attach or detach does not shorten it unseen.
 *
 * A thread, not a timer of the run's loop: attaching and detaching
 * programs waits in the kernel (a detach, for the programs running to
 * finish), which would hold up the loop's reports and scrapes.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sources/tracer_priv.h"
#include "support/loop.h"

/* A per-CPU array's one value zeroed on every CPU. */
static void zero_percpu(struct bpf_map *m, int ncpu)
{
	size_t sz = (bpf_map__value_size(m) + 7) / 8 * 8 * (size_t)ncpu;
	void *zero = calloc(1, sz);
	__u32 z = 0;

	if (zero)
		bpf_map_update_elem(bpf_map__fd(m), &z, zero, 0);
	free(zero);
}

/*
 * A window opens: its programs attached, then a clean slate, then the
 * window numbered (the programs act from here: window_shut() in BPF),
 * and its start taken. What the attach costs is outside the window.
 */
static void window_open(struct sampler *s, struct tracer *t)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		s->links[i] = bpf_program__attach(s->progs[i]);
		if (!s->links[i] && !s->err) {
			s->err = -errno;
			fprintf(stderr, "tdbpf: cannot attach %s for a sampled window: %s; the graph's sample ends here (run with --wakeups for every wakeup)\n",
				bpf_program__name(s->progs[i]),
				strerror(errno));
		}
	}
	/* slices and socket marks of the last window ended unseen */
	zero_percpu(t->skel->maps.cpu_ring, t->ncpu);
	zero_percpu(t->skel->maps.sock_marks, t->ncpu);
	__atomic_store_n(&t->skel->bss->sample_gen, ++s->gen,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&s->open_at, loop_now_ns(), __ATOMIC_RELAXED);
}

/* A window closes: its time taken, then its programs detached. */
static void window_close(struct sampler *s, struct tracer *t)
{
	size_t i;

	__atomic_store_n(&t->skel->bss->sample_gen, 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&s->seen_ns, loop_now_ns() - s->open_at,
			   __ATOMIC_RELAXED);
	__atomic_store_n(&s->open_at, 0, __ATOMIC_RELAXED);
	for (i = 0; i < s->nr; i++) {
		bpf_link__destroy(s->links[i]);
		s->links[i] = NULL;
	}
}

/* Sleep until @until (CLOCK_MONOTONIC, ns); true when told to stop. */
static bool wait_until(struct sampler *s, __u64 until)
{
	struct timespec ts = { (time_t)(until / 1000000000ULL),
			       (long)(until % 1000000000ULL) };
	bool stop;

	pthread_mutex_lock(&s->lock);
	while (!s->stop &&
	       pthread_cond_timedwait(&s->cond, &s->lock, &ts) != ETIMEDOUT)
		;
	stop = s->stop;
	pthread_mutex_unlock(&s->lock);
	return stop;
}

static void *sampler_run(void *arg)
{
	struct tracer *t = arg;
	struct sampler *s = &t->sample;
	const __u64 period = SAMPLE_PERIOD_MS * 1000000ULL,
		    win = SAMPLE_WINDOW_MS * 1000000ULL;
	__u64 base = loop_now_ns(), owed = 0, seen;
	unsigned int seed = (unsigned int)base;

	while (!s->err) {
		__u64 at = (__u64)rand_r(&seed) % period;
		/* [0, at + win - period) first when the window wraps */
		__u64 spans[2][2] = { { base + at, base + at + win } };
		int n = 1, i;

		if (at + win > period) {
			spans[0][0] = base;
			spans[0][1] = base + at + win - period;
			spans[1][0] = base + at;
			spans[1][1] = base + period;
			n = 2;
		}
		/*
		 * Each window open as long as its span, counted from its
		 * opening, less what the windows before it overran (a late
		 * wakeup of this thread): open time owed and given stay
		 * within a window of each other, so the fixed scale holds
		 */
		for (i = 0; i < n; i++) {
			if (wait_until(s, spans[i][0]))
				return NULL;
			window_open(s, t);
			owed += spans[i][1] - spans[i][0];
			seen = __atomic_load_n(&s->seen_ns, __ATOMIC_RELAXED);
			if (wait_until(s, s->open_at +
						  (owed > seen ? owed - seen : 0))) {
				window_close(s, t);
				return NULL;
			}
			window_close(s, t);
		}
		base += period;
	}
	return NULL;
}

int sampler_start(struct tracer *t)
{
	struct sampler *s = &t->sample;
	pthread_condattr_t ca;
	sigset_t all, old;
	int e;

	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_condattr_destroy(&ca);
	/* signals are the loop's: the thread takes none */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&s->thread, NULL, sampler_run, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		return -e;
	s->running = true;
	return 0;
}

void sampler_stop(struct tracer *t)
{
	struct sampler *s = &t->sample;

	if (!s->running)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	s->running = false;
}

__u64 sampler_seen_ns(struct tracer *t)
{
	struct sampler *s = &t->sample;
	__u64 open = __atomic_load_n(&s->open_at, __ATOMIC_RELAXED),
	      seen = __atomic_load_n(&s->seen_ns, __ATOMIC_RELAXED),
	      now = loop_now_ns();

	/* a window open now counts so far: its waits are in the sums */
	return seen + (open && now > open ? now - open : 0);
}
