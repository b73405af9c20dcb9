// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf graph --prometheus against a real Prometheus (Debian's), which
 * scrapes three exporters served from this test, one per host (hA, hB,
 * hC by their scrape labels), each exposing what a host's tdbpf
 * --wakeups --listen exposes for its half of the stream graph
 * gen (hA) -> relay (hB) -> sink (hC) over TCP: task series, wait series
 * (a socket's far end as `remote`, the label the socket hooks of #22
 * add) and socket flows with ephemeral ports folded. Counters grow at
 * rates the scenario sets, so the answer is known by construction:
 * relay CPU-bound, then sink sleeping per record (the bottleneck moves
 * host), then hC's exporter stopped (its endpoint unresolved). Bad
 * input: an unreachable URL, a Prometheus without tdbpf series.
 */
#include "helpers.h"
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include "prometheus.h"

struct exporter {
	const char *host;
	int fd, port;
	pthread_t th;
	volatile int stop;
};

static struct exporter ex[3] = { { .host = "hA" }, { .host = "hB" }, { .host = "hC" } };

/* The scenario's rates, per second; counters integrate them. */
struct rate {
	const char *series;	/* family{labels} */
	double per_s;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const struct rate *rates[3];
static int nr_rates[3];
static double base[3][16], t_switch;

#define S(fam, labels) "tdbpf_" fam "{" labels "}"

static const struct rate busy_a[] = {
	{ S("task_on_cpu_seconds_total", "comm=\"gen\",thread=\"gen\""), 0.10 },
	{ S("task_off_cpu_seconds_total", "comm=\"gen\",thread=\"gen\""), 0.90 },
	{ S("task_wait_seconds_total", "comm=\"gen\",thread=\"gen\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.2:7001\""), 0.85 },
};
static const struct rate busy_b[] = {
	{ S("task_on_cpu_seconds_total", "comm=\"relay\",thread=\"relay-rx\""), 0.95 },
	{ S("task_off_cpu_seconds_total", "comm=\"relay\",thread=\"relay-rx\""), 0.05 },
	{ S("task_off_cpu_seconds_total", "comm=\"relay\",thread=\"relay\""), 0.0001 },
	{ S("task_wait_seconds_total", "comm=\"relay\",thread=\"relay-rx\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.1:*\""), 0.03 },
	{ S("task_wait_seconds_total", "comm=\"relay\",thread=\"relay-rx\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.3:7002\""), 0.01 },
};
static const struct rate busy_c[] = {
	{ S("task_on_cpu_seconds_total", "comm=\"sink\",thread=\"sink\""), 0.05 },
	{ S("task_off_cpu_seconds_total", "comm=\"sink\",thread=\"sink\""), 0.95 },
	{ S("task_wait_seconds_total", "comm=\"sink\",thread=\"sink\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.2:*\""), 0.92 },
};
/* the same series, sink now sleeping per record */
static const struct rate sleep_a[] = {
	{ S("task_on_cpu_seconds_total", "comm=\"gen\",thread=\"gen\""), 0.05 },
	{ S("task_off_cpu_seconds_total", "comm=\"gen\",thread=\"gen\""), 0.95 },
	{ S("task_wait_seconds_total", "comm=\"gen\",thread=\"gen\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.2:7001\""), 0.93 },
};
static const struct rate sleep_b[] = {
	{ S("task_on_cpu_seconds_total", "comm=\"relay\",thread=\"relay-rx\""), 0.05 },
	{ S("task_off_cpu_seconds_total", "comm=\"relay\",thread=\"relay-rx\""), 0.95 },
	{ S("task_off_cpu_seconds_total", "comm=\"relay\",thread=\"relay\""), 0.0001 },
	{ S("task_wait_seconds_total", "comm=\"relay\",thread=\"relay-rx\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.1:*\""), 0.01 },
	{ S("task_wait_seconds_total", "comm=\"relay\",thread=\"relay-rx\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.3:7002\""), 0.92 },
};
static const struct rate sleep_c[] = {
	{ S("task_on_cpu_seconds_total", "comm=\"sink\",thread=\"sink\""), 0.03 },
	{ S("task_off_cpu_seconds_total", "comm=\"sink\",thread=\"sink\""), 0.97 },
	{ S("task_wait_seconds_total", "comm=\"sink\",thread=\"sink\",waker_comm=\"\",waker_thread=\"timer\""), 0.95 },
	{ S("task_wait_seconds_total", "comm=\"sink\",thread=\"sink\",waker_comm=\"\",waker_thread=\"endpoint\",remote=\"10.9.0.2:*\""), 0.01 },
};

/* Socket halves: constant gauges, each side mirroring the other. */
static const char *const flows[3] = {
	S("socket_flows", "comm=\"gen\",proto=\"tcp\",state=\"established\",local=\"10.9.0.1:*\",remote=\"10.9.0.2:7001\"") " 1\n",
	S("socket_flows", "comm=\"relay\",proto=\"tcp\",state=\"listen\",local=\"0.0.0.0:7001\",remote=\"0.0.0.0:0\"") " 1\n"
	S("socket_flows", "comm=\"relay\",proto=\"tcp\",state=\"established\",local=\"10.9.0.2:7001\",remote=\"10.9.0.1:*\"") " 1\n"
	S("socket_flows", "comm=\"relay\",proto=\"tcp\",state=\"established\",local=\"10.9.0.2:*\",remote=\"10.9.0.3:7002\"") " 1\n",
	S("socket_flows", "comm=\"sink\",proto=\"tcp\",state=\"listen\",local=\"0.0.0.0:7002\",remote=\"0.0.0.0:0\"") " 1\n"
	S("socket_flows", "comm=\"sink\",proto=\"tcp\",state=\"established\",local=\"10.9.0.3:7002\",remote=\"10.9.0.2:*\"") " 1\n",
};

/* Switch every host to new rates, counters going on from where they are. */
static void set_rates(const struct rate *a, int na, const struct rate *b,
		      int nb, const struct rate *c, int nc)
{
	double t = mono_s();
	int h, i;

	pthread_mutex_lock(&lock);
	for (h = 0; h < 3; h++)
		for (i = 0; rates[h] && i < nr_rates[h]; i++)
			base[h][i] += rates[h][i].per_s * (t - t_switch);
	rates[0] = a, nr_rates[0] = na;
	rates[1] = b, nr_rates[1] = nb;
	rates[2] = c, nr_rates[2] = nc;
	t_switch = t;
	pthread_mutex_unlock(&lock);
}

static void *serve(void *arg)
{
	struct exporter *e = arg;
	int h = (int)(e - ex);

	while (!e->stop) {
		char req[2048], body[8192];
		int c = accept(e->fd, NULL, NULL), n = 0, i;

		if (c < 0)
			continue;
		(void)!read(c, req, sizeof(req));
		pthread_mutex_lock(&lock);
		n += snprintf(body + n, sizeof(body) - n,
			      "tdbpf_build_info{model=\"software\",level=\"0\"} 1\n%s",
			      flows[h]);
		for (i = 0; i < nr_rates[h]; i++)
			n += snprintf(body + n, sizeof(body) - n, "%s %.9f\n",
				      rates[h][i].series,
				      base[h][i] + rates[h][i].per_s *
							   (mono_s() - t_switch));
		pthread_mutex_unlock(&lock);
		dprintf(c, "HTTP/1.0 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: %d\r\n\r\n%s",
			n, body);
		close(c);
	}
	return NULL;
}

static void start_exporter(struct exporter *e)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	e->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(e->fd >= 0);
	assert_int_equal(bind(e->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(e->fd, 16), 0);
	assert_int_equal(getsockname(e->fd, (struct sockaddr *)&a, &len), 0);
	e->port = ntohs(a.sin_port);
	e->stop = 0;
	assert_int_equal(pthread_create(&e->th, NULL, serve, e), 0);
}

static void stop_exporter(struct exporter *e)
{
	e->stop = 1;
	shutdown(e->fd, SHUT_RDWR);
	close(e->fd);
	pthread_join(e->th, NULL);
}

static char dir[256], url[64];
static pid_t prom = -1;

static int graph(const char *range, const char *match, struct run_result *r)
{
	char *argv[] = { (char *)tdbpf_bin(), "graph", "-j", "--prometheus",
			 url, "--range", (char *)range,
			 match ? "--match" : NULL, (char *)match, NULL };

	return run_capture(argv, NULL, (uid_t)-1, (gid_t)-1, 60, r);
}

/*
 * The verdict over @range must become @name for @reason: asked once a
 * second for up to 20 s, as Prometheus needs a few scrapes of a new
 * target (more on a loaded machine), and a window that straddles a
 * scenario's switch is rightly mixed until it has moved past it.
 */
static void expect(const char *range, const char *name, const char *reason)
{
	char n[256] = "", r[256] = "", err[512] = "";
	struct run_result res;
	int i;

	for (i = 0; i < 20; i++) {
		if (graph(range, NULL, &res) == 0 &&
		    verdict_of(res.out, n, r, sizeof(n))) {
			if (!strcmp(n, name) &&
			    !strncmp(r, reason, strlen(reason))) {
				free(res.out);
				free(res.err);
				return;
			}
		}
		snprintf(err, sizeof(err), "%s", res.err);
		free(res.out);
		free(res.err);
		sleep(1);
	}
	fail_msg("want %s (%s...), got %s (%s); stderr: %s", name, reason, n,
		 r, err);
}

static void test_graph_from_prometheus(void **state)
{
	const char *hosts[3];
	struct run_result r;
	int ports[3], pport, i;

	(void)state;
	if (system("command -v prometheus >/dev/null 2>&1"))
		fail_msg("prometheus not found; run make deps (Debian package prometheus)");
	snprintf(dir, sizeof(dir), "%s", tmp_path("fleet-prom"));
	assert_int_equal(mkdir(dir, 0700), 0);
	set_rates(busy_a, 3, busy_b, 5, busy_c, 3);
	for (i = 0; i < 3; i++)
		start_exporter(&ex[i]);
	for (i = 0; i < 3; i++) {
		ports[i] = ex[i].port;
		hosts[i] = ex[i].host;
	}
	prom = start_prometheus(dir, ports, hosts, 3, &pport);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", pport);
	/* a 4 s window of the first scenario, once scraped */
	expect("4s", "hB/relay/relay-rx", "runs");

	/* the bottleneck moves host: sink sleeps, relay and gen wait on it */
	set_rates(sleep_a, 3, sleep_b, 5, sleep_c, 4);
	expect("4s", "hC/sink/sink", "waits on timers");

	/* hC's exporter gone: once its samples leave the window, relay's
	 * waits lead to the address no host has */
	stop_exporter(&ex[2]);
	expect("4s", "unresolved 10.9.0.3:7002", "unresolved endpoint");

	/* a Prometheus without tdbpf series (for this selector): one line */
	assert_int_equal(graph("4s", "job=\"none\"", &r), 2);
	assert_non_null(strstr(r.err, "has no tdbpf series"));
	assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err));
	free(r.out);
	free(r.err);

	kill(prom, SIGTERM);
	waitpid(prom, NULL, 0);
	prom = -1;
	/* an unreachable URL: one line */
	assert_int_equal(graph("4s", NULL, &r), 2);
	assert_non_null(strstr(r.err, "cannot reach Prometheus at"));
	assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err));
	free(r.out);
	free(r.err);
	stop_exporter(&ex[0]);
	stop_exporter(&ex[1]);
}

/* ---- an answer without end: a bounded read ------------------------- */

static volatile int huge_stop;

/* Answers every request with the start of a result vector, 150 MB long. */
static void *huge_main(void *arg)
{
	static const char head[] =
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		"Connection: close\r\n\r\n"
		"{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[";
	static char chunk[65536];
	int lfd = *(int *)arg, c;
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	size_t sent, i;
	char req[4096];

	for (i = 0; i + 30 < sizeof(chunk); i += 30)
		memcpy(chunk + i, "{\"metric\":{},\"value\":[1,\"1\"]},", 30);
	while (!huge_stop) {
		if (poll(&p, 1, 100) != 1 || (c = accept(lfd, NULL, NULL)) < 0)
			continue;
		if (recv(c, req, sizeof(req), 0) > 0 &&
		    send(c, head, sizeof(head) - 1, MSG_NOSIGNAL) > 0)
			for (sent = 0; sent < (150u << 20) && !huge_stop &&
				       send(c, chunk, i, MSG_NOSIGNAL) > 0;
			     sent += i)
				;
		close(c);
	}
	return NULL;
}

/*
 * 150 MB of answer, under a 1 GiB address-space limit: the graph stops
 * reading at its cap and says so, naming the size and what to narrow.
 * Unbounded, the answer took 3.5 GB to parse, and under the limit the
 * failed allocation was reported as "not Prometheus' query API".
 */
static void test_graph_huge_answer(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct run_result r;
	pthread_t th;
	int lfd;
	char cmd[600];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };

	(void)state;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 8), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &alen), 0);
	huge_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, huge_main, &lfd), 0);
	snprintf(cmd, sizeof(cmd),
		 "ulimit -v 1048576; exec '%s' graph --prometheus http://127.0.0.1:%d --range 1m",
		 tdbpf_bin(), ntohs(a.sin_port));
	run_capture(argv, NULL, (uid_t)-1, (gid_t)-1, 60, &r);
	huge_stop = 1;
	pthread_join(th, NULL);
	close(lfd);
	print_message("a 150 MB answer: exit %d, %s", r.status, r.err);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "answered more than 64 MiB"));
	assert_non_null(strstr(r.err, "--range"));
	assert_int_equal(strchr(r.err, '\n') - r.err + 1, (long)strlen(r.err));
	free(r.out);
	free(r.err);
}

static int teardown(void **state)
{
	(void)state;
	if (prom > 0) {
		kill(prom, SIGTERM);
		waitpid(prom, NULL, 0);
	}
	if (dir[0])
		return remove_tree(dir) ? -1 : 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_graph_from_prometheus, teardown),
		cmocka_unit_test_teardown(test_graph_huge_answer, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
