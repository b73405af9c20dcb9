// SPDX-License-Identifier: GPL-2.0
/*
 * Conservation of CPU time, as root on the real BPF path: with -a the
 * tasks' on-CPU time and the idle time add up to the CPUs' time, and no
 * time from before the start is charged. Nothing of tdbpf may stay in
 * the kernel after a run.
 */
#include <pthread.h>

#include "helpers.h"
#include "faults_helpers.h"

/* ---- conservation ---------------------------------------------------------- */

/*
 * Idle plus iowait plus steal of all CPUs from /proc/stat, in ns. Steal
 * is time the hypervisor ran something else on a vCPU with a task on
 * it: with PARAVIRT_TIME_ACCOUNTING (this VM's kernel) the task's
 * clock leaves it out, so no task's on-CPU time holds it.
 */
static double idle_ns(void)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 5)
		return -1;
	return (double)(v[3] + v[4] + v[7]) * 1e9 /
	       (double)sysconf(_SC_CLK_TCK);
}

static double wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * The idle total as a function of time, for the traced window's own
 * ends (the report's end_ns and duration_ns), not for when the test
 * hears of them: tdbpf works before the window and after it (the
 * verifier, the report), and that work is not idle. /proc/stat counts
 * in 10 ms steps; the points kept are where the count stepped, each
 * between two samples 1 ms apart, so that the line through them is
 * the idle time to within a sample's interval.
 */
struct idle_curve {
	pthread_t th;
	volatile int stop;
	size_t n;
	struct idle_point {
		double at, idle;
		double half;	/* how far from @at the step may lie */
	} pt[60000];
};

static void *idle_sampler(void *arg)
{
	struct idle_curve *c = arg;
	double last = idle_ns(), was = wall_ns(), now, v;

	c->pt[c->n++] = (struct idle_point){ was, last, 0 };
	while (!c->stop && c->n < sizeof(c->pt) / sizeof(c->pt[0]) - 1) {
		usleep(1000);
		v = idle_ns();
		now = wall_ns();
		if (v != last)
			c->pt[c->n++] = (struct idle_point){
				(was + now) / 2, v, (now - was) / 2
			};
		last = v;
		was = now;
	}
	/* the end, where a step may not come for long on busy CPUs */
	c->pt[c->n++] = (struct idle_point){ was, last, 0 };
	return NULL;
}

/*
 * The idle time at @at, between the steps around it; *@half: how wide
 * the sampler left those steps (a sampler that waited long for a CPU
 * places a step anywhere in its wait, and idle runs at up to every CPU's
 * rate there).
 */
static double idle_at(const struct idle_curve *c, double at, double *half)
{
	size_t i;
	double f;

	assert_true(c->n >= 2);
	assert_true(at >= c->pt[0].at && at <= c->pt[c->n - 1].at);
	for (i = 1; i < c->n - 1 && c->pt[i].at < at; i++)
		;
	*half = c->pt[i - 1].half > c->pt[i].half ? c->pt[i - 1].half :
						     c->pt[i].half;
	f = (at - c->pt[i - 1].at) / (c->pt[i].at - c->pt[i - 1].at);
	return c->pt[i - 1].idle + f * (c->pt[i].idle - c->pt[i - 1].idle);
}

/*
 * Every thread's on-CPU time from the kernel, /proc/PID/task/TID/schedstat
 * (se.sum_exec_runtime, the clock tdbpf charges): read at both ends of
 * the window, it gives the time of threads tdbpf never saw.
 */
struct exec_snap {
	size_t n, cap;
	struct exec_row {
		int tid;
		unsigned long long ns;
		char comm[20];
	} *row;
};

/* The thread at @dir (/proc/PID/task/@tid), into @ctx's snapshot. */
static void snap_thread(const char *dir, const char *tid, void *ctx)
{
	struct exec_snap *s = ctx;
	char path[700];
	unsigned long long ns;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/schedstat", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	ok = fscanf(f, "%llu", &ns) == 1;
	fclose(f);
	if (!ok)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->row = realloc(s->row, s->cap * sizeof(*s->row));
		assert_non_null(s->row);
	}
	s->row[s->n].tid = atoi(tid);
	s->row[s->n].ns = ns;
	snprintf(path, sizeof(path), "%s/comm", dir);
	f = fopen(path, "r");
	s->row[s->n].comm[0] = 0;
	if (f) {
		if (fscanf(f, "%19s", s->row[s->n].comm) != 1)
			s->row[s->n].comm[0] = 0;
		fclose(f);
	}
	s->n++;
}

static void exec_snap(struct exec_snap *s)
{
	s->n = 0;
	proc_each("task", snap_thread, s);
}

static const struct exec_row *snap_find(const struct exec_snap *s, int tid)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->row[i].tid == tid)
			return &s->row[i];
	return NULL;
}

/*
 * The kernel's on-CPU time in the window of the threads, alive at its
 * end, that the report does not have. This VM's kernel switches away
 * from its agent's threads (pid 1) without the sched_switch tracepoint
 * (test_counts.c), so no tracer is ever told they ran; their share
 * grows with the machine's load (3.5% of 2 CPUs seen).
 */
static double unseen_ns(const struct exec_snap *a, const struct exec_snap *b,
			json_object *doc)
{
	const struct exec_row *r0;
	double sum = 0, d, kin = 0, tin = 0;
	json_object *t;
	size_t i;

	for (i = 0; i < b->n; i++) {
		r0 = snap_find(a, b->row[i].tid);
		if ((t = find_task(doc, b->row[i].tid))) {
			if (r0) {
				kin += (double)(b->row[i].ns - r0->ns);
				tin += (double)jint(t, "on_cpu_ns");
			}
			continue;
		}
		d = (double)(b->row[i].ns - (r0 ? r0->ns : 0));
		if (d > 1e6)
			print_message("not in the report: %s (tid %d) %.3f ms\n",
				      b->row[i].comm, b->row[i].tid, d / 1e6);
		sum += d;
	}
	print_message("threads reported and alive at both ends: kernel %.3f s, tdbpf %.3f s\n", kin / 1e9, tin / 1e9);
	return sum;
}

/*
 * With -a every CPU's time is some task's on-CPU time or idle: their sum
 * is the traced time times the CPUs, within 1%. The idle tasks (pid 0)
 * are not tracked; the kernel's idle accounting gives their time, read
 * at the window's own ends (idle_curve). So do the threads whose
 * switches the kernel does not trace (unseen_ns): the kernel's own sum
 * for them, not a wider tolerance, closes the account; they must stay a
 * small part of it, or tdbpf lost tasks it should see. They are read
 * when tdbpf says it attached and when its report arrives, as a rate
 * over the traced time: their threads' rate does not follow tdbpf's own
 * work at the two ends, as idle does.
 */
static void test_conservation_all(void **state)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-s", "2",
		       "-d", "10", NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-a", "-v", "-j", "-d", "5",
		       NULL };
	double t0, t1, on, dur, end, want, got, unseen, idle, base, last;
	double h0, h1, slack;
	char *err, *at;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct exec_snap s0 = { 0 }, s1 = { 0 };
	struct idle_curve *curve = calloc(1, sizeof(*curve));
	json_object *doc, *lost;
	struct pollfd p;
	struct child w;
	struct child d;
	char *rest;

	(void)state;
	NEED_BPF();
	assert_non_null(curve);
	objects_before();
	start_workload(wl, 0, &w);
	assert_int_equal(pthread_create(&curve->th, NULL, idle_sampler, curve),
			 0);
	d = spawn_both(tr);
	/* a loaded machine verifies the programs slowly: a wait, not a bound */
	assert_true(wait_line(d.err, "attached", 60000));
	exec_snap(&s0);
	t0 = mono_s();
	p.fd = d.out;
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 15000), 1);
	exec_snap(&s1);
	t1 = mono_s();
	rest = read_all(d.out);
	curve->stop = 1;
	pthread_join(curve->th, NULL);
	err = read_all(d.err);
	assert_int_equal(wait_for(d.pid, 10), 0);
	stop_workload(&w);
	/* the two reads' times, from -v (see the bound below) */
	assert_non_null(err);
	assert_non_null(at = strstr(err, "tdbpf: base: "));
	assert_non_null(at = strstr(at, "read "));
	base = strtod(at + 5, NULL) * 1e6;
	assert_non_null(at = strstr(err, "collect "));
	last = strtod(at + 8, NULL) * 1e6;

	doc = json_tokener_parse(rest);
	assert_non_null(doc);
	on = jsum(doc, "tasks", "on_cpu_ns", NULL, NULL);
	if (json_object_object_get_ex(doc, "lost", &lost))
		print_message("lost: %s\n", json_object_to_json_string(lost));
	unseen = unseen_ns(&s0, &s1, doc);
	dur = (double)jint(doc, "duration_ns");
	end = (double)jint(doc, "end_ns");
	want = dur * (double)ncpu;
	unseen *= dur / 1e9 / (t1 - t0);
	idle = idle_at(curve, end, &h1) - idle_at(curve, end - dur, &h0);
	/* where the sampler waited at an end, idle may be off by as much */
	slack = (double)ncpu * (h0 + h1);
	got = on + unseen + idle;
	print_message("base read in %.1f ms, final collect %.1f ms; idle's ends placed within %.2f and %.2f ms\n",
		      base / 1e6, last / 1e6, h0 / 1e6, h1 / 1e6);
	print_message("%ld CPUs, %.3f s traced (%.3f s between samples, %zu idle steps): on-CPU %.3f s + unseen %.3f s + idle %.3f s = %.3f s, want %.3f s (%+.2f%%; %+.2f%% without unseen)\n",
		      ncpu, dur / 1e9, t1 - t0, curve->n, on / 1e9,
		      unseen / 1e9, idle / 1e9, got / 1e9, want / 1e9,
		      100.0 * (got - want) / want,
		      100.0 * (got - unseen - want) / want);
	/* the load must show up: a spinner is one CPU's worth of on-CPU */
	assert_true(on > 0.8 * dur);
	assert_true(unseen < 0.1 * want);
	/*
	 * Within 1%, less what the two reads leave uncharged: the run's
	 * window starts before the base is read and ends after the final
	 * sums are, and a busy CPU's time in those reads is charged to no
	 * one (its running task is charged as of the flush). Each read
	 * takes longer on a busier machine; tdbpf says how long. And the
	 * idle curve's ends are where the sampler placed them: off by the
	 * CPUs' idle over its waits there (slack).
	 */
	if (got < 0.99 * want - (double)ncpu * (base + last) - slack ||
	    got > 1.01 * want + slack) {
		print_error("on-CPU + unseen + idle: got %.3f s, want %.3f s less at most %ld x %.1f ms, within 1%% and %.1f ms\n",
			    got / 1e9, want / 1e9, ncpu, (base + last) / 1e6,
			    slack / 1e6);
		fail();
	}
	json_object_put(doc);
	free(err);
	free(rest);
	free(s0.row);
	free(s1.row);
	free(curve);
	close(d.out);
	close(d.err);
	assert_nothing_left();
}

/*
 * With every CPU busy, on-CPU time summed over all tasks can not exceed
 * the traced time times the CPUs. Slices charged while tdbpf was still
 * attaching its programs (before the run's start) must not be counted:
 * attaching takes ms to tens of ms, which a short run shows clearly.
 */
static void test_no_time_before_start(void **state)
{
	char nbuf[16];
	char *wl[] = { (char *)workload("spinners"), "-n", nbuf, "-d", "10",
		       NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-a", "-j", "-d", "0.3", NULL };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	json_object *doc;
	double on, cap;
	struct child w;
	char *out = NULL;
	int k;

	(void)state;
	NEED_BPF();
	/* spin-I burns (I+1)/N of a CPU: 2 x CPUs threads fill them all */
	snprintf(nbuf, sizeof(nbuf), "%ld", 2 * ncpu);
	start_workload(wl, 0, &w);
	for (k = 0; k < 3; k++) {
		assert_int_equal(run(tr, &out, 30), 0);
		doc = json_tokener_parse(out);
		assert_non_null(doc);
		on = jsum(doc, "tasks", "on_cpu_ns", NULL, NULL);
		cap = (double)jint(doc, "duration_ns") * (double)ncpu;
		print_message("on-CPU %.4f s of %.4f s (%+.2f%%)\n", on / 1e9,
			      cap / 1e9, 100.0 * (on - cap) / cap);
		/*
		 * The window ends after the sums are read, so nothing
		 * charged lies past it; 50 us a CPU for the two clocks (the
		 * scheduler's and CLOCK_MONOTONIC) drifting apart.
		 */
		assert_true(on <= cap + (double)ncpu * 5e4);
		json_object_put(doc);
		free(out);
	}
	stop_workload(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conservation_all),
		cmocka_unit_test(test_no_time_before_start),
	};

	return cmocka_run_group_tests_name("conservation", tests, NULL, NULL);
}
