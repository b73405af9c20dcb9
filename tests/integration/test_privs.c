// SPDX-License-Identifier: GPL-2.0
/*
 * Privileges, as root on the real BPF path: the launched command runs as
 * the sudo user, and tdbpf keeps only the capabilities it needs once set
 * up. Nothing of tdbpf may stay in the kernel after a run. In a PID
 * namespace of its own (a container) it refuses to trace, in one line.
 */
#include "helpers.h"
#include "faults_helpers.h"
#include <grp.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <pwd.h>

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
	has_all(r.out, STRS("\nUid:\t65534\t65534\t65534\t65534\n",
			    "\nGid:\t65534\t65534\t65534\t65534\n",
			    "\nCapPrm:\t0000000000000000\n",
			    "\nCapEff:\t0000000000000000\n",
			    "\nCapAmb:\t0000000000000000\n"));
	run_result_free(&r);
	unlink(json);
}

/* CPU time of process @pid so far, summed over its threads (schedstat) */
static long long process_cpu_ns(int pid)
{
	char path[320];		/* a d_name is up to 255 bytes */
	long long sum = 0, ns;
	struct dirent *e;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", pid,
			 e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%lld", &ns) == 1)
			sum += ns;
		fclose(f);
	}
	closedir(d);
	return sum;
}

/* The /proc peer reader forked by tdbpf @pid ("tdbpf-peers"), or 0. */
static pid_t reader_of(pid_t pid)
{
	char path[96], comm[32];
	pid_t kids[16];
	int n = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < 16 && fscanf(f, "%d", &kids[n]) == 1)
		n++;
	fclose(f);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", kids[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		if (!strcmp(comm, "tdbpf-peers\n"))
			return kids[i];
	}
	return 0;
}

/*
 * The reader holds CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH, all three
 * sets, and nothing else; no fd but stdio and its socket to tdbpf (no
 * BPF object, no listening socket, no output).
 */
static void check_reader(pid_t tdbpf)
{
	const unsigned long long overrides = (1ULL << 19) | (1ULL << 2);
	char path[64], link[64];
	pid_t r = 0;
	struct dirent *e;
	int i, n = 0;
	ssize_t got;
	DIR *d;

	for (i = 0; i < 100 && !(r = reader_of(tdbpf)); i++)
		usleep(20000);
	assert_true(r > 0);
	print_message("reader %d: CapPrm %llx CapEff %llx CapBnd %llx\n", r,
		      status_hex(r, "CapPrm:"), status_hex(r, "CapEff:"),
		      status_hex(r, "CapBnd:"));
	assert_true(status_hex(r, "CapPrm:") == overrides);
	assert_true(status_hex(r, "CapEff:") == overrides);
	assert_true(status_hex(r, "CapBnd:") == overrides);
	snprintf(path, sizeof(path), "/proc/%d/fd", r);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		n++;
		assert_true(atoi(e->d_name) <= 3);
		if (atoi(e->d_name) != 3)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/3", r);
		got = readlink(path, link, sizeof(link) - 1);
		assert_true(got > 0);
		link[got] = 0;
		assert_true(!strncmp(link, "socket:", 7));
	}
	closedir(d);
	assert_int_equal(n, 4);
}

/*
 * Once attached to a -p target, tdbpf keeps CAP_BPF and CAP_PERFMON only,
 * in its permitted, effective and bounding sets (no command to stop: no
 * CAP_KILL); with the graph (@reader) the overrides that read the traced
 * processes' sockets are a peer reader's (check_reader()), without it
 * there is no reader. It still reports:
 * at least the CPU time its target's threads used between the drop and
 * the stop, as the kernel counts it, less one tick (4 ms at HZ=250: a
 * running task is reported as of its last tick) and 1 ms. Not a fixed
 * amount: on a loaded machine the spinner gets what the scheduler gives
 * it. Runs @secs after the drop; the report in *@doc.
 */
static void caps_after_setup(const char *opt, bool reader, useconds_t us,
			     json_object **doc, char **err)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-d", "30",
		       NULL };
	char pidarg[32], *json = tmp_path("caps.json");
	char *tr[] = { (char *)tdbpf_bin(), "-v", "-j", "-o", json, "-p",
		       pidarg, (char *)opt, NULL };
	unsigned long long eff = 0, prm = 0, bnd = 0;
	long long cpu0, cpu1, on = 0;
	json_object *tasks;
	struct child w;
	struct child d;
	int i, pid;

	pid = start_workload(wl, 0, &w);
	snprintf(pidarg, sizeof(pidarg), "%d", pid);
	d = spawn_both(tr);
	/* a wait, not a bound: a loaded machine verifies slowly */
	assert_true(wait_line(d.err, "attached", 60000));
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
	if (reader)
		check_reader(d.pid);
	else
		assert_int_equal(reader_of(d.pid), 0);
	/* with what is left it still reads the maps and reports */
	cpu0 = process_cpu_ns(pid);
	usleep(us);
	cpu1 = process_cpu_ns(pid);
	kill(d.pid, SIGINT);
	assert_int_equal(wait_for(d.pid, 10), 0);
	*err = read_all(d.err);
	*doc = json_file(json);
	assert_non_null(*doc);
	assert_true(json_object_object_get_ex(*doc, "tasks", &tasks));
	/* spin-0 ran all along */
	assert_true(json_object_array_length(tasks) >= 1);
	for (i = 0; i < (int)json_object_array_length(tasks); i++)
		on += jint(json_object_array_get_idx(tasks, i), "on_cpu_ns");
	print_message("reported %lld ns on-CPU; the target used %lld ns from the drop to the stop\n",
		      on, cpu1 - cpu0);
	assert_true(cpu0 >= 0 && cpu1 > cpu0);
	assert_true(on >= cpu1 - cpu0 - 5000000LL);
	assert_true(on > 0);
	close(d.out);
	close(d.err);
	stop_workload(&w);
	unlink(json);
}

/* No graph (--no-wakeups): CAP_BPF and CAP_PERFMON alone. */
static void test_caps_dropped_after_setup(void **state)
{
	json_object *doc;
	char *err;

	(void)state;
	NEED_BPF();
	caps_after_setup("--no-wakeups", false, 500000, &doc, &err);
	json_object_put(doc);
	free(err);
}

/*
 * The default graph: its windows attach programs after the drop too,
 * with what is left. In 2 s, four periods: at least two windows after
 * the drop (one before it at most), and no attach refused.
 */
static void test_caps_with_graph(void **state)
{
	json_object *doc, *g, *smp;
	long long win;
	char *err;

	(void)state;
	NEED_BPF();
	/* the /proc overrides are the peer reader's, not tdbpf's */
	caps_after_setup(NULL, true, 2000000, &doc, &err);
	assert_true(json_object_object_get_ex(doc, "graph", &g));
	assert_true(json_object_object_get_ex(g, "sampled", &smp));
	win = jint(smp, "windows_ns");
	print_message("windows: %lld ns; stderr: %s\n", win, err);
	assert_null(strstr(err, "cannot attach"));
	assert_true(win > 60000000LL);
	json_object_put(doc);
	free(err);
}

/* "Cap...:" of thread @tid of @pid, ~0 when it cannot be read. */
static unsigned long long task_hex(pid_t pid, const char *tid, const char *key)
{
	char path[320];

	snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid, tid);
	return proc_hex(path, key);
}

/* tdbpf @tr started, attached, and past its drop to CAP_BPF, CAP_PERFMON */
static struct child start_dropped(char *const tr[])
{
	struct child d = spawn_both(tr);
	int i;

	assert_true(wait_line(d.err, "attached", 60000));
	/* the drop follows "attached" closely */
	for (i = 0; i < 100 && status_hex(d.pid, "CapPrm:") != KEPT_CAPS; i++)
		usleep(20000);
	return d;
}

/*
 * A spinner (spinners -n 1 -d 30) into @w, and tdbpf -v -j -o @json -p
 * on it, then @opt @val, started and past its drop (start_dropped()).
 */
static struct child trace_spinner(struct child *w, const char *json,
				  const char *opt, const char *val)
{
	char *wl[] = { (char *)workload("spinners"), "-n", "1", "-d", "30",
		       NULL };
	char pidarg[32];
	char *tr[] = { (char *)tdbpf_bin(), "-v", "-j", "-o", (char *)json,
		       "-p", pidarg, (char *)opt, (char *)val, NULL };

	snprintf(pidarg, sizeof(pidarg), "%d", start_workload(wl, 0, w));
	return start_dropped(tr);
}

/* The end of trace_spinner()'s two, tdbpf @d already reaped. */
static void end_spinner(struct child *d, struct child *w, const char *json)
{
	close(d->out);
	close(d->err);
	stop_workload(w);
	unlink(json);
}

/*
 * The process that faces the network holds no file-reading override:
 * with --listen and the default graph, no thread of tdbpf holds more
 * than CAP_BPF and CAP_PERFMON in any set; CAP_SYS_PTRACE and
 * CAP_DAC_READ_SEARCH (the sockets' /proc reads of other users'
 * processes, which a fleet of root services needs) are the peer
 * reader's, a process with no other fd and no other capability.
 */
static void test_listen_holds_no_override(void **state)
{
	char *json = tmp_path("listen.json");
	unsigned long long eff = 0, prm = 0;
	struct dirent *e;
	struct child w;
	struct child d;
	char path[64];
	int n = 0;
	DIR *dir;

	(void)state;
	NEED_BPF();
	d = trace_spinner(&w, json, "--listen", "127.0.0.1:0");
	snprintf(path, sizeof(path), "/proc/%d/task", d.pid);
	dir = opendir(path);
	assert_non_null(dir);
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		eff = task_hex(d.pid, e->d_name, "CapEff:");
		prm = task_hex(d.pid, e->d_name, "CapPrm:");
		print_message("thread %s: CapPrm %llx CapEff %llx\n",
			      e->d_name, prm, eff);
		assert_true((prm & ~KEPT_CAPS) == 0);
		assert_true((eff & ~KEPT_CAPS) == 0);
		n++;
	}
	closedir(dir);
	assert_true(n >= 2);	/* the main thread and the server's */
	assert_true(status_hex(d.pid, "CapBnd:") == KEPT_CAPS);
	check_reader(d.pid);
	kill(d.pid, SIGINT);
	assert_int_equal(wait_for(d.pid, 30), 0);
	end_spinner(&d, &w, json);
}

/* kill(@pid, @sig) as uid and gid 65534, in a child: its errno, or 0 */
static int kill_as_nobody(pid_t pid, int sig)
{
	int st;
	pid_t c = fork();

	assert_true(c >= 0);
	if (c == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(255);
		_exit(kill(pid, sig) ? errno : 0);
	}
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/*
 * A run launched by root leaves uid 0 for a uid of its own, which names
 * no user, so no process of nobody may stop it (kill -STOP), nor its
 * peer reader: the kernel checks a signal against the target's real and
 * saved uids. The run still ends on its own.
 */
static void test_nobody_cannot_stop(void **state)
{
	char *json = tmp_path("stop.json");
	unsigned int ruid = 0, euid = 0, suid = 0;
	char path[64], *st;
	struct child w;
	struct child d;
	pid_t r;

	(void)state;
	NEED_BPF();
	d = trace_spinner(&w, json, "-d", "3");
	snprintf(path, sizeof(path), "/proc/%d/status", d.pid);
	st = file_text(path);
	assert_non_null(st);
	assert_non_null(strstr(st, "\nUid:\t"));
	sscanf(strstr(st, "\nUid:\t") + 6, "%u %u %u", &ruid, &euid, &suid);
	free(st);
	print_message("tdbpf's uids: real %u effective %u saved %u\n", ruid,
		      euid, suid);
	assert_true(ruid >= 61184 && ruid <= 65519);
	assert_true(euid == ruid && suid == ruid);
	assert_null(getpwuid(ruid));
	assert_int_equal(kill_as_nobody(d.pid, SIGSTOP), EPERM);
	assert_int_equal(kill_as_nobody(d.pid, 0), EPERM);
	r = reader_of(d.pid);
	assert_true(r > 0);
	assert_int_equal(kill_as_nobody(r, SIGSTOP), EPERM);
	/* and the state is not stopped: the run ends at -d as asked */
	assert_int_equal(wait_for(d.pid, 30), 0);
	end_spinner(&d, &w, json);
}

/*
 * A process of uid 4242 (no user of this host, so neither tdbpf's
 * effective uid nor its own) holding a TCP listener and a connection to
 * it: its /proc/PID/fd is 0500 and its owner's. tdbpf's default run still
 * reports its sockets (the peer reader's overrides): the listener and
 * both halves of the connection, with its pid.
 */
static void test_other_users_sockets(void **state)
{
	char pidarg[32], *json = tmp_path("socks.json");
	char *tr[] = { (char *)tdbpf_bin(), "-j", "-o", json, "-p", pidarg,
		       "-d", "1", NULL };
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	json_object *doc, *socks, *e;
	int sv[2], i, mine = 0, l, c, k;
	struct run_result r;
	char go = 0;
	pid_t p;

	(void)state;
	NEED_BPF();
	assert_int_equal(pipe(sv), 0);
	p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		if (setgroups(0, NULL) || setresgid(4242, 4242, 4242) ||
		    setresuid(4242, 4242, 4242))
			_exit(1);
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		l = socket(AF_INET, SOCK_STREAM, 0);
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
		    getsockname(l, (struct sockaddr *)&a, &alen) ||
		    connect(c, (struct sockaddr *)&a, sizeof(a)) ||
		    (k = accept(l, NULL, NULL)) < 0)
			_exit(2);
		if (write(sv[1], &go, 1) != 1)
			_exit(3);
		pause();
		_exit(0);
	}
	close(sv[1]);
	assert_int_equal(read(sv[0], &go, 1), 1);
	close(sv[0]);
	snprintf(pidarg, sizeof(pidarg), "%d", p);
	assert_int_equal(run_capture(tr, NULL, (uid_t)-1, 0, 60, &r), 0);
	print_message("%s", r.err);
	assert_int_equal(r.status, 0);
	run_result_free(&r);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	doc = json_file(json);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "sockets", &socks));
	for (i = 0; i < (int)json_object_array_length(socks); i++) {
		e = json_object_array_get_idx(socks, i);
		if (jint(e, "pid") == p)
			mine++;
	}
	print_message("uid 4242's process %d: %d sockets reported\n", p, mine);
	assert_int_equal(mine, 3);
	json_object_put(doc);
	unlink(json);
}

/*
 * In a PID namespace of its own, BPF's thread ids are the kernel's and
 * /proc's and -p's are the namespace's: a run there reported "0 of 0
 * tasks" for a live -p target (seen under systemd-nspawn). Refused, one
 * line, exit 1, whether -a, -p or selftest.
 */
static void test_pid_namespace(void **state)
{
	char *all[] = { "/usr/bin/unshare", "--pid", "--fork", "--mount-proc",
			(char *)tdbpf_bin(), "-a", "-d", "1", NULL };
	char *self[] = { "/usr/bin/unshare", "--pid", "--fork",
			 "--mount-proc", (char *)tdbpf_bin(), "-p", "1", "-d",
			 "1", NULL };
	char *st[] = { "/usr/bin/unshare", "--pid", "--fork", "--mount-proc",
		       (char *)tdbpf_bin(), "selftest", NULL };
	char **argvs[] = { all, self, st };
	struct run_result r;
	int i;

	(void)state;
	NEED_BPF();
	for (i = 0; i < 3; i++) {
		run_capture(argvs[i], NULL, (uid_t)-1, 0, 30, &r);
		print_message("%s", r.err);
		assert_int_equal(r.status, 1);
		assert_int_equal(count_lines(r.err), 1);
		assert_non_null(strstr(r.err, "PID namespace of its own"));
		assert_non_null(strstr(r.err, "--pid=host"));
		assert_string_equal(r.out, "");
		run_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_runs_as_sudo_user),
		cmocka_unit_test(test_caps_dropped_after_setup),
		cmocka_unit_test(test_caps_with_graph),
		cmocka_unit_test(test_listen_holds_no_override),
		cmocka_unit_test(test_nobody_cannot_stop),
		cmocka_unit_test(test_other_users_sockets),
		cmocka_unit_test(test_pid_namespace),
	};

	return cmocka_run_group_tests_name("privs", tests, NULL, NULL);
}
