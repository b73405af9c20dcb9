// SPDX-License-Identifier: GPL-2.0
/* What the integration tests share about tdbpf itself (itest.h). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "itest.h"
#include "json_get.h"

const char *tdbpf_bin(void)
{
	const char *p = getenv("TDBPF_BIN");

	return p ? p : "./tdbpf";
}

const char *build_dir(void)
{
	const char *p = getenv("TDBPF_BUILD");

	return p ? p : "build";
}

/* Path of a workload binary in the build dir (static buffer rotation). */
const char *workload(const char *name)
{
	static struct str_ring ring;

	return ring_printf(&ring, "%s/tests/workloads/%s", build_dir(), name);
}

/* Skip unless root with BPF and BTF: say why in one line. */
int need_bpf(void)
{
	if (geteuid() != 0) {
		print_message("integration tests need root (BPF, perf events): skipping\n");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		print_message("kernel has no BTF (/sys/kernel/btf/vmlinux): skipping\n");
		return -1;
	}
	return 0;
}

int need_java(void)
{
	if (access("/usr/bin/javac", X_OK) || access("/usr/bin/java", X_OK)) {
		print_message("no javac/java (Debian: openjdk-17-jdk-headless): skipped\n");
		return -1;
	}
	return 0;
}

void javac_into(const char *dir, const char *main)
{
	char src[256];
	char *jc[] = { "/usr/bin/javac", "-d", (char *)dir, "-sourcepath",
		       "tests/workloads/jvm", src, NULL };

	snprintf(src, sizeof(src), "tests/workloads/jvm/%s", main);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(run(jc, NULL, 120), 0);
}

/*
 * Call @fn on each of @pid's /proc/PID/fdinfo files, where the kernel
 * describes each BPF link and map a process holds, until it returns
 * true; whether one did.
 */
bool fdinfo_each(pid_t pid, bool (*fn)(FILE *f, void *ctx), void *ctx)
{
	char path[320];
	struct dirent *e;
	bool done = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	d = opendir(path);
	while (d && !done && (e = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid,
			 e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		done = fn(f, ctx);
		fclose(f);
	}
	if (d)
		closedir(d);
	return done;
}

struct link_words {
	char *out;
	size_t len, n;
};

static bool add_link_words(FILE *f, void *ctx)
{
	struct link_words *w = ctx;
	char line[256], name[64];

	while (fgets(line, sizeof(line), f)) {
		const char *pre = "";

		if (sscanf(line, "target_name: %63s", name) == 1)
			pre = "iter:";
		else if (sscanf(line, "tp_name: %63s", name) != 1)
			continue;
		if (w->n + strlen(pre) + strlen(name) + 2 < w->len)
			w->n += (size_t)snprintf(w->out + w->n, w->len - w->n,
						 " %s%s", pre, name);
	}
	return false;
}

/*
 * The tracepoints @pid's BPF links are attached to, as a string of
 * " name" words (tp_name of each raw tracepoint link, and " iter:TARGET"
 * for an iterator link); "" when it has none yet.
 */
void tp_links(pid_t pid, char *out, size_t len)
{
	struct link_words w = { .out = out, .len = len };

	out[0] = 0;
	fdinfo_each(pid, add_link_words, &w);
}

/*
 * Whether tdbpf @pid has attached and started its run within
 * @timeout_ms. Attached: its task iterator's link is there; tracer.c
 * makes it after the skeleton's links, which come one at a time in
 * program order (a CI run once read sched_process_free's link with
 * sk_data_ready's, after it, not yet there). Loading and attaching
 * take 0.3 s here idle and more on a busy machine, hence a wait for the
 * link, not a time. The run starts one tick later (session.c,
 * take_base()): the 200 ms after are 50 ticks at HZ=250.
 */
bool tdbpf_attached(pid_t pid)
{
	char links[1024];

	/* the task iterator's link comes last: the run has begun */
	tp_links(pid, links, sizeof(links));
	return strstr(links, " iter:task") != NULL;
}

bool wait_attached(pid_t pid, int timeout_ms)
{
	int i;

	for (i = 0; i <= timeout_ms / 20; i++) {
		if (tdbpf_attached(pid)) {
			usleep(200000);
			return true;
		}
		usleep(20000);
	}
	return false;
}

/*
 * Start a workload that prints "pid=N" first (stdin on a pipe when
 * @with_stdin) into @w; that N. Up to 30 s: make vmtest's emulated CPUs
 * on a loaded host took more than 5 to start one.
 */
pid_t start_workload(char *const argv[], int with_stdin, struct child *w)
{
	char line[64];
	int pid = -1;

	*w = spawn(argv, with_stdin);
	assert_true(w->pid > 0);
	assert_non_null(read_line(w->out, line, sizeof(line), 30000));
	assert_int_equal(sscanf(line, "pid=%d", &pid), 1);
	return pid;
}

json_object *json_file(const char *path)
{
	return json_object_from_file(path);
}

/* The first candidate of the graph verdict; NULL if it has none. */
json_object *first_candidate(json_object *doc)
{
	json_object *g, *b;

	if (!json_object_object_get_ex(doc, "graph", &g) ||
	    !json_object_object_get_ex(g, "bottleneck", &b) ||
	    !json_object_array_length(b))
		return NULL;
	return json_object_array_get_idx(b, 0);
}

bool verdict_of(const char *out, char *name, char *reason, size_t len)
{
	json_object *doc = json_tokener_parse(out);
	json_object *c = doc ? first_candidate(doc) : NULL;

	if (c) {
		snprintf(name, len, "%s", jstr(c, "comm"));
		snprintf(reason, len, "%s", jstr(c, "reason"));
	}
	json_object_put(doc);
	return c;
}

bool table_verdict(const char *text, char *buf, size_t len)
{
	const char *p = text, *e;
	size_t n = 0;

	while (p && strncmp(p, "bottleneck: ", 12)) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p || !len)
		return false;
	buf[0] = '\0';
	for (;;) {
		e = strchrnul(p, '\n');
		if (n >= len)
			break;
		n += (size_t)snprintf(buf + n, len - n, "%s%.*s", n ? " " : "",
				      (int)(e - p), p);
		/* a continuation: two spaces, then a word (a header has 4) */
		if (!*e || strncmp(e + 1, "  ", 2) || e[3] == ' ' || !e[3])
			break;
		p = e + 3;
	}
	return true;
}

int span_in_it(const char *line, const char *whose, const char *name)
{
	const char *in = strstr(line, "; in it: ");
	char fmt[64], got[64], kind[16];
	int pct;

	assert_non_null(in);
	snprintf(fmt, sizeof(fmt), "; in it: %%63s %%d%%%% of %s %%15s", whose);
	assert_int_equal(sscanf(in, fmt, got, &pct, kind), 3);
	assert_string_equal(got, name);
	assert_string_equal(kind, "on-CPU");
	return pct;
}

/* The task object of @tid in a report's "tasks", or NULL. */
json_object *find_task(json_object *doc, int tid)
{
	json_object *tasks, *t;
	size_t i;

	if (!json_object_object_get_ex(doc, "tasks", &tasks))
		return NULL;
	for (i = 0; i < json_object_array_length(tasks); i++) {
		t = json_object_array_get_idx(tasks, i);
		if (jint(t, "tid") == tid)
			return t;
	}
	return NULL;
}

double tasks_on_cpu(json_object *doc,
		    bool (*match)(json_object *t, const void *arg),
		    const void *arg)
{
	json_object *tasks = jget(doc, "tasks"), *t;
	double sum = 0;
	size_t i;

	jarray_each(tasks, i, t)
		if (match(t, arg))
			sum += (double)jint(t, "on_cpu_ns");
	return sum;
}

/* The task of @tid, named @what in the error; the test fails without it. */
json_object *report_task(json_object *doc, int tid, const char *what)
{
	json_object *t = find_task(doc, tid);

	if (!t) {
		print_error("%s (tid %d) missing from the report\n", what, tid);
		fail();
	}
	return t;
}

int parse_thread_lines(const char *text, struct thread_line *t, int max)
{
	const char *p = text;
	int n = 0;

	while (p && *p && n < max) {
		if (sscanf(p, "tid=%d name=%31s cpu_ns=%lld", &t[n].tid,
			   t[n].name, &t[n].cpu_ns) == 3)
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

/*
 * A finished run's two outputs: the workload's @want thread lines in @out
 * (into @t, room for @max) and the JSON report at @path, parsed.
 */
json_object *threads_and_report(const char *out, struct thread_line *t,
				int max, int want, const char *path)
{
	json_object *doc;

	assert_int_equal(parse_thread_lines(out, t, max), want);
	doc = json_file(path);
	assert_non_null(doc);
	return doc;
}

/* |got - want| within @rel of want plus @abs_ns (a thread's exit path). */
void assert_close(const char *what, double got, double want, double rel,
		  double abs_ns)
{
	double d = got > want ? got - want : want - got;

	if (!(d <= rel * want + abs_ns)) {
		print_error("%s: got %.0f, want %.0f (diff %.2f%%, allowed %.1f%% + %.1f ms)\n",
			    what, got, want, want ? 100.0 * d / want : 0.0,
			    rel * 100, abs_ns / 1e6);
		fail();
	}
}

/*
 * tdbpf's on-CPU time of exited threads is the kernel's runtime
 * (se.sum_exec_runtime) at each one's last switch; the process clock
 * took each one's runtime at release_task() in exit_notify(), before
 * the rest of do_exit() and that switch. So the sum is above the clock
 * by a fixed path a thread, not by a share of the work: 4-8 us here,
 * bounded at EXIT_TAIL_NS. Below the clock by more than @rel plus 5 ms,
 * time was lost.
 */
#define EXIT_TAIL_NS 20e3
void assert_process_sum(double sum, double clock_ns, long long threads,
			double rel)
{
	double over = sum - clock_ns, below = rel * clock_ns + 5e6;
	double above = below + (double)threads * EXIT_TAIL_NS;

	print_message("on-CPU sum %.0f ns, process clock %.0f ns: %+.3f ms, %.2f us a thread\n",
		      sum, clock_ns, over / 1e6,
		      threads ? over / 1e3 / (double)threads : 0.0);
	if (over < -below || over > above) {
		print_error("on-CPU sum %.3f ms off the process clock, allowed -%.3f to +%.3f ms\n",
			    over / 1e6, below / 1e6, above / 1e6);
		fail();
	}
}
