// SPDX-License-Identifier: GPL-2.0
/*
 * A refused or failed run loses nothing and names the real
 * cause: the outputs a refused run would have written are kept as they
 * were, two names of one file are refused, -p with a thread, SUDO_UID
 * and SUDO_GID that do not parse, a full output and a resource limit
 * named as what they are, ranges given, closed standard descriptors.
 * The rest of the invalid invocations: test_errors.c.
 *
 * The cases about root skip when not run as root.
 */
#include <pthread.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include "errors_helpers.h"

/* ---- lose nothing, name the real cause ------------------------------ */

/* A directory every user may write in (not sticky: nobody opens our files). */
static char *open_dir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/tdbpf-test-%d-XXXXXX", getpid());
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0777), 0);
	return dir;
}

static void rm_dir(const char *dir)
{
	assert_int_equal(remove_tree(dir), 0);
}

static void assert_text(const char *path, const char *want)
{
	char *got = file_text(path);

	if (strcmp(got, want)) {
		print_error("%s holds '%s', want '%s'\n", path, got, want);
		fail();
	}
	free(got);
}

/* Run tdbpf @args as @uid; exit @status and @word in stderr. */
static void refused_with(uid_t uid, const char *const *args, int status,
			 const char *word)
{
	struct run_result r;

	run_tdbpf(uid, NULL, args, 10, &r);
	if (r.status != status || !strstr(r.err, word)) {
		print_error("tdbpf %s %s ...: exit %d (want %d), stderr: %s(want '%s')\n",
			    args[0], args[1], r.status, status, r.err, word);
		fail();
	}
	run_result_free(&r);
}

/* A TCP port on loopback that is taken: the socket stays open (*fd). */
static int taken_port(int *fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);

	*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(*fd >= 0);
	assert_int_equal(bind(*fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(*fd, 1), 0);
	assert_int_equal(getsockname(*fd, (struct sockaddr *)&a, &al), 0);
	return ntohs(a.sin_port);
}

/*
 * Case 1: a run refused for any reason leaves the files it would have
 * written as they were (-o, --graph, --record), and leaves no new empty
 * file behind.
 */
static void test_refusal_keeps_outputs(void **state)
{
	char *dir = open_dir(), o[96], g[96], rec[96], fresh[96], port[16];
	int fd;

	(void)state;
	NEED_ROOT();
	snprintf(o, sizeof(o), "%s/r.txt", dir);
	snprintf(g, sizeof(g), "%s/g.dot", dir);
	snprintf(rec, sizeof(rec), "%s/rec.json", dir);
	snprintf(fresh, sizeof(fresh), "%s/new.txt", dir);
	write_text(o, "KEEP\n");
	write_text(g, "KEEP G\n");
	write_text(rec, "KEEP R\n");
	/* nobody may write them: the refusal must be the privilege one */
	assert_int_equal(chmod(o, 0666), 0);
	assert_int_equal(chmod(g, 0666), 0);
	assert_int_equal(chmod(rec, 0666), 0);

	refused_with((uid_t)-1, ARGS("-o", o, "--graph", g, "--record", rec,
				     "-p", "4194303"),
		     2, "no process with pid 4194303");
	refused_with((uid_t)-1, ARGS("-o", o, "--graph", g, "--record", rec,
				     "-e", "bogus", "-a"),
		     2, "unknown event 'bogus'");
	snprintf(port, sizeof(port), "%d", taken_port(&fd));
	refused_with((uid_t)-1, ARGS("-o", o, "--graph", g, "--record", rec,
				     "-e", "cpu-clock", "--listen", port,
				     "-a", "-d", "1"),
		     1, "Address already in use");
	close(fd);
	refused_with(NOBODY, ARGS("-o", o, "--graph", g, "--record", rec,
				  "-a", "-d", "1"),
		     1, "needs root");
	refused_with((uid_t)-1, ARGS("report", "/nonexistent", "-o", o), 2,
		     "No such file");
	refused_with((uid_t)-1, ARGS("decode", "--model", "broadwellx", "-o",
				     o, "/nonexistent"),
		     2, "No such file");
	refused_with((uid_t)-1, ARGS("list", "--model", "bogus", "-o", o), 2,
		     "unknown model 'bogus'");
	assert_text(o, "KEEP\n");
	assert_text(g, "KEEP G\n");
	assert_text(rec, "KEEP R\n");

	/* a file that was not there is not left behind, empty */
	refused_with((uid_t)-1, ARGS("-o", fresh, "-p", "4194303"), 2,
		     "no process");
	refused_with((uid_t)-1, ARGS("report", "/nonexistent", "-o", fresh), 2,
		     "No such file");
	refused_with((uid_t)-1, ARGS("--graph", fresh, "-e", "bogus", "-a"), 2,
		     "unknown event");
	assert_int_equal(access(fresh, F_OK), -1);
	rm_dir(dir);
}

/*
 * Cases 2 and 3: two names of one file (./x, an absolute path, a hard
 * link) are the same file, whether output and output or output and
 * input; refused before anything is written, the file intact.
 */
static void test_same_file_refused(void **state)
{
	char *dir = open_dir(), f[96], dotf[120], hl[96], abs[160];
	char cmd[512];
	struct run_result r;
	char *sh[] = { "/bin/sh", "-c", cmd, NULL };

	(void)state;
	snprintf(f, sizeof(f), "%s/run.jsonl", dir);
	snprintf(dotf, sizeof(dotf), "%s/./run.jsonl", dir);
	snprintf(hl, sizeof(hl), "%s/link.jsonl", dir);
	snprintf(abs, sizeof(abs), "%s/../%s/run.jsonl", dir, dir + 5);
	write_text(f, "KEEP\n");
	assert_int_equal(link(f, hl), 0);

	REFUSED(ARGS("report", f, "-o", f), WORDS("same file", f));
	REFUSED(ARGS("report", f, "-o", hl), WORDS("same file"));
	REFUSED(ARGS("report", f, "-o", dotf), WORDS("same file"));
	REFUSED(ARGS("-o", f, "--record", dotf, "-p", "1"),
		WORDS("same file", "--record", "-o"));
	REFUSED(ARGS("-o", f, "--record", abs, "-p", "1"), WORDS("same file"));
	REFUSED(ARGS("-o", f, "--record", hl, "-p", "1"), WORDS("same file"));
	REFUSED(ARGS("--graph", f, "-o", dotf, "-p", "1"),
		WORDS("same file", "--graph"));
	REFUSED(ARGS("--graph", hl, "--record", f, "-p", "1"),
		WORDS("same file", "--graph", "--record"));
	/* two names of a file that is not there yet are one file too */
	REFUSED(ARGS("-o", "/tmp/tdbpf-none.txt", "--record",
		     "/tmp/./tdbpf-none.txt", "-p", "1"),
		WORDS("same file"));
	assert_int_equal(access("/tmp/tdbpf-none.txt", F_OK), -1);
	/* stdout appended to the recording being read: it would never end */
	snprintf(cmd, sizeof(cmd), "exec %s report %s >>%s", tdbpf_bin(), f,
		 hl);
	run_capture(sh, NULL, (uid_t)-1, 0, 5, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "same file"));
	run_result_free(&r);
	assert_text(f, "KEEP\n");
	rm_dir(dir);
}

static void *idle_thread(void *arg)
{
	*(volatile pid_t *)arg = (pid_t)syscall(SYS_gettid);
	pause();
	return NULL;
}

/* Case 6: -p with a thread that is not its process's leader. */
static void test_pid_is_a_thread(void **state)
{
	volatile pid_t tid = 0;
	char t[16], p[16], want[96];
	pthread_t th;

	(void)state;
	NEED_ROOT();
	assert_int_equal(pthread_create(&th, NULL, idle_thread, (void *)&tid),
			 0);
	while (!tid)
		usleep(1000);
	snprintf(t, sizeof(t), "%d", tid);
	snprintf(p, sizeof(p), "%d", getpid());
	snprintf(want, sizeof(want), "thread %d of process %d", tid, getpid());
	REFUSED(ARGS("-p", t, "-d", "1"), WORDS(want, "-t", t, "-p", p));
	pthread_cancel(th);
	pthread_join(th, NULL);
}

/* Case 9: SUDO_UID/SUDO_GID that do not parse never mean root. */
static void test_sudo_ids_fail_closed(void **state)
{
	static char *const bad[][3] = {
		{ "SUDO_UID=65534x", "SUDO_GID=65534", NULL },
		{ "SUDO_UID=abc", "SUDO_GID=65534", NULL },
		{ "SUDO_UID=-1", "SUDO_GID=65534", NULL },
		{ "SUDO_UID=", "SUDO_GID=65534", NULL },
		{ "SUDO_UID=65534", "SUDO_GID=x", NULL },
		{ "SUDO_UID=65534", "SUDO_GID", NULL },
		{ "SUDO_UID=4294967296", "SUDO_GID=65534", NULL },
	};
	size_t i;

	(void)state;
	NEED_ROOT();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		refused_as((uid_t)-1, bad[i],
			   ARGS("-d", "2", "--", "/usr/bin/id", "-u"),
			   WORDS("SUDO_"));
		refused_as((uid_t)-1, bad[i],
			   ARGS("list", "--model", "software", "-o",
				"/tmp/tdbpf-sudo-owner.txt"),
			   WORDS("SUDO_"));
	}
	assert_int_equal(access("/tmp/tdbpf-sudo-owner.txt", F_OK), -1);
}

/* tdbpf @args with /dev/full as one output: the error names that output */
static void full_output(const char *const *args, const char *what)
{
	char *argv[40];
	struct run_result r;
	int i, n = 0;

	argv[n++] = (char *)tdbpf_bin();
	for (i = 0; args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	run_capture(argv, NULL, (uid_t)-1, 0, 20, &r);
	if (r.status != 1 || !strstr(r.err, what) ||
	    !strstr(r.err, "/dev/full") || strstr(r.err, "standard output") ||
	    count_lines(r.err) != 1) {
		print_error("tdbpf %s ...: exit %d, stderr: %s(want exit 1, one line naming %s and /dev/full)\n",
			    args[0], r.status, r.err, what);
		fail();
	}
	run_result_free(&r);
}

/* Case 13: a full --record, --graph or -o is named as what it is. */
static void test_full_output_named(void **state)
{
	char *rec = tmp_path("full-rec.json");
	char *argv[] = { (char *)tdbpf_bin(), "-a", "-d", "0.3", "-j", "-o",
			 rec, NULL };
	char line[256];
	struct run_result r;

	(void)state;
	NEED_ROOT();
	full_output(ARGS("-e", "cpu-clock", "-a", "-d", "0.3", "-o",
			 "/dev/null", "--record", "/dev/full"),
		    "recording");
	full_output(ARGS("-e", "cpu-clock", "-a", "-d", "0.3", "-o",
			 "/dev/null", "--graph", "/dev/full"),
		    "graph");
	assert_int_equal(run_capture(argv, NULL, (uid_t)-1, 0, 20, &r), 0);
	run_result_free(&r);
	full_output(ARGS("report", "-o", "/dev/full", rec), "report");
	/* and the input is not blamed */
	argv[1] = "report";
	argv[2] = "-o";
	argv[3] = "/dev/full";
	argv[4] = rec;
	argv[5] = NULL;
	/* (a recording of the default model: -e's is case 8) */
	run_capture(argv, NULL, (uid_t)-1, 0, 20, &r);
	snprintf(line, sizeof(line), "tdbpf: %s:", rec);
	assert_null(strstr(r.err, line));
	run_result_free(&r);
	unlink(rec);
}

/* @script run by /bin/sh: its ulimits hold for the tdbpf it execs */
static int in_shell(const char *script, struct run_result *r)
{
	char *sh[] = { "/bin/sh", "-c", (char *)script, NULL };

	return run_capture(sh, NULL, (uid_t)-1, 0, 20, r);
}

/* tdbpf after @limit (a shell's ulimit): exit 1, @want and not @wrong. */
static void limited(const char *limit, const char *args, const char *want,
		    const char *wrong)
{
	char cmd[512];
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "%s; exec %s %s", limit, tdbpf_bin(),
		 args);
	in_shell(cmd, &r);
	if (r.status != 1 || !strstr(r.err, want) ||
	    (wrong && strstr(r.err, wrong))) {
		print_error("%s; tdbpf %s: exit %d, stderr: %s(want exit 1 and '%s'%s%s)\n",
			    limit, args, r.status, r.err, want,
			    wrong ? ", not " : "", wrong ? wrong : "");
		fail();
	}
	run_result_free(&r);
}

/* Case 14: a resource limit that stops tdbpf is named, with its fix. */
static void test_limits_named(void **state)
{
	char *big = tmp_path("big.json");
	struct run_result r;
	char cmd[512];
	FILE *f;
	int i;

	(void)state;
	NEED_ROOT();
	/* a sanitized build reserves terabytes of shadow: no ulimit -v */
	if (getenv("ASAN_OPTIONS"))
		skip();
	limited("ulimit -v 20000", "-e cpu-clock -a -d 0.3 -o /dev/null",
		"ulimit -v", "BTF");
	limited("ulimit -n 16", "-e cpu-clock -a -d 0.3 -o /dev/null",
		"ulimit -n", "Invalid argument");
	limited("ulimit -n 5", "-e cpu-clock -a -d 0.3 -o /dev/null",
		"ulimit -n", "(-24)");
	limited("ulimit -n 32", "-e cpu-clock -a -d 0.3 -o /dev/null --listen 0",
		"ulimit -n", "report it");
	/* sweep: a stack too small for the report writers' buffers */
	limited("ulimit -s 256", "list --model software -o /dev/null",
		"ulimit -s", NULL);
	/*
	 * the graph's files counted in what tdbpf raises the limit to:
	 * every wakeup keeps all its links (a sampled window has them for
	 * a tenth of the time), 52 files against the 50 once raised to
	 */
	snprintf(cmd, sizeof(cmd),
		 "ulimit -Sn 40; exec %s --wakeups -e cpu-clock -d 1 -o /dev/null -- true",
		 tdbpf_bin());
	if (in_shell(cmd, &r) != 0) {
		print_error("%s: exit %d, stderr: %s\n", cmd, r.status, r.err);
		fail();
	}
	run_result_free(&r);
	/* the limits tdbpf raises for itself are not the command's */
	snprintf(cmd, sizeof(cmd),
		 "ulimit -Sn 40; ulimit -Ss 256; exec %s -e cpu-clock -d 2 -o /dev/null -- /bin/sh -c 'ulimit -Sn; ulimit -Ss'",
		 tdbpf_bin());
	assert_int_equal(in_shell(cmd, &r), 0);
	assert_string_equal(r.out, "40\n256\n");
	run_result_free(&r);
	/* a report that is valid JSON and only too big for the memory */
	f = fopen(big, "w");
	assert_non_null(f);
	fputs("{\"model\":\"software\",\"level\":0,\"smt\":false,\"groups\":[],\"duration_ns\":1,\"tasks\":[", f);
	for (i = 0; i < 4000000; i++)
		fputs(i ? ",{}" : "{}", f);
	fputs("]}\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "report %s -o /dev/null", big);
	limited("ulimit -v 150000", cmd, "ulimit -v", "not a tdbpf");
	unlink(big);
}

/* Case 15: a number out of range gives the range. */
static void test_range_bounds_given(void **state)
{
	(void)state;
	REFUSED(ARGS("-a", "-d", "31536001"),
		WORDS("invalid duration '31536001'", "at most 31536000"));
	REFUSED(ARGS("-a", "-I", "86400001"),
		WORDS("invalid interval '86400001'", "at most 86400000"));
}

/*
 * Sweep (standard descriptors): a closed stdout is refused, not written
 * into whatever fd 1 became (a BPF map's: 'Invalid argument'); a closed
 * stderr keeps warnings out of the -o file that took fd 2.
 */
static void test_closed_std_fds(void **state)
{
	char *o = tmp_path("std.txt"), cmd[512], *text;
	char *sh[] = { "/bin/sh", "-c", cmd, NULL };
	struct run_result r;

	(void)state;
	NEED_ROOT();
	snprintf(cmd, sizeof(cmd), "exec %s -e cpu-clock -a -d 0.3 >&-",
		 tdbpf_bin());
	run_capture(sh, NULL, (uid_t)-1, 0, 10, &r);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "standard output is closed"));
	run_result_free(&r);
	/* the default model warns (no PMU here) on stderr, closed */
	snprintf(cmd, sizeof(cmd),
		 "exec %s -a -d 0.3 -I 100 -o %s 2>&-", tdbpf_bin(), o);
	run_capture(sh, NULL, (uid_t)-1, 0, 10, &r);
	assert_int_equal(r.status, 0);
	run_result_free(&r);
	text = file_text(o);
	if (strstr(text, "tdbpf: warning") || strstr(text, "no hardware PMU") ||
	    strncmp(text, "tdbpf: model", 12)) {
		print_error("the report holds stderr's lines:\n%.400s\n", text);
		fail();
	}
	free(text);
	unlink(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusal_keeps_outputs),
		cmocka_unit_test(test_same_file_refused),
		cmocka_unit_test(test_pid_is_a_thread),
		cmocka_unit_test(test_sudo_ids_fail_closed),
		cmocka_unit_test(test_full_output_named),
		cmocka_unit_test(test_limits_named),
		cmocka_unit_test(test_range_bounds_given),
		cmocka_unit_test(test_closed_std_fds),
	};

	return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
