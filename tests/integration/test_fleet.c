// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf graph FILE...: hosts' reports joined into one wait-for graph.
 *
 * The reports are written here, shaped as the tracer writes them with
 * socket waits resolved (graph.edges[].endpoint, sockets[]), for a
 * stream graph gen (host hA) -> relay (hB) -> sink (hC) over TCP:
 *
 *   hA 10.9.0.1:40001 -> hB 10.9.0.2:7001   (gen -> relay)
 *   hB 10.9.0.2:40002 -> hC 10.9.0.3:7002   (relay -> sink)
 *
 * Each host sees only its half: gen waits on 10.9.0.2:7001 (space: relay
 * reads), sink on 10.9.0.2:40002 (data: relay writes). The scenarios set
 * who is slow, so the answer is known by construction: relay CPU-bound
 * (it runs 95% of the window, everyone else waits on it), sink sleeping
 * per record (its waits end by its timer, relay's and gen's wait on it),
 * sink's host missing (the waits lead to an address no report has).
 * The relay process has an idle main thread and a worker, relay-rx,
 * that does the socket work: the join must pick the worker.
 * Bad input: other windows, other counters, one host twice, no host
 * name, no graph: one line each, exit 2.
 */
#include "helpers.h"

#define S	1000000000ULL

struct ftask {
	unsigned tid, pid;
	const char *comm;
	unsigned long long on, off;
};

struct fedge {
	unsigned wakee;
	const char *endpoint;	/* NULL: waker is the named kind */
	const char *kind;
	unsigned long long wait;
};

struct fsock {
	unsigned pid;
	const char *state, *local, *remote;
	const char *comm;	/* NULL: "p" */
};

static char *dir;

static void write_host(const char *file, const char *host,
		       unsigned long long end, unsigned long long dur,
		       const char *groups, const struct ftask *t, int nt,
		       const struct fedge *e, int ne, const struct fsock *s,
		       int ns)
{
	char path[256];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "{\"model\": \"software\", \"level\": 0, \"smt\": false,"
		   " \"duration_ns\": %llu, \"nr_total\": %d,", dur, nt);
	if (host)
		fprintf(f, " \"host\": \"%s\",", host);
	if (end)
		fprintf(f, " \"end_ns\": %llu,", end);
	if (e) {
		fprintf(f, " \"graph\": {\"blocked_ns\": 0, \"edges\": [");
		for (i = 0; i < ne; i++) {
			fprintf(f, "%s{\"waker_tid\": 0, \"waker_comm\": \"%s\","
				   " \"wakee_tid\": %u, \"wakee_comm\": \"x\","
				   " \"wakeups\": 1000, \"wait_ns\": %llu",
				i ? ", " : "",
				e[i].endpoint ? e[i].endpoint : e[i].kind,
				e[i].wakee, e[i].wait);
			if (e[i].endpoint)
				fprintf(f, ", \"endpoint\": \"%s\"",
					e[i].endpoint);
			fprintf(f, "}");
		}
		fprintf(f, "], \"bottleneck\": []},");
	}
	fprintf(f, " \"sockets\": [");
	for (i = 0; i < ns; i++)
		fprintf(f, "%s{\"pid\": %u, \"comm\": \"%s\", \"proto\": \"tcp\","
			   " \"state\": \"%s\", \"local\": \"%s\","
			   " \"remote\": \"%s\"}",
			i ? ", " : "", s[i].pid, s[i].comm ? s[i].comm : "p",
			s[i].state, s[i].local, s[i].remote);
	fprintf(f, "], \"groups\": [%s], \"tasks\": [", groups);
	for (i = 0; i < nt; i++) {
		const char *vals = strchr(groups, ',') ? "[0, 0, 0, 0]" : "[0]";

		fprintf(f, "%s{\"tid\": %u, \"pid\": %u, \"comm\": \"%s\","
			   " \"on_cpu_ns\": %llu, \"runq_wait_ns\": 0,"
			   " \"off_cpu_ns\": %llu, \"voluntary\": 0,"
			   " \"involuntary\": 0, \"migrations\": 0,"
			   " \"uncounted_ns\": 0, \"raw\": {\"values\": %s,"
			   " \"enabled\": [%llu], \"running\": [%llu]}}",
			i ? ", " : "", t[i].tid, t[i].pid, t[i].comm, t[i].on,
			t[i].off, vals, t[i].on, t[i].on);
	}
	fprintf(f, "]}\n");
	assert_int_equal(fclose(f), 0);
}

static const char SW[] =
	"[\"cpu-clock\", \"page-faults\", \"context-switches\", \"cpu-migrations\"]";
#define END	1800000000000000000ULL

/* The sockets of the three hosts: each flow's halves mirror each other. */
static const struct fsock sa[] = {
	{ 100, "established", "10.9.0.1:40001", "10.9.0.2:7001", NULL },
};
static const struct fsock sb[] = {
	{ 200, "listen", "10.9.0.2:7001", "0.0.0.0:0", NULL },
	{ 200, "established", "10.9.0.2:7001", "10.9.0.1:40001", NULL },
	{ 200, "established", "10.9.0.2:40002", "10.9.0.3:7002", NULL },
};
static const struct fsock sc[] = {
	{ 300, "listen", "10.9.0.3:7002", "0.0.0.0:0", NULL },
	{ 300, "established", "10.9.0.3:7002", "10.9.0.2:40002", NULL },
};

/* relay CPU-bound: gen blocked on space, sink on data, both on relay */
static void write_relay_busy(unsigned long long skew)
{
	const struct ftask ta[] = { { 100, 100, "gen", 1 * S, 9 * S } };
	const struct fedge ea[] = { { 100, "10.9.0.2:7001", NULL, 85 * S / 10 } };
	const struct ftask tb[] = { { 200, 200, "relay", 0, 0 },
				    { 201, 200, "relay-rx", 95 * S / 10, S / 2 } };
	const struct fedge eb[] = { { 201, "10.9.0.1:40001", NULL, 3 * S / 10 },
				    { 201, "10.9.0.3:7002", NULL, S / 10 } };
	const struct ftask tc[] = { { 300, 300, "sink", S / 2, 95 * S / 10 } };
	const struct fedge ec[] = { { 300, "10.9.0.2:40002", NULL, 92 * S / 10 } };

	write_host("a.json", "hA", END, 10 * S, SW, ta, 1, ea, 1, sa, 1);
	/* hB's clock runs 3 s ahead: addresses, not times, join the flows */
	write_host("b.json", "hB", END + skew, 10 * S, SW, tb, 2, eb, 2, sb, 3);
	write_host("c.json", "hC", END, 10 * S, SW, tc, 1, ec, 1, sc, 2);
}

/* sink sleeps per record: relay and gen wait on it through the flows */
static void write_sink_sleeps(void)
{
	const struct ftask ta[] = { { 100, 100, "gen", S / 2, 95 * S / 10 } };
	const struct fedge ea[] = { { 100, "10.9.0.2:7001", NULL, 93 * S / 10 } };
	const struct ftask tb[] = { { 200, 200, "relay", 0, 0 },
				    { 201, 200, "relay-rx", S / 2, 95 * S / 10 } };
	const struct fedge eb[] = { { 201, "10.9.0.3:7002", NULL, 92 * S / 10 },
				    { 201, "10.9.0.1:40001", NULL, S / 10 } };
	const struct ftask tc[] = { { 300, 300, "sink", 3 * S / 10, 97 * S / 10 } };
	const struct fedge ec[] = { { 300, NULL, "timer", 95 * S / 10 },
				    { 300, "10.9.0.2:40002", NULL, S / 10 } };

	write_host("a.json", "hA", END, 10 * S, SW, ta, 1, ea, 1, sa, 1);
	write_host("b.json", "hB", END, 10 * S, SW, tb, 2, eb, 2, sb, 3);
	write_host("c.json", "hC", END, 10 * S, SW, tc, 1, ec, 2, sc, 2);
}

static int graph(const char *const *args, struct run_result *r)
{
	char *argv[24], paths[8][256];
	int n = 0, p = 0, i;

	argv[n++] = (char *)tdbpf_bin();
	argv[n++] = "graph";
	for (i = 0; args[i]; i++) {
		/* file operands and NAME=FILE are under the scratch dir */
		const char *eq = strchr(args[i], '=');

		if (args[i][0] == '-' || args[i][0] == '/' || p == 8) {
			argv[n++] = (char *)args[i];
			continue;
		}
		if (eq)
			snprintf(paths[p], sizeof(paths[p]), "%.*s=%s/%s",
				 (int)(eq - args[i] + 0), args[i], dir, eq + 1);
		else
			snprintf(paths[p], sizeof(paths[p]), "%s/%s", dir,
				 args[i]);
		argv[n++] = paths[p++];
	}
	argv[n] = NULL;
	return run_capture(argv, NULL, (uid_t)-1, (gid_t)-1, 30, r);
}

/*
 * tdbpf graph @args (with -j): exit 0, the verdict's first candidate
 * named @name and its reason beginning with @reason (NULL: any). Its
 * stderr (malloc'ed), for the caller's own checks.
 */
static char *verdict_is(const char *const *args, const char *name,
			const char *reason)
{
	char got[256], why[256];
	struct run_result r;

	if (graph(args, &r))
		fail_msg("%s", r.err);
	assert_true(verdict_of(r.out, got, why, sizeof(got)));
	assert_string_equal(got, name);
	if (reason)
		assert_true(strncmp(why, reason, strlen(reason)) == 0);
	free(r.out);
	return r.err;
}

static void test_relay_busy(void **state)
{
	const char *args[] = { "-j", "a.json", "b.json", "c.json", NULL };
	char *err;

	(void)state;
	write_relay_busy(3 * S);
	err = verdict_is(args, "hB/relay/relay-rx", "runs");
	/* both cross-host waits joined, nothing left unresolved */
	if (!strstr(err, "4 waits joined across hosts, 0 endpoints"))
		fail_msg("%s", err);
	free(err);
}

/*
 * relay's report without its leader's row (the main thread exited, or a
 * filter left it out): the process is named from its sockets, as the
 * tracer listed them, not "pid 200".
 */
static void test_no_leader_row(void **state)
{
	const char *args[] = { "-j", "a.json", "b.json", "c.json", NULL };
	const struct ftask tb[] = {
		{ 201, 200, "relay-rx", 95 * S / 10, S / 2 } };
	const struct fedge eb[] = { { 201, "10.9.0.1:40001", NULL, 3 * S / 10 },
				    { 201, "10.9.0.3:7002", NULL, S / 10 } };
	const struct fsock sbn[] = {
		{ 200, "listen", "10.9.0.2:7001", "0.0.0.0:0", "relay" },
		{ 200, "established", "10.9.0.2:7001", "10.9.0.1:40001",
		  "relay" },
		{ 200, "established", "10.9.0.2:40002", "10.9.0.3:7002",
		  "relay" },
	};

	(void)state;
	write_relay_busy(0);
	write_host("b.json", "hB", END, 10 * S, SW, tb, 1, eb, 2, sbn, 3);
	free(verdict_is(args, "hB/relay/relay-rx", NULL));
}

static void test_sink_sleeps(void **state)
{
	const char *args[] = { "a.json", "b.json", "c.json", NULL };
	const char *j[] = { "-j", "a.json", "b.json", "c.json", NULL };
	struct run_result r;

	(void)state;
	write_sink_sleeps();
	assert_int_equal(graph(args, &r), 0);
	assert_non_null(strstr(r.out, "bottleneck: hC/sink/sink (tid 20000300): waits on timers"));
	free(r.out);
	free(r.err);
	/* the same through JSON */
	free(verdict_is(j, "hC/sink/sink", "waits on timers"));
}

/* hC's report missing: the waits lead to the address, named as such. */
static void test_unresolved(void **state)
{
	const char *args[] = { "-j", "a.json", "b.json", NULL };
	char *err;

	(void)state;
	write_sink_sleeps();
	err = verdict_is(args, "unresolved 10.9.0.3:7002",
			 "unresolved endpoint");
	assert_non_null(strstr(err, "1 endpoints no report has"));
	free(err);
}

/* --host names reports that carry no name; DOT has a cluster per host. */
static void test_host_names_dot(void **state)
{
	char dot[300], *text;
	const char *args[] = { "--host", "alpha=a.json", "--host",
			       "beta=b.json", "--host", "gamma=c.json",
			       "--graph", dot, NULL };
	const struct ftask ta[] = { { 100, 100, "gen", S / 2, 95 * S / 10 } };
	const struct fedge ea[] = { { 100, "10.9.0.2:7001", NULL, 93 * S / 10 } };
	struct run_result r;

	(void)state;
	write_sink_sleeps();
	/* a's report without a host name: --host gives it one */
	write_host("a.json", NULL, END, 10 * S, SW, ta, 1, ea, 1, sa, 1);
	snprintf(dot, sizeof(dot), "%s/g.dot", dir);
	if (graph(args, &r))
		fail_msg("%s", r.err);
	assert_non_null(strstr(r.out, "bottleneck: gamma/sink/sink"));
	free(r.out);
	free(r.err);
	text = file_text(dot);
	has_all(text, STRS("subgraph cluster_1 {\n\t\tlabel=\"alpha\"",
			   "subgraph cluster_2 {\n\t\tlabel=\"beta\"",
			   "subgraph cluster_3 {\n\t\tlabel=\"gamma\"",
			   "BOTTLENECK\\ngamma/sink/sink"));
	free(text);
	/* without --host, the nameless report is refused in one line */
	{
		const char *plain[] = { "a.json", "b.json", NULL };

		assert_int_equal(graph(plain, &r), 2);
		assert_non_null(strstr(r.err, "a.json: the report names no host; give --host NAME=FILE"));
		assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err));
		free(r.out);
		free(r.err);
	}
}

static void expect_error(const char *const *args, const char *msg)
{
	struct run_result r;

	assert_int_equal(graph(args, &r), 2);
	if (!strstr(r.err, msg))
		fail_msg("want '%s' in: %s", msg, r.err);
	/* one line */
	assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err));
	assert_string_equal(r.out, "");
	free(r.out);
	free(r.err);
}

static void test_bad_input(void **state)
{
	const struct ftask tc[] = { { 300, 300, "sink", S / 2, 95 * S / 10 } };
	const struct fedge ec[] = { { 300, "10.9.0.2:40002", NULL, 92 * S / 10 } };
	const char *abc[] = { "a.json", "b.json", "c.json", NULL };
	const char *twice[] = { "a.json", "a.json", NULL };

	(void)state;
	/* a window of another length */
	write_relay_busy(0);
	write_host("c.json", "hC", END, 60 * S, SW, tc, 1, ec, 1, sc, 2);
	expect_error(abc, "a.json covers 10.0 s and");
	expect_error(abc, "60.0 s: not the same window");
	/* as long, but an hour later */
	write_host("c.json", "hC", END + 3600 * S, 10 * S, SW, tc, 1, ec, 1,
		   sc, 2);
	expect_error(abc, "cover windows 3600 s apart");
	/* other counters */
	write_host("c.json", "hC", END, 10 * S, "[\"cpu-clock\"]", tc, 1, ec,
		   1, sc, 2);
	expect_error(abc, "count different events; trace every host with the same --model, -l and -e");
	/* the same host twice */
	write_relay_busy(0);
	expect_error(twice, "both come from host 'hA'; name them apart with --host NAME=FILE");
	/* traced with --no-wakeups */
	write_host("c.json", "hC", END, 10 * S, SW, tc, 1, NULL, 0, sc, 2);
	expect_error(abc, "c.json: the report has no wait-for graph (traced with --no-wakeups, or recorded by a tdbpf that left it out of --record files); trace the host again with wakeups, the default");
}

/*
 * A recording (-I with --record): one line per interval, then the whole
 * run's; the join reads the whole run's. Its first interval here covers
 * 1 s, which the window check would refuse against 10 s reports.
 */
static void test_recording(void **state)
{
	const char *args[] = { "-j", "a.json", "brec.json", "c.json", NULL };
	char path[300], *whole, *p;
	FILE *f;

	(void)state;
	write_relay_busy(0);
	snprintf(path, sizeof(path), "%s/b.json", dir);
	whole = file_text(path);
	p = strstr(whole, "\"duration_ns\": 10000000000");
	assert_non_null(p);
	snprintf(path, sizeof(path), "%s/brec.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	/* interval 0: the same object, 1 s long, numbered */
	fprintf(f, "%.*s\"interval\": 0, \"duration_ns\": 1000000000%s",
		(int)(p - whole), whole,
		p + strlen("\"duration_ns\": 10000000000"));
	fputs(whole, f);
	assert_int_equal(fclose(f), 0);
	free(whole);
	free(verdict_is(args, "hB/relay/relay-rx", NULL));
}

static int setup(void **state)
{
	(void)state;
	dir = strdup(tmp_path("fleet"));
	return mkdir(dir, 0700);
}

static int teardown(void **state)
{
	int rc;

	(void)state;
	rc = remove_tree(dir);
	free(dir);
	return rc ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relay_busy),
		cmocka_unit_test(test_no_leader_row),
		cmocka_unit_test(test_sink_sleeps),
		cmocka_unit_test(test_unresolved),
		cmocka_unit_test(test_host_names_dot),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_recording),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
