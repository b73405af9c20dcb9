// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer: layout (pretty and one line), escaping, and numbers.
 * Exact numbers (decode -j) must read back as the same double; measured
 * ones are rounded as printf rounds. json-c parses every document, so a
 * punctuation slip fails here, not in a user's parser.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include "support/json.h"
#include "unit_helpers.h"

static FILE *f;
static struct jw w;

static void start(bool pretty)
{
	f = tmpfile();
	assert_non_null(f);
	jw_init(&w, f, pretty);
}

static char *finish(void)
{
	jw_end(&w);
	return slurp(f);
}

/* finish(): the document is @want, byte for byte */
static void finish_is(const char *want)
{
	char *s = finish();

	assert_string_equal(s, want);
	free(s);
}

/* json-c parses @s */
static void parses(const char *s)
{
	json_object *o = json_tokener_parse(s);

	assert_non_null(o);
	json_object_put(o);
}

static void test_layout_pretty(void **state)
{
	(void)state;
	start(true);
	jw_obj(&w, NULL);
	jw_str(&w, "a", "x");
	jw_obj(&w, "empty");
	jw_obj_end(&w);
	jw_arr(&w, "list");
	jw_int(&w, NULL, -3);
	jw_obj(&w, NULL);
	jw_bool(&w, "t", true);
	jw_obj_end(&w);
	jw_arr_end(&w);
	jw_null(&w, "n");
	jw_obj_end(&w);
	finish_is("{\n"
		  "  \"a\": \"x\",\n"
		  "  \"empty\": {},\n"
		  "  \"list\": [\n"
		  "    -3,\n"
		  "    {\n"
		  "      \"t\": true\n"
		  "    }\n"
		  "  ],\n"
		  "  \"n\": null\n"
		  "}\n");
}

static void test_layout_line(void **state)
{
	(void)state;
	start(false);
	jw_obj(&w, NULL);
	jw_u64(&w, "u", UINT64_MAX);
	jw_arr(&w, "l");
	jw_str(&w, NULL, NULL);
	jw_arr_end(&w);
	jw_obj_end(&w);
	finish_is("{\"u\":18446744073709551615,\"l\":[null]}\n");
}

/* Escapes, and bytes that are not UTF-8 become U+FFFD. */
static void test_strings(void **state)
{
	char *s;

	(void)state;
	start(false);
	jw_obj(&w, NULL);
	jw_str(&w, "s", "q\"b\\n\nt\tc\x01 \xc3\xa9 \xff end");
	jw_obj_end(&w);
	s = finish();
	assert_string_equal(s, "{\"s\":\"q\\\"b\\\\n\\nt\\tc\\u0001 \xc3\xa9 "
			       "\xef\xbf\xbd end\"}\n");
	parses(s);
	free(s);
}

/* jw_double: "%.17g", whole numbers still read as floating point. */
static void test_exact_numbers(void **state)
{
	static const double v[] = { 0.0, -0.0, 1.5, 100.0, 1e-5, 1e300,
				    0.1, -51.467376532386247, 2.0 / 3 };
	static const char *const want[] = {
		"0.0", "-0.0", "1.5", "100.0", "1.0000000000000001e-05",
		"1.0000000000000001e+300", "0.10000000000000001",
		"-51.467376532386247", "0.66666666666666663",
	};
	char key[8], *s;
	json_object *o, *x;
	size_t i;

	(void)state;
	start(false);
	jw_obj(&w, NULL);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		jw_double(&w, key, v[i]);
	}
	jw_double(&w, "nan", NAN);
	jw_double(&w, "inf", -INFINITY);
	jw_obj_end(&w);
	s = finish();
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char member[64];

		snprintf(member, sizeof(member), "\"k%zu\":%s", i, want[i]);
		if (!strstr(s, member))
			fail_msg("%s not in %s", member, s);
	}
	assert_non_null(strstr(s, "\"nan\":null,\"inf\":null}"));
	/* and they read back as the same doubles */
	o = json_tokener_parse(s);
	assert_non_null(o);
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_true(json_object_object_get_ex(o, key, &x));
		assert_true(json_object_get_double(x) == v[i]);
	}
	json_object_put(o);
	free(s);
}

/* jw_num: printf's rounding, trailing zeros dropped, -0 is 0. */
static void test_measured_numbers(void **state)
{
	(void)state;
	start(false);
	jw_arr(&w, NULL);
	jw_num(&w, NULL, 2.5, 0);
	jw_num(&w, NULL, 3.5, 0);
	jw_num(&w, NULL, 0.1234565, 6);
	jw_num(&w, NULL, 0.5, 6);
	jw_num(&w, NULL, -1e-9, 6);
	jw_num(&w, NULL, 1e20, 0);
	jw_num(&w, NULL, NAN, 0);
	jw_arr_end(&w);
	/* 2.5 and 3.5 round to even as printf does; 1e20 is past 2^53 */
	finish_is("[2,4,0.123456,0.5,0,1e+20,null]\n");
}

/*
 * Members from built keys (jw_nums_keyed(), the report's fast loop) are
 * byte for byte what jw_num() writes member by member: in both layouts,
 * with values the loop hands back to the slow path (NaN, past 2^53, a
 * tie too close to call), a key longer than the loop copies, and enough
 * members to cross the output buffer's flush.
 */
static char *keyed_doc(bool pretty, bool keyed, const char *const *names,
		       const double *v, int n, int prec, int reps)
{
	struct jw_keys k;
	int r, i;

	start(pretty);
	jw_arr(&w, NULL);
	for (r = 0; r < reps; r++) {
		jw_obj(&w, NULL);
		if (keyed) {
			assert_int_equal(jw_keys_build(&k, &w, names, n), 0);
			jw_nums_keyed(&w, &k, v, n, prec);
			jw_keys_free(&k);
		} else {
			for (i = 0; i < n; i++)
				jw_num(&w, names[i], v[i], prec);
		}
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	return finish();
}

static void test_keyed_numbers(void **state)
{
	static const char *const names[] = {
		"a", "tma_frontend_bound", "b",
		"a_key_longer_than_the_sixty_four_bytes_the_loop_copies_at_once_xx",
		"c", "d", "e", "f", "g", "h",
	};
	const double v[] = {
		NAN, 12.3456785, 1e20, 7.5, 0.0000005, -0.0000004,
		9999.9999996, 2251799813.685247, 99.9999994, 4.0,
	};
	int n = sizeof(v) / sizeof(v[0]), prec, pretty;
	char *a, *b;

	(void)state;
	for (pretty = 0; pretty < 2; pretty++)
		for (prec = 0; prec <= 6; prec += 6) {
			/* 3000 objects: past 262,144 bytes either way */
			a = keyed_doc(pretty, true, names, v, n, prec, 3000);
			b = keyed_doc(pretty, false, names, v, n, prec, 3000);
			assert_true(strlen(a) > 262144);
			assert_string_equal(a, b);
			parses(a);
			free(a);
			free(b);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_pretty),
		cmocka_unit_test(test_layout_line),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_exact_numbers),
		cmocka_unit_test(test_measured_numbers),
		cmocka_unit_test(test_keyed_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
