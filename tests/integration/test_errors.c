// SPDX-License-Identifier: GPL-2.0
/*
 * Every invalid invocation of ./tdbpf: non-zero exit within a second, no
 * output on stdout, exactly one line on stderr that names the problem and
 * the fix ("tdbpf: <problem>; <fix>"). The key words asserted are those of
 * the real messages in user/commands/options.c, user/commands/main.c
 * and user/sources/decode_input.c.
 *
 * Most cases need no privileges; the ones about root (symlink, FIFO and
 * ownership of -o files, not root) skip when not run as root.
 */
#include <pwd.h>
#include "helpers.h"

#define NOBODY	65534

/* Run tdbpf with @args; assert the one-line refusal with every key word. */
static void refused_as(uid_t uid, char *const env[], const char *const *args,
		       const char *const *words)
{
	char *argv[64];
	struct run_result r;
	int i, n = 0;

	argv[n++] = (char *)tdbpf_bin();
	for (i = 0; args[i] && i < 62; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;

	run_capture(argv, env, uid, uid, 5, &r);
	if (r.status <= 0 || r.status >= 125 || r.secs >= 1.0 ||
	    count_lines(r.err) != 1 || strncmp(r.err, "tdbpf: ", 7) ||
	    !strchr(r.err, ';') || r.out[0]) {
		print_error("tdbpf %s ...: exit %d after %.3f s\nstdout: %s\nstderr: %s\n"
			    "want: exit 1 or 2 within 1 s, empty stdout, one line 'tdbpf: <problem>; <fix>'\n",
			    args[0], r.status, r.secs, r.out, r.err);
		fail();
	}
	for (i = 0; words[i]; i++) {
		if (!strstr(r.err, words[i])) {
			print_error("tdbpf %s ...: message '%s' lacks '%s'\n",
				    args[0], r.err, words[i]);
			fail();
		}
	}
	run_result_free(&r);
}

#define ARGS(...)  ((const char *const[]){ __VA_ARGS__, NULL })
#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define REFUSED(args, words) refused_as((uid_t)-1, NULL, args, words)

static int need_root(void)
{
	if (geteuid() != 0) {
		print_message("needs root (privilege cases): skipping\n");
		return -1;
	}
	return 0;
}

#define NEED_ROOT()                  \
	do {                         \
		if (need_root())     \
			skip();      \
	} while (0)

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* ---- the command line --------------------------------------------------- */

static void test_unknown_option(void **state)
{
	(void)state;
	REFUSED(ARGS("-Z", "-a"), WORDS("unknown option", "-Z", "--help"));
	REFUSED(ARGS("--bogus", "-a"), WORDS("unknown", "--bogus", "--help"));
	REFUSED(ARGS("frobnicate"),
		WORDS("unknown command", "frobnicate", "list", "decode"));
}

static void test_missing_argument(void **state)
{
	(void)state;
	REFUSED(ARGS("-p"), WORDS("-p", "needs an argument"));
	REFUSED(ARGS("-a", "-d"), WORDS("-d", "needs an argument"));
	REFUSED(ARGS("-a", "--model"), WORDS("--model", "needs an argument"));
	REFUSED(ARGS("-d", "5"), WORDS("nothing to trace", "-p PID", "-a"));
}

static void test_malformed(void **state)
{
	(void)state;
	REFUSED(ARGS("-p", "abc"), WORDS("invalid pid 'abc'", "-p 1234"));
	REFUSED(ARGS("-p", "12x"), WORDS("invalid pid '12x'", "-p 1234"));
	REFUSED(ARGS("-p", "-5"), WORDS("invalid pid '-5'"));
	REFUSED(ARGS("-t", "0"), WORDS("invalid tid '0'", "-t 1234"));
	REFUSED(ARGS("-a", "-d", "-1"),
		WORDS("invalid duration '-1'", "seconds > 0"));
	REFUSED(ARGS("-a", "-d", "0"),
		WORDS("invalid duration '0'", "seconds > 0"));
	REFUSED(ARGS("-a", "-d", "nan"), WORDS("invalid duration 'nan'"));
	REFUSED(ARGS("-a", "-I", "0"),
		WORDS("invalid interval '0'", "milliseconds >= 1"));
	REFUSED(ARGS("-a", "-I", "-5"),
		WORDS("invalid interval '-5'", "milliseconds >= 1"));
	REFUSED(ARGS("-a", "--top", "0"), WORDS("invalid --top '0'", ">= 1"));
	REFUSED(ARGS("-a", "-l", "4"), WORDS("invalid level '4'", "1, 2 or 3"));
	REFUSED(ARGS("-a", "--smt", "maybe"),
		WORDS("invalid --smt 'maybe'", "--smt on", "--smt off"));
	REFUSED(ARGS("-a", "--sort", "speed"),
		WORDS("unknown sort key 'speed'", "cpu"));
	REFUSED(ARGS("-a", "--max-tasks", "8"),
		WORDS("invalid --max-tasks '8'", "16"));
	REFUSED(ARGS("-x", ",", "-j", "-a"),
		WORDS("-x", "-j", "exclude each other"));
	REFUSED(ARGS("-p", "1", "-a"), WORDS("exclude each other", "only one"));
	/* a bad value names its option */
	REFUSED(ARGS("-a", "-d", "x"), WORDS("-d:", "invalid duration 'x'"));
	REFUSED(ARGS("-a", "-I", "x"), WORDS("-I:", "invalid interval 'x'"));
	REFUSED(ARGS("-p", "x"), WORDS("-p:", "invalid pid 'x'"));
	REFUSED(ARGS("-t", "x"), WORDS("-t:", "invalid tid 'x'"));
	REFUSED(ARGS("-a", "-l", "9"), WORDS("-l:", "invalid level '9'"));
	REFUSED(ARGS("-a", "--sort", "x"), WORDS("--sort:", "'x'"));
	REFUSED(ARGS("-a", "-o", ""), WORDS("-o:", "empty output file name"));
	REFUSED(ARGS("-a", "-x", ""), WORDS("-x:", "invalid separator"));
	/* the empty model is named as such, wherever the command word is */
	REFUSED(ARGS("--model", "", "list"),
		WORDS("--model:", "model name is empty", "--model software"));
	REFUSED(ARGS("list", "--model", ""), WORDS("--model:", "empty"));
	REFUSED(ARGS("--model", "software", "list"),
		WORDS("'list' is a command", "tdbpf list", "put -- before it"));
}

/*
 * A newline or escape in an argument must not split the message or reach
 * the terminal raw: the line is still one line.
 */
static void test_control_bytes_quoted(void **state)
{
	char *argv[] = { (char *)tdbpf_bin(), "-a", "-d", "1\nfake line\033[2J",
			 NULL };
	struct run_result r;

	(void)state;
	run_capture(argv, NULL, (uid_t)-1, 0, 5, &r);
	assert_int_equal(r.status, 2);
	assert_int_equal(count_lines(r.err), 1);
	assert_null(strchr(r.err, '\033'));
	assert_non_null(strstr(r.err, "invalid duration '1?fake line?[2J'"));
	run_result_free(&r);
	REFUSED(ARGS("--model", "x\ny", "-a"), WORDS("unknown model 'x?y'"));
}

/* ---- targets and models ------------------------------------------------- */

static void test_no_such_pid(void **state)
{
	(void)state;
	NEED_ROOT();	/* the privilege check comes first */
	/* above the kernel's pid_max limit (2^22): never a live process */
	REFUSED(ARGS("-p", "4194303"),
		WORDS("no process with pid 4194303", "ps"));
	REFUSED(ARGS("-t", "4194303"),
		WORDS("no thread with tid 4194303", "ps -eLf"));
	REFUSED(ARGS("-p", "1,4194303"), WORDS("pid 4194303"));
}

static void test_unknown_model(void **state)
{
	(void)state;
	REFUSED(ARGS("list", "--model", "foo"),
		WORDS("unknown model 'foo'", "use one of", "broadwellx",
		      "software"));
	REFUSED(ARGS("decode", "--model", "foo", "/dev/null"),
		WORDS("unknown model 'foo'", "use one of"));
	NEED_ROOT();
	REFUSED(ARGS("--model", "foo", "-a"),
		WORDS("unknown model 'foo'", "use one of"));
}

static void test_no_such_command(void **state)
{
	(void)state;
	NEED_ROOT();
	REFUSED(ARGS("--", "/no/such/cmd"),
		WORDS("command '/no/such/cmd' not found", "PATH"));
	REFUSED(ARGS("--", "no-such-command-tdbpf"),
		WORDS("command 'no-such-command-tdbpf' not found"));
	/* there, but not a program: said as such (sweep, issue 25) */
	REFUSED(ARGS("--", "/etc/passwd"),
		WORDS("'/etc/passwd' is not executable", "chmod +x"));
	REFUSED(ARGS("--", "/tmp"), WORDS("'/tmp' is a directory"));
}

/* ---- -e events ------------------------------------------------------------ */

static bool have_pmu(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s",
		 name);
	return access(path, F_OK) == 0;
}

/* Every -e the machine cannot count is refused before tracing. */
static void test_events_refused(void **state)
{
	char *many[40];
	int i, n = 0;

	(void)state;
	REFUSED(ARGS("list", "-e", "cpu-clock"), WORDS("-e", "drop it"));
	REFUSED(ARGS("decode", "--model", "bdx", "-e", "cpu-clock", "/dev/null"),
		WORDS("-e", "drop it from decode"));
	many[n++] = (char *)tdbpf_bin();
	for (i = 0; i < 17; i++) {
		many[n++] = "-e";
		many[n++] = "cpu-clock";
	}
	many[n++] = "-a";
	many[n] = NULL;
	REFUSED((const char *const *)many + 1, WORDS("too many -e options", "16"));
	NEED_ROOT();	/* the privilege check comes first */
	REFUSED(ARGS("-e", "", "-a"), WORDS("empty -e"));
	REFUSED(ARGS("-e", "nosuch", "-a"),
		WORDS("unknown event 'nosuch'", "sys:name", "pmu/term=value/"));
	REFUSED(ARGS("-e", "sched:nope", "-a"),
		WORDS("unknown tracepoint 'sched:nope'", "no event 'nope'"));
	REFUSED(ARGS("-e", "nosys:nope", "-a"),
		WORDS("unknown tracepoint 'nosys:nope'", "no subsystem"));
	REFUSED(ARGS("-e", "nopmu/event=1/", "-a"),
		WORDS("no PMU 'nopmu'", "/sys/bus/event_source/devices"));
	REFUSED(ARGS("-e", "software/bogus=1/", "-a"),
		WORDS("unknown term 'bogus'", "software"));
	REFUSED(ARGS("-e", "cpu-clock:p", "-a"),
		WORDS("modifier 'p'", ":u", ":k"));
	REFUSED(ARGS("-e", "{cpu-clock,cs", "-a"), WORDS("unbalanced '{'"));
	REFUSED(ARGS("-e", "cs,context-switches", "-a"),
		WORDS("'context-switches' is the same as 'cs'"));
	REFUSED(ARGS("-e", "bpf-output", "-a"), WORDS("not a count"));
	REFUSED(ARGS("-e", "cpu-clock", "--model", "software", "-a"),
		WORDS("'cpu-clock' is counted by the software model",
		      "drop it from -e"));
	/* a bad character is named, and a newline does not split the line */
	REFUSED(ARGS("-e", "cycles\n", "-a"), WORDS("bad character '?'"));
	if (have_pmu("cpu") || have_pmu("cpu_core") || have_pmu("armv8_pmuv3_0")) {
		print_message("this machine has a hardware PMU: the no-PMU cases are skipped\n");
		return;
	}
	REFUSED(ARGS("-e", "cycles", "-a"),
		WORDS("event 'cycles' cannot be counted here", "no hardware PMU"));
	REFUSED(ARGS("-e", "{cpu-clock,instructions}", "-a"),
		WORDS("'instructions'", "no hardware PMU"));
	REFUSED(ARGS("-e", "r01c2", "-a"), WORDS("'r01c2'", "no hardware PMU"));
	REFUSED(ARGS("-e", "cpu/event=0xc2,umask=0x1/", "-a"),
		WORDS("no PMU 'cpu'"));
}

/* ---- decode input -------------------------------------------------------- */

static void test_decode_unreadable(void **state)
{
	char *path = tmp_path("private.txt");

	(void)state;
	REFUSED(ARGS("decode", "--model", "broadwellx", "/no/such/file"),
		WORDS("cannot read '/no/such/file'", "No such file",
		      "readable file"));
	REFUSED(ARGS("decode", "--model", "broadwellx", "/tmp"),
		WORDS("cannot read '/tmp'", "directory"));
	REFUSED(ARGS("decode", "/dev/null"), WORDS("needs --model"));
	REFUSED(ARGS("decode", "--model", "software", "/dev/null"),
		WORDS("no TopDown tree", "broadwellx"));
	NEED_ROOT();
	/* a file nobody may read: decode needs no privileges, so run it so */
	write_file(path, "UOPS_ISSUED.ANY 1\n");
	assert_int_equal(chmod(path, 0600), 0);
	refused_as(NOBODY, NULL,
		   ARGS("decode", "--model", "broadwellx", path),
		   WORDS("cannot read", "Permission denied"));
	unlink(path);
}

/* one bad line in @text: refused with "line N" and @what */
static void decode_refused(const char *text, const char *line,
			   const char *what)
{
	char *path = tmp_path("counts.txt");

	write_file(path, text);
	REFUSED(ARGS("decode", "--model", "broadwellx", path),
		WORDS(path, line, what));
	unlink(path);
}

static void test_decode_malformed(void **state)
{
	(void)state;
	decode_refused("UOPS_ISSUED.ANY -5\n", "line 1:", "negative count");
	decode_refused("# header\nINST_RETIRED.ANY 1\nUOPS_ISSUED.ANY abc\n",
		       "line 3:", "'abc' is not a number");
	decode_refused("UOPS_ISSUED.ANY 18446744073709551616\n", "line 1:",
		       "larger than 2^64-1");
	/* the same event twice, spelled differently: names both lines */
	decode_refused("UOPS_ISSUED.ANY 1\nINST_RETIRED.ANY 2\n"
		       "uops_issued.any 3\n",
		       "line 3:", "second count for UOPS_ISSUED.ANY (first on line 1)");
	decode_refused("NO_SUCH.EVENT 1\n", "line 1:", "unknown event");
	decode_refused("\n\n", "no counts", "EVENT VALUE");
}

/* ---- output files and privileges ---------------------------------------- */

/* report and top: the refusals of their options, before any work */
static void test_report_top_usage(void **state)
{
	(void)state;
	REFUSED(ARGS("report"), WORDS("report needs a recording", "tdbpf -j"));
	REFUSED(ARGS("report", "a.json", "b.json"),
		WORDS("one recording", "'b.json'"));
	REFUSED(ARGS("report", "-p", "1", "a.json"),
		WORDS("report reads a recording", "drop -p"));
	REFUSED(ARGS("report", "-I", "100", "a.json"), WORDS("drop -p/-t/-a/-d/-I"));
	REFUSED(ARGS("report", "--model", "icelakex", "a.json"),
		WORDS("--model"));
	REFUSED(ARGS("report", "a.json", "-x", ",", "-j"),
		WORDS("exclude each other"));
	REFUSED(ARGS("report", "a.json", "--from", "5", "--to", "2"),
		WORDS("--from 5 is after --to 2"));
	REFUSED(ARGS("report", "a.json", "--from", "-1"),
		WORDS("invalid --from '-1'", "interval number"));
	REFUSED(ARGS("report", "a.json", "--to", "x"), WORDS("invalid --to 'x'"));
	REFUSED(ARGS("report", "a.json", "--sort", "size"),
		WORDS("unknown sort key 'size'"));
	REFUSED(ARGS("--from", "1", "-p", "1"),
		WORDS("--from and --to pick intervals", "tdbpf report FILE"));
	REFUSED(ARGS("report", "/no/such/file.json"),
		WORDS("/no/such/file.json: cannot read it", "No such file"));
	REFUSED(ARGS("report", "/tmp"), WORDS("Is a directory"));
	REFUSED(ARGS("report", "/etc/passwd"),
		WORDS("line 1: not a tdbpf JSON recording"));
	REFUSED(ARGS("report", "a.json", "--record", "b.json"),
		WORDS("report reads a recording", "--record"));
	REFUSED(ARGS("-o", "x.json", "--record", "x.json", "-p", "1"),
		WORDS("--record and -o name the same file 'x.json'"));
	REFUSED(ARGS("--record", "", "-p", "1"), WORDS("empty --record file name"));
	REFUSED(ARGS("top"), WORDS("nothing to trace"));
	REFUSED(ARGS("top", "-j", "-p", "1"),
		WORDS("top draws on the terminal", "add -o FILE"));
	REFUSED(ARGS("top", "-I", "0", "-p", "1"), WORDS("invalid interval '0'"));
}

static void test_output_cannot_create(void **state)
{
	(void)state;
	REFUSED(ARGS("-o", "/nonexistent/dir/x", "-a"),
		WORDS("cannot create output file '/nonexistent/dir/x'",
		      "No such file", "existing directory"));
	REFUSED(ARGS("list", "-o", "/nonexistent/dir/x"),
		WORDS("cannot create output file"));
}

/* A symlink planted where the report goes is refused, its target kept. */
static void test_output_symlink_refused(void **state)
{
	const char *link = "/tmp/tdbpf-link", *target = "/tmp/tdbpf-target";
	char buf[64] = "";
	struct stat st;
	FILE *f;

	(void)state;
	NEED_ROOT();
	unlink(link);
	write_file(target, "precious\n");
	assert_int_equal(symlink(target, link), 0);
	REFUSED(ARGS("-o", link, "-a", "-d", "0.2"),
		WORDS("'/tmp/tdbpf-link'", "symlink", "real path"));
	/* also for commands that need no BPF at all */
	REFUSED(ARGS("list", "--model", "software", "-o", link),
		WORDS("symlink"));
	f = fopen(target, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "precious\n");
	assert_int_equal(lstat(target, &st), 0);
	assert_int_equal(st.st_uid, 0);
	unlink(link);
	unlink(target);
}

/* A FIFO planted at the output path must not hang tdbpf in open(). */
static void test_output_fifo_no_hang(void **state)
{
	char *fifo = tmp_path("fifo");

	(void)state;
	unlink(fifo);
	assert_int_equal(mkfifo(fifo, 0666), 0);
	REFUSED(ARGS("list", "--model", "software", "-o", fifo),
		WORDS("cannot create output file", fifo));
	unlink(fifo);
}

/*
 * Under sudo, an output file tdbpf creates belongs to the invoking user,
 * but an existing file keeps its owner: chowning it would hand the user
 * any root file the path names.
 */
static void test_output_owner_under_sudo(void **state)
{
	char *env[] = { "SUDO_UID=65534", "SUDO_GID=65534", NULL };
	char *fresh = tmp_path("fresh.txt"), *old = tmp_path("old.txt");
	char *argv[] = { (char *)tdbpf_bin(), "list", "--model", "software",
			 "-o", NULL, NULL };
	struct run_result r;
	struct stat st;

	(void)state;
	NEED_ROOT();
	unlink(fresh);
	argv[5] = fresh;
	assert_int_equal(run_capture(argv, env, (uid_t)-1, 0, 5, &r), 0);
	run_result_free(&r);
	assert_int_equal(stat(fresh, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_true(st.st_size > 0);

	write_file(old, "root's\n");
	assert_int_equal(chmod(old, 0600), 0);
	argv[5] = old;
	assert_int_equal(run_capture(argv, env, (uid_t)-1, 0, 5, &r), 0);
	run_result_free(&r);
	assert_int_equal(stat(old, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	unlink(fresh);
	unlink(old);
}

/* Not root: one line saying what is needed, before anything else. */
static void test_not_root(void **state)
{
	(void)state;
	NEED_ROOT();	/* to become someone else */
	refused_as(NOBODY, NULL, ARGS("-a", "-d", "1"),
		   WORDS("needs root", "CAP_BPF", "CAP_PERFMON", "sudo"));
	refused_as(NOBODY, NULL, ARGS("-p", "1"), WORDS("needs root"));
	refused_as(NOBODY, NULL, ARGS("--", "/bin/true"), WORDS("needs root"));
}


/* ---- issue 25: lose nothing, name the real cause ------------------------ */

#include <pthread.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>

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
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
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
	char *argv[40];
	struct run_result r;
	int i, n = 0;

	argv[n++] = (char *)tdbpf_bin();
	for (i = 0; args[i] && i < 38; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	run_capture(argv, NULL, uid, uid, 10, &r);
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
	write_file(o, "KEEP\n");
	write_file(g, "KEEP G\n");
	write_file(rec, "KEEP R\n");
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
	write_file(f, "KEEP\n");
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

/* tdbpf after @limit (a shell's ulimit): exit 1, @want and not @wrong. */
static void limited(const char *limit, const char *args, const char *want,
		    const char *wrong)
{
	char cmd[512];
	char *sh[] = { "/bin/sh", "-c", cmd, NULL };
	struct run_result r;

	snprintf(cmd, sizeof(cmd), "%s; exec %s %s", limit, tdbpf_bin(),
		 args);
	run_capture(sh, NULL, (uid_t)-1, 0, 20, &r);
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
	/* the limits tdbpf raises for itself are not the command's */
	snprintf(cmd, sizeof(cmd),
		 "ulimit -Sn 40; ulimit -Ss 256; exec %s -e cpu-clock -d 2 -o /dev/null -- /bin/sh -c 'ulimit -Sn; ulimit -Ss'",
		 tdbpf_bin());
	{
		char *sh[] = { "/bin/sh", "-c", cmd, NULL };
		struct run_result r;

		assert_int_equal(run_capture(sh, NULL, (uid_t)-1, 0, 20, &r), 0);
		assert_string_equal(r.out, "40\n256\n");
		run_result_free(&r);
	}
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
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_missing_argument),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_control_bytes_quoted),
		cmocka_unit_test(test_no_such_pid),
		cmocka_unit_test(test_unknown_model),
		cmocka_unit_test(test_no_such_command),
		cmocka_unit_test(test_events_refused),
		cmocka_unit_test(test_decode_unreadable),
		cmocka_unit_test(test_decode_malformed),
		cmocka_unit_test(test_report_top_usage),
		cmocka_unit_test(test_output_cannot_create),
		cmocka_unit_test(test_output_symlink_refused),
		cmocka_unit_test(test_output_fifo_no_hang),
		cmocka_unit_test(test_output_owner_under_sudo),
		cmocka_unit_test(test_not_root),
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
