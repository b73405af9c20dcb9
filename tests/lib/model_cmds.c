// SPDX-License-Identifier: GPL-2.0
/* tdbpf list and decode run as a user does (model_cmds.h). */
#include <fcntl.h>
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
#include "model_cmds.h"

json_object *run_json(char *const argv[])
{
	json_object *o;
	char *out = NULL;

	assert_int_equal(run(argv, &out, 10), 0);
	o = json_tokener_parse(out);
	if (!o)
		fail_msg("%s %s: not JSON: %s", argv[1], argv[3], out);
	free(out);
	return o;
}

char *input(const char *text)
{
	char *path = strdup(tmp_path("decode"));
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	return path;
}

json_object *model_json(const char *cmd, const char *model,
			const char *smt, const char *path)
{
	struct argbuf a = { .n = 0 };

	arg_add(&a, tdbpf_bin(), cmd, "--model", model, NULL);
	if (smt)
		arg_add(&a, "--smt", smt, NULL);
	arg_add(&a, "-j", NULL);
	if (path)
		arg_add(&a, path, NULL);
	return run_json(a.v);
}

json_object *list(const char *model, const char *smt)
{
	return model_json("list", model, smt, NULL);
}

json_object *decode(const char *model, const char *smt, const char *path)
{
	return model_json("decode", model, smt, path);
}

json_object *decode_counts(const char *model, const char *smt,
			   const char *counts)
{
	char *path = input(counts);
	json_object *o = decode(model, smt, path);

	unlink(path);
	free(path);
	return o;
}

void near(json_object *metrics, const char *name, double want)
{
	double got = jdouble(metrics, name);

	if (!(fabs(got - want) < 1e-6))
		fail_msg("%s = %.9g, want %.9g", name, got, want);
}

json_object *check_decode(const struct decode_case *c)
{
	json_object *o = decode_counts(c->model, c->smt, c->counts), *m;
	const struct metric *w;
	const char *const *a;

	if (c->name)
		assert_string_equal(jstr_of(o, "model"), c->name);
	if (c->smt_is)
		assert_int_equal(json_object_get_boolean(jget(o, "smt")),
				 c->smt_is > 0);
	m = jget(o, "metrics");
	if (c->nr_metrics)
		assert_int_equal(json_object_object_length(m), c->nr_metrics);
	for (w = c->metrics; w && w->name; w++)
		near(m, w->name, w->want);
	for (a = c->absent; a && *a; a++)
		if (jhas(m, *a))
			fail_msg("%s: metric %s, which it cannot have",
				 c->model, *a);
	if (c->bottleneck)
		assert_string_equal(jstr_of(o, "bottleneck"), c->bottleneck);
	return o;
}

void check_decodes(const struct decode_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		json_object_put(check_decode(&c[i]));
}
