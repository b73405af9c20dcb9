// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus' HTTP API as tdbpf graph's source (prom_query.h).
 *
 * libcurl is the client: Debian's, well kept, and it does what a fleet's
 * Prometheus may need (HTTPS, proxies from the environment, redirects),
 * which libmicrohttpd, a server, does not. json-c parses the answers.
 * It is loaded (dlopen) only here: linked, its dependencies (Kerberos,
 * LDAP, SSH, ...) would be mapped by every tdbpf run, the tracer too,
 * which then failed to start under a tight `ulimit -v`.
 *
 * Each family is read with one instant query of increase() over the
 * window (--range): that is each host's own sum over the same window,
 * taken from its own samples, so hosts' clocks never meet. A range
 * query (query_range) would add a series of such sums over time, which
 * one verdict does not need. Hosts are told apart by `host`, else
 * `instance`; every query sums by that and the series' own labels, so
 * other labels a scrape config adds (job, ...) fold away.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <curl/curl.h>
#include <json-c/json.h>
#include "sources/prom_query.h"
#include "sums/waits.h"
#include "support/array.h"
#include "support/error.h"

/* libcurl's entry points, from dlopen() */
static struct {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *c);
	char *(*easy_escape)(CURL *c, const char *s, int len);
	void (*free)(void *p);
	const char *(*easy_strerror)(CURLcode rc);
} cu;

static int load_curl(char *err, size_t len)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define SYM(f, n) { n, offsetof(__typeof__(cu), f) }
		SYM(global_init, "curl_global_init"),
		SYM(global_cleanup, "curl_global_cleanup"),
		SYM(easy_init, "curl_easy_init"),
		SYM(easy_setopt, "curl_easy_setopt"),
		SYM(easy_perform, "curl_easy_perform"),
		SYM(easy_getinfo, "curl_easy_getinfo"),
		SYM(easy_cleanup, "curl_easy_cleanup"),
		SYM(easy_escape, "curl_easy_escape"),
		SYM(free, "curl_free"),
		SYM(easy_strerror, "curl_easy_strerror"),
#undef SYM
	};
	void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!h) {
		error_set(err, len,
			 "--prometheus needs libcurl (%s); install Debian's libcurl4",
			 dlerror());
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			error_set(err, len,
				 "libcurl.so.4 lacks %s; install Debian's libcurl4",
				 syms[i].name);
			return -1;
		}
		memcpy((char *)&cu + syms[i].off, &f, sizeof(f));
	}
	return 0;
}

/*
 * An answer's bytes at most: json-c takes about 20 times an answer's size
 * to parse it (150 MB took 3.5 GB), and the series of a graph's window
 * are a few MB even for thousands of threads.
 */
#define PROM_ANSWER_MAX	(64u << 20)

struct body {
	char *p;
	size_t n, cap;
	bool big;		/* over PROM_ANSWER_MAX: stopped */
	bool nomem;		/* a growth failed: stopped */
};

static size_t on_data(char *d, size_t sz, size_t nm, void *arg)
{
	struct body *b = arg;
	size_t n = sz * nm, cap;
	char *p;

	if (n > PROM_ANSWER_MAX - b->n) {
		b->big = true;
		return 0;
	}
	if (b->n + n + 1 > b->cap) {
		/* doubling: growth by each piece copied the answer each time */
		for (cap = b->cap ? b->cap : 65536; cap < b->n + n + 1; cap *= 2)
			;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return 0;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
	b->p[b->n] = 0;
	return n;
}

/* The answer could not be read whole: why, in @err; -1. */
static int body_failed(const struct prom_query *q, const struct body *b,
		       char *err, size_t len)
{
	if (b->big)
		error_set(err, len,
			 "Prometheus at %s answered more than %u MiB; ask for less: a shorter --range or a narrower --match",
			 q->url, PROM_ANSWER_MAX >> 20);
	else
		error_set(err, len,
			 "out of memory reading Prometheus' answer (%zu MiB read); ask for less (a shorter --range or a narrower --match) or raise the memory limit (ulimit -v)",
			 b->n >> 20);
	return -1;
}

/*
 * @promql's result vector (data.result) at *@res (put *@doc after).
 * 0, or -1 with @err.
 */
static int query_one(const struct prom_query *q, const char *promql,
		     json_object **doc, json_object **res, char *err,
		     size_t len)
{
	struct body b = { 0 };
	char url[4096], curl_err[CURL_ERROR_SIZE] = "", *enc;
	json_object *st, *data, *e;
	long code = 0;
	CURLcode rc;
	CURL *c;

	*doc = NULL;
	c = cu.easy_init();
	if (!c) {
		error_set(err, len, "cannot start an HTTP client (libcurl)");
		return -1;
	}
	enc = cu.easy_escape(c, promql, 0);
	snprintf(url, sizeof(url), "%s%sapi/v1/query?query=%s", q->url,
		 q->url[strlen(q->url) - 1] == '/' ? "" : "/", enc ? enc : "");
	cu.free(enc);
	cu.easy_setopt(c, CURLOPT_URL, url);
	cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	cu.easy_setopt(c, CURLOPT_WRITEDATA, &b);
	cu.easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	cu.easy_setopt(c, CURLOPT_TIMEOUT, q->timeout_s);
	cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, q->timeout_s);
	cu.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(c, CURLOPT_USERAGENT, "tdbpf graph");
	rc = cu.easy_perform(c);
	cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	cu.easy_cleanup(c);
	if (b.big || b.nomem) {
		free(b.p);
		return body_failed(q, &b, err, len);
	}
	if (rc != CURLE_OK) {
		error_set(err, len,
			 "cannot reach Prometheus at %s: %s; check the URL (http://HOST:9090) and that Prometheus runs there",
			 q->url, curl_err[0] ? curl_err : cu.easy_strerror(rc));
		free(b.p);
		return -1;
	}
	/* json-c tells no failed allocation apart: malloc()'s errno does */
	errno = 0;
	*doc = b.p ? json_tokener_parse(b.p) : NULL;
	if (!*doc && b.p && errno == ENOMEM) {
		b.nomem = true;
		free(b.p);
		return body_failed(q, &b, err, len);
	}
	if (!*doc || !json_object_object_get_ex(*doc, "status", &st)) {
		error_set(err, len,
			 "%s answered HTTP %ld, not Prometheus' query API; give the URL of a Prometheus server (http://HOST:9090)",
			 q->url, code);
		free(b.p);
		return -1;
	}
	free(b.p);
	if (strcmp(json_object_get_string(st), "success")) {
		error_set(err, len,
			 "Prometheus at %s refused the query (%s); check --match and --range",
			 q->url,
			 json_object_object_get_ex(*doc, "error", &e) ?
				 json_object_get_string(e) :
				 "no reason given");
		return -1;
	}
	if (!json_object_object_get_ex(*doc, "data", &data) ||
	    !json_object_object_get_ex(data, "result", res) ||
	    !json_object_is_type(*res, json_type_array)) {
		error_set(err, len,
			 "Prometheus at %s gave no result vector; give the URL of a Prometheus server",
			 q->url);
		return -1;
	}
	return 0;
}

/*
 * The result vector of the PromQL @fmt makes at *@res: 0 (put *@doc
 * after), or -1 with @err and nothing to put.
 */
static int query(const struct prom_query *q, json_object **doc,
		 json_object **res, char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int query(const struct prom_query *q, json_object **doc,
		 json_object **res, char *err, size_t len, const char *fmt, ...)
{
	char promql[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(promql, sizeof(promql), fmt, ap);
	va_end(ap);
	if (query_one(q, promql, doc, res, err, len)) {
		json_object_put(*doc);
		*doc = NULL;
		return -1;
	}
	return 0;
}

static const char *label(json_object *sample, const char *key)
{
	json_object *m, *v;

	if (!json_object_object_get_ex(sample, "metric", &m) ||
	    !json_object_object_get_ex(m, key, &v))
		return "";
	return json_object_get_string(v);
}

static double value_of(json_object *sample)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(sample, "value", &v) ||
	    json_object_array_length(v) != 2)
		return 0;
	return strtod(json_object_get_string(json_object_array_get_idx(v, 1)),
		      NULL);
}

/* The host a sample belongs to: its `host` label, else `instance`. */
static const char *host_of(json_object *sample)
{
	const char *h = label(sample, "host");

	return *h ? h : label(sample, "instance");
}

struct hosts {
	struct host_report *v;
	int n;
	/* per host, per row: the series' comm and thread (lookups) */
};

static int find_host(struct hosts *hs, const char *name)
{
	int i;

	for (i = 0; i < hs->n; i++)
		if (!strcmp(hs->v[i].name, name))
			return i;
	return -1;
}

/* The host of the sample @i of @res; NULL: no build_info, not tdbpf's */
static struct host_report *sample_host(struct hosts *hs, json_object *res,
				       size_t i, json_object **sample)
{
	int k;

	*sample = json_object_array_get_idx(res, i);
	k = find_host(hs, host_of(*sample));
	return k < 0 ? NULL : &hs->v[k];
}

/* The row (tid) of series (@comm, @thread) on @h; 0 if none. */
static __u32 series_tid(const struct host_report *h, const char *comm,
			const char *thread)
{
	size_t i;

	for (i = 0; i < h->tasks.nr; i++) {
		const struct task_row *r = tasks_row(&h->tasks, i);

		if (!strcmp(r->comm, thread) && !strcmp(h->pcomm[i], comm))
			return r->tid;
	}
	return 0;
}

/* A process's stand-in pid on @h: one per comm, above any row's tid. */
static __u32 comm_pid(const struct host_report *h, const char *comm)
{
	size_t i;

	for (i = 0; i < h->tasks.nr; i++)
		if (!strcmp(h->pcomm[i], comm))
			return tasks_row(&h->tasks, i)->pid;
	return 0;
}

static int add_series(struct host_report *h, const char *comm,
		      const char *thread, struct task_row **out)
{
	__u32 tid = series_tid(h, comm, thread), pid = comm_pid(h, comm);
	char (*pc)[TDBPF_COMM_LEN + 2];
	struct task_row *r;

	if (tid) {
		*out = tasks_find(&h->tasks, tid);
		return 0;
	}
	tid = (__u32)h->tasks.nr + 1;
	r = tasks_get(&h->tasks, tid);
	pc = realloc(h->pcomm, h->tasks.nr * sizeof(*pc));
	if (!r || !pc)
		return -ENOMEM;
	h->pcomm = pc;
	r->pid = pid ? pid : tid;
	r->nr_tasks = 1;
	snprintf(r->comm, sizeof(r->comm), "%s", thread);
	snprintf(pc[h->tasks.nr - 1], sizeof(pc[0]), "%s", comm);
	*out = r;
	return 0;
}

/* The hosts, from tdbpf_build_info; the same model on each. */
static int read_hosts(const struct prom_query *q, const char *sel,
		      struct hosts *hs, char *err, size_t len)
{
	json_object *doc, *res;
	size_t i, n;
	int rc = 0;

	if (query(q, &doc, &res, err, len,
		  "max by (host, instance, model, level) (last_over_time(tdbpf_build_info%s[%s]))",
		  sel, q->range))
		return -1;
	n = json_object_array_length(res);
	if (!n) {
		error_set(err, len,
			 "Prometheus at %s has no tdbpf series (tdbpf_build_info%s in the last %s); scrape the hosts' tdbpf --listen (docs/examples/prometheus-tdbpf.yml) or fix --match",
			 q->url, sel, q->range);
		json_object_put(doc);
		return -1;
	}
	hs->v = calloc(n, sizeof(*hs->v));
	if (!hs->v) {
		json_object_put(doc);
		return -ENOMEM;
	}
	for (i = 0; i < n && !rc; i++) {
		json_object *s = json_object_array_get_idx(res, i);
		const char *name = host_of(s);
		struct host_report *h;

		if (find_host(hs, name) >= 0) {
			error_set(err, len,
				 "host '%s' runs tdbpf with two models (%s and another) in the last %s; restart its tdbpf with one, or give a --range after the change",
				 name, label(s, "model"), q->range);
			rc = -1;
			break;
		}
		if (hs->n && strcmp(label(s, "model"),
				    label(json_object_array_get_idx(res, 0),
					  "model"))) {
			error_set(err, len,
				 "hosts '%s' (model %s) and '%s' (model %s) count different events; run every host's tdbpf with the same --model",
				 hs->v[0].name,
				 label(json_object_array_get_idx(res, 0), "model"),
				 name, label(s, "model"));
			rc = -1;
			break;
		}
		h = &hs->v[hs->n++];
		host_report_init(h);
		tasks_set_layout(&h->tasks, 0, false);
		snprintf(h->name, sizeof(h->name), "%s", name);
		snprintf(h->source, sizeof(h->source), "%s", name);
	}
	json_object_put(doc);
	return rc;
}

/* on-CPU, run-queue and off-CPU increases over the window, per series */
static int read_sched(const struct prom_query *q, const char *sel,
		      struct hosts *hs, char *err, size_t len)
{
	static const char *const fam[] = {
		"tdbpf_task_on_cpu_seconds_total",
		"tdbpf_task_runqueue_wait_seconds_total",
		"tdbpf_task_off_cpu_seconds_total",
	};
	json_object *doc, *res;
	size_t i, f;

	for (f = 0; f < 3; f++) {
		if (query(q, &doc, &res, err, len,
			  "sum by (host, instance, comm, thread) (increase(%s%s[%s]))",
			  fam[f], sel, q->range))
			return -1;
		for (i = 0; i < json_object_array_length(res); i++) {
			json_object *s;
			struct host_report *h = sample_host(hs, res, i, &s);
			struct task_row *r;
			__u64 ns;

			if (!h)
				continue;
			ns = (__u64)(value_of(s) * 1e9 + 0.5);
			if (add_series(h, label(s, "comm"),
				       label(s, "thread"), &r)) {
				json_object_put(doc);
				return -ENOMEM;
			}
			if (f == 0)
				r->sched.on_cpu_ns = ns;
			else if (f == 1)
				r->sched.runq_wait_ns = ns;
			else
				r->sched.off_cpu_ns = ns;
		}
		json_object_put(doc);
	}
	return 0;
}

/*
 * Wait edges (@holds false): a task series, a kind, or the far end of a
 * flow; or hold edges (true): run-queue time charged to a task series
 * holding the CPU, or to a holder kind (cpu-other, cpu-limit, ...).
 */
static int read_edges(const struct prom_query *q, const char *sel,
		      struct hosts *hs, bool holds, char *err, size_t len)
{
	const char *who = holds ? "holder" : "waker";
	char cl[16], tl[16];
	json_object *doc, *res;
	size_t i;
	int rc = 0;

	snprintf(cl, sizeof(cl), "%s_comm", who);
	snprintf(tl, sizeof(tl), "%s_thread", who);
	if (query(q, &doc, &res, err, len,
		  "sum by (host, instance, comm, thread, %s, %s, remote) (increase(%s%s[%s]))",
		  cl, tl,
		  holds ? "tdbpf_task_cpu_held_seconds_total" :
			  "tdbpf_task_wait_seconds_total",
		  sel, q->range))
		return -1;
	for (i = 0; i < json_object_array_length(res) && !rc; i++) {
		json_object *s;
		struct host_report *h = sample_host(hs, res, i, &s);
		const char *wc, *wt, *remote;
		struct host_edge e;

		if (!h)
			continue;
		wc = label(s, cl);
		wt = label(s, tl);
		remote = label(s, "remote");
		memset(&e, 0, sizeof(e));
		e.wakee_tid = series_tid(h, label(s, "comm"),
					 label(s, "thread"));
		e.wait_ns = (__u64)(value_of(s) * 1e9 + 0.5);
		if (!e.wakee_tid || !e.wait_ns)
			continue;
		if (!holds && *remote && flow_end_parse(remote, &e.endpoint)) {
			e.remote = true;
		} else if (*wc) {
			e.waker_tid = series_tid(h, wc, wt);
			if (holds)
				e.kind = e.waker_tid ? TDBPF_HOLDER_TASK :
						       TDBPF_HOLDER_OTHER;
			else
				e.kind = e.waker_tid ? TDBPF_WAKER_TASK :
						       TDBPF_WAKER_PROCESS;
		} else {
			e.kind = waker_kind_by_name(wt);
			if (holds && !TDBPF_KIND_HOLDS(e.kind))
				e.kind = TDBPF_HOLDER_OTHER;
		}
		rc = host_add_edge(h, &e);
	}
	json_object_put(doc);
	return rc;
}

/* Socket halves seen at any time in the window. */
static int read_flows(const struct prom_query *q, const char *sel,
		      struct hosts *hs, char *err, size_t len)
{
	json_object *doc, *res;
	size_t i;
	int rc = 0;

	if (query(q, &doc, &res, err, len,
		  "max by (host, instance, comm, proto, state, local, remote) (max_over_time(tdbpf_socket_flows%s[%s]))",
		  sel, q->range))
		return -1;
	for (i = 0; i < json_object_array_length(res) && !rc; i++) {
		json_object *s;
		struct host_report *h = sample_host(hs, res, i, &s);
		struct sock_flow f;

		memset(&f, 0, sizeof(f));
		if (!h || !flow_end_parse(label(s, "local"), &f.local) ||
		    !flow_end_parse(label(s, "remote"), &f.remote))
			continue;
		f.pid = comm_pid(h, label(s, "comm"));
		if (!f.pid)
			continue;	/* a process that did nothing */
		snprintf(f.comm, sizeof(f.comm), "%s", label(s, "comm"));
		snprintf(f.proto, sizeof(f.proto), "%s", label(s, "proto"));
		f.state = flow_state_parse(label(s, "state"));
		rc = flows_add(&h->flows, &f);
	}
	json_object_put(doc);
	return rc;
}

/* "5m" -> ns; 0 for what PromQL would not take here */
static __u64 range_ns(const char *r)
{
	static const struct { char unit; __u64 ns; } units[] = {
		{ 's', 1000000000ULL }, { 'm', 60000000000ULL },
		{ 'h', 3600000000000ULL }, { 'd', 86400000000000ULL },
	};
	char *end;
	unsigned long v;
	size_t i;

	/* strtoul() takes a sign (and negates "-5"), spaces, and wraps */
	if (*r < '0' || *r > '9')
		return 0;
	errno = 0;
	v = strtoul(r, &end, 10);
	if (errno || !v || end[1])
		return 0;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (*end == units[i].unit && v <= UINT64_MAX / units[i].ns)
			return v * units[i].ns;
	return 0;
}

int prom_query_hosts(const struct prom_query *q, struct host_report **hosts,
		     int *n, char *err, size_t len)
{
	struct hosts hs = { 0 };
	char sel[600] = "";
	__u64 dur = range_ns(q->range);
	int rc, i;

	*hosts = NULL;
	*n = 0;
	if (!dur) {
		error_set(err, len,
			 "--range '%s' is not a duration; give one as PromQL writes it, e.g. 30s, 5m, 1h",
			 q->range);
		return -1;
	}
	if (q->match && *q->match)
		snprintf(sel, sizeof(sel), "{%s}", q->match);
	if (load_curl(err, len))
		return -1;
	cu.global_init(CURL_GLOBAL_DEFAULT);
	rc = read_hosts(q, sel, &hs, err, len);
	if (!rc)
		rc = read_sched(q, sel, &hs, err, len);
	if (!rc)
		rc = read_edges(q, sel, &hs, false, err, len);
	if (!rc)
		rc = read_edges(q, sel, &hs, true, err, len);
	if (!rc)
		rc = read_flows(q, sel, &hs, err, len);
	cu.global_cleanup();
	if (rc == -ENOMEM)
		error_set(err, len, "out of memory");
	for (i = 0; i < hs.n; i++)
		hs.v[i].duration_ns = dur;
	if (rc) {
		for (i = 0; i < hs.n; i++)
			host_report_free(&hs.v[i]);
		free(hs.v);
		return -1;
	}
	*hosts = hs.v;
	*n = hs.n;
	return 0;
}
