// SPDX-License-Identifier: GPL-2.0
/*
 * The real BPF path, as root: counters read as group members, failed
 * counter reads (fault injection from outside: one CPU's slots of
 * tdbpf's counter map emptied) and another perf user counting and
 * sampling at the same time.
 */
#include <math.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include "attach_helpers.h"

/*
 * Counters read as group members, not only the leader: page-faults of a
 * task that touches N fresh pages is N plus what exec and libc take, and
 * context-switches is one per switch the task made.
 */
static void test_group_members_count(void **state)
{
	char *json = tmp_path("pf.json"), *out = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "--",
			 (char *)workload("pagefaults"), "64", NULL };
	json_object *doc, *tasks, *t;
	long pages = 0;
	double pf, cs, sw;

	(void)state;
	NEED_BPF();
	assert_int_equal(run(argv, &out, 60), 0);
	assert_int_equal(sscanf(out, "pages=%ld", &pages), 1);
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	assert_int_equal(json_object_array_length(tasks), 1);
	t = json_object_array_get_idx(tasks, 0);
	pf = jcounter(t, "page-faults");
	/* exec, the loader and libc fault a few hundred pages at most */
	if (!(pf >= pages && pf <= pages + 1000)) {
		print_error("page-faults %.0f for %ld pages touched\n", pf,
			    pages);
		fail();
	}
	cs = jcounter(t, "context-switches");
	sw = (double)(jint(t, "voluntary") + jint(t, "involuntary"));
	assert_close("context-switches", cs, sw, 0.02, 2);
	json_object_put(doc);
	free(out);
	unlink(json);
}

struct array_map {
	unsigned int id, slots;
};

static bool perf_array(FILE *f, void *ctx)
{
	struct array_map *m = ctx;
	unsigned int type = 0, id = 0, max = 0;
	char line[128];

	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "map_type: %u", &type);
		sscanf(line, "map_id: %u", &id);
		sscanf(line, "max_entries: %u", &max);
	}
	if (type != BPF_MAP_TYPE_PERF_EVENT_ARRAY || !id)
		return false;
	m->id = id;
	m->slots = max;
	return true;
}

/*
 * The id of @pid's perf event array map (its counters: one slot per event
 * and CPU), from its fdinfo; 0 if it has none (yet). *@slots: its size.
 */
static unsigned int counters_map_id(pid_t pid, unsigned int *slots)
{
	struct array_map m = { 0 };

	if (!fdinfo_each(pid, perf_array, &m))
		return 0;
	*slots = m.slots;
	return m.id;
}

/* Empty slot @key of map @fd; -1 with errno (ENOENT: empty already). */
static int map_delete(int fd, __u32 key)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (__u32)fd;
	a.key = (__u64)(unsigned long)&key;
	return (int)syscall(__NR_bpf, BPF_MAP_DELETE_ELEM, &a, sizeof(a));
}

/*
 * Fault injection from outside, as the kernel allows any root process:
 * once @pid (tdbpf, counting @nr_ev events) has filled CPU @cpu's
 * counter slots (event * CPUs + cpu, filled in that order), empty them,
 * so that every counter read there fails in the kernel. Returns the
 * slots emptied, 0 if it never got to.
 */
static int drop_cpu_counters(pid_t pid, unsigned int cpu, unsigned int nr_ev)
{
	unsigned int id = 0, slots = 0, ncpu, k;
	union bpf_attr a;
	int fd, i, n = 0;

	for (i = 0; i < 1500 && !id; i++) {
		id = counters_map_id(pid, &slots);
		if (!id)
			usleep(2000);
	}
	if (!id || !slots || slots % nr_ev)
		return 0;
	ncpu = slots / nr_ev;
	memset(&a, 0, sizeof(a));
	a.map_id = id;
	fd = (int)syscall(__NR_bpf, BPF_MAP_GET_FD_BY_ID, &a, sizeof(a));
	if (fd < 0)
		return 0;
	/* filled in slot order: the last event's tells they all are */
	for (i = 0; i < 1500; i++) {
		if (!map_delete(fd, slots - ncpu + cpu))
			break;
		usleep(2000);
	}
	if (i < 1500) {
		n = 1;
		for (k = cpu; k < slots - ncpu; k += ncpu)
			n += !map_delete(fd, k);
	}
	close(fd);
	return n;
}

/*
 * Failed counter reads (fault injection: CPU 1's counter slots emptied
 * by the test, so every read there fails in the kernel), on the software
 * events as counters (-e: the software model reads none): counted in
 * lost.read_errors, the report is still printed, and a slice whose
 * counters could not be read counts as enabled but not running: coverage
 * drops below 1 and the scaled cpu-clock still matches the time its
 * counters were enabled for it: the on-CPU time less window_gap_ns (what
 * the kernel charged outside the windows read; an unread slice adds its
 * on-CPU time to both). A thread that only ran on CPU 1 once its slots
 * were empty has no counter value at all (null), never a made-up one.
 */
static void test_read_errors(void **state)
{
	char *json = tmp_path("rerr.json");
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-e",
			 "{cpu-clock,page-faults,context-switches,cpu-migrations}",
			 "--", (char *)workload("spinners"), "-n", "3", "-m",
			 "-d", "2", NULL };
	json_object *doc, *lost, *tasks, *t, *v;
	int checked = 0;
	struct child c;
	size_t i;

	(void)state;
	NEED_BPF();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		print_message("needs 2 CPUs: skipping\n");
		skip();
	}
	c = spawn(argv, 0);
	assert_true(c.pid > 0);
	/*
	 * The 4 events' slots on CPU 1, before the workload starts; it runs
	 * 2 s, its 3 threads (burning 1/3, 2/3 and all of each period) move
	 * to the next CPU every 100 ms (-m): the scheduler alone once left
	 * them all on CPU 1 beside a spinner on CPU 0 (no read there), and
	 * once all on CPU 0 beside one on CPU 1 (no read failed).
	 */
	assert_int_equal(drop_cpu_counters(c.pid, 1, 4), 4);
	free(read_all(c.out));
	close(c.out);
	assert_int_equal(wait_for(c.pid, 60), 0);
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "lost", &lost));
	assert_true(jint(lost, "read_errors") > 0);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		double cov, clk, on;

		t = json_object_array_get_idx(tasks, i);
		on = (double)(jint(t, "on_cpu_ns") - jint(t, "window_gap_ns"));
		json_object_object_get_ex(t, "coverage", &v);
		cov = json_object_get_double(v);
		clk = jcounter(t, "cpu-clock");
		print_message("tid %lld: on-CPU %.0f ns, coverage %.3f, cpu-clock %.0f\n",
			      (long long)jint(t, "tid"), on, cov, clk);
		if (on < 50e6)
			continue;
		assert_true(cov >= 0 && cov <= 1);
		if (cov > 0.05) {
			/*
			 * extrapolated over the unread slices: equal but
			 * for the value and the times of each read coming
			 * from two clock reads (tens of ns apart), so 2%
			 * and 1 ms hold on a loaded machine too
			 */
			assert_close("scaled cpu-clock", clk, on, 0.02, 1e6);
			checked++;
		} else if (cov == 0) {
			assert_true(isnan(clk));	/* null, not 0 */
		}
	}
	json_object_put(doc);
	unlink(json);
	/* each thread spent half its periods on CPU 0 */
	assert_int_equal(checked, 3);
}

/*
 * Another perf user at the same time: perf stat counting the same four
 * software events on every CPU (tdbpf counting them with -e) and perf record sampling cpu-clock on every
 * CPU, both started before tdbpf and stopped after it. Software events
 * take no hardware counter, so nobody is multiplexed: tdbpf's numbers are
 * as without them (threads against their own clocks, coverage short of 1
 * only by unseen switch-ins, no read errors), and perf stat really
 * counted meanwhile. On a hardware PMU the
 * other user would take counters and coverage would drop below 1 instead.
 */
static void test_other_perf_user(void **state)
{
	struct thread_line t[64];
	char *json = tmp_path("perfuser.json"), *stat = tmp_path("perf.stat");
	char *rec = tmp_path("perf.data"), *out = NULL, *txt, *l;
	char *ps[] = { "/usr/bin/perf", "stat", "-a", "-x", ",", "-e",
		       "cpu-clock,page-faults,context-switches,cpu-migrations",
		       "-o", stat, NULL };
	char *pr[] = { "/usr/bin/perf", "record", "-q", "-a", "-e",
		       "cpu-clock", "-F", "1000", "-o", rec, NULL };
	/* the same four events as counters (the software model reads none) */
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-e",
			 "{cpu-clock,page-faults,context-switches,cpu-migrations}",
			 "--", (char *)workload("spinners"), "-n", "4", "-e",
			 "2", "-s", "2", "-d", "2", NULL };
	json_object *doc, *lost, *tasks, *task;
	struct child a, b;
	int n, rc, ra, rb, with_unc = 0;
	double clk = 0, steal;
	size_t i;
	FILE *f;

	(void)state;
	NEED_BPF();
	if (access(ps[0], X_OK)) {
		print_message("no /usr/bin/perf (Debian: linux-perf): skipping\n");
		skip();
	}
	a = spawn(ps, 0);
	b = spawn(pr, 0);
	sleep(1);
	steal = steal_ns();
	rc = run(argv, &out, 60);
	steal = steal_ns() - steal;
	/* stop them before any assertion, so that a failure leaves none */
	if (a.pid > 0)
		kill(a.pid, SIGINT);
	if (b.pid > 0)
		kill(b.pid, SIGINT);
	ra = a.pid > 0 ? wait_for(a.pid, 20) : -1;
	rb = b.pid > 0 ? wait_for(b.pid, 20) : -1;
	close(a.out);
	close(b.out);
	assert_int_equal(rc, 0);
	/* perf stat re-raises the SIGINT it ended on; perf record exits 0 */
	assert_true(ra == 0 || ra == 128 + SIGINT);
	assert_true(rb == 0 || rb == 128 + SIGINT);

	n = 8;
	doc = threads_and_report(out, t, 64, n, json);
	assert_true(json_object_object_get_ex(doc, "lost", &lost));
	assert_int_equal(jint(lost, "read_errors"), 0);
	check_threads(doc, t, n, true, steal);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	/*
	 * Every coverage lost is a slice whose switch-in was unseen, none
	 * taken by the other perf user; each such task had one at least.
	 */
	for (i = 0; i < json_object_array_length(tasks); i++) {
		task = json_object_array_get_idx(tasks, i);
		if (jint(task, "on_cpu_ns") > 1000000)
			check_coverage(task);
		with_unc += jint(task, "uncounted_ns") > 0;
	}
	assert_true(jint(lost, "unseen_switch_ins") >= with_unc);
	json_object_put(doc);

	/* perf stat -x,: "<count>,msec,cpu-clock,..." */
	f = fopen(stat, "r");
	assert_non_null(f);
	txt = calloc(1, 65536);
	assert_non_null(txt);
	assert_true(fread(txt, 1, 65535, f) > 0);
	fclose(f);
	for (l = strtok(txt, "\n"); l; l = strtok(NULL, "\n"))
		if (strstr(l, ",cpu-clock,"))
			clk = strtod(l, NULL);
	/* it counted every CPU for at least tdbpf's whole run (ms) */
	if (!(clk > 2000.0)) {
		print_error("perf stat cpu-clock %.1f ms: it did not count\n",
			    clk);
		fail();
	}
	free(txt);
	free(out);
	unlink(json);
	unlink(stat);
	unlink(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_members_count),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_other_perf_user),
	};

	return cmocka_run_group_tests_name("integration", tests, NULL, NULL);
}
