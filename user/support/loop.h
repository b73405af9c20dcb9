/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One event loop on file descriptors (epoll). Everything a run waits for
 * is a source with a handler: signals (one signalfd), timers (one
 * timerfd each: -I, -d, the 100 ms tick), the targets' pidfds, and any fd
 * a feature brings (a listening socket, libmicrohttpd's epoll fd, a
 * terminal's stdin). Handlers run one at a time, in the loop's thread;
 * nothing here allocates per wakeup.
 *
 * A handler returns 0 to go on, or a negative errno to stop the loop with
 * that error (loop_run() returns it). loop_stop() ends the loop after the
 * current handler without an error.
 *
 * Plugging in later features:
 * - Prometheus (libmicrohttpd started with MHD_USE_EPOLL): add
 *   MHD_get_daemon_info(MHD_DAEMON_INFO_EPOLL_FD) with loop_add_fd(), call
 *   MHD_run() from the handler, and keep MHD_get_timeout() with a one-shot
 *   loop_add_timer()/loop_timer_set().
 * - `tdbpf top`: loop_add_fd(STDIN_FILENO), loop_add_signal(SIGWINCH) and
 *   a periodic timer that collects and repaints.
 */
#ifndef TDBPF_LOOP_H
#define TDBPF_LOOP_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

struct loop;
struct loop_source;

/*
 * The order in which sources ready at once are handled: reports before
 * the rest, stops (signals, -d, the targets' exit) after, so that an
 * interval due with the deadline is reported, whatever order epoll
 * hands them over in. A stop also finishes the LOOP_PRIO_REPORT timers
 * already due (loop_run()). New sources are LOOP_PRIO_NORMAL; the
 * signalfd, LOOP_PRIO_STOP.
 */
enum loop_prio {
	LOOP_PRIO_REPORT,
	LOOP_PRIO_NORMAL,
	LOOP_PRIO_STOP,
};

/* @events: what epoll reported (EPOLLIN, EPOLLHUP, ...). */
typedef int (*loop_fd_fn)(struct loop *l, int fd, uint32_t events,
			  void *arg);
/* @expirations: timer periods elapsed since the last call (>= 1). */
typedef int (*loop_timer_fn)(struct loop *l, uint64_t expirations,
			     void *arg);
typedef int (*loop_signal_fn)(struct loop *l, int sig, void *arg);
/* The process (a pidfd's) has exited; it is not reaped here. */
typedef int (*loop_pid_fn)(struct loop *l, pid_t pid, void *arg);

/* NULL on allocation or epoll_create1 failure (errno set). */
struct loop *loop_new(void);
/*
 * Close every fd the loop created (timerfds, signalfd, pidfds, epoll);
 * fds given to loop_add_fd() stay open. Signals added stay blocked, so
 * that one arriving while the last report is written cannot kill tdbpf
 * before it is out.
 */
void loop_free(struct loop *l);

/* Watch @fd for @events (EPOLLIN, EPOLLOUT). The caller owns @fd. */
struct loop_source *loop_add_fd(struct loop *l, int fd, uint32_t events,
				loop_fd_fn fn, void *arg);

/*
 * A timer on CLOCK_MONOTONIC: first at @first_ns (absolute, as
 * loop_now_ns() counts), then every @period_ns (0: once). Absolute
 * times, so a periodic timer never drifts with the handlers' run time.
 */
struct loop_source *loop_add_timer(struct loop *l, uint64_t first_ns,
				   uint64_t period_ns, loop_timer_fn fn,
				   void *arg);
/* Re-arm (or, @first_ns 0, disarm) a timer source. */
int loop_timer_set(struct loop_source *s, uint64_t first_ns,
		   uint64_t period_ns);

/*
 * Deliver @sig through the loop's signalfd: it is blocked from now on,
 * so a signal that arrives while setting up waits for the loop instead
 * of being lost. Children forked after this inherit the blocked mask:
 * give them loop_orig_sigmask() before exec.
 */
struct loop_source *loop_add_signal(struct loop *l, int sig,
				    loop_signal_fn fn, void *arg);
/* The signal mask from before the loop blocked any; NULL if none was. */
const sigset_t *loop_orig_sigmask(const struct loop *l);

/*
 * Call @fn once when process @pid exits (pidfd_open; Linux >= 5.3).
 * NULL with errno set when there is no pidfd for it (an old kernel, or
 * @pid is not a thread-group leader): the caller polls it instead.
 */
struct loop_source *loop_add_pid(struct loop *l, pid_t pid, loop_pid_fn fn,
				 void *arg);

/* Set @s's priority (not of one signal: they share the signalfd's). */
void loop_set_prio(struct loop_source *s, enum loop_prio prio);

/*
 * @fn for every signal that would end the process by default, faults
 * aside (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2, SIGALRM, SIGXFSZ,
 * real-time signals, ...): each gets the clean stop Ctrl-C gets. 0 or
 * -errno.
 */
int loop_add_stop_signals(struct loop *l, loop_signal_fn fn, void *arg);

/* Stop watching @s and free it (closing the fds the loop created). */
void loop_del(struct loop *l, struct loop_source *s);

/*
 * Run until loop_stop() or a handler's error; returns 0 or that error.
 * After a stop, the LOOP_PRIO_REPORT timers already due run once more.
 */
int loop_run(struct loop *l);
void loop_stop(struct loop *l);
bool loop_stopped(const struct loop *l);

/* CLOCK_MONOTONIC in ns: the clock of timers and of the BPF side. */
uint64_t loop_now_ns(void);

#endif /* TDBPF_LOOP_H */
