// SPDX-License-Identifier: GPL-2.0
/*
 * The whole host (-a, what the service runs): a TCP stream graph of three
 * processes (stagegraph gen -> relay -> sink, sink ten times the work)
 * beside an idle Prometheus that scrapes itself every 500 ms and an idle
 * JVM whose timer pool hands a token to a worker pool every 2 ms
 * (tests/workloads/jvm/IdlePool.java). The pools wake each other and do
 * next to no work: the verdict must name sink before any of them. Other
 * sessions' tasks on a shared machine are candidates too, so the test
 * asks for the first candidate of these processes, and prints the first
 * four of all, and each process's work when sink is not first (what
 * weighs a part's waits).
 */
#include <signal.h>
#include <sys/stat.h>
#include "helpers.h"
#include "prometheus.h"

/* pids of the processes the test started, by what they are */
struct ours {
	int sg[8], nsg, sink_pid, java, prom;
};

/* The pid of task @tid in the report, -1 if it has none. */
static int pid_of(json_object *doc, int tid)
{
	json_object *t = find_task(doc, tid);

	return t ? (int)jint(t, "pid") : -1;
}

static bool is_ours(const struct ours *o, int pid)
{
	int i;

	for (i = 0; i < o->nsg; i++)
		if (o->sg[i] == pid)
			return true;
	return pid == o->java || pid == o->prom;
}

/* Prometheus in @dir, scraping itself on @port every 500 ms. */
static pid_t start_self_scraper(const char *dir, int port)
{
	char cfg[400], a1[64], a2[440], a3[440];
	char *argv[] = { "prometheus", a1, a2, a3, "--log.level=warn", NULL };
	struct spawn_opts o = { .out = IO_NULL, .err = IO_NULL,
				.search_path = true };
	FILE *f;

	snprintf(cfg, sizeof(cfg), "%s/prometheus.yml", dir);
	f = fopen(cfg, "w");
	assert_non_null(f);
	fprintf(f, "global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\n"
		   "scrape_configs:\n  - job_name: self\n    static_configs:\n"
		   "      - targets: ['127.0.0.1:%d']\n", port);
	fclose(f);
	snprintf(a1, sizeof(a1), "--web.listen-address=127.0.0.1:%d", port);
	snprintf(a2, sizeof(a2), "--storage.tsdb.path=%s/data", dir);
	snprintf(a3, sizeof(a3), "--config.file=%s", cfg);
	return spawn_with(argv, &o).pid;
}

/* The TCP graph's stage pids into @o, once it is ready. */
static void read_stages(int fd, struct ours *o)
{
	char line[256];
	int pid;

	while (read_line(fd, line, sizeof(line), 10000) &&
	       strcmp(line, "ready")) {
		char *p = strstr(line, " pid=");

		if (strncmp(line, "stage=", 6) || !p ||
		    sscanf(p, " pid=%d", &pid) != 1 || o->nsg == 8)
			continue;
		o->sg[o->nsg++] = pid;
		if (!strncmp(line, "stage=sink ", 11))
			o->sink_pid = pid;
	}
	assert_true(o->nsg == 3 && o->sink_pid > 0);
}

static bool of_process(json_object *t, const void *pid)
{
	return (int)jint(t, "pid") == *(const int *)pid;
}

/*
 * The on-CPU time of the tasks of process @pid in @doc (s): what weighs
 * its waits (a part's share of the work), printed when the verdict is
 * not the one expected.
 */
static double process_cpu(json_object *doc, int pid)
{
	return tasks_on_cpu(doc, of_process, &pid) / 1e9;
}

/* Why a candidate other than sink came first: the work of each process */
static void print_work(json_object *doc, const struct ours *o)
{
	double sg = 0;
	int i;

	for (i = 0; i < o->nsg; i++)
		sg += process_cpu(doc, o->sg[i]);
	print_message("  on-CPU: stream graph %.3f s, JVM %.3f s, Prometheus %.3f s\n",
		      sg, process_cpu(doc, o->java), process_cpu(doc, o->prom));
}

/* The first candidate of ours in @doc, printed; NULL if none. */
static json_object *first_ours(json_object *doc, const struct ours *o)
{
	json_object *g, *b, *c, *ours = NULL;
	size_t i;

	assert_true(json_object_object_get_ex(doc, "graph", &g));
	assert_true(json_object_object_get_ex(g, "bottleneck", &b));
	for (i = 0; i < json_object_array_length(b); i++) {
		c = json_object_array_get_idx(b, i);
		if (i < 4)
			print_message("  candidate %zu: %s (pid %d, share %.2f)\n",
				      i, jstr(c, "comm"),
				      pid_of(doc, (int)jint(c, "tid")),
				      jdouble(c, "share"));
		if (ours || !is_ours(o, pid_of(doc, (int)jint(c, "tid"))))
			continue;
		print_message("  first of ours: %s (share %.2f): %s\n",
			      jstr(c, "comm"), jdouble(c, "share"),
			      jstr(c, "reason"));
		ours = c;
	}
	return ours;
}

static void test_beside_idle_pools(void **state)
{
	char *dir = tmp_path("host"), *json = tmp_path("host.json");
	char jdir[300], pdir[300];
	char *jv[] = { "/usr/bin/java", "-cp", jdir, "IdlePool", "30", NULL };
	char *sg[] = { "/usr/bin/nice", "-n", "-19",
		       (char *)workload("stagegraph"), "-m", "tcp", "-w", "0.5",
		       "-d", "8", "gen:cpu=10", "relay:cpu=10", "sink:cpu=100",
		       NULL };
	char *argv[] = { "/usr/bin/nice", "-n", "-19", (char *)tdbpf_bin(),
			 "-a", "--wakeups", "-j", "-o", json, "-d", "3", NULL };
	struct ours o = { .nsg = 0 };
	struct child jw, w;
	json_object *doc, *c;
	char line[64];

	(void)state;
	NEED_BPF();
	SKIP_UNLESS(need_java());
	if (system("command -v prometheus >/dev/null")) {
		print_message("no prometheus (make deps): skipped\n");
		skip();
	}
	snprintf(jdir, sizeof(jdir), "%s/jvm", dir);
	snprintf(pdir, sizeof(pdir), "%s/prom", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(pdir, 0755), 0);
	javac_into(jdir, "IdlePool.java");
	o.prom = start_self_scraper(pdir, free_port());
	/* a JVM's start on a loaded machine takes longer than 5 s */
	jw = spawn(jv, 0);
	assert_true(jw.pid > 0);
	assert_non_null(read_line(jw.out, line, sizeof(line), 60000));
	assert_int_equal(sscanf(line, "pid=%d", &o.java), 1);
	/* the JVM's start and Prometheus's first scrapes are over */
	sleep(3);
	start_workload(sg, 0, &w);
	read_stages(w.out, &o);
	assert_int_equal(run(argv, NULL, 60), 0);
	assert_int_equal(wait_for(w.pid, 30), 0);
	close(w.out);
	kill(o.java, SIGKILL);
	kill(o.prom, SIGTERM);
	wait_for(o.java, 10);
	wait_for(o.prom, 10);
	close(jw.out);
	doc = json_file(json);
	assert_non_null(doc);
	c = first_ours(doc, &o);
	assert_non_null(c);
	if (strncmp(jstr(c, "comm"), "sink", 4))
		print_work(doc, &o);
	/* "sink (PID)" where other processes have a sink too */
	assert_int_equal(strncmp(jstr(c, "comm"), "sink", 4), 0);
	assert_int_equal(pid_of(doc, (int)jint(c, "tid")), o.sink_pid);
	json_object_put(doc);
	unlink(json);
	remove_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_beside_idle_pools),
	};

	return cmocka_run_group_tests_name("whole_host", tests, NULL, NULL);
}
