// SPDX-License-Identifier: GPL-2.0
/* One-line refusals of tdbpf, asserted (refusals.h). */
#include <fcntl.h>
#include <pwd.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "itest.h"
#include "json_get.h"
#include "proc.h"
#include "refusals.h"

int run_tdbpf(uid_t uid, char *const env[], const char *const *args,
	      int timeout_s, struct run_result *r)
{
	struct argbuf a = { .n = 0 };

	arg_add(&a, tdbpf_bin(), NULL);
	arg_addv(&a, args);
	return run_capture(a.v, env, uid, uid, timeout_s, r);
}

void refused_as(uid_t uid, char *const env[], const char *const *args,
		const char *const *words)
{
	struct run_result r;
	int i;

	run_tdbpf(uid, env, args, 5, &r);
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

int need_root(void)
{
	if (geteuid() != 0) {
		print_message("needs root (privilege cases): skipping\n");
		return -1;
	}
	return 0;
}
