// SPDX-License-Identifier: GPL-2.0
/*
 * Every invalid invocation of ./tdbpf: non-zero exit within a second, no
 * output on stdout, exactly one line on stderr that names the problem and
 * the fix ("tdbpf: <problem>; <fix>"). The key words asserted are those of
 * the real messages in user/commands/options.c, subcommands.c, main.c
 * and user/sources/decode_input.c.
 *
 * Most cases need no privileges; the ones about root (symlink, FIFO and
 * ownership of -o files, not root) skip when not run as root. A refusal
 * that keeps the outputs and names the real cause: test_errors_causes.c.
 */
#include "errors_helpers.h"

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
	REFUSED(ARGS("-G", ""), WORDS("-G: empty cgroup path", "-G /docker/ID"));
	REFUSED(ARGS("-G", "/no/such/tdbpf-cgroup", "-d", "1"),
		WORDS("-G /no/such/tdbpf-cgroup: no such cgroup", "/sys/fs/cgroup"));
	REFUSED(ARGS("-p", "1", "-G", "/"), WORDS("-p, -t, -a and -G exclude each other"));
	REFUSED(ARGS("report", "-G", "/", "a.json"), WORDS("-G chooses the tasks to trace"));
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
	/* -r N: runs of a launched command, and only of one */
	REFUSED(ARGS("-r", "0", "--", "true"),
		WORDS("-r: invalid number of runs '0'", "1 to 100"));
	REFUSED(ARGS("-r", "101", "--", "true"), WORDS("'101'", "1 to 100"));
	REFUSED(ARGS("-r", "3", "-a"),
		WORDS("-r runs a launched command again", "-- COMMAND"));
	REFUSED(ARGS("-r", "3", "-I", "100", "--", "true"),
		WORDS("drop -I, --record"));
	REFUSED(ARGS("report", "-r", "3", "a.json"),
		WORDS("-r runs a launched command again"));
	/* -F: the table's columns by name */
	REFUSED(ARGS("-a", "-F", "sw,speed"),
		WORDS("-F: unknown column in 'sw,speed'", "cpu,runq,sw", "all"));
	REFUSED(ARGS("-a", "-F", ""), WORDS("-F: unknown column"));
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
	/* a window Prometheus would refuse: before connecting anywhere */
	REFUSED(ARGS("graph", "--prometheus", "http://127.0.0.1:1", "--range",
		     "-5m"),
		WORDS("--range '-5m'", "5m"));
	REFUSED(ARGS("graph", "--prometheus", "http://127.0.0.1:1", "--range",
		     "5"),
		WORDS("--range '5'"));
	REFUSED(ARGS("graph", "--prometheus", "http://127.0.0.1:1", "--range",
		     "0m"),
		WORDS("--range '0m'"));
	REFUSED(ARGS("graph", "--prometheus", "http://127.0.0.1:1", "--range",
		     "99999999999999d"),
		WORDS("--range '99999999999999d'"));
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

/*
 * An argument of 3,000 bytes makes a line longer than any buffer: the
 * line is cut in its middle ("[...]"), never at its end, so it still ends
 * with the fix. One case per kind of parser: an address, a number, a
 * model name, a path, a span spec.
 */
static void test_long_argument_keeps_fix(void **state)
{
	static const struct {
		const char *opt, *prefix, *fix;
	} cases[] = {
		{ "--listen", "", "e.g. --listen 9100, 127.0.0.1:9100 or [::1]:9100" },
		{ "-I", "", "e.g. -I 1000" },
		{ "--model", "", "neoverse-v2, armv8, software" },
		{ "-o", "/nonexistent/", "pick a writable path in an existing directory" },
		{ "--span", "", "or a program on PATH" },
	};
	char arg[3100], *p;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p = arg + snprintf(arg, sizeof(arg), "%s", cases[i].prefix);
		memset(p, 'x', 3000);
		p[3000] = 0;
		if (!strcmp(cases[i].opt, "--span"))
			strcat(arg, ":f");
		REFUSED(ARGS("-q", cases[i].opt, arg, "-d", "0.1", "--", "true"),
			WORDS("[...]", cases[i].fix));
	}
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
	/* there, but not a program: said as such */
	REFUSED(ARGS("--", "/etc/passwd"),
		WORDS("'/etc/passwd' is not executable", "chmod +x"));
	REFUSED(ARGS("--", "/tmp"), WORDS("'/tmp' is a directory"));
}

/*
 * A --span binary that is not there, refused before the BPF load as the
 * command is (libbpf would say so only at the attach, a second later);
 * a bare library name is libbpf's to look up, and passes this check.
 */
static void test_span_binary_missing(void **state)
{
	(void)state;
	NEED_ROOT();
	REFUSED(ARGS("--span", "/no/such/engine:op", "--", "true"),
		WORDS("no file '/no/such/engine'", "give the binary's path"));
	REFUSED(ARGS("--span", "no-such-engine-tdbpf:op", "--", "true"),
		WORDS("no file 'no-such-engine-tdbpf'", "a program on PATH"));
	REFUSED(ARGS("--span", "usdt:/no/such/lib.so", "--", "true"),
		WORDS("no file '/no/such/lib.so'"));
	REFUSED(ARGS("--span", "/tmp:op", "--", "true"),
		WORDS("'/tmp' is a directory"));
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
	/* each "-e SPEC -a": the words of its refusal */
	const struct {
		const char *spec;
		const char *const *words;
	} bad[] = {
		{ "", WORDS("empty -e") },
		{ "nosuch", WORDS("unknown event 'nosuch'", "sys:name",
				  "pmu/term=value/") },
		{ "sched:nope", WORDS("unknown tracepoint 'sched:nope'",
				      "no event 'nope'") },
		{ "nosys:nope", WORDS("unknown tracepoint 'nosys:nope'",
				      "no subsystem") },
		{ "nopmu/event=1/", WORDS("no PMU 'nopmu'",
					  "/sys/bus/event_source/devices") },
		{ "software/bogus=1/", WORDS("unknown term 'bogus'",
					     "software") },
		{ "cpu-clock:p", WORDS("modifier 'p'", ":u", ":k") },
		{ "{cpu-clock,cs", WORDS("unbalanced '{'") },
		{ "cs,context-switches",
		  WORDS("'context-switches' is the same as 'cs'") },
		{ "bpf-output", WORDS("not a count") },
		/* a bad character is named, and a newline does not split
		 * the line */
		{ "cycles\n", WORDS("bad character '?'") },
	};
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
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++)
		REFUSED(ARGS("-e", bad[i].spec, "-a"), bad[i].words);
	REFUSED(ARGS("-e", "cpu-clock", "--model", "software", "-a"),
		WORDS("'cpu-clock' is counted by the software model",
		      "drop it from -e"));
	if (have_pmu("cpu") || have_pmu("cpu_core") || have_pmu("armv8_pmuv3_0")) {
		print_message("this machine has a hardware PMU: the no-PMU cases are skipped\n");
		return;
	}
	/* cycles, r01c2: <not supported>, counted around (test_counts) */
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
	write_text(path, "UOPS_ISSUED.ANY 1\n");
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

	write_text(path, text);
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
	/* top writes no graph file: refused before any file is made */
	REFUSED(ARGS("top", "--graph", "g.dot", "-p", "1"),
		WORDS("top draws its graph's verdict on the terminal",
		      "writes no --graph file", "tdbpf --graph FILE.dot"));
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
	char link[128], target[128], quoted[132], buf[64] = "";
	struct stat st;
	FILE *f;

	(void)state;
	NEED_ROOT();
	/* this run's names: a suite beside it has its own */
	snprintf(link, sizeof(link), "%s", tmp_path("link"));
	snprintf(target, sizeof(target), "%s", tmp_path("target"));
	snprintf(quoted, sizeof(quoted), "'%s'", link);
	unlink(link);
	write_text(target, "precious\n");
	assert_int_equal(symlink(target, link), 0);
	REFUSED(ARGS("-o", link, "-a", "-d", "0.2"),
		WORDS(quoted, "symlink", "real path"));
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

/* @path holds @text, and root's, as it was written. */
static void assert_kept(const char *path, const char *text)
{
	char buf[64] = "";
	struct stat st;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, text);
	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_uid, 0);
}

/* New directories, root's @rdir (0755) and nobody's @udir, of 128 each. */
static void root_and_user_dirs(char *rdir, char *udir)
{
	snprintf(rdir, 128, "%s", tmp_path("rootdir"));
	snprintf(udir, 128, "%s", tmp_path("userdir"));
	assert_int_equal(mkdir(rdir, 0755), 0);
	assert_int_equal(mkdir(udir, 0755), 0);
	assert_int_equal(chown(udir, NOBODY, NOBODY), 0);
}

/*
 * A directory link in an output's path: a user links a directory of
 * their own to root's; root's tdbpf must neither overwrite a file there
 * nor create one, for -o, --record and --graph alike.
 */
static void test_output_dir_symlink_refused(void **state)
{
	char udir[128], rdir[128], link[160], victim[200], fresh[200];
	const char *opts[] = { "-o", "--record", "--graph" };
	int i;

	(void)state;
	NEED_ROOT();
	root_and_user_dirs(rdir, udir);
	snprintf(link, sizeof(link), "%s/dirlink", udir);
	snprintf(victim, sizeof(victim), "%s/victim", link);
	snprintf(fresh, sizeof(fresh), "%s/fresh", link);
	assert_int_equal(symlink(rdir, link), 0);
	assert_int_equal(lchown(link, NOBODY, NOBODY), 0);
	snprintf(fresh, sizeof(fresh), "%s/victim", rdir);
	write_text(fresh, "precious\n");
	snprintf(fresh, sizeof(fresh), "%s/fresh", link);
	for (i = 0; i < 3; i++) {
		refused_as((uid_t)-1, NULL,
			   ARGS(opts[i], victim, "--model", "software", "-a",
				"-d", "0.2"),
			   WORDS(victim, "through the symlink", link,
				 "real path"));
		refused_as((uid_t)-1, NULL,
			   ARGS(opts[i], fresh, "--model", "software", "-a",
				"-d", "0.2"),
			   WORDS("through the symlink", "real path"));
	}
	REFUSED(ARGS("list", "--model", "software", "-o", victim),
		WORDS("through the symlink"));
	snprintf(fresh, sizeof(fresh), "%s/victim", rdir);
	assert_kept(fresh, "precious\n");
	snprintf(fresh, sizeof(fresh), "%s/fresh", rdir);
	assert_int_equal(access(fresh, F_OK), -1);
	remove_tree(udir);
	remove_tree(rdir);
}

/*
 * Under sudo, outputs are created with the invoking user's rights: a
 * user allowed only "sudo tdbpf" gets no file in a directory they may
 * not write (root's 0755) and no write to root's file; in a directory
 * of their own, the file is made and is theirs.
 */
static void test_output_rights_under_sudo(void **state)
{
	char *env[] = { "SUDO_UID=65534", "SUDO_GID=65534", NULL };
	const char *opts[] = { "-o", "--record", "--graph" };
	char rdir[128], udir[128], x[200];
	char *old = tmp_path("old.txt");
	char *argv[] = { (char *)tdbpf_bin(), "list", "--model", "software",
			 "-o", x, NULL };
	struct run_result r;
	struct stat st;
	int i;

	(void)state;
	NEED_ROOT();
	root_and_user_dirs(rdir, udir);
	snprintf(x, sizeof(x), "%s/x", rdir);
	for (i = 0; i < 3; i++)
		refused_as((uid_t)-1, env,
			   ARGS(opts[i], x, "--model", "software", "-a", "-d",
				"0.2"),
			   WORDS(x, "Permission denied", "invoking user",
				 "uid 65534", "may write"));
	assert_int_equal(access(x, F_OK), -1);
	/* root's file in a directory anyone may write: not the user's */
	write_text(old, "root's\n");
	assert_int_equal(chmod(old, 0644), 0);
	refused_as((uid_t)-1, env,
		   ARGS("list", "--model", "software", "-o", old),
		   WORDS("Permission denied", "invoking user"));
	assert_kept(old, "root's\n");
	/* the user's own directory: made, and theirs */
	snprintf(x, sizeof(x), "%s/x", udir);
	assert_int_equal(run_capture(argv, env, (uid_t)-1, 0, 5, &r), 0);
	run_result_free(&r);
	assert_int_equal(stat(x, &st), 0);
	assert_int_equal(st.st_uid, NOBODY);
	assert_int_equal(st.st_gid, NOBODY);
	assert_true(st.st_size > 0);
	unlink(old);
	remove_tree(udir);
	remove_tree(rdir);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_missing_argument),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_control_bytes_quoted),
		cmocka_unit_test(test_no_such_pid),
		cmocka_unit_test(test_long_argument_keeps_fix),
		cmocka_unit_test(test_span_binary_missing),
		cmocka_unit_test(test_unknown_model),
		cmocka_unit_test(test_no_such_command),
		cmocka_unit_test(test_events_refused),
		cmocka_unit_test(test_decode_unreadable),
		cmocka_unit_test(test_decode_malformed),
		cmocka_unit_test(test_report_top_usage),
		cmocka_unit_test(test_output_cannot_create),
		cmocka_unit_test(test_output_symlink_refused),
		cmocka_unit_test(test_output_fifo_no_hang),
		cmocka_unit_test(test_output_dir_symlink_refused),
		cmocka_unit_test(test_output_rights_under_sudo),
		cmocka_unit_test(test_not_root),
	};

	return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
