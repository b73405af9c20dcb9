// SPDX-License-Identifier: GPL-2.0
/*
 * Containers, with a real runtime (Debian's podman): an image made here
 * from a tar of static binaries (build/static/tdbpf, a static
 * stagegraph; podman import, no registry), a stream graph run in it
 * with --network none, traced
 *
 *   - from the host: every row of the container's process, and its
 *     /metrics series, carry the id `podman inspect --format {{.Id}}`
 *     prints;
 *   - from a second container sharing the host's PID namespace, with
 *     the security context of docs/examples/tdbpf-daemonset.yaml
 *     (--pid=host, CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE,
 *     CAP_DAC_READ_SEARCH, CAP_KILL, CAP_SETUID, CAP_SETGID,
 *     CAP_SETPCAP, seccomp unconfined): the same rows;
 *   - with -G and the container's cgroup: only its tasks, and those put
 *     into it after the start, with what they fork there; the same from
 *     a container given the host's /sys/fs/cgroup read-only;
 *   - from a container with a PID namespace of its own: refused in one
 *     line that says what it needs.
 *
 * Skipped, saying why, only where podman cannot run a container.
 */
#include "helpers.h"
#include "prom_helpers.h"
#include <sys/resource.h>

#define IMAGE_DIR_TAG	"cg-image"
/* what the in-container tdbpf needs: the DaemonSet's securityContext */
#define AGENT_CAPS	"--cap-drop=all " \
			"--cap-add=BPF,PERFMON,SYS_PTRACE,DAC_READ_SEARCH," \
			"KILL,SETUID,SETGID,SETPCAP " \
			"--security-opt=seccomp=unconfined " \
			"--security-opt=no-new-privileges"

static char image[64];
static char workload_name[64];
static char container_id[80];
static pid_t container_pid;
static char run_opts[256];	/* runtime, limits, no network */

/* @cmd's stdout, its last newline cut (caller frees); NULL if it failed. */
static char *sh_out(const char *cmd)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL }, *out = NULL;
	size_t n;

	if (run(argv, &out, 120) != 0) {
		free(out);
		return NULL;
	}
	n = out ? strlen(out) : 0;
	while (n && out[n - 1] == '\n')
		out[--n] = 0;
	return out;
}

/* The workload container's cgroup path, as podman names it (malloc'ed). */
static char *workload_cgroup(void)
{
	char cmd[512], *path;

	snprintf(cmd, sizeof(cmd),
		 "podman inspect --format '{{.State.CgroupPath}}' %s",
		 workload_name);
	path = sh_out(cmd);
	assert_non_null(path);
	return path;
}

/* The JSON report `sh -c @cmd` prints (@what, in its failure). */
static json_object *sh_json(const char *cmd, const char *what)
{
	char *out = sh_out(cmd);
	json_object *doc;

	if (!out)
		fail_msg("%s failed: %s", what, cmd);
	doc = json_tokener_parse(out);
	free(out);
	return doc;
}

static int sh(const char *cmd)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };

	return run(argv, NULL, 120);
}

/*
 * podman raises its own open-file limit and lowers its process limit to
 * 32768 before it starts the runtime, which (without CAP_SYS_RESOURCE)
 * can then only keep what it was given: ask for exactly that. A cgroup
 * v1 host with a cgroup2 hierarchy beside it (hybrid) needs runc: crun
 * refuses it.
 */
static void set_run_opts(void)
{
	struct rlimit nf, np;
	char *runc = sh_out("command -v runc");

	getrlimit(RLIMIT_NOFILE, &nf);
	getrlimit(RLIMIT_NPROC, &np);
	if (np.rlim_max > 32768)
		np.rlim_max = 32768;
	snprintf(run_opts, sizeof(run_opts),
		 "%s --network=none --ulimit nofile=%llu:%llu --ulimit nproc=%llu:%llu",
		 runc && *runc ? "--runtime=runc" : "",
		 (unsigned long long)nf.rlim_cur,
		 (unsigned long long)nf.rlim_max,
		 (unsigned long long)np.rlim_max,
		 (unsigned long long)np.rlim_max);
	free(runc);
}

/* The image: / holds tdbpf, stagegraph and an empty /tmp. */
static int make_image(void)
{
	char cmd[1024];
	const char *dir = tmp_path(IMAGE_DIR_TAG);

	snprintf(image, sizeof(image), "localhost/tdbpf-test:%d", getpid());
	snprintf(cmd, sizeof(cmd),
		 "set -e; rm -rf %s; mkdir -p %s/root/tmp; "
		 "cp %s/static/tdbpf %s/tests/workloads/static/stagegraph %s/root/; "
		 "tar -C %s/root -cf %s/image.tar .; "
		 "podman import -q %s/image.tar %s >/dev/null; rm -rf %s",
		 dir, dir, build_dir(), build_dir(), dir, dir, dir, dir, image,
		 dir);
	return sh(cmd);
}

static int setup(void **state)
{
	char cmd[1024], *v;

	(void)state;
	if (need_bpf())
		return 0;
	v = sh_out("podman --version");
	if (!v) {
		print_message("podman is not installed (make deps installs it): skipping\n");
		return 0;
	}
	free(v);
	set_run_opts();
	if (make_image()) {
		print_message("podman import failed: skipping\n");
		image[0] = 0;
		return 0;
	}
	/* a pipeline of three threads; mid is the slow one */
	snprintf(workload_name, sizeof(workload_name), "tdbpf-test-%d",
		 getpid());
	snprintf(cmd, sizeof(cmd),
		 "podman run -d %s --name %s %s /stagegraph -d 120 "
		 "src:cpu=50 mid:cpu=150 sink:cpu=20 >/dev/null",
		 run_opts, workload_name, image);
	if (sh(cmd)) {
		print_message("podman cannot run a container here (%s): skipping\n",
			      run_opts);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "podman inspect --format '{{.Id}} {{.State.Pid}}' %s",
		 workload_name);
	v = sh_out(cmd);
	if (v && sscanf(v, "%79s %d", container_id, &container_pid) != 2)
		container_pid = 0;
	free(v);
	/* its three stage threads are up once they printed "ready" */
	snprintf(cmd, sizeof(cmd),
		 "for i in $(seq 100); do podman logs %s 2>/dev/null | grep -q ready && exit 0; sleep 0.1; done; exit 1",
		 workload_name);
	if (container_pid <= 0 || strlen(container_id) != 64 || sh(cmd))
		container_pid = 0;
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[512];

	(void)state;
	if (workload_name[0]) {
		snprintf(cmd, sizeof(cmd), "podman rm -f -t 0 %s >/dev/null 2>&1",
			 workload_name);
		sh(cmd);
	}
	if (image[0]) {
		snprintf(cmd, sizeof(cmd), "podman rmi -f %s >/dev/null 2>&1",
			 image);
		sh(cmd);
	}
	return 0;
}

#define NEED_CONTAINER()                                          \
	do {                                                      \
		NEED_BPF();                                       \
		if (!container_pid) {                             \
			print_message("no container: skipping\n"); \
			skip();                                   \
		}                                                 \
	} while (0)

/*
 * Every task of the container's process in report @doc carries its id
 * and runtime, and the three stages are there, with CPU time.
 */
static void assert_rows_of_container(json_object *doc, const char *what)
{
	json_object *tasks, *t, *v;
	const char *stages[] = { "src", "mid", "sink" };
	int i, n, k, mine = 0, found = 0;

	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	n = (int)json_object_array_length(tasks);
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(tasks, i);
		if (jint(t, "pid") != container_pid)
			continue;
		mine++;
		if (!json_object_object_get_ex(t, "container_id", &v))
			fail_msg("%s: task %lld has no container_id", what,
				 (long long)jint(t, "tid"));
		assert_string_equal(json_object_get_string(v), container_id);
		assert_true(json_object_object_get_ex(t, "container_runtime", &v));
		assert_string_equal(json_object_get_string(v), "podman");
		assert_true(json_object_object_get_ex(t, "cgroup", &v));
		assert_non_null(strstr(json_object_get_string(v), container_id));
		json_object_object_get_ex(t, "comm", &v);
		for (k = 0; k < 3; k++)
			if (!strcmp(json_object_get_string(v), stages[k]) &&
			    jint(t, "on_cpu_ns") > 0)
				found |= 1 << k;
	}
	print_message("%s: %d rows of the container's process, id %.12s\n",
		      what, mine, container_id);
	assert_int_equal(mine, 4);	/* main thread and three stages */
	assert_int_equal(found, 7);
}

/* From the host: JSON rows, the table's column, the /metrics series. */
static void test_from_host(void **state)
{
	const char *rep = tmp_path("cg-host.json");
	char pid[16], sel[256], *out = NULL;
	char *argv[] = { (char *)tdbpf_bin(), "-d", "1", "-j", "-o",
			 (char *)rep, "-p", pid, NULL };
	char *targv[] = { (char *)tdbpf_bin(), "-d", "0.5", "-p", pid, NULL };
	char *rargv[] = { (char *)tdbpf_bin(), "report", "-j", (char *)rep,
			  NULL };
	char *text = NULL;
	struct server s = { .report = NULL };
	struct reply r;
	json_object *doc;

	(void)state;
	NEED_CONTAINER();
	snprintf(pid, sizeof(pid), "%d", container_pid);
	assert_int_equal(run(argv, NULL, 60), 0);
	doc = json_file(rep);
	assert_rows_of_container(doc, "host");
	json_object_put(doc);
	/* tdbpf report gives the recording back, containers and all */
	assert_int_equal(run(rargv, &out, 60), 0);
	text = file_text(rep);
	assert_non_null(text);
	assert_string_equal(out, text);
	free(out);
	free(text);
	unlink(rep);

	/* the table: CONTAINER holds the id's first 12 digits */
	assert_int_equal(run(targv, &out, 60), 0);
	assert_non_null(strstr(out, "CONTAINER"));
	snprintf(sel, sizeof(sel), " mid               %.12s ", container_id);
	if (!strstr(out, sel))
		fail_msg("no row '%s' in:\n%s", sel, out);
	free(out);

	/* /metrics: the stage's series is the container's */
	start_tdbpf_on(&s, container_pid);
	usleep(500000);
	assert_int_equal(http_get(s.port, "/metrics", NULL, &r), 0);
	snprintf(sel, sizeof(sel),
		 "tdbpf_task_on_cpu_seconds_total{comm=\"stagegraph\",thread=\"mid\",container_id=\"%s\"} ",
		 container_id);
	out = strstr(r.body, sel);
	if (!out)
		fail_msg("no series %s in the scrape", sel);
	assert_true(strtod(out + strlen(sel), NULL) > 0);
	reply_free(&r);
	assert_int_equal(stop_tdbpf(&s), 0);
}

/* From a container in the host's PID namespace: the same rows. */
static void test_from_container(void **state)
{
	char cmd[1024];
	json_object *doc;

	(void)state;
	NEED_CONTAINER();
	snprintf(cmd, sizeof(cmd),
		 "podman run --rm %s --pid=host " AGENT_CAPS
		 " %s /tdbpf -d 1 -j -p %d 2>/dev/null",
		 run_opts, image, container_pid);
	doc = sh_json(cmd, "tdbpf in a container");
	assert_rows_of_container(doc, "container, --pid=host");
	json_object_put(doc);
}

/*
 * -G PATH, the container's cgroup as podman names it: only its tasks,
 * not the host's spinning beside it; and a process put into it from
 * outside after the start (podman exec) is traced, with the processes
 * it forks there (stagegraph -m unix: a process per stage).
 */
static void test_cgroup_filter(void **state)
{
	const char *rep = tmp_path("cg-filter.json");
	char cmd[512], *path, *spin_argv[] = { (char *)workload("spinners"),
					       "-n", "1", "-d", "5", NULL };
	char *argv[] = { (char *)tdbpf_bin(), "-G", NULL, "-d", "120", "-j",
			 "-o", (char *)rep, NULL };
	json_object *doc, *tasks, *t, *v;
	struct child spin, tr;
	int i, n, exec_rows = 0, exec_pids = 0, last_pid = 0;

	(void)state;
	NEED_CONTAINER();
	path = workload_cgroup();
	argv[2] = path;
	spin = spawn(spin_argv, 0);
	assert_true(spin.pid > 0);
	tr = spawn(argv, 0);
	assert_true(tr.pid > 0);
	/* after the start: a process from outside, and its stage processes */
	assert_true(wait_attached(tr.pid, 20000));
	usleep(300000);
	snprintf(cmd, sizeof(cmd),
		 "podman exec %s /stagegraph -m unix -d 1 -w 0.2 "
		 "xa:cpu=30 xb:cpu=30 >/dev/null",
		 workload_name);
	assert_int_equal(sh(cmd), 0);
	/*
	 * the run ends once the exec'd graph has: a podman exec takes
	 * seconds on a busy machine, which no fixed -d would bound
	 */
	kill(tr.pid, SIGINT);
	assert_int_equal(wait_for(tr.pid, 30), 0);
	kill(spin.pid, SIGKILL);
	wait_for(spin.pid, 5);
	doc = json_file(rep);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	n = (int)json_object_array_length(tasks);
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(tasks, i);
		if (!json_object_object_get_ex(t, "container_id", &v))
			fail_msg("-G: task %lld (pid %lld) is not the container's",
				 (long long)jint(t, "tid"),
				 (long long)jint(t, "pid"));
		assert_string_equal(json_object_get_string(v), container_id);
		assert_int_not_equal(jint(t, "pid"), spin.pid);
		json_object_object_get_ex(t, "comm", &v);
		if (jint(t, "pid") != container_pid &&
		    (!strcmp(json_object_get_string(v), "xa") ||
		     !strcmp(json_object_get_string(v), "xb")) &&
		    jint(t, "on_cpu_ns") > 0) {
			exec_rows++;
			exec_pids += jint(t, "pid") != last_pid;
			last_pid = (int)jint(t, "pid");
		}
	}
	print_message("-G %s: %d rows, %d of the exec'd graph's stages in %d processes\n",
		      path, n, exec_rows, exec_pids);
	json_object_put(doc);
	doc = json_file(rep);
	assert_rows_of_container(doc, "-G");
	json_object_put(doc);
	/* both stages ran, each in a process of its own forked inside */
	assert_true(exec_rows >= 2);
	assert_true(exec_pids >= 2);
	unlink(rep);
	free(path);
}

/*
 * -G from a container beside it: the host's cgroupfs mounted read-only
 * (its own shows only its cgroup), as the DaemonSet's hostPath does.
 */
static void test_cgroup_from_container(void **state)
{
	char cmd[1024], *path;
	json_object *doc, *tasks, *t, *v;
	int i, n;

	(void)state;
	NEED_CONTAINER();
	path = workload_cgroup();
	snprintf(cmd, sizeof(cmd),
		 "podman run --rm %s --pid=host -v /sys/fs/cgroup:/sys/fs/cgroup:ro "
		 AGENT_CAPS " %s /tdbpf -G %s -d 1 -j 2>/dev/null",
		 run_opts, image, path);
	doc = sh_json(cmd, "-G in a container");
	assert_rows_of_container(doc, "-G, in a container");
	assert_true(json_object_object_get_ex(doc, "tasks", &tasks));
	n = (int)json_object_array_length(tasks);
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(tasks, i);
		assert_true(json_object_object_get_ex(t, "container_id", &v));
		assert_string_equal(json_object_get_string(v), container_id);
	}
	json_object_put(doc);
	free(path);
}

/* In a PID namespace of its own: one line saying what it needs. */
static void test_own_pid_ns(void **state)
{
	char cmd[1024], *out;

	(void)state;
	NEED_CONTAINER();
	snprintf(cmd, sizeof(cmd),
		 "podman run --rm %s " AGENT_CAPS
		 " %s /tdbpf -d 1 -a 2>&1; echo rc=$?",
		 run_opts, image);
	out = sh_out(cmd);
	assert_non_null(out);
	print_message("%s\n", out);
	has_all(out, STRS("--pid=host", "hostPID: true", "CAP_BPF",
			  "seccomp unconfined"));
	has_none(out, STRS("rc=0"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_from_host, teardown),
		cmocka_unit_test(test_from_container),
		cmocka_unit_test(test_cgroup_filter),
		cmocka_unit_test(test_cgroup_from_container),
		cmocka_unit_test(test_own_pid_ns),
	};

	return cmocka_run_group_tests(tests, setup, group_teardown);
}
