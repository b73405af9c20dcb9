// SPDX-License-Identifier: GPL-2.0
/*
 * Faults during a run, as root on the real BPF path: the target dies, the
 * output pipe closes, tdbpf itself is stopped or killed, the task map is
 * too small. After every run nothing of tdbpf may stay in the kernel: no
 * tdbpf_* program, no link to one, none of its maps (the perf event array
 * holds the counters).
 *
 * The basic SIGINT/SIGTERM/SIGHUP report test is in test_attach_modes.c;
 * conservation of CPU time is test_conservation.c's, privileges
 * test_privs.c's.
 */
#include <sys/resource.h>
#include "helpers.h"
#include "faults_helpers.h"

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
	struct child d;
	json_object *doc, *tasks;
	double t_kill;
	int pid, st;
	size_t i, mine = 0;

	(void)state;
	NEED_BPF();
	objects_before();
	pid = start_workload(wl, 0, &w);
	snprintf(pidarg, sizeof(pidarg), "%d", pid);
	d = spawn_both(tr);
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
	struct child d;
	double t_close;
	int st;

	(void)state;
	NEED_BPF();
	objects_before();
	snprintf(pidarg, sizeof(pidarg), "%d", start_workload(wl, 0, &w));
	d = spawn_both(tr);
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
	struct child d;
	int pid = -1;

	(void)state;
	NEED_BPF();
	objects_before();
	d = spawn_both(tr);
	/* the command's "pid=" line, on the stdout it shares with tdbpf */
	assert_non_null(read_line(d.out, line, sizeof(line), 5000));
	assert_int_equal(sscanf(line, "pid=%d", &pid), 1);
	sleep(1);
	assert_int_equal(end_child(&d, SIGTERM, 10), 0);
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
	struct child d;

	(void)state;
	NEED_BPF();
	objects_before();
	d = spawn_both(tr);
	assert_true(wait_line(d.err, "attached", 10000));
	kill(d.pid, SIGKILL);
	assert_int_equal(wait_for(d.pid, 10), 128 + SIGKILL);
	close(d.out);
	close(d.err);
	assert_nothing_left();
}

/* ---- a file-size limit (ulimit -f) ------------------------------------- */

/*
 * Run @argv with RLIMIT_FSIZE at @bytes, stderr to @err_path (NULL: a
 * pipe, returned in *@err) and stdout to /dev/null: the exit status.
 */
static int limit_fsize(void *ctx)
{
	return setrlimit(RLIMIT_FSIZE, ctx);
}

static int run_fsize(char *const argv[], rlim_t bytes, const char *err_path,
		     char **err)
{
	struct rlimit rl = { bytes, bytes };
	struct spawn_opts o = { .out = IO_NULL,
				.err = err_path ? IO_CREATE : IO_PIPE,
				.err_path = err_path,
				.in_child = limit_fsize,
				.ctx = &rl };
	struct child c = spawn_with(argv, &o);
	int st;

	assert_true(c.pid > 0);
	*err = c.err >= 0 ? read_all(c.err) : strdup("");
	if (c.err >= 0)
		close(c.err);
	assert_int_equal(waitpid(c.pid, &st, 0), c.pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * A file-size limit must not kill tdbpf with SIGXFSZ (exit 153, no word):
 * the write fails with EFBIG and is said, naming the limit as the cause;
 * with stderr itself the limited file, the report still goes to -o.
 */
static void test_file_size_limit(void **state)
{
	char *o1 = tmp_path("fsize1.txt"), *o2 = tmp_path("fsize2.txt");
	char *e = tmp_path("fsize.err"), *err;
	char *list[] = { (char *)tdbpf_bin(), "list", "--model", "software",
			 "-o", o1, NULL };
	char *tr[] = { (char *)tdbpf_bin(), "-d", "0.2", "-o", o2, "--",
		       "/bin/true", NULL };
	struct stat st;
	int rc;

	(void)state;
	rc = run_fsize(list, 100, NULL, &err);
	print_message("list -o under ulimit -f 100 bytes: exit %d: %s", rc, err);
	assert_int_equal(rc, 1);
	assert_int_equal(count_lines(err), 1);
	assert_non_null(strstr(err, "File too large"));
	assert_non_null(strstr(err, "ulimit -f"));
	free(err);
	NEED_BPF();
	/* stderr is the limited file: its lines are cut, the run goes on */
	rc = run_fsize(tr, 150, e, &err);
	free(err);
	print_message("a run with stderr under the limit: exit %d\n", rc);
	assert_int_equal(rc, 1);	/* -o is limited too: said, exit 1 */
	assert_int_equal(stat(e, &st), 0);
	assert_true(st.st_size <= 150);
	unlink(o1);
	unlink(o2);
	unlink(e);
}

/* ---- the command ends with tdbpf ---------------------------------------- */

/* Is @pid alive (not a zombie)? */
static bool alive(pid_t pid)
{
	char path[64], *s;
	bool live;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	s = file_text(path);
	if (!s)
		return false;
	live = !strstr(s, ") Z ");
	free(s);
	return live;
}

/* The pids of processes whose command line is exactly @word then @arg. */
static int pids_of(const char *word, const char *arg, pid_t *out, int max)
{
	DIR *d = opendir("/proc");
	char path[300], buf[256];
	struct dirent *e;
	size_t wl = strlen(word);
	ssize_t n;
	int fd, nr = 0;

	assert_non_null(d);
	while ((e = readdir(d)) && nr < max) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		if (!strcmp(buf, word) && (size_t)n > wl + 1 &&
		    !strcmp(buf + wl + 1, arg) && alive(atoi(e->d_name)))
			out[nr++] = atoi(e->d_name);
	}
	closedir(d);
	return nr;
}

/*
 * The command ends with tdbpf: after kill -9 of tdbpf, `-- sleep N` (the
 * kernel's parent-death signal); at the end of a run, `--children -d 0.5
 * -- sh -c 'sleep N & sleep N'`, both sleeps, the command's own children
 * (handed to tdbpf, the subreaper, when sh ends). The sleeps' N is this
 * test's own, so no other process is taken for them.
 */
static void test_command_ends_with_tdbpf(void **state)
{
	char n1[16], n2[16], script[64];
	char *one[] = { (char *)tdbpf_bin(), "-v", "-o", "/dev/null", "--",
			"sleep", n1, NULL };
	char *tree[] = { (char *)tdbpf_bin(), "-v", "--children", "-d", "0.5",
			 "-o", "/dev/null", "--", "sh", "-c", script, NULL };
	pid_t pids[4];
	struct child d;
	int i, nr = 0;

	(void)state;
	NEED_BPF();
	snprintf(n1, sizeof(n1), "%d.%d", 300 + getpid() % 97, getpid());
	snprintf(n2, sizeof(n2), "%d.%d", 301 + getpid() % 97, getpid());
	snprintf(script, sizeof(script), "sleep %s & sleep %s", n2, n2);
	objects_before();
	d = spawn_both(one);
	assert_true(wait_line(d.err, "attached", 60000));
	for (i = 0; i < 100 && !pids_of("sleep", n1, pids, 4); i++)
		usleep(20000);
	assert_int_equal(pids_of("sleep", n1, pids, 4), 1);
	kill(d.pid, SIGKILL);
	assert_int_equal(wait_for(d.pid, 10), 128 + SIGKILL);
	for (i = 0; i < 100 && pids_of("sleep", n1, pids, 4); i++)
		usleep(20000);
	nr = pids_of("sleep", n1, pids, 4);
	print_message("-- sleep: %d left after kill -9 of tdbpf\n", nr);
	for (i = 0; i < nr; i++)
		kill(pids[i], SIGKILL);
	assert_int_equal(nr, 0);
	close(d.out);
	close(d.err);

	d = spawn_both(tree);
	assert_true(wait_line(d.err, "attached", 60000));
	for (i = 0; i < 100 && pids_of("sleep", n2, pids, 4) < 2; i++)
		usleep(20000);
	assert_int_equal(pids_of("sleep", n2, pids, 4), 2);
	/* -d expired: tdbpf's own end, exit 0 */
	assert_int_equal(wait_for(d.pid, 30), 0);
	nr = pids_of("sleep", n2, pids, 4);
	print_message("--children -d 0.5 sh -c 'sleep & sleep': %d left at the end\n",
		      nr);
	for (i = 0; i < nr; i++)
		kill(pids[i], SIGKILL);
	assert_int_equal(nr, 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target_killed),
		cmocka_unit_test(test_closed_pipe),
		cmocka_unit_test(test_sigterm_stops_command),
		cmocka_unit_test(test_sigkill_leaves_nothing),
		cmocka_unit_test(test_file_size_limit),
		cmocka_unit_test(test_command_ends_with_tdbpf),
		cmocka_unit_test(test_small_map_counts_losses),
	};

	return cmocka_run_group_tests_name("faults", tests, NULL, NULL);
}
