// SPDX-License-Identifier: GPL-2.0
/*
 * --span gstreamer, as root on the real BPF path: real gst-launch-1.0
 * pipelines whose heaviest element is a JPEG encoder (720p frames), with
 * and without a queue, against GStreamer's own latency tracer run in the
 * same process (GST_TRACERS="latency(flags=element)").
 *
 * What the two measure alike: the tracer's element latency of jpegenc0
 * is the wall time from the upstream push into it (pad-push-pre on the
 * upstream src pad) to its own push downstream (pad-push-pre on its src
 * pad); jpegenc0's span is the wall time (on-CPU + run queue + blocked)
 * from the entry of the upstream gst_pad_push() to its return, less the
 * pushes nested in it. They differ by jpegenc's tail after its push
 * returns and by the two probes' own costs: microseconds a buffer against
 * milliseconds of encoding, held to 3%; likewise videoconvert0, which
 * converts I420 to RGB here. A queue's element latency is a
 * buffer's time in the queue across two threads, not the upstream
 * thread's time in its chain function: not compared.
 */
#include <math.h>
#include "helpers.h"

#define FRAMES		200
#define NFRAMES		"200"

/* the element latency of @elem in the tracer's log @path, summed (ns) */
static double tracer_latency(const char *path, const char *elem, int *n)
{
	char line[2048], want[64];
	unsigned long long t;
	double sum = 0;
	const char *p;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	snprintf(want, sizeof(want), "element=(string)%s,", elem);
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "element-latency,") || !strstr(line, want))
			continue;
		p = strstr(line, "time=(guint64)");
		assert_non_null(p);
		assert_int_equal(sscanf(p, "time=(guint64)%llu", &t), 1);
		sum += (double)t;
		(*n)++;
	}
	fclose(f);
	return sum;
}

/* the span @name of @doc: its wall time (ns), on-CPU time and entries */
static json_object *find_span(json_object *doc, const char *name)
{
	return jelem(doc, "spans", "span", name);
}

static double span_wall(json_object *s)
{
	return (double)(jint(s, "on_cpu_ns") + jint(s, "runq_wait_ns") +
			jint(s, "blocked_ns"));
}

/*
 * Each element of the pipeline a span under its streaming thread, one
 * entry a frame; jpegenc0 the largest, by far, and its time the
 * tracer's; with a queue, its upstream side (queue0, where the source's
 * thread blocks on a full queue) on the source's thread and the
 * downstream elements on queue0's.
 */
static json_object *run_pipeline_rec(bool queue, const char *json,
				     const char *log, const char *rec,
				     char **err)
{
	char env_file[600];
	char *env[] = { "GST_TRACERS=latency(flags=element)",
			"GST_DEBUG=GST_TRACER:7", env_file, NULL };
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", (char *)json,
			 "--wakeups", "--span", "gstreamer", "--",
			 "gst-launch-1.0", "-q", "videotestsrc",
			 "num-buffers=" NFRAMES, "!",
			 "video/x-raw,width=1280,height=720,format=I420", "!",
			 queue ? "queue" : "identity", "!", "videoconvert",
			 "!", "video/x-raw,format=RGB", "!", "jpegenc", "!",
			 "fakesink", NULL };
	char *rep[] = { (char *)tdbpf_bin(), "report", "-j", (char *)rec,
			NULL };
	struct run_result r;
	json_object *doc;
	char *out = NULL;

	/* a recording, the table on stderr: the line as printed */
	if (rec) {
		argv[1] = "--record";
		argv[2] = (char *)rec;
		argv[3] = "-q";
	}
	snprintf(env_file, sizeof(env_file), "GST_DEBUG_FILE=%s", log);
	unlink(log);
	assert_int_equal(run_capture(argv, env, (uid_t)-1, 0, 180, &r), 0);
	if (err)
		*err = strdup(r.err ? r.err : "");
	run_result_free(&r);
	if (!rec)
		return json_file(json);
	assert_int_equal(run(rep, &out, 60), 0);
	doc = json_tokener_parse(out);
	free(out);
	assert_non_null(doc);
	return doc;
}

static json_object *run_pipeline(bool queue, const char *json,
				 const char *log)
{
	json_object *doc = run_pipeline_rec(queue, json, log, NULL, NULL);

	assert_non_null(doc);
	return doc;
}

static void check_elements(json_object *doc, bool queue)
{
	const char *elems[] = { "capsfilter0", queue ? "queue0" : "identity0",
				"videoconvert0", "capsfilter1", "jpegenc0",
				"fakesink0" };
	const char *down = queue ? "queue0:src" : "videotestsrc0:s";
	json_object *s, *enc = find_span(doc, "jpegenc0");
	size_t i;

	assert_non_null(enc);
	for (i = 0; i < sizeof(elems) / sizeof(elems[0]); i++) {
		s = find_span(doc, elems[i]);
		assert_non_null(s);
		print_message("%s/%s: %lld entries, on-CPU %.1f ms, wall %.1f ms\n",
			      jstr(s, "comm"), elems[i],
			      (long long)jint(s, "entries"),
			      jint(s, "on_cpu_ns") / 1e6, span_wall(s) / 1e6);
		/* one push a frame, each element's chain once */
		assert_int_equal(jint(s, "entries"), FRAMES);
		/* upstream of the queue: the source's thread */
		assert_string_equal(jstr(s, "comm"),
				    i < 2 ? "videotestsrc0:s" : down);
		/* the encoder's work the most: 3x the conversion's here */
		if (s != enc)
			assert_true(jint(s, "on_cpu_ns") * 2 <
				    jint(enc, "on_cpu_ns"));
	}
}

/* the two heavy elements, the encoder and the I420-to-RGB conversion */
static void check_tracer(json_object *doc, const char *log)
{
	const char *heavy[] = { "jpegenc0", "videoconvert0" };
	json_object *s;
	double lat;
	size_t i;
	int n;

	for (i = 0; i < sizeof(heavy) / sizeof(heavy[0]); i++) {
		s = find_span(doc, heavy[i]);
		lat = tracer_latency(log, heavy[i], &n);
		print_message("%s: span %.1f ms, the tracer's element latency %.1f ms (%d buffers)\n",
			      heavy[i], span_wall(s) / 1e6, lat / 1e6, n);
		assert_int_equal(n, FRAMES);
		assert_close(heavy[i], span_wall(s), lat, 0.03, 0);
	}
}

/*
 * Without a queue one thread runs the whole pipeline: no task waits on
 * another, so there is no bottleneck to name, but the span rows do.
 */
static void test_no_queue(void **state)
{
	char *json = tmp_path("gst-spans.json");
	char *log = tmp_path("gst-tracer.log");
	json_object *doc;

	(void)state;
	NEED_BPF();
	doc = run_pipeline(false, json, log);
	check_elements(doc, false);
	check_tracer(doc, log);
	json_object_put(doc);
	unlink(json);
	unlink(log);
}

/* the on-CPU time of the task named @comm in @doc's tasks */
static double task_on_cpu(json_object *doc, const char *comm)
{
	json_object *t = jelem(doc, "tasks", "comm", comm);

	if (!t)
		fail_msg("no task %s", comm);
	return (double)jint(t, "on_cpu_ns");
}

/*
 * Without a queue, the bottleneck line as printed names the one
 * streaming thread and in it the encoder, with its share of the
 * thread's on-CPU time; whether the main thread's wait for the end of
 * the stream led to it or nothing did (the busiest task with spans,
 * docs/graph.md). The encoder's span is the tracer's element latency
 * (3%) and the largest by 2x, so the share is the encoder's own.
 */
static void test_no_queue_line(void **state)
{
	char *log = tmp_path("gst-tracer-l.log");
	char *rec = tmp_path("gst-spans-l.jsonl");
	char line[2048], *err = NULL;
	json_object *doc, *enc;
	double want;
	int pct;

	(void)state;
	NEED_BPF();
	doc = run_pipeline_rec(false, NULL, log, rec, &err);
	check_elements(doc, false);
	check_tracer(doc, log);
	assert_true(table_verdict(err, line, sizeof(line)));
	print_message("%s\n", line);
	assert_non_null(strstr(line, "bottleneck: videotestsrc0:s (tid "));
	pct = span_in_it(line, "its", "jpegenc0");
	enc = find_span(doc, "jpegenc0");
	want = 100.0 * (double)jint(enc, "on_cpu_ns") /
	       task_on_cpu(doc, "videotestsrc0:s");
	print_message("jpegenc0: %d%% of its thread's on-CPU time, its span %.1f%%\n",
		      pct, want);
	assert_true(fabs(pct - want) <= 1.0);
	json_object_put(doc);
	free(err);
	unlink(rec);
	unlink(log);
}

/*
 * With a queue, the source's thread waits on queue0:src (a full queue)
 * and the verdict names it, and in it the encoder.
 */
static void test_queue(void **state)
{
	char *json = tmp_path("gst-spans-q.json");
	char *log = tmp_path("gst-tracer-q.log");
	json_object *doc, *g, *b, *c;

	(void)state;
	NEED_BPF();
	doc = run_pipeline(true, json, log);
	check_elements(doc, true);
	check_tracer(doc, log);
	assert_true(json_object_object_get_ex(doc, "graph", &g));
	assert_true(json_object_object_get_ex(g, "bottleneck", &b));
	c = json_object_array_get_idx(b, 0);
	assert_non_null(c);
	print_message("bottleneck: %s, in it %s %.0f%%\n", jstr(c, "comm"),
		      jstr(c, "span"), 100 * jdouble(c, "span_share"));
	assert_string_equal(jstr(c, "comm"), "queue0:src");
	assert_string_equal(jstr(c, "span"), "jpegenc0");
	/* the most of its time: the conversion takes a third as much */
	assert_true(jdouble(c, "span_share") > 0.3);
	json_object_put(doc);
	unlink(json);
	unlink(log);
}

/* @argv started and given @settle_us to run; its pid as text in @pid[16] */
static struct child start_for(char *const argv[], useconds_t settle_us,
			      char *pid)
{
	struct child w = spawn(argv, 0);

	assert_true(w.pid > 0);
	usleep(settle_us);
	snprintf(pid, 16, "%d", (int)w.pid);
	return w;
}

/*
 * -p: libgstreamer found in the running pipeline's maps (through its
 * /proc/PID/root), attached mid-stream: the spans start balanced (each
 * return attached before its entry), and the encoder is the span
 * holding most of the streaming thread's time.
 */
static void test_pid(void **state)
{
	char *json = tmp_path("gst-spans-p.json");
	char pid[16];
	char *gst[] = { "/usr/bin/gst-launch-1.0", "-q", "videotestsrc",
			"num-buffers=100000", "!",
			"video/x-raw,width=640,height=360", "!", "jpegenc",
			"!", "fakesink", NULL };
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-d", "2",
			 "--span", "gstreamer", "-p", pid, NULL };
	json_object *doc, *enc, *sink, *task, *tasks;
	struct child w;
	size_t i;
	double thread = 0;

	(void)state;
	NEED_BPF();
	w = start_for(gst, 1000000, pid);
	assert_int_equal(run(argv, NULL, 60), 0);
	kill(w.pid, SIGTERM);
	wait_for(w.pid, 10);
	doc = json_file(json);
	assert_non_null(doc);
	enc = find_span(doc, "jpegenc0");
	sink = find_span(doc, "fakesink0");
	assert_non_null(enc);
	assert_non_null(sink);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++) {
		task = json_object_array_get_idx(tasks, i);
		if (!strcmp(jstr(task, "comm"), "videotestsrc0:s"))
			thread = (double)jint(task, "on_cpu_ns");
	}
	print_message("-p: jpegenc0 %lld entries, on-CPU %.1f ms of its thread's %.1f ms\n",
		      (long long)jint(enc, "entries"),
		      jint(enc, "on_cpu_ns") / 1e6, thread / 1e6);
	assert_true(jint(enc, "entries") > 10);
	/* a frame may be under way at either end of the window */
	assert_true(llabs(jint(enc, "entries") - jint(sink, "entries")) <= 1);
	assert_true(jint(enc, "on_cpu_ns") > 0.5 * thread);
	assert_true(jint(enc, "on_cpu_ns") <= thread);
	json_object_put(doc);
	unlink(json);
}

/* a process without GStreamer: one error line naming the fix */
static void test_not_gst(void **state)
{
	char pid[16];
	char *sl[] = { "/bin/sleep", "30", NULL };
	char *argv[] = { (char *)tdbpf_bin(), "-d", "1", "--span",
			 "gstreamer", "-p", pid, NULL };
	struct run_result r;
	struct child w;

	(void)state;
	NEED_BPF();
	w = start_for(sl, 200000, pid);
	assert_int_not_equal(run_capture(argv, NULL, (uid_t)-1, 0, 60, &r), 0);
	kill(w.pid, SIGTERM);
	wait_for(w.pid, 10);
	print_message("%s", r.err);
	assert_non_null(strstr(r.err, "--span gstreamer: "));
	assert_non_null(strstr(r.err, "maps no libgstreamer-1.0"));
	run_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_queue),
		cmocka_unit_test(test_no_queue_line),
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_not_gst),
	};

	if (access("/usr/bin/gst-launch-1.0", X_OK)) {
		print_message("no gst-launch-1.0 (Debian: gstreamer1.0-tools): skipping\n");
		return 0;
	}
	return cmocka_run_group_tests_name("gst_spans", tests, NULL, NULL);
}
