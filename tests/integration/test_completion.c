// SPDX-License-Identifier: GPL-2.0
/*
 * Bash completion (completion/tdbpf), run for real: bash sources
 * bash-completion and our file, sets COMP_WORDS/COMP_CWORD as readline
 * would, calls _tdbpf and prints COMPREPLY. What it offers is checked
 * against the program's behaviour, not against a copy of a list: every
 * model offered is one `tdbpf list --model` accepts and they are the ones
 * its "unknown model" error names, every subcommand offered has a --help,
 * the pids and tids offered include this test's own process and thread.
 * No root needed. TDBPF_BIN and TDBPF_COMPLETION choose what is tested
 * (the package test points them at the installed files).
 */
#include "helpers.h"
#include <pthread.h>
#include <sys/syscall.h>

#define BASH_COMPLETION "/usr/share/bash-completion/bash_completion"

static const char *completion_file(void)
{
	const char *p = getenv("TDBPF_COMPLETION");

	return p ? p : "completion/tdbpf";
}

static const char driver[] =
	". " BASH_COMPLETION " || exit 3\n"
	". \"$TDBPF_COMPLETION\" || exit 4\n"
	/* outside a real completion compopt complains; its display
	 * options do not change COMPREPLY */
	"compopt() { builtin compopt \"$@\" 2>/dev/null; return 0; }\n"
	"COMP_WORDS=(\"$@\")\n"
	"COMP_CWORD=$(($# - 1))\n"
	"COMP_LINE=\"$*\"\n"
	"COMP_POINT=${#COMP_LINE}\n"
	"COMPREPLY=()\n"
	"_tdbpf \"$1\" \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
	"printf '%s\\n' \"${COMPREPLY[@]}\"\n";

/* every candidate: -t on a busy machine offers tens of thousands */
struct words {
	int nr;
	char **w;
	char *buf;
};

/* Complete the command line @... (NULL-terminated; the last word is the
 * one being completed) and return the candidates. */
static void complete_prog(struct words *out, const char *prog, va_list ap)
{
	char *argv[32] = { "/bin/bash", "-c", (char *)driver, "bash",
			   (char *)prog };
	char env[512];
	char *envv[] = { env, NULL };
	struct run_result r;
	char *p, *w;
	int n = 5;

	snprintf(env, sizeof(env), "TDBPF_COMPLETION=%s", completion_file());
	while ((w = va_arg(ap, char *)) && n < 31)
		argv[n++] = w;
	argv[n] = NULL;
	assert_int_equal(run_capture(argv, envv, (uid_t)-1, 0, 30, &r), 0);
	if (r.err[0])
		print_message("bash said: %s", r.err);
	out->nr = 0;
	out->buf = r.out;
	free(r.err);
	out->w = malloc((size_t)(count_lines(r.out) + 1) * sizeof(char *));
	assert_non_null(out->w);
	for (p = strtok(r.out, "\n"); p; p = strtok(NULL, "\n"))
		out->w[out->nr++] = p;
}

static void complete(struct words *out, ...)
{
	va_list ap;

	va_start(ap, out);
	complete_prog(out, tdbpf_bin(), ap);
	va_end(ap);
}

static void complete_with(struct words *out, const char *prog, ...)
{
	va_list ap;

	va_start(ap, prog);
	complete_prog(out, prog, ap);
	va_end(ap);
}

static void words_free(struct words *c)
{
	free(c->buf);
	free(c->w);
}

static bool offered(const struct words *c, const char *w)
{
	return str_in(c->w, c->nr, w);
}

static int setup(void **state)
{
	(void)state;
	if (access(BASH_COMPLETION, R_OK) || access("/bin/bash", X_OK)) {
		print_message("bash-completion is not installed (make deps installs it): skipping\n");
		return 0;
	}
	return 0;
}

#define NEED_BASH_COMPLETION() SKIP_UNLESS(access(BASH_COMPLETION, R_OK))

/* tdbpf ARGS: exit status, stderr in *@err when @err is given */
static int tdbpf(char **err, ...)
{
	char *argv[16] = { (char *)tdbpf_bin() };
	struct run_result r;
	va_list ap;
	char *w;
	int n = 1, rc;

	va_start(ap, err);
	while ((w = va_arg(ap, char *)) && n < 15)
		argv[n++] = w;
	va_end(ap);
	argv[n] = NULL;
	rc = run_capture(argv, NULL, (uid_t)-1, 0, 30, &r);
	if (err)
		*err = strdup(r.err);
	run_result_free(&r);
	return rc;
}

static void test_long_option_prefix(void **state)
{
	struct words c;
	int i;

	(void)state;
	NEED_BASH_COMPLETION();
	complete(&c, "--max", NULL);
	assert_int_equal(c.nr, 1);
	assert_string_equal(c.w[0], "--max-tasks");
	words_free(&c);
	complete(&c, "-", NULL);
	/* every option offered at the top is one the parser knows */
	assert_true(c.nr > 20);
	for (i = 0; i < c.nr; i++) {
		char *err = NULL;

		char quoted[64];

		snprintf(quoted, sizeof(quoted), "'%s'", c.w[i]);
		tdbpf(&err, c.w[i], "--bogus-option-after", NULL);
		if (strstr(err, "unknown") && strstr(err, quoted))
			fail_msg("offered %s, which tdbpf refuses: %s", c.w[i],
				 err);
		free(err);
	}
	assert_true(offered(&c, "--pid") && offered(&c, "-p"));
	words_free(&c);
}

static void test_subcommands(void **state)
{
	struct words c;
	int i;

	(void)state;
	NEED_BASH_COMPLETION();
	complete(&c, "", NULL);
	assert_true(offered(&c, "list") && offered(&c, "decode"));
	for (i = 0; i < c.nr; i++) {
		char *argv[] = { (char *)tdbpf_bin(), c.w[i], "--help", NULL };
		char *out = NULL, want[64];

		if (run(argv, &out, 10) != 0)
			fail_msg("offered subcommand '%s' but 'tdbpf %s --help' fails",
				 c.w[i], c.w[i]);
		/* its own usage, as perf top -h is perf top's; help's all */
		snprintf(want, sizeof(want), "usage: tdbpf %s ",
			 strcmp(c.w[i], "help") ? c.w[i] : "[options]");
		if (strncmp(out, want, strlen(want)))
			fail_msg("'tdbpf %s --help' begins '%.40s', not its usage",
				 c.w[i], out);
		free(out);
	}
	words_free(&c);
	/* list takes options only: no targets among them */
	complete(&c, "list", "-", NULL);
	assert_true(offered(&c, "--model") && offered(&c, "-l") &&
		    offered(&c, "--level") && offered(&c, "-j"));
	assert_false(offered(&c, "-p"));
	assert_false(offered(&c, "--pid"));
	words_free(&c);
}

/* "use one of: a, b, c" from the program's own error: the models */
static int models_in_error(char names[][64], int max)
{
	char *err = NULL, *p, *tok;
	int n = 0;

	assert_int_equal(tdbpf(&err, "list", "--model", "no-such-model", NULL),
			 2);
	p = strstr(err, "use one of: ");
	assert_non_null(p);
	p += strlen("use one of: ");
	p[strcspn(p, "\n")] = '\0';
	for (tok = strtok(p, ", "); tok && n < max; tok = strtok(NULL, ", "))
		snprintf(names[n++], 64, "%s", tok);
	free(err);
	return n;
}

static void test_models(void **state)
{
	char names[64][64];
	struct words c;
	int i, n;

	(void)state;
	NEED_BASH_COMPLETION();
	complete(&c, "list", "--model", "", NULL);
	n = models_in_error(names, 64);
	assert_true(n >= 2);
	assert_int_equal(c.nr, n);
	for (i = 0; i < n; i++)
		if (!offered(&c, names[i]))
			fail_msg("model %s is not offered", names[i]);
	for (i = 0; i < c.nr; i++)
		assert_int_equal(tdbpf(NULL, "list", "--model", c.w[i], "-l",
				       "1", NULL),
				 0);
	words_free(&c);
	/* a prefix narrows it, in decode as well */
	complete(&c, "decode", "--model", "ice", NULL);
	assert_true(c.nr >= 1);
	for (i = 0; i < c.nr; i++)
		assert_true(!strncmp(c.w[i], "ice", 3));
	words_free(&c);
}

static void test_sort_keys_and_values(void **state)
{
	struct words c;
	char *err = NULL;
	int i;

	(void)state;
	NEED_BASH_COMPLETION();
	complete(&c, "--sort", "", NULL);
	assert_true(c.nr >= 2);
	assert_true(offered(&c, "cpu"));
	for (i = 0; i < c.nr; i++) {
		/* an accepted key lets parsing go on to the bad --top */
		tdbpf(&err, "--sort", c.w[i], "--top", "0", "-a", NULL);
		if (!strstr(err, "invalid --top"))
			fail_msg("offered sort key %s: %s", c.w[i], err);
		free(err);
	}
	words_free(&c);
	complete(&c, "-a", "--smt", "", NULL);
	assert_int_equal(c.nr, 2);
	assert_true(offered(&c, "on") && offered(&c, "off"));
	words_free(&c);
	/* a numeric argument gets nothing, not file names */
	complete(&c, "-a", "-d", "", NULL);
	assert_int_equal(c.nr, 0);
	words_free(&c);
}

static pid_t other_tid;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;

static void *thread_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	other_tid = (pid_t)syscall(SYS_gettid);
	pthread_cond_broadcast(&cond);
	while (other_tid > 0)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void test_pids_and_tids(void **state)
{
	char me[32], tid[32], list[64];
	struct words c;
	pthread_t th;
	int i;

	(void)state;
	NEED_BASH_COMPLETION();
	assert_int_equal(pthread_create(&th, NULL, thread_main, NULL), 0);
	pthread_mutex_lock(&lock);
	while (!other_tid)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	snprintf(me, sizeof(me), "%d", getpid());
	snprintf(tid, sizeof(tid), "%d", other_tid);

	complete(&c, "-p", "", NULL);
	assert_true(offered(&c, me));
	assert_false(offered(&c, tid));	/* a thread is not a process */
	for (i = 0; i < c.nr; i++)
		assert_true(strspn(c.w[i], "0123456789") == strlen(c.w[i]));
	words_free(&c);
	complete(&c, "-t", "", NULL);
	assert_true(offered(&c, me) && offered(&c, tid));
	words_free(&c);
	/* the last id of a comma list, the earlier ones kept */
	snprintf(list, sizeof(list), "1,%.*s", (int)strlen(tid) - 1, tid);
	complete(&c, "--tid", list, NULL);
	snprintf(list, sizeof(list), "1,%s", tid);
	assert_true(offered(&c, list));
	for (i = 0; i < c.nr; i++)
		assert_true(!strncmp(c.w[i], "1,", 2));
	words_free(&c);

	pthread_mutex_lock(&lock);
	other_tid = -1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(th, NULL);
}

static void test_files_and_command(void **state)
{
	char dir[128], file[160], prefix[160];
	struct words c;
	FILE *f;

	(void)state;
	NEED_BASH_COMPLETION();
	snprintf(dir, sizeof(dir), "%s", tmp_path("compl"));
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/counts.txt", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(prefix, sizeof(prefix), "%s/co", dir);

	complete(&c, "-a", "-o", prefix, NULL);
	assert_int_equal(c.nr, 1);
	assert_string_equal(c.w[0], file);
	words_free(&c);
	complete(&c, "decode", "--model", "icx", prefix, NULL);
	assert_int_equal(c.nr, 1);
	assert_string_equal(c.w[0], file);
	words_free(&c);
	/* after --, the command and its own words */
	complete(&c, "-d", "1", "--", "slee", NULL);
	assert_true(offered(&c, "sleep"));
	words_free(&c);

	unlink(file);
	rmdir(dir);
}

/*
 * Subcommands other helpers add are completed from their usage line: a
 * program whose --help shows "report [-j] FILE" and "top [--graph FILE]"
 * gets files for report's operand, not for top's, and each its options.
 */
static void test_new_subcommands_from_usage(void **state)
{
	char dir[128], prog[160], file[160], prefix[160];
	struct words c;
	FILE *f;

	(void)state;
	NEED_BASH_COMPLETION();
	snprintf(dir, sizeof(dir), "%s", tmp_path("usage"));
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(prog, sizeof(prog), "%s/tdbpf", dir);
	snprintf(file, sizeof(file), "%s/run.jsonl", dir);
	snprintf(prefix, sizeof(prefix), "%s/ru", dir);
	f = fopen(prog, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\n"
	      "[ \"$1\" = --help ] || exit 2\n"
	      "cat <<'EOF'\n"
	      "usage: tdbpf [options] -p PID[,PID]\n"
	      "       tdbpf top [--graph FILE] [-j]\n"
	      "       tdbpf report [-j] FILE\n"
	      "\n"
	      "  -p, --pid PID[,PID]    trace\n"
	      "  -j, --json             JSON\n"
	      "      --graph FILE       DOT graph\n"
	      "EOF\n",
	      f);
	fclose(f);
	assert_int_equal(chmod(prog, 0755), 0);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);

	complete_with(&c, prog, "", NULL);
	assert_true(offered(&c, "top") && offered(&c, "report"));
	words_free(&c);
	complete_with(&c, prog, "report", prefix, NULL);
	assert_int_equal(c.nr, 1);
	assert_string_equal(c.w[0], file);
	words_free(&c);
	complete_with(&c, prog, "top", prefix, NULL);
	assert_int_equal(c.nr, 0);
	words_free(&c);
	complete_with(&c, prog, "top", "--", NULL);
	assert_true(offered(&c, "--graph") && offered(&c, "--json"));
	assert_false(offered(&c, "--pid"));
	words_free(&c);
	complete_with(&c, prog, "top", "--graph", prefix, NULL);
	assert_int_equal(c.nr, 1);
	assert_string_equal(c.w[0], file);
	words_free(&c);

	unlink(file);
	unlink(prog);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_option_prefix),
		cmocka_unit_test(test_subcommands),
		cmocka_unit_test(test_models),
		cmocka_unit_test(test_sort_keys_and_values),
		cmocka_unit_test(test_pids_and_tids),
		cmocka_unit_test(test_files_and_command),
		cmocka_unit_test(test_new_subcommands_from_usage),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
