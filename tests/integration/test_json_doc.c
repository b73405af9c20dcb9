// SPDX-License-Identifier: GPL-2.0
/*
 * Every key tdbpf's JSON holds is documented in docs/output.md, and
 * every key it documents is one tdbpf writes. Its tables (in "JSON and
 * CSV") name keys as paths: "lost.map_full", "tasks[].tid";
 * an upper-case last part ("counters.EVENT") marks a map whose keys are
 * data. The JSON comes from the program: ./tdbpf list -j and decode -j
 * for every model, a traced run of a workload (root), and, for the
 * hardware models this machine cannot trace, the report writer itself
 * (sink_emit(), what a traced run calls) on tasks made up here.
 *
 * A feature that adds a key fails here until docs/output.md says what
 * it means; a key documented but no longer written fails too.
 */
#include <arpa/inet.h>
#include "helpers.h"
#include <ctype.h>
#include "model/model.h"
#include "outputs/sink.h"

#define MAX_KEYS	256

struct keyset {
	char *key[MAX_KEYS];
	int nr;
};

static bool has(const struct keyset *s, const char *k)
{
	return str_in(s->key, s->nr, k);
}

static void add(struct keyset *s, const char *k)
{
	if (has(s, k))
		return;
	assert_true(s->nr < MAX_KEYS);
	s->key[s->nr++] = strdup(k);
}

static void keyset_free(struct keyset *s)
{
	while (s->nr)
		free(s->key[--s->nr]);
}

/* ---- the tables of docs/output.md ---------------------------------------- */

#define JSON_DOC "docs/output.md"

static char *json_doc(void)
{
	if (access(JSON_DOC, R_OK))
		fail_msg("cannot read " JSON_DOC ": run from the repository root");
	return file_text(JSON_DOC);
}

/*
 * The keys of the table that follows the line @intro: every `key` in
 * each row's first cell ("| `a`, `b` | meaning |").
 */
static void documented(const char *text, const char *intro,
		       struct keyset *out)
{
	const char *p = strstr(text, intro), *line, *end, *cell, *q;
	char key[128];

	if (!p)
		fail_msg(JSON_DOC ": no line '%s' before a table of JSON keys",
			 intro);
	p = strchr(p, '\n');
	while (p && *++p == '\n')
		;
	for (line = p; line && *line == '|'; line = end ? end + 1 : NULL) {
		end = strchr(line, '\n');
		cell = strchr(line + 1, '|');	/* end of the first cell */
		for (q = line + 1; cell && q < cell; q++) {
			const char *close;

			if (*q != '`')
				continue;
			close = memchr(q + 1, '`', (size_t)(cell - q - 1));
			if (!close)
				break;
			snprintf(key, sizeof(key), "%.*s", (int)(close - q - 1),
				 q + 1);
			add(out, key);
			q = close;
		}
	}
	if (!out->nr)
		fail_msg(JSON_DOC ": the table after '%s' names no keys", intro);
}

/* "counters" when @doc has "...counters.EVENT": a map of data keys */
static const char *placeholder(const struct keyset *doc, const char *path)
{
	static char ph[64];
	size_t n = strlen(path);
	int i;

	for (i = 0; i < doc->nr; i++) {
		const char *k = doc->key[i], *last;

		if (strncmp(k, path, n) || k[n] != '.')
			continue;
		last = k + n + 1;
		if (strchr(last, '.') || strchr(last, '['))
			continue;
		for (; *last && (isupper((unsigned char)*last) || *last == '_');
		     last++)
			;
		if (!*last) {
			snprintf(ph, sizeof(ph), "%s", k + n + 1);
			return ph;
		}
	}
	return NULL;
}

/* ---- what the program writes -------------------------------------------- */

/* The leaf paths of @o: "a.b", "a[].c"; keys of a map as its placeholder. */
static void emitted(json_object *o, const char *path, const struct keyset *doc,
		    struct keyset *out)
{
	char sub[256];
	size_t i;

	if (json_object_is_type(o, json_type_array)) {
		snprintf(sub, sizeof(sub), "%s[]", path);
		for (i = 0; i < json_object_array_length(o); i++)
			emitted(json_object_array_get_idx(o, i), sub, doc, out);
		return;
	}
	if (json_object_is_type(o, json_type_object)) {
		const char *ph = *path ? placeholder(doc, path) : NULL;

		json_object_object_foreach(o, key, val) {
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", ph ? ph : key);
			emitted(val, sub, doc, out);
		}
		return;
	}
	add(out, path);
}

/* Each document of @text (one, or JSON lines) into @out. */
static void parse_docs(const char *text, const char *what,
		       const struct keyset *doc, struct keyset *out)
{
	struct json_tokener *tok = json_tokener_new();
	const char *p = text;
	int n = 0;

	while (*p) {
		json_object *o;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		o = json_tokener_parse_ex(tok, p, (int)strlen(p));
		if (!o)
			fail_msg("%s: not JSON at '%.40s'", what, p);
		p += json_tokener_get_parse_end(tok);
		json_tokener_reset(tok);
		emitted(o, "", doc, out);
		json_object_put(o);
		n++;
	}
	json_tokener_free(tok);
	if (!n)
		fail_msg("%s wrote no JSON", what);
}

static void run_tdbpf(char *const argv[], const char *what,
		      const struct keyset *doc, struct keyset *out)
{
	char *text = NULL;
	int rc = run(argv, &text, 60);

	if (rc)
		fail_msg("%s: exit %d", what, rc);
	parse_docs(text, what, doc, out);
	free(text);
}

#define MANPAGE "docs/tdbpf.8.scd"

static bool is_word(int c)
{
	return isalnum(c) || c == '_';
}

/* @word in @text as grep -w finds it */
static bool has_word(const char *text, const char *word, size_t n)
{
	const char *p;

	for (p = text; (p = strstr(p, word)); p++) {
		char tail = p[n];

		if ((p == text || !is_word((unsigned char)p[-1])) &&
		    !is_word((unsigned char)tail))
			return true;
	}
	return false;
}

/*
 * Each part of each written path ("graph", "edges", "longest_wait_ns")
 * is a word of the manual page too: the installed package checks the
 * same of its page, and should never be the first to find a gap.
 */
static int not_in_manpage(const struct keyset *got, const char *what)
{
	char *man = file_text(MANPAGE), part[128];
	int i, bad = 0;

	for (i = 0; i < got->nr; i++) {
		const char *p = got->key[i];

		while (*p) {
			size_t n = strcspn(p, ".[");
			bool upper = true;
			size_t j;

			snprintf(part, sizeof(part), "%.*s", (int)n, p);
			for (j = 0; j < n; j++)
				upper &= !islower((unsigned char)part[j]);
			if (n && !upper && !has_word(man, part, n)) {
				print_error("%s writes '%s', which " MANPAGE
					    " does not name\n", what, part);
				bad++;
			}
			p += n;
			p += strspn(p, ".[]");
		}
	}
	free(man);
	return bad;
}

/*
 * Both ways: each written key documented, each documented key written;
 * and each written one named in the manual page.
 */
static void same_keys(const struct keyset *doc, const struct keyset *got,
		      const char *what)
{
	int i, bad = not_in_manpage(got, what);

	for (i = 0; i < got->nr; i++)
		if (!has(doc, got->key[i])) {
			print_error("%s writes '%s', which " JSON_DOC "'s table does not document\n",
				    what, got->key[i]);
			bad++;
		}
	for (i = 0; i < doc->nr; i++)
		if (!has(got, doc->key[i])) {
			print_error(JSON_DOC " documents '%s' for %s, which it never writes\n",
				    doc->key[i], what);
			bad++;
		}
	if (bad)
		fail_msg("%s: %d keys differ between " JSON_DOC
			 " or " MANPAGE " and the program", what, bad);
}

/* ---- list and decode ----------------------------------------------------- */

static void test_list_keys(void **state)
{
	struct keyset doc = { 0 }, got = { 0 };
	char *text = json_doc();
	int m, smt;

	(void)state;
	documented(text, "`tdbpf list -j`:", &doc);
	for (m = 0; models[m]; m++)
		for (smt = 0; smt < 2; smt++) {
			char *argv[] = { (char *)tdbpf_bin(), "list", "-j",
					 "--model", (char *)models[m]->name,
					 "--smt", smt ? "on" : "off", NULL };

			run_tdbpf(argv, "tdbpf list -j", &doc, &got);
		}
	same_keys(&doc, &got, "tdbpf list -j");
	keyset_free(&doc);
	keyset_free(&got);
	free(text);
}

static void test_decode_keys(void **state)
{
	struct keyset doc = { 0 }, got = { 0 };
	char *text = json_doc(), path[] = "/tmp/tdbpf-json-doc-XXXXXX";
	int m, e, fd;

	(void)state;
	documented(text, "`tdbpf decode -j`:", &doc);
	for (m = 0; models[m]; m++) {
		const struct model *mo = models[m];
		char *argv[] = { (char *)tdbpf_bin(), "decode", "-j", "--model",
				 (char *)mo->name, path, NULL };
		FILE *f;

		if (!mo->max_level)
			continue;
		fd = mkstemp(path);
		assert_true(fd >= 0);
		f = fdopen(fd, "w");
		/* every event, so every node is computable */
		for (e = 0; e < mo->nr_events; e++)
			fprintf(f, "%s %d\n", mo->events[e].name,
				1000000 + 7919 * e);
		fclose(f);
		run_tdbpf(argv, "tdbpf decode -j", &doc, &got);
		unlink(path);
		strcpy(path, "/tmp/tdbpf-json-doc-XXXXXX");
	}
	same_keys(&doc, &got, "tdbpf decode -j");
	keyset_free(&doc);
	keyset_free(&got);
	free(text);
}

/* ---- reports ------------------------------------------------------------ */

/*
 * Reports of @m's events from the writer, to a temporary file: two
 * tasks of one name (a folded row with --per-name), an interval report
 * and a whole-run one, counters multiplexed so that coverage is low;
 * each without the graph, with the default's (sampled) and with every
 * wakeup's (--wakeups: the graph, waits_on, the waker span's share), a
 * blocked task waiting on a worker and on a timer.
 */

/* What a live run's lookups answer (targets.c, cgroup_cpu.c) */
static const char *stub_tid_name(const void *ctx, __u32 tid, char *buf,
				 size_t len)
{
	(void)ctx;
	snprintf(buf, len, "holder-%u", tid);
	return buf;
}

static const char *stub_cpu_limit(const void *ctx, __u32 tid, char *buf,
				  size_t len)
{
	(void)ctx;
	(void)tid;
	snprintf(buf, len, "/sg, 20%% of a CPU");
	return buf;
}

/*
 * --span and no task waiting on another: the verdict is the busiest
 * task with spans, "alone" (one thread runs a whole GStreamer pipeline)
 */
static void lone_report(struct sink *sink, struct report_conf *rc,
			int nr_slots)
{
	struct snapshot snap;
	struct task_row *r;
	struct span_row *sp;

	snapshot_init(&snap, nr_slots);
	tasks_set_layout(&snap.tasks, nr_slots, true);
	r = tasks_get(&snap.tasks, 200);
	r->pid = 200;
	snprintf(r->comm, sizeof(r->comm), "videotestsrc0:s");
	r->sched.on_cpu_ns = 1900000;
	r->sched.runq_wait_ns = 100000;
	sp = spans_get(&snap.spans, 200, 200, 1);
	assert_non_null(sp);
	snprintf(sp->name, sizeof(sp->name), "jpegenc0");
	sp->s.entries = 20;
	sp->s.on_cpu_ns = 1200000;
	rc->per_name = false;
	rc->wakeups = true;
	assert_int_equal(sink_emit(sink, rc, &snap, 2000000, -1), 0);
	snapshot_free(&snap);
}

static void writer_reports(const struct model *m, const struct keyset *doc,
			   struct keyset *got)
{
	struct event_plan plan;
	struct snapshot snap;
	char err[256], *out;
	struct sink sink = { .ops = &sink_json, .intervals = true };
	struct report_conf rc = { .plan = &plan, .per_name = false };
	struct task_row *w;
	int i, s, fold, wake;
	long n;

	assert_int_equal(plan_events(m, m->max_level, true, m->gp_smt_on,
				     &plan, err, sizeof(err)),
			 0);
	snapshot_init(&snap, plan.nr);
	/* waker slots, so that the graph's keys are written too */
	tasks_set_layout(&snap.tasks, plan.nr, true);
	for (i = 0; i < 3; i++) {
		struct task_row *r = tasks_get(&snap.tasks, 100 + i);

		r->pid = 100;
		snprintf(r->comm, sizeof(r->comm), "worker-%d", i);
		r->exited = i == 2;
		r->sched.on_cpu_ns = 1000000 * (i + 1);
		r->sched.off_cpu_ns = 500000;
		for (s = 0; s < plan.nr; s++) {
			r->ctr[s].value = 1000 * (s + 1);
			r->ctr[s].enabled = 1000000;
			r->ctr[s].running = 10000;
		}
	}
	/* a JVM thread, its whole name beside its comm: "name" written */
	tasks_get(&snap.tasks, 101)->name = names_intern("worker-1 (2/3)#0");
	w = tasks_get(&snap.tasks, 110);
	w->pid = 100;
	snprintf(w->comm, sizeof(w->comm), "sink");
	w->sched.on_cpu_ns = 100000;
	w->sched.off_cpu_ns = 10000000;
	{
		const struct tdbpf_wait ws[] = {
			{ .kind = TDBPF_WAKER_TASK, .tid = 100, .wakeups = 40,
			  .wait_ns = 6000000 },
			{ .kind = TDBPF_WAKER_TIMER, .wakeups = 9,
			  .wait_ns = 3000000 },
			/* socket peers: another process's task, a remote one */
			{ .kind = TDBPF_WAKER_PROCESS, .tid = 4243,
			  .tgid = 4242, .wakeups = 3, .wait_ns = 500000 },
			{ .kind = TDBPF_WAKER_ENDPOINT, .tid = 9092,
			  .tgid = htonl(0x0a010203), .wakeups = 2,
			  .wait_ns = 400000 },
		};

		assert_int_equal(tasks_add_waits(&snap.tasks, w, ws, 4), 0);
	}
	/*
	 * the first candidate's CPU held by a task outside the targets and
	 * throttled by its cgroup: the names its reasons looked up
	 */
	{
		const struct tdbpf_wait hs[] = {
			{ .kind = TDBPF_HOLDER_OTHER, .tid = 555, .wakeups = 3,
			  .wait_ns = 300000 },
			{ .kind = TDBPF_HOLDER_LIMIT, .wakeups = 2,
			  .wait_ns = 200000 },
		};
		struct task_row *r = tasks_get(&snap.tasks, 100);

		r->sched.runq_wait_ns = 500000;
		assert_int_equal(tasks_add_waits(&snap.tasks, r, hs, 2), 0);
	}
	/* --span: an operator of the first candidate, spans[] and its span */
	{
		struct span_row *sp = spans_get(&snap.spans, 100, 100, 1);

		assert_non_null(sp);
		snprintf(sp->name, sizeof(sp->name), "enrich");
		sp->s.entries = 20;
		sp->s.on_cpu_ns = 60000;
		sp->s.runq_ns = 300000;
		sp->s.off_ns = 400000;
		sp->s.ctr[0] = 1000;
		/* of sink's waits on the candidate, ended in enrich */
		sp->s.woke = 30;
		sp->s.woke_ns = 4500000;
	}
	rc.look.tid_name = stub_tid_name;
	rc.look.cpu_limit = stub_cpu_limit;
	/* a socket of the process: the sockets[] keys, with wakeups */
	{
		struct sock_flow f = { .pid = 100, .comm = "worker",
				       .proto = "tcp" };

		assert_true(flow_end_parse("10.0.0.1:5000", &f.local));
		assert_true(flow_end_parse("10.0.0.2:40000", &f.remote));
		assert_int_equal(flows_add(&snap.flows, &f), 0);
	}
	/* the process's cgroup, a pod's container: the cgroup keys */
	{
		struct task_cgroup c = { .pid = 100, .runtime = "containerd",
			.path = "/kubepods/burstable/pod8d7f1e2a-3b4c-4d5e-9f60-718293a4b5c6/3f1b",
			.pod = "8d7f1e2a-3b4c-4d5e-9f60-718293a4b5c6",
			.id = "3f1b9c2ad4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d" };

		assert_int_equal(cgroups_add(&snap.cgroups, &c), 0);
		cgroups_sort(&snap.cgroups);
	}
	/* the default graph's: waits seen in windows, scaled */
	snap.lost.wake_scale = 10;
	snap.lost.sampled_ns = 400000;
	sink.f = tmpfile();
	assert_non_null(sink.f);
	/* no graph; the default graph's (sampled); every wakeup's */
	for (wake = 0; wake < 3; wake++)
		for (fold = 0; fold < 2; fold++) {
			rc.per_name = fold;
			rc.wakeups = wake > 0;
			snap.lost.wake_scale = wake < 2 ? 10 : 0;
			assert_int_equal(sink_emit(&sink, &rc, &snap, 2000000, 0),
					 0);
			assert_int_equal(sink_emit(&sink, &rc, &snap, 4000000, -1),
					 0);
		}
	lone_report(&sink, &rc, plan.nr);
	n = ftell(sink.f);
	out = calloc(1, (size_t)n + 1);
	rewind(sink.f);
	assert_int_equal(fread(out, 1, (size_t)n, sink.f), (size_t)n);
	fclose(sink.f);
	parse_docs(out, "the JSON report writer", doc, got);
	free(out);
	snapshot_free(&snap);
}

/*
 * The program itself, on a process with two threads of one name: -I
 * reports and the whole run's, the threads folded (--per-name), wakeups
 * traced. What it writes must be documented; it adds to @got what the
 * writer wrote.
 */
static void traced_reports(const struct keyset *doc, struct keyset *got)
{
	char opath[] = "/tmp/tdbpf-json-doc-XXXXXX", *out;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-I", "200", "--per-name",
			 "--wakeups", "-o", opath, "--",
			 (char *)workload("spinners"), "-n", "2", "-d", "0.7",
			 NULL };
	struct keyset traced = { 0 };
	int fd = mkstemp(opath), i;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run(argv, NULL, 60), 0);
	out = file_text(opath);
	unlink(opath);
	parse_docs(out, "tdbpf -j", doc, &traced);
	free(out);
	for (i = 0; i < traced.nr; i++) {
		if (!has(doc, traced.key[i]))
			fail_msg("tdbpf -j writes '%s', which " JSON_DOC "'s table does not document",
				 traced.key[i]);
		add(got, traced.key[i]);
	}
	/* the run did what it was asked: intervals, folded rows */
	assert_true(has(&traced, "interval"));
	assert_true(has(&traced, "tasks[].nr_tasks"));
	keyset_free(&traced);
}

static void test_report_keys(void **state)
{
	struct keyset doc = { 0 }, got = { 0 };
	char *text = json_doc();
	int m;

	(void)state;
	documented(text, "A report (tracing with `-j`):", &doc);
	/* every model, including those this machine cannot trace */
	for (m = 0; models[m]; m++)
		writer_reports(models[m], &doc, &got);
	if (need_bpf() == 0)
		traced_reports(&doc, &got);
	else
		print_message("reports checked from the writer only\n");
	same_keys(&doc, &got, "a JSON report");
	keyset_free(&doc);
	keyset_free(&got);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_keys),
		cmocka_unit_test(test_decode_keys),
		cmocka_unit_test(test_report_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
