// SPDX-License-Identifier: GPL-2.0
/*
 * Whole Java thread names (sources/jvm_attach.c): a JVM stream graph
 * (tests/workloads/jvm/SkewGraph.java) whose operator runs as three
 * subtasks, "Map -> Filter (1/3)#0" .. "(3/3)#0", the second given the
 * hot key. The kernel calls all three "Map -> Filter (". Traced by pid,
 * the hot one is named whole on the bottleneck line, first in -j's
 * verdict with its tid, in its row, CSV and DOT; --per-name folds the
 * three into "Map -> Filter (STAR/3)#0" and names the hot one; a
 * recording replays the same. The hot subtask's tid is the JVM's own
 * word for it: its nid in jcmd's Thread.print.
 */
#include <stdlib.h>
#include "helpers.h"

#define HOT	"Map -> Filter (2/3)#0"

/* The nid of thread @name in jcmd @pid Thread.print; 0 if none. */
static unsigned long jcmd_nid(const char *pid, const char *name)
{
	char *argv[] = { "/usr/bin/jcmd", (char *)pid, "Thread.print", NULL };
	char *out = NULL, want[96], *p, *nid;
	unsigned long tid = 0;

	assert_int_equal(run(argv, &out, 60), 0);
	snprintf(want, sizeof(want), "\"%s\" #", name);
	p = strstr(out, want);
	nid = p ? strstr(p, " nid=") : NULL;
	if (nid)
		tid = strtoul(nid + 5, NULL, 0);
	free(out);
	return tid;
}

/* The line of @text that starts with @prefix, cut at its end; NULL none. */
static char *line_of(char *text, const char *prefix)
{
	char *p = text, *e;

	while (p && *p) {
		e = strchr(p, '\n');
		if (!strncmp(p, prefix, strlen(prefix))) {
			if (e)
				*e = 0;
			return p;
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

/* tdbpf @args... for 3 s of JVM @pid; its stdout (the test fails if not 0) */
static char *trace(const char *pid, const char *a, const char *b,
		   const char *c)
{
	char *argv[] = { (char *)tdbpf_bin(), "-d", "3", "-p", (char *)pid,
			 (char *)a, (char *)b, (char *)c, NULL };
	char *out = NULL;

	assert_int_equal(run(argv, &out, 60), 0);
	return out;
}

/* The table's bottleneck line starts with @want (printed either way). */
static void verdict_is(char *table, const char *want)
{
	char *line = line_of(table, "bottleneck: ");

	assert_non_null(line);
	print_message("  %s\n", line);
	assert_true(!strncmp(line, want, strlen(want)));
}

/* -j's verdict: the hot subtask first, its tid, its row's comm and name. */
static void check_json(const char *path, unsigned long tid)
{
	json_object *doc = json_file(path), *c, *t;

	assert_non_null(doc);
	c = first_candidate(doc);
	assert_non_null(c);
	assert_string_equal(jstr(c, "comm"), HOT);
	assert_int_equal(jint(c, "tid"), tid);
	t = report_task(doc, (int)tid, HOT);
	assert_string_equal(jstr(t, "comm"), "Map -> Filter (");
	assert_string_equal(jstr(t, "name"), HOT);
	json_object_put(doc);
}

/* The recording @json replayed: the same names, folded or not, as CSV. */
static void check_replay(const char *json, const char *want,
			 const char *folded)
{
	char *argv[] = { (char *)tdbpf_bin(), "report", (char *)json, NULL,
			 NULL, NULL };
	char *out = NULL, prefix[64];

	assert_int_equal(run(argv, &out, 60), 0);
	verdict_is(out, want);
	free(out);
	argv[3] = "--per-name";
	assert_int_equal(run(argv, &out, 60), 0);
	verdict_is(out, folded);
	free(out);
	argv[3] = "-x";
	argv[4] = ",";
	assert_int_equal(run(argv, &out, 60), 0);
	snprintf(prefix, sizeof(prefix), "\n%s-", HOT);
	assert_non_null(strstr(out, prefix));
	free(out);
}

static void test_jvm_subtasks(void **state)
{
	char *dir = tmp_path("skew"), *json = tmp_path("skew.json");
	char *dot = tmp_path("skew.dot"), pid[16], one[128], fold[160];
	char *jv[] = { "/usr/bin/java", "-cp", dir, "SkewGraph", "20", "2",
		       NULL };
	unsigned long tid;
	struct child w;
	char *out;

	(void)state;
	NEED_BPF();
	SKIP_UNLESS(need_java());
	if (access("/usr/bin/jcmd", X_OK)) {
		print_message("no jcmd (Debian: openjdk-17-jdk-headless): skipped\n");
		skip();
	}
	/* with Stages.java, which it shares with the other graph */
	javac_into(dir, "SkewGraph.java");
	snprintf(pid, sizeof(pid), "%d", start_workload(jv, 0, &w));
	/* past the JVM's start and first JIT compiles */
	sleep(2);
	tid = jcmd_nid(pid, HOT);
	assert_true(tid > 0);
	snprintf(one, sizeof(one), "bottleneck: %s (tid %lu): ", HOT, tid);
	snprintf(fold, sizeof(fold),
		 "bottleneck: Map -> Filter (*/3)#0 (3 tasks; hot: %s, tid %lu)",
		 HOT, tid);
	out = trace(pid, "--graph", dot, NULL);
	verdict_is(out, one);
	free(out);
	out = file_text(dot);
	assert_non_null(strstr(out, HOT));
	free(out);
	free(trace(pid, "-j", "-o", json));
	check_json(json, tid);
	out = trace(pid, "--per-name", NULL, NULL);
	verdict_is(out, fold);
	free(out);
	check_replay(json, one, fold);
	kill(w.pid, SIGKILL);
	wait_for(w.pid, 30);
	close(w.out);
	unlink(json);
	unlink(dot);
	remove_tree(dir);
}

/* The on-CPU ns of the row named @name in @doc's tasks; -1 if none. */
static int64_t on_cpu_of(json_object *doc, const char *name)
{
	json_object *t = jelem(doc, "tasks", "name", name);

	return t ? jint(t, "on_cpu_ns") : -1;
}

/*
 * The JVM launched by tdbpf (-- java ...): its threads start after the
 * attach, so their names come from the thread__start probe. The row
 * named the hot subtask is the one the hot key loads (4 records of 5,
 * 200 us each: about 8 times the CPU time of each other subtask; 2
 * asked), and the verdict names it.
 */
static void test_jvm_launched(void **state)
{
	char *dir = tmp_path("skew2"), *json = tmp_path("skew2.json");
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "--",
			 "/usr/bin/java", "-cp", dir, "SkewGraph", "5", "2",
			 NULL };
	int64_t hot, one, three;
	json_object *doc, *c;

	(void)state;
	NEED_BPF();
	SKIP_UNLESS(need_java());
	javac_into(dir, "SkewGraph.java");
	assert_int_equal(run(argv, NULL, 120), 0);
	doc = json_file(json);
	assert_non_null(doc);
	hot = on_cpu_of(doc, HOT);
	one = on_cpu_of(doc, "Map -> Filter (1/3)#0");
	three = on_cpu_of(doc, "Map -> Filter (3/3)#0");
	print_message("  on-CPU ms: (1/3) %.0f, (2/3) %.0f, (3/3) %.0f\n",
		      one / 1e6, hot / 1e6, three / 1e6);
	assert_true(one > 0 && three > 0);
	assert_true(hot > 2 * one && hot > 2 * three);
	c = first_candidate(doc);
	assert_non_null(c);
	if (strcmp(jstr(c, "comm"), HOT)) {
		/* why another: the candidates as the verdict ranked them */
		json_object *g = json_object_object_get(doc, "graph");
		json_object *b = json_object_object_get(g, "bottleneck");
		size_t i;

		for (i = 0; i < json_object_array_length(b) && i < 4; i++) {
			json_object *x = json_object_array_get_idx(b, i);

			print_message("  candidate %s (tid %lld): share %.3f, %s\n",
				      jstr(x, "comm"), (long long)jint(x, "tid"),
				      jdouble(x, "share"), jstr(x, "reason"));
		}
	}
	assert_string_equal(jstr(c, "comm"), HOT);
	json_object_put(doc);
	unlink(json);
	remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jvm_subtasks),
		cmocka_unit_test(test_jvm_launched),
	};

	return cmocka_run_group_tests_name("jvm_names", tests, NULL, NULL);
}
