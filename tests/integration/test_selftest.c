// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf selftest on this machine: it must pass, check every workload
 * thread against the kernel's own per-thread counts, print figures that
 * add up, and refuse what it does not take. Without a PMU (our VMs) it
 * checks the software model's events and says it could not check
 * hardware counters; make vmtest runs it on an emulated Arm PMU.
 */
#include <math.h>
#include "helpers.h"

/* "  ok    st-long-0/123  cpu-clock  tdbpf A, kernel B: diff D, bound E" */
struct st_line {
	bool ok;
	char who[64], what[64];
	double tdbpf, kernel, diff, bound;
};

static int parse(const char *text, struct st_line *l, int max)
{
	const char *p = text;
	int n = 0;

	while (p && *p && n < max) {
		char res[8];

		if (sscanf(p, " %7s %63s %63s tdbpf %lf, kernel %lf: diff %lf, bound %lf",
			   res, l[n].who, l[n].what, &l[n].tdbpf,
			   &l[n].kernel, &l[n].diff, &l[n].bound) == 7 &&
		    (!strcmp(res, "ok") || !strcmp(res, "FAIL"))) {
			l[n].ok = !strcmp(res, "ok");
			n++;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

static int count_of(const struct st_line *l, int n, const char *what,
		    const char *who_part)
{
	int i, c = 0;

	for (i = 0; i < n; i++)
		if (!strcmp(l[i].what, what) &&
		    (!who_part || strstr(l[i].who, who_part)))
			c++;
	return c;
}

/* `tdbpf selftest` @argv's output (all shown when it fails); exit 0. */
static char *selftest(char *const argv[])
{
	char *out = NULL;
	int rc = run(argv, &out, 120);

	assert_non_null(out);
	if (rc)
		print_message("%s", out);
	assert_int_equal(rc, 0);
	return out;
}

static void test_passes_with_figures(void **state)
{
	char *argv[] = { (char *)tdbpf_bin(), "selftest", NULL };
	static struct st_line l[512];
	char *out;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int n, i, passed = -1, failed = -1, threads;
	double migrations = 0;
	const char *s;

	(void)state;
	NEED_BPF();
	out = selftest(argv);
	s = strstr(out, "tdbpf selftest: ");
	while (s && sscanf(s, "tdbpf selftest: %d passed, %d failed", &passed,
			   &failed) != 2)
		s = strstr(s + 1, "tdbpf selftest: ");
	assert_non_null(s);
	n = parse(out, l, 512);
	/* six threads at least, each: its events and /proc's two checks */
	threads = count_of(l, n, "on-cpu-ns", NULL);
	assert_true(threads >= 6 && threads >= 2 * ncpu);
	assert_int_equal(count_of(l, n, "switches", NULL), threads);
	assert_int_equal(count_of(l, n, "on-cpu-ns", "st-long-"),
			 count_of(l, n, "on-cpu-ns", "st-short-"));
	assert_true(count_of(l, n, "on-cpu-ns", "st-migrate-") >= 2);
	for (i = 0; i < n; i++) {
		/* the line's own arithmetic, and its verdict */
		assert_true(fabs(l[i].tdbpf - l[i].kernel - l[i].diff) < 1);
		assert_true(l[i].ok);
		assert_true(fabs(l[i].diff) <= l[i].bound);
		/* the task's accounting against /proc: exactly */
		if (!strcmp(l[i].what, "on-cpu-ns") ||
		    !strcmp(l[i].what, "switches") ||
		    !strcmp(l[i].what, "migrations"))
			assert_true(l[i].diff == 0);
		/* every thread ran and switched in the window */
		if (!strcmp(l[i].what, "on-cpu-ns"))
			assert_true(l[i].kernel > 0);
		if (!strcmp(l[i].what, "switches"))
			assert_true(l[i].kernel >= 40);	/* ROUNDS */
		if (!strcmp(l[i].what, "cpu-migrations") &&
		    strstr(l[i].who, "st-migrate-"))
			migrations += l[i].kernel;
	}
	/* the migrating threads moved (affinity to each CPU in turn) */
	if (ncpu > 1)
		assert_true(migrations >= 2 * 20);
	/* the summary counts the lines */
	assert_int_equal(passed, n);
	assert_int_equal(failed, 0);
	/* no PMU here: it says so, in one line */
	if (access("/sys/bus/event_source/devices/cpu", F_OK))
		assert_non_null(strstr(out, "not checked: hardware counters"));
	free(out);
}

/* -e events are checked too, against the same per-thread events */
static void test_e_events(void **state)
{
	char *argv[] = { (char *)tdbpf_bin(), "selftest", "-e",
			 "task-clock,cs", NULL };
	static struct st_line l[512];
	char *out;
	int n, threads;

	(void)state;
	NEED_BPF();
	out = selftest(argv);
	n = parse(out, l, 512);
	threads = count_of(l, n, "on-cpu-ns", NULL);
	assert_true(threads >= 6);
	assert_int_equal(count_of(l, n, "task-clock", NULL), threads);
	assert_int_equal(count_of(l, n, "cs", NULL), threads);
	free(out);
}

/* one line on stderr, exit 2, for what selftest does not take */
static void refused(char *const argv[], const char *msg)
{
	struct run_result r;

	run_capture(argv, NULL, 0, 0, 30, &r);
	assert_int_equal(r.status, 2);
	if (!strstr(r.err, msg))
		fail_msg("stderr '%s' lacks '%s'", r.err, msg);
	assert_int_equal(count_lines(r.err), 1);
	assert_string_equal(r.out, "");
	run_result_free(&r);
}

static void test_bad_input(void **state)
{
	char *extra[] = { (char *)tdbpf_bin(), "selftest", "now", NULL };
	char *pid[] = { (char *)tdbpf_bin(), "selftest", "-p", "1", NULL };
	char *ev[] = { (char *)tdbpf_bin(), "selftest", "-e", "no-such-event",
		       NULL };

	(void)state;
	refused(extra, "unexpected argument 'now' to selftest");
	refused(pid, "selftest traces its own threads; drop -p/-t/-a");
	if (need_bpf())
		skip();
	refused(ev, "no-such-event");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passes_with_figures),
		cmocka_unit_test(test_e_events),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests_name("selftest", tests, NULL, NULL);
}
