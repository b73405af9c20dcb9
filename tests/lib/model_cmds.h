/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the offline model tests (test_models, test_intel_models):
 * run `tdbpf list -j` and `tdbpf decode -j` as a user does and read their
 * JSON. Kept apart from helpers.h: other tests have a jstr_of() of their own
 * that does not fail on a missing key.
 * Compiled once into the test library (tests/lib/).
 */
#ifndef TDBPF_TEST_MODEL_CMDS_H
#define TDBPF_TEST_MODEL_CMDS_H

#include <stddef.h>
#include <json-c/json.h>

/* Run @argv to exit 0; the JSON it printed (the caller puts it). */
json_object *run_json(char *const argv[]);

/* write @text to a temporary file; its path (caller frees) */
char *input(const char *text);

/*
 * tdbpf @cmd --model @model [--smt @smt] -j [@path]: @smt and @path may
 * be NULL.
 */
json_object *model_json(const char *cmd, const char *model,
			const char *smt, const char *path);

/* tdbpf list: the model's groups and events */
json_object *list(const char *model, const char *smt);

/* tdbpf decode of the counts in @path */
json_object *decode(const char *model, const char *smt, const char *path);

/* tdbpf decode of @counts, perf stat's text, through a temporary file */
json_object *decode_counts(const char *model, const char *smt,
			   const char *counts);

/* Metric @name of a decode's "metrics" is @want, to 1e-6 (percent). */
void near(json_object *metrics, const char *name, double want);

/* A metric of a decode and the value it must have, as near() checks. */
struct metric {
	const char *name;
	double want;
};

/* METRICS({ "retiring", 50 }, ...): a list that ends with a NULL name */
#define METRICS(...) ((const struct metric[]){ __VA_ARGS__, { NULL, 0 } })

/* One decode of counts in perf stat's text, and what it must give. */
struct decode_case {
	const char *model, *smt, *counts;	/* decode_counts()'s */
	const char *name;		/* the "model" it names; NULL: any */
	int smt_is;			/* "smt" it says: 1 true, -1 false */
	int nr_metrics;			/* how many metrics; 0: any number */
	const struct metric *metrics;	/* METRICS(): each near() */
	const char *const *absent;	/* STRS(): metrics it lacks; NULL */
	const char *bottleneck;		/* NULL: unchecked */
};

/* Decode @c's counts and assert what it says; the decode (caller puts). */
json_object *check_decode(const struct decode_case *c);
/* check_decode() of each of the @n cases of @c, each decode put. */
void check_decodes(const struct decode_case *c, size_t n);

#endif /* TDBPF_TEST_MODEL_CMDS_H */
