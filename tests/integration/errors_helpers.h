/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by test_errors and test_errors_causes: run ./tdbpf and assert
 * its one-line refusal ("tdbpf: <problem>; <fix>") with key words, and
 * the root-only cases' skip.
 */
#ifndef TDBPF_TEST_ERRORS_HELPERS_H
#define TDBPF_TEST_ERRORS_HELPERS_H

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

#endif
