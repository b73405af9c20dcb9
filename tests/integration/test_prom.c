// SPDX-License-Identifier: GPL-2.0
/*
 * --listen's exposition against real components: promtool checks a
 * scrape; counters stay monotonic while thousands of threads come and
 * go; the BPF run time and the server's capabilities. Root (BPF);
 * promtool from Debian's `prometheus` (make deps). The HTTP server's
 * answers to bad requests and slow clients are test_prom_http.c's, a
 * real Prometheus server scraping tdbpf test_prometheus.c's.
 */
#include "helpers.h"
#include "prom_helpers.h"

static int promtool_check(const char *text)
{
	char path[128], cmd[256];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s", tmp_path("scrape.txt"));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	rc = system(cmd);
	unlink(path);
	return rc;
}

/* A series of a scrape and the range its value must lie in */
struct want {
	const char *key;
	double min, max;
};

/*
 * Two spinners 0.5 s after the attach: both threads, some on-CPU time
 * (a tenth of the 1 s they had), the process's three tasks live, a
 * collection timed.
 */
static const struct want spinners_scrape[] = {
	{ "tdbpf_task_on_cpu_seconds_total{comm=\"spinners\",thread=\"spin-*\"}",
	  0.05, INFINITY },
	{ "tdbpf_task_threads{comm=\"spinners\",thread=\"spin-*\"}", 2, 2 },
	{ "tdbpf_tasks{state=\"live\"}", 3, INFINITY },
	{ "tdbpf_last_collect_duration_seconds", 1e-9, INFINITY },
};

static void check_wants(const struct sample *smp, int n,
			const struct want *w, size_t nr)
{
	size_t i;
	double v;

	for (i = 0; i < nr; i++) {
		v = sample_of(smp, n, w[i].key);
		if (!(v >= w[i].min && v <= w[i].max))
			fail_msg("%s = %g, want %g to %g", w[i].key, v,
				 w[i].min, w[i].max);
	}
}

/*
 * A scrape of the spinners workload: promtool accepts it; OpenMetrics when
 * asked; the threads' series are there with on-CPU time.
 */
static void test_scrape_promtool(void **state)
{
	struct sample *smp = calloc(4096, sizeof(*smp));
	struct reply r;
	struct server s = { 0 };
	struct child w;
	int n;

	(void)state;
	NEED_BPF();
	if (!have("promtool"))
		fail_msg("promtool not found; run make deps (Debian package prometheus)");
	start_tracked((char *[]){ (char *)workload("spinners"), "-n", "2",
				  "-d", "30", NULL },
		      &w);
	start_tdbpf_on(&s, w.pid);
	usleep(500000);

	get_expect(s.port, "/metrics", NULL, 200, &r);
	assert_non_null(strstr(r.head, "Content-Type: text/plain; version=0.0.4"));
	assert_int_equal(promtool_check(r.body), 0);
	n = parse_samples(r.body, smp, 4096);
	check_wants(smp, n, spinners_scrape,
		    sizeof(spinners_scrape) / sizeof(spinners_scrape[0]));
	reply_free(&r);

	get_expect(s.port, "/metrics",
		   "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
		   200, &r);
	assert_non_null(strstr(r.head, "Content-Type: application/openmetrics-text; version=1.0.0"));
	n = (int)strlen(r.body);
	assert_true(n > 6 && !strcmp(r.body + n - 6, "# EOF\n"));
	assert_non_null(strstr(r.body, "# TYPE tdbpf_task_on_cpu_seconds counter\n"));
	reply_free(&r);

	get_expect(s.port, "/", NULL, 200, &r);
	assert_non_null(strstr(r.body, "href=\"/metrics\""));
	reply_free(&r);

	assert_int_equal(stop_tdbpf(&s), 0);
	kill(w.pid, SIGTERM);
	wait_for(w.pid, 10);
	close(w.out);
	free(smp);
}

/* @name{comm="operators",thread="worker-*",span="@span"} of @smp */
static double span_sample(const struct sample *smp, int n, const char *name,
			  const char *span)
{
	char key[256];

	snprintf(key, sizeof(key),
		 "%s{comm=\"operators\",thread=\"worker-*\",span=\"%s\"}",
		 name, span);
	return sample_of(smp, n, key);
}

/* Span series of @name in @smp: how many, and whether `other` is one */
static int span_series(const struct sample *smp, int n, const char *name,
		       bool *other)
{
	int i, k = 0;

	*other = false;
	for (i = 0; i < n; i++) {
		if (strncmp(smp[i].key, name, strlen(name)) ||
		    smp[i].key[strlen(name)] != '{')
			continue;
		k++;
		*other |= strstr(smp[i].key, "span=\"other\"") != NULL;
	}
	return k;
}

/*
 * --span: a series per task series and span name, under the thread's
 * folded labels (thread="worker-*", span="enrich"): promtool accepts
 * them; the operators' entries agree (each task runs parse, enrich and
 * emit: apart by the tasks in flight), their on-CPU time is within
 * their threads', and they only grow. --listen-max-series caps them, the
 * rest in span="other".
 */
static void span_scrapes(const char *max, bool capped)
{
	const char *ops[] = { "parse", "enrich", "emit" };
	char pid[16];
	const char *args[] = { "--span", "usdt", "--listen-max-series", max,
			       "-p", pid, NULL };
	enum { MAX = 512 };
	struct sample *prev = calloc(MAX, sizeof(*prev));
	struct sample *cur = calloc(MAX, sizeof(*cur));
	struct server s = { 0 };
	double e[3], cpu, task, v;
	struct reply r;
	struct child w;
	int np = 0, nc = 0, i, k, round;
	bool other;

	snprintf(pid, sizeof(pid), "%d",
		 start_tracked((char *[]){ (char *)workload("operators"), "-w",
					   "2", "-n", "1000000", NULL },
			       &w));
	start_tdbpf(&s, args);
	for (round = 0; round < 2; round++) {
		/*
		 * The first scrape once every operator has run: on a loaded
		 * machine a second may see one of them only (a wait, not a
		 * bound: 20 s at most)
		 */
		for (i = 0; i < 40; i++) {
			usleep(round || i ? 500000 : 1000000);
			get_expect(s.port, "/metrics", NULL, 200, &r);
			nc = parse_samples(r.body, cur, MAX);
			k = span_series(cur, nc, "tdbpf_span_entries_total",
					&other);
			if (round || k >= 3)
				break;
			reply_free(&r);
		}
		if (!round)
			assert_int_equal(promtool_check(r.body), 0);
		reply_free(&r);
		print_message("scrape %d: %d span series%s\n", round, k,
			      other ? ", other among them" : "");
		if (capped) {
			/* 2 named, the third operator in other */
			assert_int_equal(k, 3);
			assert_true(other);
			continue;
		}
		assert_int_equal(k, 3);
		assert_false(other);
		cpu = 0;
		for (i = 0; i < 3; i++) {
			e[i] = span_sample(cur, nc, "tdbpf_span_entries_total",
					   ops[i]);
			cpu += span_sample(cur, nc,
					   "tdbpf_span_on_cpu_seconds_total",
					   ops[i]);
			assert_false(isnan(e[i]));
		}
		task = sample_of(cur, nc,
				 "tdbpf_task_on_cpu_seconds_total{comm=\"operators\",thread=\"worker-*\"}");
		print_message("  entries parse %.0f enrich %.0f emit %.0f; spans on-CPU %.3f s of the workers' %.3f s\n",
			      e[0], e[1], e[2], cpu, task);
		assert_true(e[1] > 10);
		assert_true(fabs(e[0] - e[1]) <= 4 && fabs(e[1] - e[2]) <= 4);
		assert_true(cpu > 0.5 * task && cpu <= task);
		for (i = 0; i < np; i++) {
			if (!strstr(prev[i].key, "tdbpf_span_"))
				continue;
			v = sample_of(cur, nc, prev[i].key);
			assert_false(isnan(v));
			assert_true(v >= prev[i].v);
		}
		memcpy(prev, cur, sizeof(*cur) * (size_t)nc);
		np = nc;
	}
	assert_int_equal(stop_tdbpf(&s), 0);
	kill(w.pid, SIGTERM);
	wait_for(w.pid, 10);
	close(w.out);
	free(prev);
	free(cur);
}

static void test_span_series(void **state)
{
	(void)state;
	NEED_BPF();
	if (!have("promtool"))
		fail_msg("promtool not found; run make deps (Debian package prometheus)");
	span_scrapes("100", false);
	span_scrapes("2", true);
}

/* The timer wakeups in task row @t's waits_on (JSON), 0 if none. */
static long long timer_wakeups(json_object *t)
{
	json_object *w, *e;
	size_t i;

	if (!json_object_object_get_ex(t, "waits_on", &w))
		return 0;
	for (i = 0; i < json_object_array_length(w); i++) {
		const char *c;

		e = json_object_array_get_idx(w, i);
		c = json_object_get_string(json_object_object_get(e, "comm"));
		if (c && !strcmp(c, "timer"))
			return jint(e, "wakeups");
	}
	return 0;
}

/*
 * Counters never go back while 6,000 threads are created and exit, and
 * the exits are counted. The final report still holds every bit of the
 * process's CPU time, its exited threads folded by name, and their waits:
 * each thread sleeps 1 ms first, and the folded row's timer wakeups
 * (sampled, scaled) estimate the threads it took.
 */
static void test_monotonic_churn(void **state)
{
	const char *args[] = { "--", NULL, "-n", "6000", "-c", "32", "-w",
			       "300", "-z", "1000", NULL };
	enum { MAX = 4096 };
	struct sample *prev = calloc(MAX, sizeof(*prev));
	struct sample *cur = calloc(MAX, sizeof(*cur));
	char report[128], out[128], *text, *p;
	int np = 0, nc, i, scrapes = 0, checked = 0, folded = 0;
	long long threads = 0, cpu_ns = 0, timer = -1;
	double exited = 0, sum = 0;
	json_object *doc, *tasks, *t;
	struct reply r;
	struct server s = { 0 };

	(void)state;
	NEED_BPF();
	snprintf(report, sizeof(report), "%s", tmp_path("churn.json"));
	snprintf(out, sizeof(out), "%s", tmp_path("churn.out"));
	s.report = report;
	s.out = out;
	args[1] = workload("churn");
	start_tdbpf(&s, args);
	while (scrapes < 1000) {
		if (http_get(s.port, "/metrics", NULL, &r) || r.status != 200)
			break;	/* tdbpf stops when the command exits */
		scrapes++;
		nc = parse_samples(r.body, cur, MAX);
		reply_free(&r);
		for (i = 0; i < np; i++) {
			double v;

			if (!strstr(prev[i].key, "_total"))
				continue;
			v = sample_of(cur, nc, prev[i].key);
			if (isnan(v))
				fail_msg("series %s vanished", prev[i].key);
			if (v < prev[i].v)
				fail_msg("%s went back from %.9f to %.9f",
					 prev[i].key, prev[i].v, v);
			checked++;
		}
		exited = sample_of(cur, nc,
				   "tdbpf_task_exited_threads_total{comm=\"churn\",thread=\"churn-*\"}");
		memcpy(prev, cur, sizeof(*cur) * (size_t)nc);
		np = nc;
		usleep(50000);
	}
	assert_int_equal(wait_for(s.pid, 30), 0);
	print_message("%d scrapes, %d counter comparisons, %.0f exits counted\n",
		      scrapes, checked, exited);
	assert_true(scrapes >= 10);
	assert_true(exited >= 1000);

	/* churn's own count of its CPU time, all threads joined */
	text = file_text(out);
	p = strstr(text, "threads=");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "threads=%lld cpu_ns=%lld", &threads,
				&cpu_ns),
			 2);
	free(text);
	doc = json_file(report);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < (int)json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		sum += (double)jint(t, "on_cpu_ns");
		if (jint(t, "tid") == 0 &&
		    !strcmp(json_object_get_string(json_object_object_get(t, "comm")),
			    "churn-*")) {
			folded = (int)jint(t, "nr_tasks");
			timer = timer_wakeups(t);
		}
	}
	print_message("final report: %d rows, %d exited threads in the folded row (timer wakeups %lld); on-CPU %.0f ns, churn's clock %lld ns\n",
		      (int)json_object_array_length(tasks), folded, timer, sum,
		      cpu_ns);
	/* folded rows keep the report small: not a row per thread */
	assert_true(folded >= 1000);
	/*
	 * a sleep each, a tenth of them seen (hundreds): the estimate is
	 * within half of the folded threads' count, where a fold that
	 * dropped the threads' waker slots leaves none
	 */
	assert_true(timer >= folded / 2);
	assert_true(json_object_array_length(tasks) < 3000);
	/* and lose nothing: as test_attach's churn sum */
	assert_process_sum(sum, (double)cpu_ns, threads, 0.02);
	json_object_put(doc);
	unlink(report);
	unlink(out);
	unlink(s.err);
	free(prev);
	free(cur);
}

static int read_sysctl(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f && fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static void write_sysctl(const char *path, int v)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fprintf(f, "%d\n", v);
		fclose(f);
	}
}

/*
 * The BPF programs' run time is exposed while kernel.bpf_stats_enabled
 * is 1, and only then (turned on for one scrape, then put back).
 */
static void test_bpf_run_time(void **state)
{
	static const char *stats = "/proc/sys/kernel/bpf_stats_enabled";
	struct sample *smp = calloc(1024, sizeof(*smp));
	struct server s = { 0 };
	struct reply r;
	double runs, ns;
	int old, n;

	(void)state;
	NEED_BPF();
	old = read_sysctl(stats);
	if (old < 0)
		skip();
	start_tdbpf_on(&s, getpid());
	if (old == 0) {
		assert_int_equal(http_get(s.port, "/metrics", NULL, &r), 0);
		assert_null(strstr(r.body, "tdbpf_bpf_run"));
		reply_free(&r);
	}
	write_sysctl(stats, 1);
	n = http_get(s.port, "/metrics", NULL, &r);
	write_sysctl(stats, old);
	assert_int_equal(n, 0);
	n = parse_samples(r.body, smp, 1024);
	reply_free(&r);
	/*
	 * The task iterator runs at every collect, once per task, whatever
	 * the model (the software model has no program at a switch)
	 */
	runs = sample_of(smp, n, "tdbpf_bpf_runs_total{program=\"tdbpf_dump\"}");
	ns = sample_of(smp, n, "tdbpf_bpf_run_seconds_total{program=\"tdbpf_dump\"}");
	print_message("tdbpf_dump: %.0f runs, %.6f s\n", runs, ns);
	assert_true(runs > 0);
	assert_true(ns > 0);
	assert_int_equal(stop_tdbpf(&s), 0);
	free(smp);
}

/* A capability set (@what: "CapEff:") of @pid from /proc, or ~0 */
static unsigned long long cap_set(pid_t pid, const char *what)
{
	char path[64], line[256];
	unsigned long long v = ~0ULL;
	size_t n = strlen(what);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, what, n) &&
		    sscanf(line + n, "%llx", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* The value of @key in /proc/@pid/status, blanks around it cut. */
static void status_line(pid_t pid, const char *key, char *out, size_t len)
{
	char path[64], line[256], *v, *e;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	assert_non_null(f);
	out[0] = 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			v = line + strlen(key);
			v += strspn(v, " \t");
			for (e = v + strlen(v); e > v && strchr(" \t\n", e[-1]);
			     e--)
				;
			*e = 0;
			snprintf(out, len, "%s", v);
		}
	fclose(f);
}

/*
 * While serving, tdbpf holds CAP_BPF and CAP_PERFMON (map reads, the
 * flush program, the graph's windows) and nothing else, in every set:
 * the file-reading overrides (CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH) for
 * the graph's /proc reads of other users' sockets are the peer reader's,
 * a process of its own (test_privs checks it); no CAP_NET_BIND_SERVICE
 * (the socket is bound already), no CAP_SYS_ADMIN, no CAP_KILL without a
 * command.
 */
static void test_capabilities(void **state)
{
	const unsigned long long want = (1ULL << 38) | (1ULL << 39);
	const unsigned long long held = want;
	unsigned int ids[4];
	char line[128];
	struct reply r;
	struct server s = { 0 };
	unsigned long long eff;

	(void)state;
	NEED_BPF();
	start_tdbpf_on(&s, getpid());
	get_expect(s.port, "/metrics", NULL, 200, &r);
	reply_free(&r);
	eff = cap_set(s.pid, "CapEff:");
	if (eff != want)
		fail_msg("tdbpf serves with CapEff %llx, want %llx (CAP_BPF, CAP_PERFMON)",
			 eff, want);
	eff = cap_set(s.pid, "CapPrm:");
	if (eff != held)
		fail_msg("tdbpf serves with CapPrm %llx, want %llx", eff, held);
	eff = cap_set(s.pid, "CapBnd:");
	if (eff != held)
		fail_msg("tdbpf serves with CapBnd %llx, want %llx", eff, held);
	/*
	 * And not as uid 0, which owns /etc/shadow and every root file:
	 * a uid of tdbpf's own, which owns no file (and so no process of
	 * nobody can signal it), nobody's group only, while the scrapes
	 * still read the maps and /proc.
	 */
	status_line(s.pid, "Uid:", line, sizeof(line));
	assert_int_equal(sscanf(line, "%u %u %u %u", &ids[0], &ids[1], &ids[2],
				&ids[3]), 4);
	assert_true(ids[1] == ids[0] && ids[2] == ids[0] && ids[3] == ids[0]);
	assert_true(ids[0] >= 61184 && ids[0] <= 65519);
	status_line(s.pid, "Gid:", line, sizeof(line));
	assert_string_equal(line, "65534\t65534\t65534\t65534");
	status_line(s.pid, "Groups:", line, sizeof(line));
	assert_string_equal(line, "");
	get_expect(s.port, "/metrics", NULL, 200, &r);
	assert_non_null(strstr(r.body, "tdbpf_task_on_cpu_seconds_total{"));
	reply_free(&r);
	assert_int_equal(stop_tdbpf(&s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_scrape_promtool, teardown),
		cmocka_unit_test_teardown(test_monotonic_churn, teardown),
		cmocka_unit_test_teardown(test_capabilities, teardown),
		cmocka_unit_test_teardown(test_bpf_run_time, teardown),
		cmocka_unit_test_teardown(test_span_series, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
