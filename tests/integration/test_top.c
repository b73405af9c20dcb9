// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf top in a real terminal: tmux (its own server socket, an 80x24
 * window running sh) types the commands and keys, and capture-pane reads
 * the screen back. Checked: the spinners workload's threads appear,
 * sorted by the column the title names ('s' changes it), 'f' folds them
 * by name, 'h' and 'p' work, a resize redraws at the new size; q,
 * SIGTERM, Ctrl-C, -d and the target's exit each leave the alternate
 * screen and give the shell its prompt back, exit 0, with the terminal's
 * modes restored (icanon, echo). Colour is used where the terminal has
 * it and not with NO_COLOR or a monochrome TERM.
 */
#include <dirent.h>
#include <regex.h>
#include "helpers.h"

static char sock[128];	/* tmux -S: a server of our own */
static pid_t workers[8];	/* killed at the end, whatever failed */
static int nr_workers;

static int need_tmux(void)
{
	if (system("tmux -V >/dev/null 2>&1")) {
		print_message("tmux is not installed (make deps installs it): skipping\n");
		return -1;
	}
	return 0;
}

/* tmux -S SOCK @fmt...: its status, as shell() gives it */
static int vtmux(const char *fmt, va_list ap)
{
	char head[160];

	snprintf(head, sizeof(head), "tmux -S %s ", sock);
	return vshell(head, fmt, ap);
}

static int tmux(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int tmux(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vtmux(fmt, ap);
	va_end(ap);
	return rc;
}

/* The pane's text (with escape sequences when @esc), malloc'ed. */
static char *capture(bool esc)
{
	char cmd[256];
	FILE *p;
	char *s;

	snprintf(cmd, sizeof(cmd), "tmux -S %s capture-pane -p %s-t t 2>/dev/null",
		 sock, esc ? "-e " : "");
	p = popen(cmd, "r");
	assert_non_null(p);
	s = read_all(fileno(p));
	pclose(p);
	return s;
}

static int alternate_on(void)
{
	char cmd[256], buf[16] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "tmux -S %s display-message -p -t t '#{alternate_on}'", sock);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(buf, sizeof(buf), p))
		buf[0] = 0;
	pclose(p);
	return atoi(buf);
}

/* Wait up to @ms for the screen to hold @want (and not @unwanted). */
static char *wait_screen(const char *want, const char *unwanted, int ms)
{
	char *s = NULL;
	int i;

	for (i = 0; i < ms / 50; i++) {
		free(s);
		s = capture(false);
		if (strstr(s, want) && !(unwanted && strstr(s, unwanted)))
			return s;
		usleep(50000);
	}
	print_error("screen never showed '%s'%s%s:\n%s\n", want,
		    unwanted ? " without " : "", unwanted ? unwanted : "", s);
	fail();
	return s;
}

/* Line @n (from 0) of @screen, in @buf. */
static const char *screen_line(const char *screen, int n, char *buf,
			       size_t len)
{
	const char *p = screen, *e;

	while (n-- > 0 && p && (p = strchr(p, '\n')))
		p++;
	if (!p)
		return "";
	e = strchr(p, '\n');
	snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	return buf;
}

static pid_t start_spinners(int secs)
{
	char d[16], line[128];
	char *argv[] = { (char *)workload("spinners"), "-n", "3", "-d", d,
			 NULL };
	struct child c;
	pid_t pid;

	snprintf(d, sizeof(d), "%d", secs);
	/* "pid=N", then "ready": every thread is named */
	pid = start_workload(argv, 0, &c);
	assert_int_equal(pid, c.pid);
	assert_non_null(read_line(c.out, line, sizeof(line), 5000));
	assert_string_equal(line, "ready");
	close(c.out);	/* it may print its last lines into nothing */
	if (nr_workers < 8)
		workers[nr_workers++] = pid;
	return pid;
}

static void stop_spinners(pid_t pid)
{
	kill(pid, SIGTERM);
	wait_for(pid, 5);
}

/* A shell in an 80x24 window at the repository root, with @env. */
static void open_window(const char *env)
{
	static int windows;
	char cwd[1024], tag[32];
	int i, rc = -1;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	/*
	 * A socket of its own per window: a client that reaches the last
	 * window's server while it is still exiting gets "server exited
	 * unexpectedly" (seen in CI); the retry covers a server that dies
	 * while starting on a loaded machine.
	 */
	snprintf(tag, sizeof(tag), "tmux%d", ++windows);
	snprintf(sock, sizeof(sock), "%s", tmp_path(tag));
	for (i = 0; i < 3 && rc; i++) {
		if (i)
			usleep(200000);
		rc = tmux("-f /dev/null new-session -d -s t -x 80 -y 24 "
			  "-c '%s' 'env PS1=\"$ \" %s sh'", cwd, env);
	}
	assert_int_equal(rc, 0);
	/* the window keeps its size whatever a client would say */
	tmux("set-option -t t -g window-size manual");
	wait_screen("$", NULL, 3000);
}

static void close_window(void)
{
	if (!sock[0])
		return;
	tmux("kill-server 2>/dev/null");
	unlink(sock);
}

static void type(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Type the command @fmt... into the window's shell, and Enter: @fmt, a
 * literal of this file's, quoted into send-keys' own format.
 */
static void type(const char *fmt, ...)
{
	char keys[512];
	va_list ap;
	int rc;

	snprintf(keys, sizeof(keys), "send-keys -t t -l '%s'", fmt);
	va_start(ap, fmt);
	rc = vtmux(keys, ap);
	va_end(ap);
	assert_int_equal(rc, 0);
	assert_int_equal(tmux("send-keys -t t Enter"), 0);
}

/*
 * Each terminal test's start: skipped without root, BPF or tmux; the
 * spinners workload for @secs, and a window with @env unless @env is
 * NULL (the test opens its own). The workload's pid.
 */
static pid_t setup(int secs, const char *env)
{
	pid_t pid;

	NEED_BPF();
	if (need_tmux())
		skip();
	pid = start_spinners(secs);
	if (env)
		open_window(env);
	return pid;
}

/* tdbpf top on @pid; returns the screen once the threads show. */
static char *start_top(pid_t pid)
{
	type("%s top -I 300 -p %d; echo TOP-EXIT=$?", tdbpf_bin(), pid);
	return wait_screen("spin-2", NULL, 8000);
}

/* Back at the prompt, top's screen gone, the terminal's modes restored. */
static void assert_restored(const char *how)
{
	char *s = wait_screen("TOP-EXIT=0", NULL, 5000);

	if (strstr(s, "BREAKDOWN") || alternate_on()) {
		print_error("%s: top's screen is still there:\n%s\n", how, s);
		fail();
	}
	free(s);
	type("clear; stty -a | tr \" ;\" \"\\n\\n\" | grep -x -e icanon -e echo -e -icanon -e -echo | tr \"\\n\" \" \"; echo MODES");
	s = wait_screen("MODES", "stty", 3000);
	if (!strstr(s, "icanon echo MODES")) {
		print_error("%s: terminal modes not restored:\n%s\n", how, s);
		fail();
	}
	free(s);
	type("clear");
}

/*
 * The rows below the header: column @col (0 CPU%, 1 RUNQ%, 2 OFF%) never
 * grows from one row to the next; how many rows there were. At 80
 * columns OFF% may have given way to the verdict (a thread's is what
 * CPU% and RUNQ% leave of 100): then it is read so, to the rounding.
 */
static int check_sorted(const char *screen, int col)
{
	char l[256], tid[32], comm[64];
	double v[3], last = 1e9, slack;
	int y, n = 0, got;
	bool off;

	off = strstr(screen_line(screen, 3, l, sizeof(l)), "OFF%") != NULL;
	slack = col == 2 && !off ? 0.2 : 0;
	for (y = 4; y < 23; y++) {
		screen_line(screen, y, l, sizeof(l));
		got = sscanf(l, "%31s %63s %lf %lf %lf", tid, comm, &v[0],
			     &v[1], &v[2]);
		if (got < 4 || (off && got != 5))
			break;
		if (!off)
			v[2] = 100 - v[0] - v[1];
		if (v[col] > last + slack) {
			print_error("column %d not sorted at row %d:\n%s\n", col, y,
				    screen);
			fail();
		}
		last = v[col];
		n++;
	}
	return n;
}

/* The pid of the shell's child (top), from /proc. */
static pid_t top_pid(void)
{
	char cmd[256], buf[64] = "";
	pid_t sh = 0, child = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "tmux -S %s display-message -p -t t '#{pane_pid}'", sock);
	p = popen(cmd, "r");
	if (fgets(buf, sizeof(buf), p))
		sh = atoi(buf);
	pclose(p);
	snprintf(cmd, sizeof(cmd), "/proc/%d/task/%d/children", sh, sh);
	p = fopen(cmd, "r");
	if (p) {
		if (fscanf(p, "%d", &child) != 1)
			child = 0;
		fclose(p);
	}
	return child;
}

static void test_threads_keys_quit(void **state)
{
	char *s, l[256];
	pid_t pid;
	int y;

	(void)state;
	pid = setup(60, "");
	s = start_top(pid);
	assert_int_equal(alternate_on(), 1);
	free(s);
	/* a full interval of all three: spin-2 burns about 3/3, spin-0 1/3 */
	usleep(700000);
	s = capture(false);
	assert_non_null(strstr(screen_line(s, 0, l, sizeof(l)), "tdbpf top - model"));
	assert_non_null(strstr(screen_line(s, 0, l, sizeof(l)), "sort cpu"));
	assert_non_null(strstr(screen_line(s, 3, l, sizeof(l)), "TID COMM"));
	assert_non_null(strstr(screen_line(s, 23, l, sizeof(l)), "q quit"));
	/* every thread of the workload, sorted by CPU% */
	assert_non_null(strstr(s, "spin-0"));
	assert_non_null(strstr(s, "spin-1"));
	assert_non_null(strstr(s, "spinners"));
	assert_true(check_sorted(s, 0) >= 4);
	free(s);

	/* s: sorted by run-queue wait, said in the title */
	tmux("send-keys -t t s");
	s = wait_screen("sort runq", NULL, 2000);
	assert_true(check_sorted(s, 1) >= 4);
	free(s);
	tmux("send-keys -t t s");
	s = wait_screen("sort offcpu", NULL, 2000);
	assert_true(check_sorted(s, 2) >= 4);
	free(s);
	/* f: one row of 3 folded threads */
	tmux("send-keys -t t f");
	s = wait_screen("spin-*", "spin-0", 2000);
	assert_non_null(strstr(s, "(3) spin-*"));
	assert_non_null(strstr(s, "spinners"));
	free(s);
	tmux("send-keys -t t f");
	free(wait_screen("spin-0", "spin-*", 2000));
	/* h: the help; h again: the rows */
	tmux("send-keys -t t h");
	free(wait_screen("fold threads by name", "spin-0", 2000));
	tmux("send-keys -t t h");
	free(wait_screen("spin-0", NULL, 2000));
	/* p: paused, the rows stay */
	tmux("send-keys -t t p");
	free(wait_screen("[paused]", NULL, 2000));
	tmux("send-keys -t t p");

	/* a resize redraws at the new size: the key line moves down */
	tmux("resize-window -t t -x 100 -y 30");
	s = wait_screen("spin-0", NULL, 2000);
	for (y = 0; y < 200 && !strstr(screen_line(s, 29, l, sizeof(l)), "q quit"); y++) {
		free(s);
		usleep(50000);
		s = capture(false);
	}
	assert_non_null(strstr(screen_line(s, 29, l, sizeof(l)), "q quit"));
	free(s);
	assert_int_equal(alternate_on(), 1);
	tmux("resize-window -t t -x 80 -y 24");

	tmux("send-keys -t t q");
	assert_restored("q");
	/* the workload was only watched */
	assert_int_equal(kill(pid, 0), 0);
	close_window();
	stop_spinners(pid);
}

static void test_sigterm_and_target_exit(void **state)
{
	pid_t pid, top;

	(void)state;
	pid = setup(60, "");
	free(start_top(pid));
	top = top_pid();
	assert_true(top > 0);
	assert_int_equal(kill(top, SIGTERM), 0);
	assert_restored("SIGTERM");
	/* Ctrl-C typed in the terminal: SIGINT to the foreground job */
	free(start_top(pid));
	tmux("send-keys -t t C-c");
	assert_restored("Ctrl-C");
	assert_int_equal(kill(pid, 0), 0);
	stop_spinners(pid);

	/* the target ends while top watches it */
	pid = start_spinners(3);
	free(start_top(pid));
	assert_restored("target exit");
	wait_for(pid, 5);
	close_window();
}

/* Colour codes on the screen (SGR 3x / 38;5): red, green, ... */
static bool has_colour(const char *s)
{
	const char *p;

	for (p = s; (p = strstr(p, "\033[")); p += 2) {
		const char *q = p + 2;

		/* any parameter 30-37, 38, 90-97 in this sequence */
		while (*q && *q != 'm' && q - p < 32) {
			int v = atoi(q);

			if ((v >= 30 && v <= 38) || (v >= 90 && v <= 97))
				return true;
			while (*q && *q != ';' && *q != 'm')
				q++;
			if (*q == ';')
				q++;
		}
	}
	return false;
}

static void test_colour_and_monochrome(void **state)
{
	static const char *const envs[] = {
		"TERM=screen-256color", "NO_COLOR=1 TERM=screen-256color",
		"TERM=vt100",
	};
	size_t i;
	pid_t pid;
	char *s;

	(void)state;
	pid = setup(60, NULL);
	for (i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
		open_window(envs[i]);
		free(start_top(pid));
		usleep(400000);
		s = capture(true);
		/* the rows are there either way; colour only where allowed */
		assert_non_null(strstr(s, "spin-1"));
		if (has_colour(s) != (i == 0)) {
			print_error("%s: colour %s expected:\n%s\n", envs[i],
				    i == 0 ? "" : "not", s);
			fail();
		}
		free(s);
		tmux("send-keys -t t q");
		assert_restored(envs[i]);
		close_window();
	}
	stop_spinners(pid);
}

/*
 * --wakeups: the interval's bottleneck line above the table and a WAITS
 * ON column. The spinners sleep on timers between bursts and wait on
 * no one: no task waits on another, and each row's WAITS ON is a timer,
 * or on a busy machine what held the CPU ("cpu:spin-1", "cpu-other"):
 * a name and a share, never empty.
 */
static void test_wakeups_line(void **state)
{
	char *s, l[256];
	pid_t pid;
	int y, x, timers = 0;

	(void)state;
	pid = setup(60, "TERM=screen-256color");
	type("%s top --wakeups -I 300 -p %d; echo TOP-EXIT=$?", tdbpf_bin(),
	     pid);
	free(wait_screen("spin-2", NULL, 8000));
	usleep(700000);
	s = capture(false);
	screen_line(s, 1, l, sizeof(l));
	if (strncmp(l, "bottleneck: ", 12) || !strstr(s, " WAITS ON ")) {
		print_error("no bottleneck line or WAITS ON column:\n%s\n", s ? s : "");
		fail();
	}
	/* WAITS ON's place: after the columns this width keeps */
	screen_line(s, 3, l, sizeof(l));
	x = strstr(l, " WAITS ON ") ? (int)(strstr(l, " WAITS ON ") - l) + 1 : 0;
	for (y = 4; y < 23; y++) {
		screen_line(s, y, l, sizeof(l));
		/*
		 * the cell: "timer 93%", "cpu:spin-2 40%"; the verdict
		 * after it may say % too
		 */
		if (strstr(l, "spin-") && (int)strlen(l) > x + 17) {
			l[x + 17] = 0;
			if (strchr(l + x, '%'))
				timers++;
		}
	}
	if (timers < 3) {
		print_error("WAITS ON missing in spin rows:\n%s\n", s);
		fail();
	}
	free(s);
	tmux("send-keys -t t q");
	assert_restored("--wakeups");
	close_window();
	stop_spinners(pid);
}

/*
 * -d ends top by itself; -o gets the whole run's report, --record every
 * interval and the whole run: the report of the recording ends with the
 * very table written to -o.
 */
static void test_final_report_and_record(void **state)
{
	const char *out = tmp_path("top.txt"), *rec = tmp_path("top.jsonl");
	char *argv[] = { (char *)tdbpf_bin(), "report", (char *)rec, NULL };
	struct run_result r;
	char *table, *whole;
	pid_t pid;

	(void)state;
	pid = setup(30, "");
	type("%s top -I 300 -d 1.5 -o %s --record %s -p %d; echo TOP-EXIT=$?",
	     tdbpf_bin(), out, rec, pid);
	free(wait_screen("spin-2", NULL, 8000));
	assert_restored("-d");
	close_window();
	stop_spinners(pid);

	table = file_text(out);
	assert_non_null(strstr(table, "spin-1"));
	run_capture(argv, NULL, (uid_t)-1, 0, 10, &r);
	assert_int_equal(r.status, 0);
	/* intervals 0.. first, then the whole run, as tdbpf -I prints */
	assert_non_null(strstr(r.out, ", interval 0,"));
	whole = strstr(r.out, "\n--- whole run ---\n");
	assert_non_null(whole);
	assert_string_equal(whole + strlen("\n--- whole run ---\n"), table);
	run_result_free(&r);
	free(table);
	unlink(out);
	unlink(rec);
}

/*
 * Ctrl-\ (SIGQUIT) and any other terminating signal
 * (SIGUSR1 here) end top as Ctrl-C does: the screen left, exit 0, the
 * whole run's report in -o and in --record.
 */
static void test_every_stop_signal(void **state)
{
	const char *out = tmp_path("q.txt"), *rec = tmp_path("q.jsonl");
	char *argv[] = { (char *)tdbpf_bin(), "report", (char *)rec, NULL };
	static const char *const how[] = { "Ctrl-\\", "SIGUSR1" };
	struct run_result r;
	char *table;
	pid_t pid, top;
	int i;

	(void)state;
	pid = setup(60, "");
	for (i = 0; i < 2; i++) {
		unlink(out);
		unlink(rec);
		type("%s top -I 300 -o %s --record %s -p %d; echo TOP-EXIT=$?",
		     tdbpf_bin(), out, rec, pid);
		free(wait_screen("spin-2", NULL, 8000));
		if (i == 0) {
			tmux("send-keys -t t 'C-\\'");
		} else {
			top = top_pid();
			assert_true(top > 0);
			assert_int_equal(kill(top, SIGUSR1), 0);
		}
		assert_restored(how[i]);
		table = file_text(out);
		if (!strstr(table, "spin-1")) {
			print_error("%s: -o holds no report:\n%s\n", how[i], table);
			fail();
		}
		run_capture(argv, NULL, (uid_t)-1, 0, 10, &r);
		assert_int_equal(r.status, 0);
		assert_non_null(strstr(r.out, "\n--- whole run ---\n"));
		run_result_free(&r);
		free(table);
	}
	close_window();
	stop_spinners(pid);
	unlink(out);
	unlink(rec);
}

/* A terminal that cannot move the cursor is refused, in one line. */
static void test_dumb_terminal(void **state)
{
	pid_t pid;
	char *s;

	(void)state;
	pid = setup(30, "");
	type("TERM=dumb %s top -p %d; echo TOP-EXIT=$?", tdbpf_bin(), pid);
	s = wait_screen("TOP-EXIT=2", NULL, 8000);
	assert_non_null(strstr(s, "cannot draw on terminal type 'dumb'"));
	free(s);
	close_window();
	stop_spinners(pid);
}

/* Without a terminal: one line, exit 2, nothing traced. */
static void test_needs_terminal(void **state)
{
	char *argv[] = { (char *)tdbpf_bin(), "top", "-p", "1", NULL };
	struct run_result r;

	(void)state;
	NEED_BPF();
	run_capture(argv, NULL, (uid_t)-1, 0, 5, &r);
	assert_int_equal(r.status, 2);
	assert_int_equal(count_lines(r.err), 1);
	assert_non_null(strstr(r.err, "top needs a terminal"));
	run_result_free(&r);
}

/*
 * Row @l's cells from WAITS ON (or VERDICT) on: every token with a digit
 * is a whole share ("94%", "80%)"), never the head of a cut one
 * ("EnrichmentWorke 9" for 94%); the WAITS ON cell ends in its share.
 */
static void assert_no_cut_number(const char *l, int waits_x, int verdict_x)
{
	char buf[256], cell[64], *tok, *save = NULL;
	regex_t share;
	int n;

	assert_int_equal(regcomp(&share, "[0-9]+%[),;]*$", REG_EXTENDED), 0);
	n = (int)strlen(l);
	if (waits_x >= 0 && n > waits_x) {
		snprintf(cell, sizeof(cell), "%.*s", verdict_x - waits_x,
			 l + waits_x);
		while (*cell && cell[strlen(cell) - 1] == ' ')
			cell[strlen(cell) - 1] = 0;
		if (strcmp(cell, "-") && regexec(&share, cell, 0, NULL, 0)) {
			print_error("WAITS ON cell '%s' is no whole share: %s\n",
				    cell, l);
			fail();
		}
	}
	snprintf(buf, sizeof(buf), "%s",
		 l + (waits_x >= 0 ? waits_x : verdict_x < n ? verdict_x : n));
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save))
		if (strpbrk(tok, "0123456789") &&
		    regexec(&share, tok, 0, NULL, 0)) {
			print_error("cut number '%s' in: %s\n", tok, l);
			fail();
		}
	regfree(&share);
}

/*
 * At 80 columns top drops columns rather than cut a number
 * (a stage named in all 15 characters of a comm, a long verdict), and
 * the bottleneck line wraps, whole, instead of ending mid-sentence.
 */
static void test_80_columns(void **state)
{
	char *s, l[256], joined[2048] = "";
	int y, hy = -1, waits_x, verdict_x, rows = 0;
	const char *hdr;

	(void)state;
	NEED_BPF();
	if (need_tmux())
		skip();
	open_window("TERM=screen-256color");
	type("%s top -q --wakeups -I 300 -- %s -d 5 -w 0.1 source:cpu=200 EnrichmentWorke:cpu=900 sink:sleep=100; echo TOP-EXIT=$?",
	     tdbpf_bin(), workload("stagegraph"));
	free(wait_screen("EnrichmentWo", NULL, 8000));
	usleep(1500000);
	s = capture(false);
	for (y = 0; y < 24 && hy < 0; y++)
		if (!strncmp(screen_line(s, y, l, sizeof(l)), "    TID COMM", 12))
			hy = y;
	if (hy < 3) {
		print_error("no header row:\n%s\n", s);
		fail();
	}
	/* the banner, rows 1 to the legend: the whole line, wrapped */
	for (y = 1; y < hy - 1; y++) {
		screen_line(s, y, l, sizeof(l));
		assert_true(strlen(l) <= 80);
		snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined),
			 "%s%s", y > 1 ? " " : "", l + (y > 1 ? 2 : 0));
	}
	screen_line(s, hy - 1, l, sizeof(l));
	assert_int_equal(strncmp(l, "BREAKDOWN:", 10), 0);
	/* whole: from its first word to the busy share that ends it */
	if (strncmp(joined, "bottleneck: ", 12) ||
	    !strstr(joined, "; busy ") ||
	    strcmp(joined + strlen(joined) - 5, " time") || hy - 1 < 3) {
		print_error("the bottleneck line is not whole over %d rows: '%s'\n%s\n",
			    hy - 2, joined, s);
		fail();
	}
	hdr = screen_line(s, hy, l, sizeof(l));
	waits_x = strstr(hdr, "WAITS ON") ? (int)(strstr(hdr, "WAITS ON") - hdr) : -1;
	assert_non_null(strstr(hdr, "VERDICT"));
	verdict_x = (int)(strstr(hdr, "VERDICT") - hdr);
	assert_true(waits_x > 0);
	for (y = hy + 1; y < 23; y++) {
		screen_line(s, y, l, sizeof(l));
		if (!l[0])
			break;
		assert_no_cut_number(l, waits_x, verdict_x);
		rows++;
	}
	assert_true(rows >= 3);
	assert_non_null(strstr(s, "EnrichmentWo"));
	free(s);
	free(wait_screen("TOP-EXIT=", NULL, 15000));
	close_window();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_needs_terminal),
		cmocka_unit_test(test_threads_keys_quit),
		cmocka_unit_test(test_sigterm_and_target_exit),
		cmocka_unit_test(test_colour_and_monochrome),
		cmocka_unit_test(test_wakeups_line),
		cmocka_unit_test(test_dumb_terminal),
		cmocka_unit_test(test_final_report_and_record),
		cmocka_unit_test(test_every_stop_signal),
		cmocka_unit_test(test_80_columns),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, NULL, NULL);
	close_window();
	while (nr_workers--)
		if (!kill(workers[nr_workers], SIGKILL))
			waitpid(workers[nr_workers], NULL, 0);
	return rc;
}
