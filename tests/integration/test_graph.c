// SPDX-License-Identifier: GPL-2.0
/*
 * The wait-for graph for real, as root: pipelines whose bottleneck we
 * place (stage and kind) must get a verdict naming that stage; waits by
 * waker must add up to each task's off-CPU time; wakeup counts must
 * match a workload that counts its own; GStreamer's streaming threads;
 * the DOT file through Graphviz; a --graph path that cannot be written.
 *
 * Why the reason may be "CPU-starved" instead of the kind we placed: on
 * a loaded machine (the test VMs run other jobs) a stage that wakes
 * after each 200 us sleep can wait longer in the run queue than it
 * runs. The reason must then agree with the stage's own row (sched
 * "CPU-starved"); it may never be anything else.
 */
#include <math.h>
#include <sys/utsname.h>
#include "helpers.h"
#include "tdbpf.h"		/* the waker kinds of "waits" */

/*
 * The entry of @o's array @array whose "comm" is @comm and whose "kind"
 * is not @not_kind (NULL: any), or NULL.
 */
static json_object *by_comm_kind(json_object *o, const char *array,
				 const char *comm, const char *not_kind)
{
	json_object *a, *e;
	size_t i;

	if (!json_object_object_get_ex(o, array, &a))
		return NULL;
	for (i = 0; i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (!strcmp(jstr(e, "comm"), comm) &&
		    (!not_kind || strcmp(jstr(e, "kind"), not_kind)))
			return e;
	}
	return NULL;
}

static json_object *by_comm(json_object *o, const char *array,
			    const char *comm)
{
	return by_comm_kind(o, array, comm, NULL);
}

static json_object *task_by_comm(json_object *doc, const char *comm)
{
	return by_comm(doc, "tasks", comm);
}

/*
 * Run @argv (tdbpf ... -j -o @json -- a workload) to exit 0, its stdout
 * in *@out when @out is not NULL; the report it wrote.
 */
static json_object *traced(char *const argv[], const char *json, char **out,
			   int timeout_s)
{
	json_object *doc;

	assert_int_equal(run(argv, out, timeout_s), 0);
	doc = json_file(json);
	assert_non_null(doc);
	return doc;
}

/*
 * The verdict names @stage, for the reason @want, or "CPU-starved" when
 * the stage's own row says it was starved; most of the graph's blocked
 * time leads there (a share above @share).
 */
static void check_verdict(json_object *doc, const char *stage,
			  const char *want, double share)
{
	json_object *v = first_candidate(doc), *t = task_by_comm(doc, stage);
	const char *comm, *reason, *sched;

	assert_non_null(v);
	assert_non_null(t);
	comm = jstr(v, "comm");
	reason = jstr(v, "reason");
	sched = jstr(t, "sched");
	print_message("  %s: bottleneck %s (share %.2f): %s [row: %s]\n",
		      stage, comm, jdouble(v, "share"), reason, sched);
	if (strcmp(comm, stage)) {
		print_error("verdict names %s, the bottleneck is %s\n", comm,
			    stage);
		fail();
	}
	if (!strncmp(reason, "CPU-starved", 11) &&
	    (!strcmp(sched, "CPU-starved") || !strcmp(want, "CPU-starved")))
		return;
	if (!strstr(reason, want)) {
		print_error("reason '%s', want '%s'\n", reason, want);
		fail();
	}
	assert_true(jdouble(v, "share") > share);
}

/*
 * A task's waits by waker add up to its off-CPU time, the named wakers
 * and "unseen" (blocked time no seen wakeup ended) together within 1%:
 * the settled waits tile the task's life. The named ones alone are
 * held to 3%: a wakeup from an interrupt that comes while one of the
 * test VM's agent threads (pid 1) runs is traced by the kernel but no
 * BPF program runs for it (docs/graph.md, limits: unseen), so a stage that
 * sleeps 200 us per record has up to 1.6% of its blocked time unseen
 * when the agent is busy (0.06-0.2% in most runs); with the agent idle
 * the named waits are within 0.01%. What sets that share is outside
 * the workload and tdbpf, so the bound has room for it.
 */
static void check_waits_sum(json_object *task)
{
	json_object *w, *e;
	double named = 0, all = 0, off = (double)jint(task, "off_cpu_ns");
	size_t i;

	assert_true(json_object_object_get_ex(task, "waits_on", &w));
	for (i = 0; i < json_object_array_length(w); i++) {
		e = json_object_array_get_idx(w, i);
		/* holds of the CPU are run-queue time (test_cpu_causes) */
		if (!strcmp(jstr(e, "kind"), "cpu"))
			continue;
		all += (double)jint(e, "wait_ns");
		if (strcmp(jstr(e, "comm"), "unseen"))
			named += (double)jint(e, "wait_ns");
	}
	if (off < 100e6)
		return;		/* too little blocked time to hold to 1% */
	print_message("  %s: off-CPU %.0f ns, waits %.0f ns (%.3f%%)\n",
		      jstr(task, "comm"), off, named, 100 * named / off);
	assert_close("named waits", named, off, 0.03, 0);
	assert_close("all waits", all, off, 0.01, 0);
}

struct pl_case {
	const char *stage;	/* bottleneck stage */
	const char *idx;	/* its index for -b */
	const char *kind;	/* -k */
	const char *want;	/* in the verdict's reason */
};

static const char *const stages[] = { "source", "parse", "enrich", "score",
				      "format", "sink" };

/*
 * @mode: "--wakeups", or "--sampled-wakeups", whose waits are estimates:
 * they need not add up to the off-CPU time (test_sampled_*).
 */
static void run_pipeline(const struct pl_case *c, const char *mode,
			 const char *secs)
{
	char *json = tmp_path("pl.json"), *out = NULL;
	/*
	 * the command alone: the process kind's helper is "another
	 * process", outside the targets (traced as a child, it would be
	 * named itself: asleep 200 us a request)
	 */
	char *argv[] = { (char *)tdbpf_bin(), (char *)mode, "--no-children",
			 "-j", "-o", json,
			 "--", (char *)workload("pipeline"), "-b",
			 (char *)c->idx, "-k", (char *)c->kind, "-d",
			 (char *)secs, NULL };
	bool every = !strcmp(mode, "--wakeups");
	json_object *doc, *t;
	size_t i;

	doc = traced(argv, json, &out, 60);
	/*
	 * sampled, the share is an estimate from eight periods' windows:
	 * 0.48 once in a TCG guest (make vmtest), where every wakeup's run
	 * gave the same stage more than half
	 */
	check_verdict(doc, c->stage, c->want, every ? 0.5 : 0.4);
	for (i = 0; every && i < sizeof(stages) / sizeof(stages[0]); i++) {
		t = task_by_comm(doc, stages[i]);
		assert_non_null(t);
		check_waits_sum(t);
	}
	json_object_put(doc);
	free(out);
	unlink(json);
}

/* run_pipeline() for each of @n @cases, traced with @mode for @secs */
static void run_pipelines(const struct pl_case *cases, size_t n,
			  const char *mode, const char *secs)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(cases[i].kind, "starved") &&
		    sysconf(_SC_NPROCESSORS_ONLN) < 2) {
			print_message("  starved: needs 2 CPUs, skipped\n");
			continue;
		}
		print_message("%s: pipeline -b %s -k %s\n", mode, cases[i].idx,
			      cases[i].kind);
		run_pipeline(&cases[i], mode, secs);
	}
}

/* The bottleneck moved between stages and kinds: the verdict follows. */
static void test_pipeline_verdicts(void **state)
{
	static const struct pl_case cases[] = {
		{ "enrich", "2", "cpu", "runs (" },
		{ "format", "4", "cpu", "runs (" },
		{ "parse", "1", "sleep", "waits on timers" },
		{ "score", "3", "timerfd", "waits on timers" },
		{ "enrich", "2", "process", "waits on another process" },
		{ "sink", "5", "sleep", "waits on timers" },
		{ "score", "3", "starved", "CPU-starved" },
	};

	(void)state;
	NEED_BPF();
	run_pipelines(cases, sizeof(cases) / sizeof(cases[0]), "--wakeups",
		      "2");
}

/*
 * Run @argv (tdbpf ... -- wakecount), its report; wakecount's own count
 * of wakeups and clock of the waitee's reads in *@n and *@blocked.
 */
static json_object *wakecount_traced(char *const argv[], const char *json,
				     char **out, long long *n,
				     long long *blocked)
{
	json_object *doc = traced(argv, json, out, 60);
	char *p = strstr(*out, "wakeups=");

	assert_non_null(p);
	assert_int_equal(sscanf(p, "wakeups=%lld waitee_blocked_ns=%lld", n,
				blocked), 2);
	return doc;
}

static bool preempt_rt(void);

/*
 * The same with the wakeups of windows only (--sampled-wakeups): a
 * tenth of the wakeups seen, scaled, must name the same stage for the
 * same reason. 4 s: eight periods of windows.
 */
static void test_sampled_verdicts(void **state)
{
	static const struct pl_case cases[] = {
		{ "format", "4", "cpu", "runs (" },
		{ "parse", "1", "sleep", "waits on timers" },
		{ "enrich", "2", "process", "waits on another process" },
	};

	(void)state;
	NEED_BPF();
	/*
	 * PREEMPT_RT (make vmtest's 6.1-rt, a TCG guest): the sleeping
	 * stage's sampled waits were named kernel threads' (ktimers), not
	 * the timer's, and in another run the CPU-bound stage's neighbour
	 * was named, CPU-starved; every wakeup's verdicts hold there. Not
	 * yet understood, so not held to it there.
	 */
	if (preempt_rt()) {
		print_message("PREEMPT_RT: sampled verdicts not held here (docs/graph.md): skipped\n");
		skip();
	}
	run_pipelines(cases, sizeof(cases) / sizeof(cases[0]),
		      "--sampled-wakeups", "4");
}

/* The waits_on entry of @task whose waker is @comm, or NULL. */
/*
 * @task's wait on @comm: its wakeups, not its run-queue time while
 * @comm held a CPU (the same task can be both, "kind": "cpu").
 */
static json_object *waiter_entry(json_object *task, const char *comm)
{
	return by_comm_kind(task, "waits_on", comm, "cpu");
}

/* Wakeups of @task by every waker, as its waits_on says. */
static long long all_wakeups(json_object *task)
{
	json_object *w;
	long long n = 0;
	size_t i;

	assert_true(json_object_object_get_ex(task, "waits_on", &w));
	for (i = 0; i < json_object_array_length(w); i++) {
		json_object *e = json_object_array_get_idx(w, i);

		/* a hold's count is of run-queue waits, not wakeups */
		if (strcmp(jstr(e, "kind"), "cpu"))
			n += jint(e, "wakeups");
	}
	return n;
}

/*
 * wakecount: the waitee is woken by the waker exactly N times (a pipe
 * write each, always finding it blocked), the waker by a timer (its
 * nanosleep) at most N times: a timer that fires before the waker gets
 * to sleep (preempted on a loaded machine) wakes nobody. Every block of
 * either thread ends in a wakeup tdbpf saw, or one the kernel did not
 * let it see (lost.wakeups_missed), but for a few in a thousand whose
 * wakeup went unseen otherwise: wakeups match voluntary switches, less
 * the last (its exit), within 1%. The edge in the graph says the same
 * as the task's waits_on. The waitee clocked its reads:
 * each is the wait the waker ended, then the wait for a CPU once woken,
 * then the read's own few microseconds of CPU; so the wait plus the
 * waitee's run-queue time is that clock, up to its CPU time. Not above
 * it by more than the run-queue time: on a loaded machine the waitee is
 * also preempted between reads, outside the clock (65 ms of 881 here,
 * with a QEMU guest busy on the other CPU).
 */
/*
 * PREEMPT_RT: spinlock_t is a sleeping lock (an rt_mutex), so a thread
 * also blocks on a pipe's locks while the other thread holds them, and
 * that holder's unlock wakes it; and a sleep's hrtimer expires in a
 * softirq, run by ktimers/N or by the task that ends a bh-disabled
 * section, not in the timer interrupt. Found
 * booting Debian 12's 6.1-rt (make vmtest): the waitee blocked 3,667
 * times for 3,000 reads, every block ended by the waker.
 */
static bool preempt_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

/* QEMU's TCG, an emulated CPU (make vmtest's x86 guests), names itself */
static bool tcg_guest(void)
{
	char *text = file_text("/proc/cpuinfo");
	bool tcg = text && strstr(text, "QEMU TCG");

	free(text);
	return tcg;
}

static void test_wakeup_counts(void **state)
{
	char *json = tmp_path("wc.json"), *out = NULL, *p;
	char *argv[] = { (char *)tdbpf_bin(), "--wakeups", "-j", "-o", json,
			 "--", (char *)workload("wakecount"), "-n", "3000",
			 NULL };
	json_object *doc, *waker, *waitee, *e, *g, *edges, *lost;
	long long n = 0, blocked = 0, missed, woken, vol, want, ended, slept;
	long long startup = 0;
	bool rt = preempt_rt();
	double wait, runq, on;
	int found = 0;
	size_t i;

	(void)state;
	NEED_BPF();
	doc = wakecount_traced(argv, json, &out, &n, &blocked);
	waker = task_by_comm(doc, "waker");
	waitee = task_by_comm(doc, "waitee");
	assert_non_null(waker);
	assert_non_null(waitee);
	/*
	 * every block of the waitee but its exit's, ended by the waker (RT:
	 * and its sleeps on the locks the waker held). The waker writes once
	 * the waitee's state is S, but a task is S before it leaves its run
	 * queue: a write in between (seen on a TCG guest, whose vCPU can
	 * stop there) finds it still queued, its read does not block, and
	 * no block is there to end. So the kernel's count of its blocks is
	 * what the waker ended, and nearly every read blocked. RT adds
	 * its lock blocks but preempts a task anywhere, between its S and
	 * its dequeue too: 3,001 to 3,097 blocks for 3,000 reads in 20
	 * runs of the 6.1-rt guest, so it is held to the same bound.
	 */
	want = jint(waitee, "voluntary") - 1;
	print_message("  waitee: %lld blocks for %lld reads\n", want, n);
	assert_true(want >= n - n / 100);
	e = waiter_entry(waitee, "waker");
	assert_non_null(e);
	assert_int_equal(jint(e, "tid"), jint(waker, "tid"));
	assert_true(json_object_object_get_ex(doc, "lost", &lost));
	missed = jint(lost, "wakeups_missed");
	/*
	 * each block's wakeup seen, or counted as missed (the kernel
	 * skipped the program). RT: one block in 3,047 ended unseen in one
	 * of 20 runs of the 6.1-rt guest (its wait shown as "unseen", not
	 * lost; its missed count not printed then); not explained yet, so
	 * a block in a thousand is let go there, and only there.
	 */
	ended = jint(e, "wakeups");
	/*
	 * and before the first read: the waitee's first touches of its stack
	 * can wait for the main thread's mmap of the waker's (seen once in a
	 * loaded TCG guest: a 2 ms wait, woken by "wakecount"), a block the
	 * waker did not end
	 */
	e = by_comm_kind(waitee, "waits_on", "wakecount", "cpu");
	if (e)
		startup = jint(e, "wakeups");
	assert_true(startup <= 2);
	want -= startup;
	if (ended != want)
		/* what ended the other blocks, for whoever reads the failure */
		print_error("waitee: %lld blocks but the main thread's %lld, %lld woken by the waker, %lld by anyone, %lld wakeups missed; waits_on: %s\n",
			    want, startup, ended, all_wakeups(waitee), missed,
			    json_object_to_json_string(json_object_object_get(
				    waitee, "waits_on")));
	assert_true(ended <= want &&
		    ended + missed + (rt ? 1 + want / 1000 : 0) >= want);
	e = waiter_entry(waitee, "waker");
	wait = (double)jint(e, "wait_ns");
	runq = (double)jint(waitee, "runq_wait_ns");
	on = (double)jint(waitee, "on_cpu_ns");
	print_message("  waitee: read() clocked %lld ns; wait %.0f + runq %.0f ns, on-CPU %.0f ns\n",
		      blocked, wait, runq, on);
	if (!(wait <= blocked * 1.01 &&
	      wait + runq + on >= blocked * 0.99)) {
		print_error("waitee's wait %.0f + runq %.0f vs its clock %lld (on-CPU %.0f)\n",
			    wait, runq, blocked, on);
		fail();
	}
	/*
	 * RT: the sleeps' timers expire in softirq context, run by ktimers/N
	 * or by whichever task ends a bh-disabled section: no one kind of
	 * waker to count (the sums below still hold)
	 */
	p = strstr(out, "waker_slept=");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "waker_slept=%lld", &slept), 1);
	e = waiter_entry(waker, "timer");
	if (rt) {
		print_message("  PREEMPT_RT: waker woken by %lld timer interrupts, the rest by the tasks running timer softirqs\n",
			      e ? (long long)jint(e, "wakeups") : 0);
	} else {
		/*
		 * every nanosleep that blocked (the waker's count: a timer
		 * that fires before it sleeps wakes nobody, common in a
		 * loaded TCG guest) ended by the timer, but for the unseen
		 * of the blocks below (our VMs' agent)
		 */
		assert_non_null(e);
		print_message("  waker woken by a timer %lld times; %lld of its %lld sleeps blocked\n",
			      (long long)jint(e, "wakeups"), slept, n);
		if (!(jint(e, "wakeups") <= slept &&
		      jint(e, "wakeups") + missed + 2 + slept / 100 >= slept)) {
			print_error("waker's waits_on: %s\n",
				    json_object_to_json_string(
					    json_object_object_get(waker,
								   "waits_on")));
			fail();
		}
	}
	for (i = 0; i < 2; i++) {
		json_object *t = i ? waitee : waker;

		woken = all_wakeups(t);
		vol = jint(t, "voluntary");
		print_message("  %s: %lld wakeups seen, %lld voluntary switches, %lld missed\n",
			      jstr(t, "comm"), woken, vol, missed);
		/* a few blocks in a thousand end unseen (docs/graph.md: unseen) */
		assert_true(woken <= vol &&
			    woken + missed + 2 + vol / 100 >= vol);
	}
	check_waits_sum(waker);
	check_waits_sum(waitee);
	/* the same edge in the graph */
	assert_true(json_object_object_get_ex(doc, "graph", &g));
	assert_true(json_object_object_get_ex(g, "edges", &edges));
	for (i = 0; i < json_object_array_length(edges); i++) {
		e = json_object_array_get_idx(edges, i);
		/* a hold (the waker on the CPU the waitee waited for) apart */
		if (jint(e, "waker_tid") != jint(waker, "tid") ||
		    jint(e, "wakee_tid") != jint(waitee, "tid") ||
		    strcmp(jstr(e, "kind"), "wakeup"))
			continue;
		found++;
		assert_string_equal(jstr(e, "waker_comm"), "waker");
		assert_string_equal(jstr(e, "wakee_comm"), "waitee");
		assert_int_equal(jint(e, "wakeups"), ended);
	}
	assert_int_equal(found, 1);
	json_object_put(doc);
	free(out);
	unlink(json);
}

/* The report's graph.sampled: scale 10, windows a tenth of the run. */
static void check_sampled(json_object *doc)
{
	json_object *g, *smp;
	double share;

	assert_true(json_object_object_get_ex(doc, "graph", &g));
	assert_true(json_object_object_get_ex(g, "sampled", &smp));
	assert_int_equal(jint(smp, "scale"), 10);
	/* whole periods hold a tenth; the last one, cut, up to a window */
	share = (double)jint(smp, "windows_ns") /
		(double)jint(doc, "duration_ns");
	print_message("  windows: %.1f%% of the run\n", 100 * share);
	assert_true(share > 0.06 && share < 0.14);
}

/*
 * --sampled-wakeups against wakecount's own numbers. The waker's
 * wakeups of the waitee seen in the windows, scaled, estimate the
 * kernel's count of the waitee's blocks (the windows' tenth of the run
 * is a tenth but for the last period's window: a few percent in 4 s;
 * 1,200 wakeups seen). Each wait seen is charged whole, from the
 * waitee's switch-out to its wakeup and on to its enqueue: the waits,
 * scaled, estimate the waitee's clock of its reads less its run-queue
 * and on-CPU time, and so does the mean wait per read.
 */
static void test_sampled_wakecount(void **state)
{
	char *json = tmp_path("swc.json"), *out = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "--sampled-wakeups", "-j",
			 "-o", json, "--", (char *)workload("wakecount"),
			 "-n", "12000", NULL };
	json_object *doc, *waitee, *e;
	long long n = 0, blocked = 0, want;
	double est, mean, own;

	(void)state;
	NEED_BPF();
	/*
	 * PREEMPT_RT: the waitee also blocks on the pipe's locks, woken by
	 * the waker (test_wakeup_counts): more, shorter waits than reads
	 */
	if (preempt_rt()) {
		print_message("PREEMPT_RT: the waitee's waits are not its reads: skipped\n");
		skip();
	}
	doc = wakecount_traced(argv, json, &out, &n, &blocked);
	check_sampled(doc);
	waitee = task_by_comm(doc, "waitee");
	assert_non_null(waitee);
	want = jint(waitee, "voluntary") - 1;
	e = waiter_entry(waitee, "waker");
	assert_non_null(e);
	est = (double)jint(e, "wakeups");
	print_message("  waitee: %lld blocks, %.0f wakeups by the waker estimated\n",
		      want, est);
	assert_close("the waker's wakeups of the waitee, estimated", est,
		     (double)want, 0.3, 0);
	mean = (double)jint(e, "wait_ns") / est;
	own = (double)(blocked - jint(waitee, "runq_wait_ns") -
		       jint(waitee, "on_cpu_ns"));
	print_message("  waitee: waits %lld ns estimated, %.0f by its own clock; mean wait %.0f ns, its own %.0f ns\n",
		      (long long)jint(e, "wait_ns"), own, mean,
		      own / (double)n);
	assert_close("the waitee's waits, estimated", (double)jint(e, "wait_ns"),
		     own, 0.15, 0);
	/*
	 * The programs slow the workload in a window: fewer, longer waits
	 * seen there than out of one, the same time waited. Natively a few
	 * percent. In a TCG guest (make vmtest) they run emulated at every
	 * switch and wakeup: 79-97% of the wakeups estimated and the mean
	 * wait 6-28% longer (8 runs of a loaded guest) while the waits'
	 * sum stayed within 4%. So the mean is held natively only.
	 */
	if (tcg_guest())
		print_message("  TCG: the mean wait not held (the windows' programs slow the waker)\n");
	else
		assert_close("the waitee's mean wait", mean, own / (double)n,
			     0.15, 0);
	json_object_put(doc);
	free(out);
	unlink(json);
}

/*
 * Waits far longer than a window: 64 threads that sleep 300 ms at a
 * time (manythreads, each at its own slot of the 300 ms), traced once
 * past their first, shorter sleeps. A wait is in the sample when its
 * wakeup is in a window, and then charged whole: the mean wait seen is
 * the 300 ms less what a thread queued and ran in a cycle (each sleep
 * ends at its slot), where a wait clipped to its window could not pass
 * 50 ms. Scaled, the
 * wakeups and waits estimate the threads' blocks and off-CPU time in
 * the run, less what no task may pass: its own blocked time. A thread
 * of 26 waits is seen in 2.6 of them on average, and one seen three
 * times is held to 26, so the estimate of all is 76% of the blocks, not
 * 100%: the test holds it to that expectation (expected_share()).
 * The sample's units are the windows, not the waits: a window at a
 * random place of its 500 ms sees the ~11 threads whose slots it
 * covers, so windows that fall at the same phase of the 300 ms cycle
 * see the same threads. 4,000 simulated runs of 8 windows (4 s) had a
 * standard deviation of 10.5% and one run in 1,000 40% low (one run here
 * was 50% low); of 16 windows (8 s), 7% and 26% low. So 8 s, within
 * 40%: over five deviations.
 */
/*
 * The mean of min(10 k, n) / n for k of @n waits seen, each with the
 * chance 1/10: what the estimate of a task's @n waits is worth, held to
 * its blocked time (sums/wait_share.c).
 */
static double expected_share(double n)
{
	double p = 0.1, pk, e = 0;
	int k, m = (int)n;

	if (m <= 0)
		return 0;
	pk = pow(1 - p, m);
	for (k = 0; k <= m; k++) {
		e += pk * (10.0 * k < n ? 10.0 * k / n : 1.0);
		pk *= (double)(m - k) / (k + 1) * p / (1 - p);
	}
	return e;
}

/*
 * One sleeper's waits, estimated, into @sum: all of them (n, wait), and
 * those of estimates no exact total cut (whole_n, whole_wait), whose
 * wakeups are below the thread's blocks.
 */
struct sleepers {
	double off, vol, n, wait, want_n, want_wait;
	double whole_n, whole_wait;
};

static void add_sleeper(json_object *t, struct sleepers *sum)
{
	double vol = (double)jint(t, "voluntary"), n = 0, wait = 0;
	json_object *e, *ws;
	size_t j;

	sum->off += (double)jint(t, "off_cpu_ns");
	sum->vol += vol;
	sum->want_n += vol * expected_share(vol);
	sum->want_wait += (double)jint(t, "off_cpu_ns") * expected_share(vol);
	/*
	 * every waker of theirs: the timer, or on PREEMPT_RT the ktimers
	 * threads that expire it (test_wakeup_counts)
	 */
	assert_true(json_object_object_get_ex(t, "waits_on", &ws));
	for (j = 0; j < json_object_array_length(ws); j++) {
		e = json_object_array_get_idx(ws, j);
		if (!strcmp(jstr(e, "kind"), "cpu") ||
		    !strcmp(jstr(e, "comm"), "unseen"))
			continue;
		n += (double)jint(e, "wakeups");
		wait += (double)jint(e, "wait_ns");
	}
	sum->n += n;
	sum->wait += wait;
	if (n > 0 && n < vol) {
		sum->whole_n += n;
		sum->whole_wait += wait;
	}
}

/*
 * An estimate of a thread's waits that passes its exact totals is cut
 * to them: its wakeups to its blocks, its waits to its blocked time in
 * the run, where a wait that began before the attach counts from there
 * (the wakeup charges it whole). So the mean wait of a cut estimate is
 * below the period by that; the mean of the others is the waits' own.
 */
static void test_sampled_long_waits(void **state)
{
	char *wl[] = { (char *)workload("manythreads"), "-n", "64", "-d", "12",
		       "-p", "300", NULL };
	char *json = tmp_path("slw.json"), pidarg[32], line[64];
	char *argv[] = { (char *)tdbpf_bin(), "--sampled-wakeups", "-j",
			 "-o", json, "-d", "8", "-p", pidarg, NULL };
	struct sleepers sum = { 0 };
	json_object *doc, *tasks, *t;
	struct child w;
	size_t i;

	(void)state;
	NEED_BPF();
	snprintf(pidarg, sizeof(pidarg), "%d", start_workload(wl, 0, &w));
	while (read_line(w.out, line, sizeof(line), 10000) &&
	       strncmp(line, "ready", 5))
		;
	/* past every thread's first sleep, to its slot */
	usleep(400000);
	doc = traced(argv, json, NULL, 60);
	check_sampled(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		if (!strncmp(jstr(t, "comm"), "mt-", 3))
			add_sleeper(t, &sum);
	}
	print_message("  64 sleepers, 8 s: %.0f wakeups estimated (%.0f expected), mean wait %.1f ms; uncut estimates: %.0f wakeups, mean wait %.2f ms; %.0f blocks, off-CPU %.0f ms, waits %.0f ms (%.0f expected)\n",
		      sum.n, sum.want_n, sum.n ? sum.wait / sum.n / 1e6 : 0,
		      sum.whole_n,
		      sum.whole_n ? sum.whole_wait / sum.whole_n / 1e6 : 0,
		      sum.vol, sum.off / 1e6, sum.wait / 1e6,
		      sum.want_wait / 1e6);
	assert_true(sum.n / 10 >= 20);
	/*
	 * Whole waits: each is the period less its thread's last wakeup's
	 * delay and work (a sleep ends at its slot), and no more than the
	 * period and the timer's latency. A window samples adjacent slots
	 * together, so one delay (a tracer's attach, the other CPU busy)
	 * shortens a run of them at once: the mean is held to half the
	 * period, where waits clipped to their windows could not pass
	 * 50 ms; and every estimate's, cut or not, likewise.
	 */
	assert_true(sum.whole_n >= 10);
	assert_true(sum.whole_wait / sum.whole_n > 150e6 &&
		    sum.whole_wait / sum.whole_n < 305e6);
	assert_true(sum.wait / sum.n > 150e6 && sum.wait / sum.n < 305e6);
	assert_close("the sleepers' wakeups, estimated", sum.n, sum.want_n,
		     0.4, 0);
	assert_close("the sleepers' waits, estimated", sum.wait, sum.want_wait,
		     0.4, 0);
	json_object_put(doc);
	kill(w.pid, SIGTERM);
	close(w.out);
	assert_int_equal(wait_for(w.pid, 10), 0);
	unlink(json);
}

/*
 * --per-name over the demo with its parser pool slowed: the verdict names
 * the folded pool, with its task count.
 */
static void test_per_name_pool(void **state)
{
	char *json = tmp_path("pn.json");
	char demo[512];
	char *argv[] = { (char *)tdbpf_bin(), "--wakeups", "--per-name", "-j",
			 "-o", json, "--", demo, "-t", "4", "-m", "16", "-s",
			 "parse:cpu", "3", NULL };
	json_object *doc, *v;

	(void)state;
	NEED_BPF();
	snprintf(demo, sizeof(demo), "%s/demo/streamgraph", build_dir());
	doc = traced(argv, json, NULL, 60);
	v = first_candidate(doc);
	assert_non_null(v);
	print_message("  bottleneck %s: %s\n", jstr(v, "comm"),
		      jstr(v, "reason"));
	assert_string_equal(jstr(v, "comm"), "parse-*");
	assert_int_equal(jint(v, "nr_tasks"), 4);
	assert_int_equal(jint(v, "tid"), 0);
	/* the source waits on the pool, by name */
	assert_non_null(waiter_entry(task_by_comm(doc, "source"), "parse-*"));
	json_object_put(doc);
	unlink(json);
}

/*
 * gst-launch-1.0 @pipeline (@n words) under tdbpf: the verdict names
 * @stage for the reason @want. Skipped without root or GStreamer.
 */
static void gst_verdict(char *const pipeline[], int n, const char *stage,
			const char *want)
{
	char *json = tmp_path("gst.json");
	char *argv[64] = { (char *)tdbpf_bin(), "--wakeups", "-j", "-o", json,
			   "--", "/usr/bin/gst-launch-1.0", "-q" };
	json_object *doc;
	int i;

	NEED_BPF();
	if (access(argv[6], X_OK)) {
		print_message("no gst-launch-1.0 (Debian: gstreamer1.0-tools): skipping\n");
		skip();
	}
	for (i = 0; i < n && i < 50; i++)
		argv[8 + i] = pipeline[i];
	argv[8 + i] = NULL;
	doc = traced(argv, json, NULL, 120);
	unlink(json);
	check_verdict(doc, stage, want, 0.5);
	json_object_put(doc);
}

/*
 * A CPU-heavy element: Lanczos scaling to 1080p behind queue0, so queue0's
 * streaming thread ("queue0:src") runs it; the source and the sink's
 * thread wait on it.
 */
static void test_gst_cpu_element(void **state)
{
	char *p[] = { "videotestsrc", "num-buffers=40", "!",
		      "video/x-raw,width=640,height=360", "!", "queue", "!",
		      "videoscale", "method=lanczos", "!",
		      "video/x-raw,width=1920,height=1080", "!", "queue", "!",
		      "fakesink", "sync=false" };

	(void)state;
	gst_verdict(p, sizeof(p) / sizeof(p[0]), "queue0:src", "runs (");
}

/*
 * A sink paced by the clock (sync=true, 100 frames a second): its
 * streaming thread waits on the clock, and the source waits on it.
 *
 * gst-launch's main thread sleeps about as long as the run, and GLib's
 * "gmain" thread sleeps until the main thread wakes it once at the end:
 * one wait over most of a task's life, ended once, is a shutdown, not a
 * delay, and brings the main thread nothing (docs/graph.md). Before that
 * rule the main thread outranked queue0:src one run in three. It may
 * still come second: the source waits on it while the pipeline starts
 * (about 0.2 s of 1.5 here, two wakeups), a true delay of this window.
 */
static void test_gst_clock_sink(void **state)
{
	char *json = tmp_path("gst.json");
	char *argv[] = { (char *)tdbpf_bin(), "--wakeups", "-j", "-o", json,
			 "--", "/usr/bin/gst-launch-1.0", "-q", "videotestsrc",
			 "num-buffers=150", "!",
			 "video/x-raw,width=320,height=240,framerate=100/1",
			 "!", "queue", "!", "fakesink", "sync=true", NULL };
	json_object *doc, *g, *b, *c;
	int i;

	(void)state;
	NEED_BPF();
	if (access(argv[6], X_OK)) {
		print_message("no gst-launch-1.0 (Debian: gstreamer1.0-tools): skipping\n");
		skip();
	}
	doc = traced(argv, json, NULL, 120);
	unlink(json);
	assert_true(json_object_object_get_ex(doc, "graph", &g));
	assert_true(json_object_object_get_ex(g, "bottleneck", &b));
	for (i = 0; i < (int)json_object_array_length(b); i++) {
		json_object *x = json_object_array_get_idx(b, i);

		print_message("  candidate %d: %s (share %.2f): %s\n", i + 1,
			      jstr(x, "comm"), jdouble(x, "share"),
			      jstr(x, "reason"));
		assert_string_not_equal(jstr(x, "comm"), "gmain");
	}
	assert_true(json_object_array_length(b) >= 1);
	c = json_object_array_get_idx(b, 0);
	assert_string_equal(jstr(c, "comm"), "queue0:src");
	assert_int_equal(jint(g, "tied"), 1);
	assert_non_null(strstr(jstr(c, "reason"), "waits on timers"));
	json_object_put(doc);
}

/* --graph: a DOT file that Graphviz renders, the bottleneck marked. */
static void test_graph_dot(void **state)
{
	char *dotf = tmp_path("g.dot"), *svg = tmp_path("g.svg"), *text;
	char *argv[] = { (char *)tdbpf_bin(), "--graph", dotf, "-o",
			 "/dev/null", "--", (char *)workload("pipeline"), "-b",
			 "3", "-k", "sleep", "-d", "1", NULL };
	char *dargv[] = { "/usr/bin/dot", "-Tsvg", "-o", svg, dotf, NULL };

	(void)state;
	NEED_BPF();
	if (access(dargv[0], X_OK)) {
		print_message("no /usr/bin/dot (Debian: graphviz): skipping\n");
		skip();
	}
	assert_int_equal(run(argv, NULL, 60), 0);
	assert_int_equal(run(dargv, NULL, 60), 0);
	text = file_text(svg);
	has_all(text, STRS("<svg", "BOTTLENECK", "score", "timer"));
	free(text);
	unlink(dotf);
	unlink(svg);
}

/*
 * --graph to a path that cannot be written: one line, exit 2, and nothing
 * traced (the command never ran: it would have created a file).
 */
static void test_graph_bad_path(void **state)
{
	char *mark = tmp_path("ran"), script[256];
	char *argv[] = { (char *)tdbpf_bin(), "--graph",
			 "/nonexistent-dir/g.dot", "--", "/bin/sh", "-c", script,
			 NULL };
	struct run_result r;

	(void)state;
	snprintf(script, sizeof(script), "touch %s", mark);
	unlink(mark);
	run_capture(argv, NULL, (uid_t)-1, 0, 30, &r);
	assert_int_equal(r.status, 2);
	assert_int_equal(count_lines(r.err), 1);
	assert_string_equal(r.err,
			    "tdbpf: cannot create graph file '/nonexistent-dir/g.dot': No such file or directory; pick a writable path in an existing directory\n");
	assert_true(access(mark, F_OK) != 0);
	run_result_free(&r);
}

/* Every task of @doc: its waits within its blocked time, holds its runq. */
static int check_bounded(json_object *doc, const char *what)
{
	json_object *tasks, *t, *ws, *w, *g, *smp;
	long long off, runq, waits, holds, kind, ns;
	size_t i, j;
	int bad = 0;

	assert_true(json_object_object_get_ex(doc, "graph", &g));
	/* the sample's size is stated */
	assert_true(json_object_object_get_ex(g, "sampled", &smp));
	assert_true(jint(smp, "wakeups_seen") >= 0);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		off = jint(t, "off_cpu_ns");
		runq = jint(t, "runq_wait_ns");
		waits = holds = 0;
		assert_true(json_object_object_get_ex(t, "waits", &ws));
		for (j = 0; j < json_object_array_length(ws); j++) {
			w = json_object_array_get_idx(ws, j);
			kind = json_object_get_int64(json_object_array_get_idx(w, 0));
			ns = json_object_get_int64(json_object_array_get_idx(w, 4));
			if (TDBPF_KIND_HOLDS(kind))
				holds += ns;
			else
				waits += ns;
		}
		if (waits > off || holds > runq) {
			print_error("%s: %s waits %lld of blocked %lld, holds %lld of runq %lld\n",
				    what, jstr(t, "comm"), waits, off, holds,
				    runq);
			bad++;
		}
	}
	return bad;
}

/*
 * The default graph's waits are its windows' proportions of
 * each task's exact blocked time (sums/wait_share.c). Scaled by 10, a
 * thread 2.5 s old showed 10 s of waits. Over two stream graphs, every
 * interval and the whole run: no task's waits exceed its blocked time,
 * no holds its run-queue time, so no share passes 100%.
 */
static void test_sampled_bounded(void **state)
{
	char *json = tmp_path("sb.json"), *text, *line, *save = NULL;
	/* 24 MB: 1-2 s, intervals of it (6 MB ran 0.4 s: no interval) */
	char *pipe_argv[] = { (char *)tdbpf_bin(), "--children", "-I", "500",
			      "-j", "-o", json, "--", "/bin/sh", "-c",
			      "head -c 24000000 /dev/urandom | base64 | gzip -1 | cat >/dev/null",
			      NULL };
	char *stage_argv[] = { (char *)tdbpf_bin(), "-I", "500", "-j", "-o",
			       json, "--", (char *)workload("stagegraph"), "-d",
			       "1.5", "-w", "0.1", "gen:cpu=300",
			       "relay:sleep=500", "sink:cpu=100", NULL };
	char **runs[] = { pipe_argv, stage_argv };
	const char *names[] = { "pipeline", "stagegraph" };
	int bad = 0, docs;
	size_t k;

	(void)state;
	NEED_BPF();
	for (k = 0; k < 2; k++) {
		assert_int_equal(run(runs[k], NULL, 120), 0);
		text = file_text(json);
		docs = 0;
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			json_object *doc = json_tokener_parse(line);

			assert_non_null(doc);
			bad += check_bounded(doc, names[k]);
			json_object_put(doc);
			docs++;
		}
		/* intervals and the whole run */
		assert_true(docs >= 2);
		free(text);
	}
	assert_int_equal(bad, 0);
	unlink(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_bad_path),
		cmocka_unit_test(test_wakeup_counts),
		cmocka_unit_test(test_pipeline_verdicts),
		cmocka_unit_test(test_sampled_verdicts),
		cmocka_unit_test(test_sampled_wakecount),
		cmocka_unit_test(test_sampled_long_waits),
		cmocka_unit_test(test_per_name_pool),
		cmocka_unit_test(test_gst_cpu_element),
		cmocka_unit_test(test_gst_clock_sink),
		cmocka_unit_test(test_graph_dot),
		cmocka_unit_test(test_sampled_bounded),
	};

	return cmocka_run_group_tests_name("graph", tests, NULL, NULL);
}
