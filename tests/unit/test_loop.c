// SPDX-License-Identifier: GPL-2.0
/*
 * The event loop on real fds: timers fire when due and not before,
 * periodic ones without drift; fd, signal and pidfd sources reach their
 * handlers; a handler's error stops the loop; a source deleted by
 * another handler in the same batch is not called.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "support/loop.h"

#define MS	1000000ULL

struct count {
	int calls;
	uint64_t expirations;
	uint64_t last_ns;
	int stop_after;
};

static int on_timer(struct loop *l, uint64_t n, void *arg)
{
	struct count *c = arg;

	c->calls++;
	c->expirations += n;
	c->last_ns = loop_now_ns();
	if (c->stop_after && c->calls >= c->stop_after)
		loop_stop(l);
	return 0;
}

static void test_timers(void **state)
{
	struct loop *l = loop_new();
	struct count once = { 0 }, per = { .stop_after = 5 };
	uint64_t t0 = loop_now_ns();

	(void)state;
	assert_non_null(l);
	assert_non_null(loop_add_timer(l, t0 + 20 * MS, 0, on_timer, &once));
	assert_non_null(loop_add_timer(l, t0 + 10 * MS, 10 * MS, on_timer,
				       &per));
	assert_int_equal(loop_run(l), 0);
	/* 5 periods of 10 ms from t0 + 10 ms: stopped at t0 + 50 ms */
	assert_int_equal(per.calls, 5);
	assert_true(per.last_ns >= t0 + 50 * MS);
	assert_int_equal(once.calls, 1);
	assert_true(once.last_ns >= t0 + 20 * MS);
	/* a one-shot timer does not fire again */
	per.stop_after = per.calls + 3;
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(once.calls, 1);
	loop_free(l);
}

static int on_fd(struct loop *l, int fd, uint32_t events, void *arg)
{
	char buf[8];
	int *got = arg;

	(void)l;
	assert_true(events & EPOLLIN);
	assert_int_equal(read(fd, buf, sizeof(buf)), 3);
	*got += 1;
	return -EPIPE;	/* an error stops the loop with it */
}

static void test_fd_error_stops(void **state)
{
	struct loop *l = loop_new();
	int p[2], got = 0;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_non_null(loop_add_fd(l, p[0], EPOLLIN, on_fd, &got));
	assert_int_equal(write(p[1], "abc", 3), 3);
	assert_int_equal(loop_run(l), -EPIPE);
	assert_int_equal(got, 1);
	loop_free(l);
	/* the caller's fd stays open */
	assert_int_equal(write(p[1], "x", 1), 1);
	close(p[0]);
	close(p[1]);
}

static int on_sig(struct loop *l, int sig, void *arg)
{
	*(int *)arg = sig;
	loop_stop(l);
	return 0;
}

static int on_pid(struct loop *l, pid_t pid, void *arg)
{
	*(pid_t *)arg = pid;
	loop_stop(l);
	return 0;
}

static void test_signal_and_pid(void **state)
{
	struct loop *l = loop_new();
	int sig = 0, status;
	pid_t child, seen = 0;
	sigset_t now;

	(void)state;
	assert_non_null(loop_add_signal(l, SIGUSR1, on_sig, &sig));
	/* blocked from now on, and the original mask is kept for children */
	sigprocmask(SIG_BLOCK, NULL, &now);
	assert_true(sigismember(&now, SIGUSR1));
	assert_non_null(loop_orig_sigmask(l));
	assert_false(sigismember(loop_orig_sigmask(l), SIGUSR1));
	kill(getpid(), SIGUSR1);
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(sig, SIGUSR1);

	child = fork();
	assert_true(child >= 0);
	if (!child) {
		usleep(20000);
		_exit(0);
	}
	if (!loop_add_pid(l, child, on_pid, &seen)) {
		waitpid(child, &status, 0);
		loop_free(l);
		skip();	/* no pidfd_open: Linux < 5.3 */
	}
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(seen, child);
	assert_int_equal(waitpid(child, &status, 0), child);
	loop_free(l);
}

struct killer {
	struct loop_source *victim;
	int calls;
};

static int on_kill(struct loop *l, uint64_t n, void *arg)
{
	struct killer *k = arg;

	(void)n;
	k->calls++;
	loop_del(l, k->victim);
	return 0;
}

static void test_delete_in_batch(void **state)
{
	struct loop *l = loop_new();
	uint64_t past = loop_now_ns() - 1;
	struct count c = { 0 }, stopper = { .stop_after = 1 };
	struct killer k = { 0 }, k2 = { 0 };
	struct loop_source *a, *b;

	(void)state;
	/* both due at once: whichever runs first deletes the other */
	a = loop_add_timer(l, past, 0, on_kill, &k);
	b = loop_add_timer(l, past, 0, on_kill, &k2);
	k.victim = b;
	k2.victim = a;
	assert_non_null(loop_add_timer(l, loop_now_ns() + 5 * MS, 0, on_timer,
				       &stopper));
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(stopper.calls, 1);
	assert_int_equal(k.calls + k2.calls, 1);
	/* the loop goes on working */
	assert_non_null(loop_add_timer(l, loop_now_ns() + MS, 0, on_timer, &c));
	c.stop_after = 1;
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(c.calls, 1);
	loop_free(l);
}


/* A handler that keeps the loop busy until @until_ns, then maybe stops. */
struct stall {
	uint64_t until_ns;
	bool stop;
};

static int on_stall(struct loop *l, uint64_t n, void *arg)
{
	struct stall *st = arg;

	(void)n;
	while (loop_now_ns() < st->until_ns)
		usleep(1000);
	if (st->stop)
		loop_stop(l);
	return 0;
}

/* A timer at @at (then every @period ns, 0: once) counting into @c, @prio */
static void prio_timer(struct loop *l, uint64_t at, uint64_t period,
		       struct count *c, enum loop_prio prio)
{
	struct loop_source *s = loop_add_timer(l, at, period, on_timer, c);

	assert_non_null(s);
	loop_set_prio(s, prio);
}

/*
 * A deadline and an interval report
 * due together. Both are ready in one batch, the deadline first in
 * epoll's order (it fell due first, and was registered first, as run.c
 * does): the report still runs, because reports come before stops.
 */
static void test_report_before_stop(void **state)
{
	struct loop *l = loop_new();
	uint64_t t0 = loop_now_ns();
	struct stall busy = { .until_ns = t0 + 60 * MS };
	struct count iv = { 0 }, dl = { .stop_after = 1 };

	(void)state;
	assert_non_null(loop_add_timer(l, t0 + 5 * MS, 0, on_stall, &busy));
	prio_timer(l, t0 + 20 * MS, 0, &dl, LOOP_PRIO_STOP);
	prio_timer(l, t0 + 30 * MS, 1000 * MS, &iv, LOOP_PRIO_REPORT);
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(dl.calls, 1);
	assert_int_equal(iv.calls, 1);
	loop_free(l);
}

/*
 * A stop finishes what is due: a report that fell due while the handler
 * that stops ran (so not in the batch epoll handed over) runs before
 * loop_run() returns; one not due yet does not.
 */
static void test_stop_finishes_due(void **state)
{
	struct loop *l = loop_new();
	uint64_t t0 = loop_now_ns();
	struct stall stopper = { .until_ns = t0 + 60 * MS, .stop = true };
	struct count due = { 0 }, later = { 0 };

	(void)state;
	assert_non_null(loop_add_timer(l, t0 + 5 * MS, 0, on_stall, &stopper));
	prio_timer(l, t0 + 30 * MS, 1000 * MS, &due, LOOP_PRIO_REPORT);
	prio_timer(l, t0 + 10000 * MS, 1000 * MS, &later, LOOP_PRIO_REPORT);
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(due.calls, 1);
	assert_int_equal(due.expirations, 1);
	assert_int_equal(later.calls, 0);
	loop_free(l);
}

/* Every terminating signal is a stop; SIGPIPE and faults are not taken. */
static void test_stop_signals(void **state)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
				    SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ };
	struct loop *l = loop_new();
	sigset_t now;
	size_t i;
	int got;

	(void)state;
	assert_int_equal(loop_add_stop_signals(l, on_sig, &got), 0);
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		assert_true(sigismember(&now, sigs[i]));
	assert_true(sigismember(&now, SIGRTMIN));
	assert_false(sigismember(&now, SIGPIPE));
	assert_false(sigismember(&now, SIGSEGV));
	got = 0;
	kill(getpid(), SIGQUIT);
	assert_int_equal(loop_run(l), 0);
	assert_int_equal(got, SIGQUIT);
	loop_free(l);
	/* stay blocked after (loop.h): undo for the other tests */
	assert_int_equal(sigprocmask(SIG_UNBLOCK, &now, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers),
		cmocka_unit_test(test_fd_error_stops),
		cmocka_unit_test(test_signal_and_pid),
		cmocka_unit_test(test_delete_in_batch),
		cmocka_unit_test(test_report_before_stop),
		cmocka_unit_test(test_stop_finishes_due),
		cmocka_unit_test(test_stop_signals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
