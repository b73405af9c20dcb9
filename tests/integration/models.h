/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the offline model tests (test_models, test_intel_models):
 * run `tdbpf list -j` and `tdbpf decode -j` as a user does and read their
 * JSON. Kept apart from helpers.h: other tests have a jstr_of() of their own
 * that does not fail on a missing key.
 */
#ifndef TDBPF_TEST_MODELS_H
#define TDBPF_TEST_MODELS_H

#include <math.h>
#include "helpers.h"

/* Run @argv to exit 0; the JSON it printed (the caller puts it). */
static json_object *run_json(char *const argv[])
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

/* write @text to a temporary file; its path (caller frees) */
static char *input(const char *text)
{
	char *path = strdup(tmp_path("decode"));
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	return path;
}

/*
 * tdbpf @cmd --model @model [--smt @smt] -j [@path]: @smt and @path may
 * be NULL.
 */
static json_object *model_json(const char *cmd, const char *model,
			       const char *smt, const char *path)
{
	char *argv[9];
	int n = 0;

	argv[n++] = (char *)tdbpf_bin();
	argv[n++] = (char *)cmd;
	argv[n++] = "--model";
	argv[n++] = (char *)model;
	if (smt) {
		argv[n++] = "--smt";
		argv[n++] = (char *)smt;
	}
	argv[n++] = "-j";
	if (path)
		argv[n++] = (char *)path;
	argv[n] = NULL;
	return run_json(argv);
}

/* tdbpf list: the model's groups and events */
static json_object *list(const char *model, const char *smt)
{
	return model_json("list", model, smt, NULL);
}

/* tdbpf decode of the counts in @path */
static json_object *decode(const char *model, const char *smt, const char *path)
{
	return model_json("decode", model, smt, path);
}

/* Metric @name of a decode's "metrics" is @want, to 1e-6 (percent). */
static void near(json_object *metrics, const char *name, double want)
{
	double got = jdouble(metrics, name);

	if (!(fabs(got - want) < 1e-6))
		fail_msg("%s = %.9g, want %.9g", name, got, want);
}

#endif /* TDBPF_TEST_MODELS_H */
