// SPDX-License-Identifier: GPL-2.0
/*
 * --listen scraped by a real Prometheus server: its query API's rate()
 * of a busy thread's on-CPU seconds is held to that thread's own CPU
 * clock. Root (BPF); Prometheus from Debian's `prometheus` (make deps).
 */
#include "helpers.h"
#include "prom_helpers.h"
#include "prometheus.h"

/* ---- a real Prometheus server ----------------------------------------- */

static double real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Percent-encode @q into @out for a URL query. */
static void url_encode(char *out, size_t len, const char *q)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *q && n + 4 < len; q++) {
		unsigned char c = (unsigned char)*q;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-_.~", c)) {
			out[n++] = (char)c;
		} else {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
	}
	out[n] = 0;
}

/* GET /api/v1/query at @t: the "result" array of a successful answer */
static json_object *prom_query(int port, const char *q, double t,
			       json_object **doc)
{
	char enc[1024], path[1500];
	json_object *data, *result, *status;
	struct reply r;

	url_encode(enc, sizeof(enc), q);
	snprintf(path, sizeof(path), "/api/v1/query?query=%s&time=%.3f", enc,
		 t);
	if (http_get(port, path, NULL, &r) || r.status != 200) {
		print_message("query %s: HTTP %d\n", q, r.status);
		return NULL;
	}
	*doc = json_tokener_parse(r.body);
	reply_free(&r);
	if (!*doc || !json_object_object_get_ex(*doc, "status", &status) ||
	    strcmp(json_object_get_string(status), "success") ||
	    !json_object_object_get_ex(*doc, "data", &data) ||
	    !json_object_object_get_ex(data, "result", &result))
		return NULL;
	return result;
}

/* @member ("value", "values") of a query's one and only series */
static json_object *only_series(json_object *result, const char *member)
{
	assert_non_null(result);
	assert_int_equal(json_object_array_length(result), 1);
	return json_object_object_get(json_object_array_get_idx(result, 0),
				      member);
}

struct clock_log {
	double t[4096];		/* CLOCK_REALTIME, s */
	double cpu[4096];	/* the busy thread's CPU clock, s */
	int n;
};

/* One more entry: the time now and the busy thread's clock @cid. */
static void log_clock(struct clock_log *l, clockid_t cid)
{
	struct timespec ts;

	clock_gettime(cid, &ts);
	l->t[l->n] = real_s();
	l->cpu[l->n] = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	l->n++;
}

/* The busy thread's CPU clock at Unix time @t, interpolated. */
static double cpu_at(const struct clock_log *l, double t)
{
	int i;

	for (i = 1; i < l->n; i++)
		if (l->t[i] >= t)
			return l->cpu[i - 1] + (l->cpu[i] - l->cpu[i - 1]) *
						       (t - l->t[i - 1]) /
						       (l->t[i] - l->t[i - 1]);
	return NAN;
}

/*
 * Prometheus (Debian's, its own config and data in a scratch directory,
 * 127.0.0.1, ports the kernel picks) scrapes tdbpf every second while a
 * thread of this process spins. rate(on-CPU seconds[10s]) must match
 * that thread's own CPU clock (pthread_getcpuclockid) over the same
 * samples within 5%.
 */
static void test_prometheus_rate(void **state)
{
	const char *sel = "tdbpf_task_on_cpu_seconds_total{thread=\"busy\"}";
	char path[256], q[300];
	struct clock_log *log = calloc(1, sizeof(*log));
	json_object *doc = NULL, *res, *vals, *v;
	double t_end, t_a, t_b, c_a, c_b, want, got, first, last;
	struct server s = { 0 };
	struct reply r;
	clockid_t cid;
	pthread_t busy;
	int pport, i, n;
	pid_t prom;

	(void)state;
	NEED_BPF();
	if (!have("prometheus"))
		fail_msg("prometheus not found; run make deps (Debian package prometheus)");
	assert_non_null(log);
	snprintf(scratch_dir, sizeof(scratch_dir), "%s", tmp_path("prometheus"));
	assert_int_equal(mkdir(scratch_dir, 0700), 0);

	busy_stop = 0;
	assert_int_equal(pthread_create(&busy, NULL, busy_main, NULL), 0);
	assert_int_equal(pthread_getcpuclockid(busy, &cid), 0);
	start_tdbpf_on(&s, getpid());

	prom = start_prometheus(scratch_dir, &s.port, NULL, 1, &pport);
	snprintf(path, sizeof(path), "%s/prometheus.log", scratch_dir);
	assert_true(prom > 0);
	track(prom);

	/* ready, then scrapes while the clock log fills */
	for (i = 0; i < 300; i++) {
		if (!http_get(pport, "/-/ready", NULL, &r)) {
			n = r.status;
			reply_free(&r);
			if (n == 200)
				break;
		}
		usleep(100000);
	}
	assert_true(i < 300);
	/*
	 * Until the 10 s window holds a sample every second (a loaded machine
	 * may start or skip a scrape late): rate() then spans the window and
	 * needs no extrapolation beyond one interval at either end.
	 */
	t_end = 0;
	last = real_s() + 12;
	while (log->n < 4096 && real_s() < last + 30) {
		log_clock(log, cid);
		usleep(20000);
		if (real_s() < last || log->n % 25)
			continue;
		snprintf(q, sizeof(q), "count_over_time(%s[10s])", sel);
		res = prom_query(pport, q, log->t[log->n - 1] - 0.1, &doc);
		if (res && json_object_array_length(res) == 1) {
			v = json_object_object_get(json_object_array_get_idx(res, 0),
						   "value");
			if (atoi(json_object_get_string(json_object_array_get_idx(v, 1))) >= 10)
				t_end = log->t[log->n - 1] - 0.1;
		}
		json_object_put(doc);
		doc = NULL;
		if (t_end)
			break;
	}
	if (!t_end)
		fail_msg("Prometheus did not get 10 scrapes in a 10 s window within 40 s (see %s)",
			 path);
	/* a little more log, past the last sample */
	for (i = 0; i < 10; i++) {
		usleep(20000);
		log_clock(log, cid);
	}

	v = only_series(prom_query(pport, "up{job=\"tdbpf\"}", t_end, &doc),
			"value");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 1)),
			    "1");
	json_object_put(doc);

	/* the raw samples of the window, to know which span rate() saw */
	snprintf(q, sizeof(q), "%s[10s]", sel);
	vals = only_series(prom_query(pport, q, t_end, &doc), "values");
	n = (int)json_object_array_length(vals);
	assert_true(n >= 8);
	t_a = json_object_get_double(json_object_array_get_idx(json_object_array_get_idx(vals, 0), 0));
	first = atof(json_object_get_string(json_object_array_get_idx(json_object_array_get_idx(vals, 0), 1)));
	t_b = json_object_get_double(json_object_array_get_idx(json_object_array_get_idx(vals, n - 1), 0));
	last = atof(json_object_get_string(json_object_array_get_idx(json_object_array_get_idx(vals, n - 1), 1)));
	json_object_put(doc);

	snprintf(q, sizeof(q), "rate(%s[10s])", sel);
	v = only_series(prom_query(pport, q, t_end, &doc), "value");
	got = atof(json_object_get_string(json_object_array_get_idx(v, 1)));
	json_object_put(doc);

	c_a = cpu_at(log, t_a);
	c_b = cpu_at(log, t_b);
	want = (c_b - c_a) / (t_b - t_a);
	print_message("%d samples over %.3f s: rate() %.4f CPU-s/s, samples' slope %.4f, the thread's own clock %.4f (%+.2f%%)\n",
		      n, t_b - t_a, got, (last - first) / (t_b - t_a), want,
		      100 * (got - want) / want);
	assert_true(want > 0.05);
	if (!(fabs(got - want) <= 0.05 * want))
		fail_msg("rate() %.4f vs the thread's clock %.4f: more than 5%% apart",
			 got, want);

	busy_stop = 1;
	pthread_join(busy, NULL);
	kill(prom, SIGTERM);
	assert_true(wait_for(prom, 20) >= 0);
	assert_int_equal(stop_tdbpf(&s), 0);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_prometheus_rate, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
