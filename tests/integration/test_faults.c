// SPDX-License-Identifier: GPL-2.0
/*
 * Faults during a run, as root on the real BPF path: the target dies, the
 * output pipe closes, tdbpf itself is stopped or killed, the task map is
 * too small; conservation of CPU time with -a; privileges of the launched
 * command and of tdbpf after setup. After every run nothing of tdbpf may
 * stay in the kernel: no tdbpf_* program, no link to one, none of its maps
 * (the perf event array holds the counters).
 *
 * The basic SIGINT/SIGTERM/SIGHUP report test is in test_attach.c.
 */
#include <dirent.h>
#include <sys/prctl.h>
#include "helpers.h"

#define BPFTOOL		"/usr/sbin/bpftool"
#define NOBODY		65534
/*
 * CAP_PERFMON (38), CAP_BPF (39): what tdbpf keeps; CAP_KILL (5) too
 * only with a command to stop (-- COMMAND)
 */
#define KEPT_CAPS	((1ULL << 38) | (1ULL << 39))

/* ---- kernel objects ------------------------------------------------------ */

struct objset {
	unsigned int id[4096];
	int nr;
};

static bool in_set(const struct objset *s, unsigned int id)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->id[i] == id)
			return true;
	return false;
}

static void set_add(struct objset *s, unsigned int id)
{
	if (s->nr < (int)(sizeof(s->id) / sizeof(s->id[0])) && !in_set(s, id))
		s->id[s->nr++] = id;
}

/* The names tdbpf's maps get (bpf/shared.bpf.h), as bpftool shows them. */
static bool tdbpf_map_name(const char *n)
{
	static const char *const names[] = { "counters", "cpu_state", "tasks",
					     "filter",	 "stats",     "exited",
					     "zero_task" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(n, names[i]))
			return true;
	return !strncmp(n, "tdbpf_", 6);
}

static json_object *bpftool_json(const char *what)
{
	char *argv[] = { BPFTOOL, "-j", (char *)what, "show", NULL };
	json_object *doc = NULL;
	char *out = NULL;

	if (run(argv, &out, 30) == 0)
		doc = json_tokener_parse(out);
	free(out);
	return doc;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return "";
	return json_object_get_string(v);
}

/*
 * Every tdbpf object now in the kernel: programs named tdbpf_*, links to
 * them, maps with tdbpf's map names. @kind 0 progs, 1 links, 2 maps.
 */
static void tdbpf_objects(struct objset sets[3])
{
	json_object *progs = bpftool_json("prog"), *links = bpftool_json("link");
	json_object *maps = bpftool_json("map"), *o;
	struct objset ours = { .nr = 0 };
	size_t i;

	for (i = 0; i < 3; i++)
		sets[i].nr = 0;
	for (i = 0; progs && i < json_object_array_length(progs); i++) {
		o = json_object_array_get_idx(progs, i);
		if (!strncmp(jstr(o, "name"), "tdbpf_", 6)) {
			set_add(&sets[0], (unsigned int)jint(o, "id"));
			set_add(&ours, (unsigned int)jint(o, "id"));
		}
	}
	for (i = 0; links && i < json_object_array_length(links); i++) {
		o = json_object_array_get_idx(links, i);
		if (in_set(&ours, (unsigned int)jint(o, "prog_id")))
			set_add(&sets[1], (unsigned int)jint(o, "id"));
	}
	for (i = 0; maps && i < json_object_array_length(maps); i++) {
		o = json_object_array_get_idx(maps, i);
		if (tdbpf_map_name(jstr(o, "name")))
			set_add(&sets[2], (unsigned int)jint(o, "id"));
	}
	json_object_put(progs);
	json_object_put(links);
	json_object_put(maps);
}

/* Objects held through an fd by a live process (another tdbpf running). */
static void held_objects(struct objset sets[3])
{
	static const char *const keys[3] = { "prog_id:", "link_id:", "map_id:" };
	char path[600], line[256];
	struct dirent *p, *f;
	DIR *proc, *fds;
	unsigned int id;
	FILE *in;
	int k;

	for (k = 0; k < 3; k++)
		sets[k].nr = 0;
	proc = opendir("/proc");
	while (proc && (p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo", p->d_name);
		fds = opendir(path);
		while (fds && (f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s",
				 p->d_name, f->d_name);
			in = fopen(path, "r");
			while (in && fgets(line, sizeof(line), in))
				for (k = 0; k < 3; k++)
					if (!strncmp(line, keys[k],
						     strlen(keys[k])) &&
					    sscanf(line + strlen(keys[k]), "%u",
						   &id) == 1)
						set_add(&sets[k], id);
			if (in)
				fclose(in);
		}
		if (fds)
			closedir(fds);
	}
	if (proc)
		closedir(proc);
}

static struct objset before[3];

static bool have_bpftool(void)
{
	if (access(BPFTOOL, X_OK)) {
		print_message("no %s: the left-behind check is skipped\n",
			      BPFTOOL);
		return false;
	}
	return true;
}

/* Remember what exists before a run: it is not ours. */
static void objects_before(void)
{
	if (have_bpftool())
		tdbpf_objects(before);
}

/*
 * After a run: every tdbpf object that appeared since objects_before()
 * is gone, unless a live process holds it (another tdbpf, run by someone
 * else at the same time). The kernel frees programs after an RCU grace
 * period: wait up to 3 s.
 */
static void assert_nothing_left(void)
{
	static const char *const kind[3] = { "program", "link", "map" };
	struct objset now[3], held[3];
	int tries, k, i, left = 0;

	if (!have_bpftool())
		return;
	for (tries = 0; tries < 30; tries++) {
		tdbpf_objects(now);
		held_objects(held);
		left = 0;
		for (k = 0; k < 3; k++)
			for (i = 0; i < now[k].nr; i++)
				if (!in_set(&before[k], now[k].id[i]) &&
				    !in_set(&held[k], now[k].id[i]))
					left++;
		if (!left)
			return;
		usleep(100000);
	}
	for (k = 0; k < 3; k++)
		for (i = 0; i < now[k].nr; i++)
			if (!in_set(&before[k], now[k].id[i]) &&
			    !in_set(&held[k], now[k].id[i]))
				print_error("left behind: BPF %s id %u\n",
					    kind[k], now[k].id[i]);
	fail();
}

/* ---- processes ----------------------------------------------------------- */

struct proc {
	pid_t pid;
	int out, err;	/* its stdout and stderr, or -1 */
};

/* Start @argv with stdout and stderr on pipes and @env applied. */
static struct proc start(char *const argv[], char *const env[])
{
	struct proc c = { .pid = -1, .out = -1, .err = -1 };
	int op[2], ep[2];

	if (pipe2(op, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
		return c;
	c.pid = fork();
	if (c.pid == 0) {
		child_io(op[1], ep[1], env);
		execv(argv[0], argv);
		_exit(127);
	}
	close(op[1]);
	close(ep[1]);
	c.out = op[0];
	c.err = ep[0];
	return c;
}

/* Read @fd's lines until one contains @what; false on EOF or timeout. */
static bool wait_line(int fd, const char *what, int timeout_ms)
{
	char line[512];

	while (read_line(fd, line, sizeof(line), timeout_ms))
		if (strstr(line, what))
			return true;
	return false;
}

static void stop_workload(struct child *w)
{
	kill(w->pid, SIGKILL);
	wait_for(w->pid, 10);
	close(w->out);
}

static unsigned long long status_hex(pid_t pid, const char *key)
{
	char path[64], line[256];
	unsigned long long v = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			sscanf(line + strlen(key), "%llx", &v);
	if (f)
		fclose(f);
	return v;
}

/* ---- the target goes away ------------------------------------------------ */

/*
 * The traced process is killed outright: tdbpf notices within its tick,
 * prints the whole run and exits 0.
 */
static void test_target_killed(void **state)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "2", "-d", "30",
		       NULL };
	char pidarg[32], *out;
	char *tr[] = { (char *)tdbpf_bin(), "-v", "-j", "-p", pidarg, NULL };
	struct child w;
	struct proc d;
	json_object *doc, *tasks;
	double t_kill;
	int pid, st;
	size_t i, mine = 0;

	(void)state;
	NEED_BPF();
	objects_before();
	pid = start_workload(wl, 0, &w);
	snprintf(pidarg, sizeof(pidarg), "%d", pid);
	d = start(tr, NULL);
	/* 2 s of tracing, however long attaching takes on a busy machine */
	assert_true(wait_line(d.err, "tdbpf: attached", 30000));
	sleep(2);
	t_kill = mono_s();
	stop_workload(&w);
	out = read_all(d.out);
	st = wait_for(d.pid, 10);
	assert_int_equal(st, 0);
	/* one tick (100 ms) plus teardown */
	assert_true(mono_s() - t_kill < 2.0);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++)
		if (jint(json_object_array_get_idx(tasks, i), "pid") == pid)
			mine++;
	/* main thread, spin-0, spin-1 */
	assert_true(mine >= 3);
	assert_true(jint(doc, "duration_ns") > 1500000000LL);
	json_object_put(doc);
	free(out);
	close(d.out);
	close(d.err);
	assert_nothing_left();
}

/* ---- the output goes away ----------------------------------------------- */

/*
 * tdbpf -I 100 -p PID | head -c 1: the reader leaves after one byte. tdbpf
 * must stop cleanly (not die of SIGPIPE) and detach.
 */
static void test_closed_pipe(void **state)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-d", "30",
		       NULL };
	char pidarg[32], c;
	char *tr[] = { (char *)tdbpf_bin(), "-I", "100", "-p", pidarg, NULL };
	struct pollfd p;
	struct child w;
	struct proc d;
	double t_close;
	int st;

	(void)state;
	NEED_BPF();
	objects_before();
	snprintf(pidarg, sizeof(pidarg), "%d", start_workload(wl, 0, &w));
	d = start(tr, NULL);
	p.fd = d.out;
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_int_equal(read(d.out, &c, 1), 1);
	close(d.out);
	t_close = mono_s();
	st = wait_for(d.pid, 10);
	if (st != 0) {
		print_error("tdbpf exited with %d after its output closed (%s)\n",
			    st, st >= 128 ? strsignal(st - 128) : "error");
		fail();
	}
	/* the next interval's write sees EPIPE */
	assert_true(mono_s() - t_close < 2.0);
	close(d.err);
	stop_workload(&w);
	assert_nothing_left();
}

/* ---- tdbpf is stopped ----------------------------------------------------- */

/*
 * SIGTERM to `tdbpf -- COMMAND`: the report is written and the command,
 * started by tdbpf, is stopped and reaped, not left running as an orphan.
 */
static void test_sigterm_stops_command(void **state)
{
	char *json = tmp_path("cmdterm.json"), line[64];
	char *tr[] = { (char *)tdbpf_bin(), "-j", "-o", json, "--",
		       (char *)workload("spinners"), "-n", "1", "-d", "60",
		       NULL };
	json_object *doc, *tasks;
	struct proc d;
	int pid = -1;

	(void)state;
	NEED_BPF();
	objects_before();
	d = start(tr, NULL);
	/* the command's "pid=" line, on the stdout it shares with tdbpf */
	assert_non_null(read_line(d.out, line, sizeof(line), 5000));
	assert_int_equal(sscanf(line, "pid=%d", &pid), 1);
	sleep(1);
	kill(d.pid, SIGTERM);
	free(read_all(d.out));
	assert_int_equal(wait_for(d.pid, 10), 0);
	/* reaped by tdbpf: gone, not a zombie or an orphan */
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	assert_true(json_object_array_length(tasks) >= 2);
	json_object_put(doc);
	close(d.out);
	close(d.err);
	unlink(json);
	assert_nothing_left();
}

/* SIGKILL leaves no chance to clean up: nothing may be pinned anyway. */
static void test_sigkill_leaves_nothing(void **state)
{
	char *tr[] = { (char *)tdbpf_bin(), "-v", "-a", "-o", "/dev/null",
		       NULL };
	struct proc d;

	(void)state;
	NEED_BPF();
	objects_before();
	d = start(tr, NULL);
	assert_true(wait_line(d.err, "attached", 10000));
	kill(d.pid, SIGKILL);
	assert_int_equal(wait_for(d.pid, 10), 128 + SIGKILL);
	close(d.out);
	close(d.err);
	assert_nothing_left();
}

/* ---- the task map fills --------------------------------------------------- */

/*
 * 32 threads alive at once against a map of 16 entries: tasks are lost,
 * and tdbpf says how many in "lost" instead of silently dropping them,
 * and still reports the tasks it has.
 */
static void test_small_map_counts_losses(void **state)
{
	char *json = tmp_path("small.json"), *out = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "--max-tasks", "16",
			 "-o", json, "--", (char *)workload("churn"), "-n",
			 "2000", "-c", "32", "-w", "100", NULL };
	json_object *doc, *lost, *tasks;

	(void)state;
	NEED_BPF();
	objects_before();
	assert_int_equal(run(argv, &out, 60), 0);
	assert_non_null(strstr(out, "threads=2000"));
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "lost", &lost));
	print_message("lost: %s\n", json_object_to_json_string(lost));
	assert_true(jint(lost, "map_full") > 0);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	assert_true(json_object_array_length(tasks) >= 16);
	json_object_put(doc);
	free(out);
	unlink(json);
	assert_nothing_left();
}

/* ---- conservation ---------------------------------------------------------- */

/* Idle plus iowait of all CPUs from /proc/stat, in ns. */
static double idle_ns(void)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	assert_non_null(f);
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4]);
	fclose(f);
	assert_int_equal(n, 5);
	return (double)(v[3] + v[4]) * 1e9 / (double)sysconf(_SC_CLK_TCK);
}

/*
 * With -a every CPU's time is some task's on-CPU time or idle: their sum
 * is the traced time times the CPUs, within 1%. The idle tasks (pid 0)
 * are not tracked; the kernel's idle accounting gives their time. Idle is
 * sampled when tdbpf says it attached and when its report arrives, the
 * two ends of the traced window.
 */
static void test_conservation_all(void **state)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-s", "2",
		       "-d", "10", NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-a", "-v", "-j", "-d", "5",
		       NULL };
	double idle0, idle1, t0, t1, on = 0, dur, want, got;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	json_object *doc, *tasks, *lost;
	struct pollfd p;
	struct child w;
	struct proc d;
	char *rest;
	size_t i;

	(void)state;
	NEED_BPF();
	objects_before();
	start_workload(wl, 0, &w);
	d = start(tr, NULL);
	assert_true(wait_line(d.err, "attached", 10000));
	idle0 = idle_ns();
	t0 = mono_s();
	p.fd = d.out;
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 15000), 1);
	idle1 = idle_ns();
	t1 = mono_s();
	rest = read_all(d.out);
	assert_int_equal(wait_for(d.pid, 10), 0);
	stop_workload(&w);

	doc = json_tokener_parse(rest);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	for (i = 0; i < json_object_array_length(tasks); i++)
		on += (double)jint(json_object_array_get_idx(tasks, i),
				   "on_cpu_ns");
	if (json_object_object_get_ex(doc, "lost", &lost))
		print_message("lost: %s\n", json_object_to_json_string(lost));
	dur = (double)jint(doc, "duration_ns");
	want = dur * (double)ncpu;
	got = on + (idle1 - idle0);
	print_message("%ld CPUs, %.3f s traced (%.3f s between samples): on-CPU %.3f s + idle %.3f s = %.3f s, want %.3f s (%+.2f%%)\n",
		      ncpu, dur / 1e9, t1 - t0, on / 1e9,
		      (idle1 - idle0) / 1e9, got / 1e9, want / 1e9,
		      100.0 * (got - want) / want);
	/* the load must show up: a spinner is one CPU's worth of on-CPU */
	assert_true(on > 0.8 * dur);
	assert_close("on-CPU + idle", got, want, 0.01, 0);
	json_object_put(doc);
	free(rest);
	close(d.out);
	close(d.err);
	assert_nothing_left();
}

/*
 * With every CPU busy, on-CPU time summed over all tasks can not exceed
 * the traced time times the CPUs. Slices charged while tdbpf was still
 * attaching its programs (before the run's start) must not be counted:
 * attaching takes ms to tens of ms, which a short run shows clearly.
 */
static void test_no_time_before_start(void **state)
{
	char nbuf[16];
	char *wl[] = { (char *)workload("spinners"), "-n", nbuf, "-d", "10",
		       NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-a", "-j", "-d", "0.3", NULL };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	json_object *doc, *tasks;
	double on = 0, cap;
	struct child w;
	char *out = NULL;
	size_t i;
	int k;

	(void)state;
	NEED_BPF();
	/* spin-I burns (I+1)/N of a CPU: 2 x CPUs threads fill them all */
	snprintf(nbuf, sizeof(nbuf), "%ld", 2 * ncpu);
	start_workload(wl, 0, &w);
	for (k = 0; k < 3; k++) {
		on = 0;
		assert_int_equal(run(tr, &out, 30), 0);
		doc = json_tokener_parse(out);
		assert_non_null(doc);
		assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
		for (i = 0; i < json_object_array_length(tasks); i++)
			on += (double)jint(json_object_array_get_idx(tasks, i),
					   "on_cpu_ns");
		cap = (double)jint(doc, "duration_ns") * (double)ncpu;
		print_message("on-CPU %.4f s of %.4f s (%+.2f%%)\n", on / 1e9,
			      cap / 1e9, 100.0 * (on - cap) / cap);
		/*
		 * The window ends after the sums are read, so nothing
		 * charged lies past it; 50 us a CPU for the two clocks (the
		 * scheduler's and CLOCK_MONOTONIC) drifting apart.
		 */
		assert_true(on <= cap + (double)ncpu * 5e4);
		json_object_put(doc);
		free(out);
	}
	stop_workload(&w);
}

/* ---- privileges -------------------------------------------------------------- */

/* The command's stdout: `-- /usr/bin/id ARG` under tdbpf with @env. */
static char *command_output(char *const env[], const char *arg)
{
	char *json = tmp_path("id.json");
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "--",
			 "/usr/bin/id", (char *)arg, NULL };
	struct run_result r;

	assert_int_equal(run_capture(argv, env, (uid_t)-1, 0, 30, &r), 0);
	free(r.err);
	unlink(json);
	return r.out;
}

/*
 * Under sudo (SUDO_UID/SUDO_GID set, we are root) the command runs as the
 * invoking user with that user's groups and no capabilities; without sudo
 * it runs as root, as asked.
 */
static void test_command_runs_as_sudo_user(void **state)
{
	char *sudo[] = { "SUDO_UID=65534", "SUDO_GID=65534", "SUDO_USER=nobody",
			 NULL };
	char *plain[] = { "SUDO_UID", "SUDO_GID", "SUDO_USER", NULL };
	char *json = tmp_path("status.json"), *out;
	char *argv[] = { (char *)tdbpf_bin(), "-j", "-o", json, "--",
			 "/bin/cat", "/proc/self/status", NULL };
	struct run_result r;

	(void)state;
	NEED_BPF();
	out = command_output(sudo, "-u");
	assert_string_equal(out, "65534\n");
	free(out);
	out = command_output(sudo, "-G");
	assert_string_equal(out, "65534\n");	/* no root group kept */
	free(out);
	out = command_output(plain, "-u");
	assert_string_equal(out, "0\n");
	free(out);

	/* and not one capability left to the command */
	assert_int_equal(run_capture(argv, sudo, (uid_t)-1, 0, 30, &r), 0);
	assert_non_null(strstr(r.out, "\nUid:\t65534\t65534\t65534\t65534\n"));
	assert_non_null(strstr(r.out, "\nGid:\t65534\t65534\t65534\t65534\n"));
	assert_non_null(strstr(r.out, "\nCapPrm:\t0000000000000000\n"));
	assert_non_null(strstr(r.out, "\nCapEff:\t0000000000000000\n"));
	assert_non_null(strstr(r.out, "\nCapAmb:\t0000000000000000\n"));
	run_result_free(&r);
	unlink(json);
}

/*
 * Once attached to a -p target, tdbpf keeps CAP_BPF and CAP_PERFMON only,
 * in its permitted, effective and bounding sets (no command to stop: no
 * CAP_KILL); it still reports.
 */
static void test_caps_dropped_after_setup(void **state)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-d", "30",
		       NULL };
	char pidarg[32], *json = tmp_path("caps.json");
	char *tr[] = { (char *)tdbpf_bin(), "-v", "-j", "-o", json, "-p",
		       pidarg, NULL };
	unsigned long long eff = 0, prm = 0, bnd = 0;
	json_object *doc, *tasks;
	struct child w;
	struct proc d;
	int i;

	(void)state;
	NEED_BPF();
	snprintf(pidarg, sizeof(pidarg), "%d", start_workload(wl, 0, &w));
	d = start(tr, NULL);
	assert_true(wait_line(d.err, "attached", 10000));
	/* the drop follows the "attached" line closely */
	for (i = 0; i < 50; i++) {
		eff = status_hex(d.pid, "CapEff:");
		prm = status_hex(d.pid, "CapPrm:");
		bnd = status_hex(d.pid, "CapBnd:");
		if (eff == KEPT_CAPS && prm == KEPT_CAPS && bnd == KEPT_CAPS)
			break;
		usleep(20000);
	}
	print_message("tdbpf after setup: CapEff %llx CapPrm %llx CapBnd %llx\n",
		      eff, prm, bnd);
	assert_true(eff == KEPT_CAPS);
	assert_true(prm == KEPT_CAPS);
	assert_true(bnd == KEPT_CAPS);
	/* with what is left it still reads the maps and reports */
	usleep(500000);
	kill(d.pid, SIGINT);
	assert_int_equal(wait_for(d.pid, 10), 0);
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	/* spin-0 ran all along */
	assert_true(json_object_array_length(tasks) >= 1);
	assert_true(jint(json_object_array_get_idx(tasks, 0), "on_cpu_ns") >
		    100000000LL);
	json_object_put(doc);
	close(d.out);
	close(d.err);
	stop_workload(&w);
	unlink(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_killed),
		cmocka_unit_test(test_closed_pipe),
		cmocka_unit_test(test_sigterm_stops_command),
		cmocka_unit_test(test_sigkill_leaves_nothing),
		cmocka_unit_test(test_small_map_counts_losses),
		cmocka_unit_test(test_conservation_all),
		cmocka_unit_test(test_no_time_before_start),
		cmocka_unit_test(test_command_runs_as_sudo_user),
		cmocka_unit_test(test_caps_dropped_after_setup),
	};

	return cmocka_run_group_tests_name("faults", tests, NULL, NULL);
}
