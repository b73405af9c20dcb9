// SPDX-License-Identifier: GPL-2.0
/*
 * Container ids and pod UIDs from cgroup paths, on the shapes each
 * runtime writes (cgroup v1 and v2, cgroupfs and systemd drivers), and
 * cgroups_collect() on a /proc tree of this test's making.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <stdbool.h>
#include "sources/cgroup_members.h"
#include "sources/cgroup_path.h"
#include "sources/cgroups_proc.h"
#include "sums/cgroups.h"
#include "proc.h"

#define ID "3f1b9c2ad4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d"
#define UID "8d7f1e2a-3b4c-4d5e-9f60-718293a4b5c6"
#define UID_ "8d7f1e2a_3b4c_4d5e_9f60_718293a4b5c6"

static void path_is(const char *path, const char *id, const char *rt,
		    const char *pod)
{
	struct task_cgroup c;

	memset(&c, 0x55, sizeof(c));
	cgroup_parse_path(path, &c);
	assert_string_equal(c.id, id);
	assert_string_equal(c.runtime, rt);
	assert_string_equal(c.pod, pod);
}

static void test_runtimes(void **state)
{
	(void)state;
	/* docker: cgroupfs driver (v1), systemd driver (v2) */
	path_is("/docker/" ID, ID, "docker", "");
	path_is("/system.slice/docker-" ID ".scope", ID, "docker", "");
	/* podman: cgroupfs (v1, this machine), systemd, rootless v2 */
	path_is("/libpod_parent/libpod-" ID, ID, "podman", "");
	path_is("/machine.slice/libpod-" ID ".scope", ID, "podman", "");
	path_is("/machine.slice/libpod-" ID ".scope/container", ID, "podman",
		"");
	path_is("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-"
		ID ".scope", ID, "podman", "");
	/* conmon watches the container from a cgroup of its own */
	path_is("/machine.slice/libpod-conmon-" ID ".scope", "", "", "");
	path_is("/libpod_parent/conmon", "", "", "");
	/* containerd/CRI: cgroupfs, then systemd */
	path_is("/kubepods/burstable/pod" UID "/" ID, ID, "cri", UID);
	path_is("/kubepods/pod" UID "/" ID, ID, "cri", UID);
	path_is("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
		UID_ ".slice/cri-containerd-" ID ".scope", ID, "containerd",
		UID);
	/* CRI-O, a guaranteed pod (no QoS slice), and its conmon */
	path_is("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID ".scope",
		ID, "cri-o", UID);
	path_is("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod"
		UID_ ".slice/crio-conmon-" ID ".scope", "", "", UID);
	/* the pod's own slice: a pod, no container */
	path_is("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
		UID_ ".slice", "", "", UID);
	/* seen from inside a cgroup namespace */
	path_is("/../../libpod-" ID, ID, "podman", "");
	/* not containers: the host's, a short hex, a longer one */
	path_is("/", "", "", "");
	path_is("/user.slice/user-0.slice/session-3.scope", "", "", "");
	path_is("/process_api/6c91cd1ff31982942a3a3abde090e584", "", "", "");
	path_is("/x/a" ID, "", "", "");
	path_is("/x/notapod" UID, "", "", "");
}

static void proc_is(const char *text, const char *path, const char *id)
{
	struct task_cgroup c;

	memset(&c, 0, sizeof(c));
	cgroup_parse_proc(text, &c);
	assert_string_equal(c.path, path);
	assert_string_equal(c.id, id);
}

static void test_proc_lines(void **state)
{
	(void)state;
	/* v1, podman's cgroupfs driver: every controller the same */
	proc_is("12:pids:/libpod_parent/libpod-" ID "\n"
		"4:memory:/libpod_parent/libpod-" ID "\n"
		"1:name=systemd:/libpod_parent/libpod-" ID "\n"
		"0::/\n", "/libpod_parent/libpod-" ID, ID);
	/* v2 alone */
	proc_is("0::/system.slice/docker-" ID ".scope\n",
		"/system.slice/docker-" ID ".scope", ID);
	/* hybrid: v2 names the systemd scope, v1 the container */
	proc_is("3:cpu:/kubepods/pod" UID "/" ID "\n"
		"1:name=systemd:/system.slice/kubelet.service\n"
		"0::/system.slice/kubelet.service\n",
		"/kubepods/pod" UID "/" ID, ID);
	/* the host: v2's path over systemd's, systemd's over a controller */
	proc_is("4:memory:/a\n1:name=systemd:/user.slice\n0::/user.slice/s\n",
		"/user.slice/s", "");
	proc_is("4:memory:/a\n1:name=systemd:/user.slice\n0::/\n",
		"/user.slice", "");
	/* a v1 host whose only non-root hierarchy is one controller's */
	proc_is("9:name=systemd:/\n4:memory:/process_api/6c91\n0::/\n",
		"/process_api/6c91", "");
	proc_is("", "", "");
	proc_is("garbage", "", "");
}

static void put(const char *root, int pid, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%d", root, pid);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/%d/cgroup", root, pid);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_collect(void **state)
{
	char root[] = "/tmp/test_cgroups.XXXXXX", cmd[300];
	struct cgroup_table k;
	struct task_table t;
	const struct task_cgroup *c;
	struct tdbpf_task s = { 0 };
	__u32 tids[] = { 101, 102, 201, 301 }, pids[] = { 100, 100, 200, 300 };
	int i;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, 100, "1:name=systemd:/libpod_parent/libpod-" ID "\n");
	put(root, 200, "0::/user.slice\n");
	/* 300 is gone before it is read */
	tasks_init(&t);
	cgroups_init(&k);
	for (i = 0; i < 4; i++) {
		s.tid = tids[i];
		s.tgid = pids[i];
		assert_int_equal(tasks_add(&t, &s, NULL, 0), 0);
	}
	assert_int_equal(cgroups_collect(&k, &t, root), 0);
	assert_int_equal(k.nr, 3);
	c = cgroups_find(&k, 100);
	assert_non_null(c);
	assert_string_equal(c->id, ID);
	assert_string_equal(c->runtime, "podman");
	c = cgroups_find(&k, 200);
	assert_string_equal(c->path, "/user.slice");
	assert_string_equal(c->id, "");
	c = cgroups_find(&k, 300);
	assert_non_null(c);
	assert_string_equal(c->path, "");
	assert_null(cgroups_find(&k, 0));
	assert_null(cgroups_find(&k, 400));
	assert_int_equal(cgroups_nr_containers(&k), 1);
	/* read once: a process moved later keeps the first reading */
	snprintf(cmd, sizeof(cmd), "%s/100/cgroup", root);
	unlink(cmd);
	put(root, 300, "0::/moved\n");
	assert_int_equal(cgroups_collect(&k, &t, root), 0);
	assert_string_equal(cgroups_find(&k, 100)->id, ID);
	assert_string_equal(cgroups_find(&k, 300)->path, "");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	cgroups_free(&k);
	tasks_free(&t);
}

static bool has_pid(const struct cgroup_members *m, pid_t pid)
{
	size_t i;

	for (i = 0; i < m->nr; i++)
		if (m->pids[i] == pid)
			return true;
	return false;
}

/*
 * -G PATH on a made-up cgroupfs: v1 hierarchies and a v2 one, PATH found
 * in v2 first, then name=systemd, then a controller; the processes of
 * the cgroup and of those below it, read again when they change.
 */
static void test_members(void **state)
{
	char root[] = "/tmp/test_cgmembers.XXXXXX", mi[600], dir[512];
	char err[512], cmd[600];
	struct cgroup_members m;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/memory/docker/a/sub %s/unified/x %s/systemd/docker/a",
		 root, root, root);
	assert_int_equal(system(cmd), 0);
	snprintf(mi, sizeof(mi),
		 "35 31 0:32 / %s/memory rw,relatime - cgroup cgroup rw,memory\n"
		 "40 31 0:37 / %s/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
		 "41 31 0:38 / %s/unified rw,relatime - cgroup2 cgroup2 rw\n"
		 "22 1 0:21 / /proc rw - proc proc rw\n", root, root, root);
	write_in(root, "mountinfo", mi);
	write_in(root, "memory/docker/a/cgroup.procs", "10\n11\n");
	write_in(root, "memory/docker/a/sub/cgroup.procs", "12\n");
	write_in(root, "systemd/docker/a/cgroup.procs", "10\n");
	write_in(root, "unified/x/cgroup.procs", "");
	snprintf(mi, sizeof(mi), "%s/mountinfo", root);

	/* name=systemd's before a controller's */
	assert_int_equal(cgroup_members_open(&m, "/docker/a", mi, err,
					     sizeof(err)), 0);
	snprintf(dir, sizeof(dir), "%s/systemd/docker/a", root);
	assert_string_equal(m.dir, dir);
	cgroup_members_free(&m);
	/* v2 first */
	assert_int_equal(cgroup_members_open(&m, "x", mi, err, sizeof(err)), 0);
	snprintf(dir, sizeof(dir), "%s/unified/x", root);
	assert_string_equal(m.dir, dir);
	cgroup_members_free(&m);
	/* a directory as it is; the cgroups below it too */
	snprintf(dir, sizeof(dir), "%s/memory/docker/a", root);
	assert_int_equal(cgroup_members_open(&m, dir, mi, err, sizeof(err)), 0);
	assert_int_equal(cgroup_members_read(&m), 0);
	assert_int_equal(m.nr, 3);
	assert_true(has_pid(&m, 10) && has_pid(&m, 11) && has_pid(&m, 12));
	/* a process moved in from outside is there at the next reading */
	write_in(root, "memory/docker/a/sub/cgroup.procs", "12\n13\n");
	assert_int_equal(cgroup_members_read(&m), 0);
	assert_int_equal(m.nr, 4);
	assert_true(has_pid(&m, 13));
	cgroup_members_free(&m);
	/* nowhere: one line saying where it looked */
	assert_int_equal(cgroup_members_open(&m, "/nope", mi, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "-G /nope"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtimes),
		cmocka_unit_test(test_proc_lines),
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_members),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
