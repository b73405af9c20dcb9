/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' one set of accessors of a JSON report (json-c), compiled
 * once into the test library (tests/lib/) rather than static in every
 * test's headers. A missing member is NULL, a NAN or INT64_MIN to the
 * readers that may meet one; jget() and jstr_of() fail the test instead.
 */
#ifndef TDBPF_TEST_JSON_GET_H
#define TDBPF_TEST_JSON_GET_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

/* Member @key of @o; NULL when it has none. */
json_object *jfind(json_object *o, const char *key);
/* Member @key of @o; the test fails without it. */
json_object *jget(json_object *o, const char *key);
bool jhas(json_object *o, const char *key);
/* A string member; NULL when absent. */
const char *jstr(json_object *o, const char *key);
/* A string member; the test fails without it. */
const char *jstr_of(json_object *o, const char *key);
/* A number member; INT64_MIN when absent. */
int64_t jint(json_object *o, const char *key);
/* A number member; NAN when absent or null. */
double jdouble(json_object *o, const char *key);
/* A boolean member; false when absent. */
bool jbool(json_object *o, const char *key);
/* A task's scaled counter @name; NAN when absent or null. */
double jcounter(json_object *task, const char *name);
/* A report's graph edges (graph.edges); NULL when it has no graph. */
json_object *jedges(json_object *doc);

/* Each element @el of JSON array @arr, its index in @i (a size_t). */
#define jarray_each(arr, i, el)                                  \
	for ((i) = 0; (i) < json_object_array_length(arr) &&     \
		      ((el) = json_object_array_get_idx(arr, i), true); \
	     (i)++)

/*
 * The first element of @o's array @key whose string member @by is @val;
 * NULL when none is. The test fails when @o has no @key.
 */
json_object *jelem(json_object *o, const char *key, const char *by,
		   const char *val);
/*
 * The number member @name summed over the elements of @o's array @key
 * whose string member @by is @val (each element when @by is NULL). The
 * test fails when @o has no @key.
 */
double jsum(json_object *o, const char *key, const char *name,
	    const char *by, const char *val);

#endif /* TDBPF_TEST_JSON_GET_H */
