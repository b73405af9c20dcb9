// SPDX-License-Identifier: GPL-2.0
/*
 * The event loop (loop.h): one epoll set; every source is a struct
 * loop_source that epoll hands back in data.ptr. Signals share one
 * signalfd, whose mask grows with each signal added. A source deleted
 * while a batch of events is dispatched is only marked dead and freed
 * after the batch, so a pending event never reaches freed memory.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include "support/array.h"
#include "support/loop.h"

#define LOOP_BATCH	16	/* events taken per epoll_wait */

enum src_kind {
	SRC_FD,
	SRC_TIMER,
	SRC_SIGNAL,	/* one per signal; not in epoll itself */
	SRC_SIGFD,	/* the loop's signalfd, dispatching to SRC_SIGNALs */
	SRC_PID,
};

struct loop_source {
	struct loop *l;
	enum src_kind kind;
	int fd;			/* -1 for SRC_SIGNAL */
	bool own_fd;		/* the loop created it: closed with the source */
	bool in_epoll;
	bool dead;		/* deleted during a dispatch: freed after it */
	enum loop_prio prio;	/* order within a batch of ready events */
	int sig;
	pid_t pid;
	union {
		loop_fd_fn fd;
		loop_timer_fn timer;
		loop_signal_fn sig;
		loop_pid_fn pid;
	} fn;
	void *arg;
	struct loop_source *next;
};

struct loop {
	int epfd;
	struct loop_source *sources;
	struct loop_source *sigfd;	/* NULL until a signal is added */
	sigset_t sigs;			/* the signals delivered by sigfd */
	sigset_t orig_mask;		/* the mask before the loop blocked */
	bool mask_saved;
	bool stop;
	bool dispatching;
};

uint64_t loop_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	sigemptyset(&l->sigs);
	return l;
}

static struct loop_source *source_new(struct loop *l, enum src_kind kind,
				      int fd, bool own_fd)
{
	struct loop_source *s = calloc(1, sizeof(*s));

	if (!s) {
		if (own_fd && fd >= 0)
			close(fd);
		errno = ENOMEM;
		return NULL;
	}
	s->l = l;
	s->kind = kind;
	/* signals stop runs: after whatever else is due with them */
	s->prio = kind == SRC_SIGFD ? LOOP_PRIO_STOP : LOOP_PRIO_NORMAL;
	s->fd = fd;
	s->own_fd = own_fd;
	s->next = l->sources;
	l->sources = s;
	return s;
}

static void source_unlink_free(struct loop *l, struct loop_source *s)
{
	struct loop_source **p;

	for (p = &l->sources; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	free(s);
}

static int watch(struct loop_source *s, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = s };

	if (epoll_ctl(s->l->epfd, EPOLL_CTL_ADD, s->fd, &ev))
		return -errno;
	s->in_epoll = true;
	return 0;
}

static void unwatch(struct loop_source *s)
{
	if (s->in_epoll)
		epoll_ctl(s->l->epfd, EPOLL_CTL_DEL, s->fd, NULL);
	s->in_epoll = false;
}

/* A new source watched for @events, or NULL (errno set; @fd closed if ours). */
static struct loop_source *add_watched(struct loop *l, enum src_kind kind,
				       int fd, bool own_fd, uint32_t events)
{
	struct loop_source *s = source_new(l, kind, fd, own_fd);
	int e;

	if (!s)
		return NULL;
	e = watch(s, events);
	if (e) {
		source_unlink_free(l, s);
		errno = -e;
		return NULL;
	}
	return s;
}

struct loop_source *loop_add_fd(struct loop *l, int fd, uint32_t events,
				loop_fd_fn fn, void *arg)
{
	struct loop_source *s = add_watched(l, SRC_FD, fd, false, events);

	if (s) {
		s->fn.fd = fn;
		s->arg = arg;
	}
	return s;
}

static void to_timespec(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / 1000000000ULL);
	ts->tv_nsec = (long)(ns % 1000000000ULL);
}

int loop_timer_set(struct loop_source *s, uint64_t first_ns,
		   uint64_t period_ns)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	to_timespec(&its.it_value, first_ns);
	to_timespec(&its.it_interval, first_ns ? period_ns : 0);
	if (timerfd_settime(s->fd, TFD_TIMER_ABSTIME, &its, NULL))
		return -errno;
	return 0;
}

struct loop_source *loop_add_timer(struct loop *l, uint64_t first_ns,
				   uint64_t period_ns, loop_timer_fn fn,
				   void *arg)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct loop_source *s;
	int e;

	if (fd < 0)
		return NULL;
	s = add_watched(l, SRC_TIMER, fd, true, EPOLLIN);
	if (!s)
		return NULL;
	s->fn.timer = fn;
	s->arg = arg;
	e = loop_timer_set(s, first_ns, period_ns);
	if (e) {
		loop_del(l, s);
		errno = -e;
		return NULL;
	}
	return s;
}

struct loop_source *loop_add_signal(struct loop *l, int sig,
				    loop_signal_fn fn, void *arg)
{
	struct loop_source *s;
	sigset_t one;
	int fd;

	sigemptyset(&one);
	sigaddset(&one, sig);
	if (!l->mask_saved) {
		if (sigprocmask(SIG_BLOCK, &one, &l->orig_mask))
			return NULL;
		l->mask_saved = true;
	} else if (sigprocmask(SIG_BLOCK, &one, NULL)) {
		return NULL;
	}
	sigaddset(&l->sigs, sig);
	/* the same signalfd takes the grown mask */
	fd = signalfd(l->sigfd ? l->sigfd->fd : -1, &l->sigs,
		      SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!l->sigfd) {
		l->sigfd = add_watched(l, SRC_SIGFD, fd, true, EPOLLIN);
		if (!l->sigfd)
			return NULL;
	}
	s = source_new(l, SRC_SIGNAL, -1, false);
	if (!s)
		return NULL;
	s->sig = sig;
	s->fn.sig = fn;
	s->arg = arg;
	return s;
}

const sigset_t *loop_orig_sigmask(const struct loop *l)
{
	return l && l->mask_saved ? &l->orig_mask : NULL;
}

struct loop_source *loop_add_pid(struct loop *l, pid_t pid, loop_pid_fn fn,
				 void *arg)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	struct loop_source *s;

	if (fd < 0)
		return NULL;
	s = add_watched(l, SRC_PID, fd, true, EPOLLIN);
	if (!s)
		return NULL;
	s->pid = pid;
	s->fn.pid = fn;
	s->arg = arg;
	return s;
}

void loop_set_prio(struct loop_source *s, enum loop_prio prio)
{
	if (s && s->kind != SRC_SIGNAL)
		s->prio = prio;
}

int loop_add_stop_signals(struct loop *l, loop_signal_fn fn, void *arg)
{
	/*
	 * Every signal whose default action ends the process and that is
	 * not a fault of our own (SIGSEGV, SIGBUS, ... cannot be deferred):
	 * each is a clean stop with a final report, as Ctrl-C is. SIGXFSZ
	 * too: the write past the limit then fails with EFBIG, said as any
	 * write error. SIGPIPE is not: a closed output is an EPIPE write.
	 */
	static const int sigs[] = {
		SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
		SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
		SIGSTKFLT,
#endif
	};
	size_t i;
	int sig;

	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		if (!loop_add_signal(l, sigs[i], fn, arg))
			return -errno;
	/* real-time signals end a process too */
	for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if (!loop_add_signal(l, sig, fn, arg))
			return -errno;
	return 0;
}

void loop_del(struct loop *l, struct loop_source *s)
{
	if (!s || s->dead)
		return;
	unwatch(s);
	if (l->dispatching) {
		s->dead = true;	/* an event for it may still be in the batch */
		return;
	}
	source_unlink_free(l, s);
}

static void reap_dead(struct loop *l)
{
	struct loop_source **p = &l->sources, *s;

	while ((s = *p)) {
		if (!s->dead) {
			p = &s->next;
			continue;
		}
		*p = s->next;
		if (s->own_fd && s->fd >= 0)
			close(s->fd);
		free(s);
	}
}

static int dispatch_signals(struct loop *l)
{
	struct signalfd_siginfo si;
	struct loop_source *s;
	int rc = 0;

	while (!rc && read(l->sigfd->fd, &si, sizeof(si)) == sizeof(si))
		for (s = l->sources; s && !rc; s = s->next)
			if (s->kind == SRC_SIGNAL && !s->dead &&
			    s->sig == (int)si.ssi_signo)
				rc = s->fn.sig(l, s->sig, s->arg);
	return rc;
}

static int dispatch(struct loop *l, struct loop_source *s, uint32_t events)
{
	uint64_t n;

	if (s->dead)
		return 0;
	switch (s->kind) {
	case SRC_FD:
		return s->fn.fd(l, s->fd, events, s->arg);
	case SRC_TIMER:
		/* EAGAIN: re-armed since it fired; nothing is due */
		if (read(s->fd, &n, sizeof(n)) != sizeof(n) || !n)
			return 0;
		return s->fn.timer(l, n, s->arg);
	case SRC_SIGFD:
		return dispatch_signals(l);
	case SRC_PID:
		/* it fires once: an exited process stays readable */
		unwatch(s);
		return s->fn.pid(l, s->pid, s->arg);
	case SRC_SIGNAL:
		break;
	}
	return 0;
}

/* A batch in priority order, stable: epoll's order within a priority. */
static void sort_batch(struct epoll_event *ev, int n)
{
	struct epoll_event e;
	int i, j;

	for (i = 1; i < n; i++) {
		e = ev[i];
		for (j = i; j > 0 &&
			    ((struct loop_source *)ev[j - 1].data.ptr)->prio >
				    ((struct loop_source *)e.data.ptr)->prio;
		     j--)
			ev[j] = ev[j - 1];
		ev[j] = e;
	}
}

/*
 * A stop finishes what is due: each LOOP_PRIO_REPORT timer that has
 * expired by now (its timerfd reads a count; one not due reads EAGAIN)
 * runs once more, whether or not epoll had handed it over yet.
 */
static int finish_due(struct loop *l)
{
	struct loop_source *s;
	int rc = 0;

	l->dispatching = true;
	for (s = l->sources; s && !rc; s = s->next)
		if (s->kind == SRC_TIMER && s->prio == LOOP_PRIO_REPORT)
			rc = dispatch(l, s, EPOLLIN);
	l->dispatching = false;
	reap_dead(l);
	return rc;
}

int loop_run(struct loop *l)
{
	struct epoll_event ev[LOOP_BATCH];
	int n, i, rc = 0;

	l->stop = false;
	while (!l->stop && !rc) {
		n = epoll_wait(l->epfd, ev, LOOP_BATCH, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		sort_batch(ev, n);
		l->dispatching = true;
		for (i = 0; i < n && !l->stop && !rc; i++)
			rc = dispatch(l, ev[i].data.ptr, ev[i].events);
		l->dispatching = false;
		reap_dead(l);
	}
	if (l->stop && !rc)
		rc = finish_due(l);
	return rc;
}

void loop_stop(struct loop *l)
{
	l->stop = true;
}

bool loop_stopped(const struct loop *l)
{
	return l->stop;
}

void loop_free(struct loop *l)
{
	struct loop_source *s;

	if (!l)
		return;
	while ((s = l->sources)) {
		l->sources = s->next;
		if (s->own_fd && s->fd >= 0)
			close(s->fd);
		free(s);
	}
	close(l->epfd);
	/*
	 * The signals stay blocked: a second Ctrl-C while the last report
	 * is written must not kill tdbpf before it is out.
	 */
	free(l);
}
