// SPDX-License-Identifier: GPL-2.0
/*
 * Run-queue waits traced to their cause, for real, as root: a stage
 * pinned beside CPU hogs of another process is "CPU-starved by noisy",
 * a stage in a cgroup with a CPU limit is "throttled by its cgroup's CPU
 * limit" with the group and the limit; each task's waits add up to its
 * blocked time and its holds of the CPU to its run-queue wait; a JVM
 * stream graph's verdict names the CPU-heavy stage, not the JVM's own
 * threads asleep on timers.
 */
#include <math.h>
#include "helpers.h"

/*
 * stagegraph @args started as root (a stage may join a cgroup), traced
 * with --wakeups for 2 s by the pids of its stages; the report.
 */
static json_object *trace_stagegraph(char *const args[], int nargs)
{
	char *json = tmp_path("cc.json"), line[256], pids[256] = "";
	/*
	 * at nice -19: on a machine others load, a stage would otherwise
	 * wait on their tasks more than on what the test sets up
	 */
	char *argv[32] = { "/usr/bin/nice", "-n", "-19",
			   (char *)workload("stagegraph"), "-d", "5" };
	/* tdbpf too, or it may load its programs after the graph ended */
	char *targv[] = { "/usr/bin/nice", "-n", "-19", (char *)tdbpf_bin(),
			  "--wakeups", "-j", "-o", json, "-d", "2", "-p", pids,
			  NULL };
	struct child w;
	json_object *doc;
	int i, n = 0, pid;

	for (i = 0; i < nargs && i < 25; i++)
		argv[6 + i] = args[i];
	argv[6 + i] = NULL;
	start_workload(argv, 0, &w);
	/* "stage=NAME pid=P tid=T" lines, then "ready" */
	while (read_line(w.out, line, sizeof(line), 10000) &&
	       strcmp(line, "ready")) {
		char *p = strstr(line, " pid=");

		if (strncmp(line, "stage=", 6) || !p ||
		    sscanf(p, " pid=%d", &pid) != 1)
			continue;
		snprintf(line, sizeof(line), "%d", pid);
		if (!strstr(pids, line))
			n += snprintf(pids + n, sizeof(pids) - n, "%s%d",
				      n ? "," : "", pid);
	}
	assert_true(n > 0);
	print_message("  stagegraph pids %s\n", pids);
	assert_int_equal(run(targv, NULL, 60), 0);
	assert_int_equal(wait_for(w.pid, 30), 0);
	close(w.out);
	doc = json_file(json);
	assert_non_null(doc);
	unlink(json);
	return doc;
}

/*
 * The verdict's first candidate, printed, which must be task @comm: the
 * caller goes on to its reason.
 */
static json_object *first_is(json_object *doc, const char *comm)
{
	json_object *c = first_candidate(doc);

	assert_non_null(c);
	print_message("  bottleneck %s (share %.2f): %s\n", jstr(c, "comm"),
		      jdouble(c, "share"), jstr(c, "reason"));
	assert_string_equal(jstr(c, "comm"), comm);
	return c;
}

/*
 * A stage pinned to CPU 1 beside two processes that burn it ("noisy",
 * not traced): its run-queue wait is held by tasks outside the targets,
 * so the verdict names it, starved by them. The others run on CPU 0 and
 * wait on it. On a quiet machine the holder named is "noisy"; on a
 * shared one other CPU hogs may hold CPU 1 too, and take the named
 * slots (bpf/holders.bpf.h), so the test asks for a holder outside the
 * targets, not which.
 */
static void test_hog_beside_stage(void **state)
{
	char *args[] = { "-x", "2@1", "src:cpu=20,pin=0", "a:cpu=40,pin=0",
			 "b:cpu=100,pin=1", "c:cpu=40,pin=0", "sink:pin=0" };
	json_object *doc, *v;

	(void)state;
	NEED_BPF();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		print_message("needs 2 CPUs: skipped\n");
		skip();
	}
	doc = trace_stagegraph(args, sizeof(args) / sizeof(args[0]));
	v = first_is(doc, "b");
	assert_true(!strncmp(jstr(v, "reason"), "CPU-starved by ", 15));
	assert_true(strstr(jstr(v, "reason"), "(outside the targets)") ||
		    strstr(jstr(v, "reason"), "by tasks outside the graph"));
	json_object_put(doc);
}

/* Where the cpu controller is: v1's mount, else v2's; NULL: none. */
static const char *cpu_controller(bool *v2)
{
	static char mnt[256];
	char line[1024], dev[256], fstype[64], opts[512];
	FILE *f = fopen("/proc/mounts", "re");
	bool found = false;

	if (!f)
		return NULL;
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %255s %63s %511s", dev, mnt, fstype,
			   opts) != 4)
			continue;
		if (!strcmp(fstype, "cgroup") &&
		    (strstr(opts, ",cpu,") || strstr(opts, ",cpu ") ||
		     !strncmp(opts + strlen(opts) - 4, ",cpu", 4))) {
			*v2 = false;
			found = true;
		}
	}
	fclose(f);
	if (found)
		return mnt;
	if (!access("/sys/fs/cgroup/cgroup.controllers", R_OK)) {
		char *c = file_text("/sys/fs/cgroup/cgroup.controllers");

		found = strstr(c, "cpu") != NULL;
		free(c);
		snprintf(mnt, sizeof(mnt), "/sys/fs/cgroup");
		*v2 = true;
	}
	return found ? mnt : NULL;
}

/*
 * A stage in a cgroup limited to 10% of a CPU, doing 300 us of CPU work
 * per record: it spends most of its time throttled, which the verdict
 * says, naming the group and its limit, rather than "starved".
 */
static void test_throttled_stage(void **state)
{
	char dir[300], cg[320];
	char *args[] = { "-m", "unix", "src:cpu=20", cg, "sink" };
	const char *mnt, *reason;
	json_object *doc, *v;
	bool v2 = false;

	(void)state;
	NEED_BPF();
	mnt = cpu_controller(&v2);
	if (!mnt) {
		print_message("no cgroup cpu controller: skipped\n");
		skip();
		return;
	}
	snprintf(dir, sizeof(dir), "%s/tdbpf-test-%d", mnt, getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	if (v2) {
		write_in(mnt, "cgroup.subtree_control", "+cpu");
		write_in(dir, "cpu.max", "10000 100000");
	} else {
		write_in(dir, "cpu.cfs_period_us", "100000");
		write_in(dir, "cpu.cfs_quota_us", "10000");
	}
	snprintf(cg, sizeof(cg), "a:cpu=300,cg=%s", dir);
	doc = trace_stagegraph(args, sizeof(args) / sizeof(args[0]));
	rmdir(dir);
	v = first_is(doc, "a");
	reason = jstr(v, "reason");
	assert_non_null(strstr(reason, "throttled by its cgroup's CPU limit"));
	assert_non_null(strstr(reason, strrchr(dir, '/')));
	assert_non_null(strstr(reason, "10% of a CPU"));
	json_object_put(doc);
}

/*
 * `tdbpf graph FILE` on the report gives the verdict the live trace gave:
 * the same candidates, in order, with the same shares (the file's holds
 * of the CPU read back as holds, not as waits on another process).
 */
static void graph_of_file_agrees(json_object *live)
{
	char *path = tmp_path("cc-file.json"), *out = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "graph", "-j", path, NULL };
	json_object *doc, *g, *lc, *fc;
	size_t i;

	assert_int_equal(json_object_to_file(path, live), 0);
	assert_int_equal(run(argv, &out, 30), 0);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(live, "graph", &g));
	assert_true(json_object_object_get_ex(g, "bottleneck", &lc));
	assert_true(json_object_object_get_ex(doc, "graph", &g));
	assert_true(json_object_object_get_ex(g, "bottleneck", &fc));
	assert_true(json_object_array_length(lc) > 0);
	assert_int_equal(json_object_array_length(fc),
			 json_object_array_length(lc));
	for (i = 0; i < json_object_array_length(lc); i++) {
		json_object *a = json_object_array_get_idx(lc, i);
		json_object *b = json_object_array_get_idx(fc, i);

		print_message("  live %s %.6f, from the file %s %.6f\n",
			      jstr(a, "comm"), jdouble(a, "share"),
			      jstr(b, "comm"), jdouble(b, "share"));
		assert_int_equal(jint(b, "tid"), jint(a, "tid"));
		assert_true(fabs(jdouble(b, "share") - jdouble(a, "share")) <
			    1e-6);
	}
	json_object_put(doc);
	free(out);
	unlink(path);
}

/*
 * Three CPU-heavy stages on two CPUs: every task's waits by waker add up
 * to its blocked time (within 1%, as test_graph holds them), and its
 * holds of the CPU to its run-queue wait. Holds are charged when a task
 * is switched in, for its wait then and for the parts of it the kernel
 * added to run_delay as the task was moved off other queues (cpu-unseen):
 * all of run_delay but a part moved off after its last switch-in, before
 * the report. Before those parts were charged, 0.5-5% went missing in
 * most runs here, 45% in one with a QEMU guest busy on the other CPU;
 * since, 0-0.05%. Holds are within 5% below the run-queue wait, never
 * above it: the report's run-queue wait is read after the slots (a
 * switch-in while the reader copied a task made them 0.04-0.11% more in
 * a third of the runs, before).
 */
static void test_waits_and_holds_add_up(void **state)
{
	char *args[] = { "src:cpu=20", "a:cpu=300", "b:cpu=200", "c:cpu=250",
			 "sink:cpu=10" };
	json_object *doc, *tasks, *t, *w, *e;
	size_t i, k;
	int checked = 0;

	(void)state;
	NEED_BPF();
	doc = trace_stagegraph(args, sizeof(args) / sizeof(args[0]));
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		double waits = 0, holds = 0, off, runq;

		t = json_object_array_get_idx(tasks, i);
		off = (double)jint(t, "off_cpu_ns");
		runq = (double)jint(t, "runq_wait_ns");
		assert_true(json_object_object_get_ex(t, "waits_on", &w));
		for (k = 0; k < json_object_array_length(w); k++) {
			e = json_object_array_get_idx(w, k);
			if (!strcmp(jstr(e, "kind"), "cpu"))
				holds += (double)jint(e, "wait_ns");
			else
				waits += (double)jint(e, "wait_ns");
		}
		print_message("  %s: off-CPU %.0f, waits %.0f; runq %.0f, holds %.0f ns\n",
			      jstr(t, "comm"), off, waits, runq, holds);
		if (off > 100e6)
			assert_close("waits", waits, off, 0.01, 0);
		if (runq > 100e6) {
			assert_true(holds <= runq);
			assert_true(holds >= runq * 0.95);
			checked++;
		}
	}
	/* the busy stages wait for a CPU, at least */
	assert_true(checked >= 3);
	graph_of_file_agrees(doc);
	json_object_put(doc);
}

/*
 * More busy stages than CPUs (bench-graph's three-busy): the scheduler
 * leaves enrich, the heaviest, alone on one CPU, and agg and parse
 * share the other. Speeding enrich up 2x gains most (+10..17%, agg
 * +2..7%): its CPU is what the others wait for too. Charged only to the
 * holders of the CPU they queued on, agg's run-queue wait went to parse
 * and agg came first (0.41 to enrich's 0.33); charged to the other
 * CPU's holder as well, enrich comes first (0.42-0.46 to agg's
 * 0.33-0.37 in every run here, with the other CPU busy too).
 */
static void test_more_busy_than_cpus(void **state)
{
	char *args[] = { "src:cpu=20", "parse:cpu=150", "enrich:cpu=400",
			 "agg:cpu=250", "sink:cpu=10" };
	json_object *doc;

	(void)state;
	NEED_BPF();
	doc = trace_stagegraph(args, sizeof(args) / sizeof(args[0]));
	first_is(doc, "enrich");
	json_object_put(doc);
}

/*
 * A JVM stream graph (tests/workloads/jvm/StreamGraph.java, compiled
 * here with javac), its "Map -> Filter" stage CPU-heavy, traced by pid
 * once it runs (after 2 s: the JVM's start, class loading and first JIT
 * compiles, which its other threads do wait on, are over): the verdict
 * names that stage, and none of the JVM's own threads (GC, JIT, VM
 * Periodic Task, G1 Service...), which nobody waits on, comes before it.
 */
static void test_jvm_graph(void **state)
{
	char *dir = tmp_path("jvm"), *json = tmp_path("jvm.json"), pid[16];
	char *jv[] = { "/usr/bin/java", "-cp", dir, "StreamGraph", "8", "1",
		       NULL };
	char *argv[] = { (char *)tdbpf_bin(), "--wakeups", "-j", "-o", json,
			 "-d", "3", "-p", pid, NULL };
	json_object *doc;
	struct child w;

	(void)state;
	NEED_BPF();
	SKIP_UNLESS(need_java());
	/* with Stages.java, which it shares with the other graph */
	javac_into(dir, "StreamGraph.java");
	snprintf(pid, sizeof(pid), "%d", start_workload(jv, 0, &w));
	sleep(2);
	assert_int_equal(run(argv, NULL, 60), 0);
	assert_int_equal(wait_for(w.pid, 30), 0);
	close(w.out);
	doc = json_file(json);
	assert_non_null(doc);
	first_is(doc, "Map -> Filter");
	json_object_put(doc);
	unlink(json);
	remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hog_beside_stage),
		cmocka_unit_test(test_throttled_stage),
		cmocka_unit_test(test_waits_and_holds_add_up),
		cmocka_unit_test(test_more_busy_than_cpus),
		cmocka_unit_test(test_jvm_graph),
	};

	return cmocka_run_group_tests_name("cpu_causes", tests, NULL, NULL);
}
