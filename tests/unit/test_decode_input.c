// SPDX-License-Identifier: GPL-2.0
/* `tdbpf decode` input: both formats, and every rejection with its line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include "sources/decode_input.h"

/* A small model of our own, so the test does not depend on a CPU table. */
static const struct model_event test_events[] = {
	{ .name = "UOPS_ISSUED.ANY", .type = PERF_TYPE_RAW, .config = 0x10e },
	{ .name = "topdown-retiring", .type = PERF_TYPE_RAW,
	  .config = 0x8000 },
	{ .name = "cpu@ITLB_MISSES.WALK_DURATION,cmask=1@",
	  .type = PERF_TYPE_RAW, .config = 0x1001085 },
	{ .name = "task-clock", .type = PERF_TYPE_SOFTWARE, .unit = "msec" },
};

static const struct model test_model = {
	.name = "testm",
	.events = test_events,
	.nr_events = 4,
};

enum { UOPS, RETIRING, ITLB, TCLOCK };

static char err[512];
static double ev[4];

static int parse_n(const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int rc;

	assert_non_null(f);
	err[0] = 0;
	rc = decode_input_parse(f, &test_model, ev, err, sizeof(err));
	fclose(f);
	return rc;
}

static int parse(const char *text)
{
	return parse_n(text, strlen(text));
}

/* rejected, on line @line, with @what in the message; nothing kept */
static void rejected(const char *text, int line, const char *what)
{
	char prefix[32];
	int i;

	assert_int_equal(parse(text), -1);
	snprintf(prefix, sizeof(prefix), "line %d: ", line);
	if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, what)) {
		print_error("input:\n%s\nerror: %s\nwanted '%s...%s'\n", text,
			    err, prefix, what);
		fail();
	}
	/* one line, with a fix after the problem */
	assert_null(strchr(err, '\n'));
	assert_non_null(strchr(err, ';'));
	for (i = 0; i < 4; i++)
		assert_true(isnan(ev[i]));
}

/*
 * @text parsed, the four events' values: @uops, @ret, @itlb, @tclock, to
 * the bit; NAN: not given (missing, not zero).
 */
static void accepted(const char *text, double uops, double ret, double itlb,
		     double tclock)
{
	const double want[4] = { [UOPS] = uops, [RETIRING] = ret,
				 [ITLB] = itlb, [TCLOCK] = tclock };
	int i;

	assert_int_equal(parse(text), 0);
	for (i = 0; i < 4; i++)
		if (isnan(want[i]) ? !isnan(ev[i]) : ev[i] != want[i])
			fail_msg("input:\n%s\nevent %d: %.17g, want %.17g",
				 text, i, ev[i], want[i]);
}

static void test_event_value_lines(void **state)
{
	(void)state;
	accepted("# counts of one task\n"
		 "\n"
		 "UOPS_ISSUED.ANY 123456789\n"
		 "  topdown-retiring\t\t42  \r\n",
		 123456789.0, 42.0, NAN, NAN);
}

static void test_case_insensitive(void **state)
{
	(void)state;
	accepted("uops_issued.any 7\nTOPDOWN-RETIRING 8\n"
		 "CPU@itlb_misses.walk_duration,CMASK=1@ 9\n",
		 7, 8, 9, NAN);
}

static void test_perf_csv(void **state)
{
	(void)state;
	/* perf stat -x, : VALUE,UNIT,EVENT,RUNTIME,PCT,METRIC,METRIC-UNIT */
	accepted("# started on Mon Jan  1 00:00:00 2024\n"
		 "\n"
		 "1000,,UOPS_ISSUED.ANY,2000000,100.00,,\n"
		 "12.50,msec,task-clock,12500000,100.00,0.99,CPUs utilized\n"
		 "<not counted>,,topdown-retiring,0,0.00,,\n",
		 1000, NAN, NAN, 12.5);
}

/* a cpu/.../ name holds commas; perf prints it unquoted */
static void test_csv_event_with_commas(void **state)
{
	(void)state;
	accepted("77,,cpu/ITLB_MISSES.WALK_DURATION,cmask=1/,"
		 "1000,100.00,,\n"
		 "<not supported>,,UOPS_ISSUED.ANY,0,0.00,,\n",
		 NAN, NAN, 77, NAN);
}

static void test_u64_limits(void **state)
{
	(void)state;
	accepted("UOPS_ISSUED.ANY 18446744073709551615\n",
		 18446744073709551615.0, NAN, NAN, NAN);
	accepted("UOPS_ISSUED.ANY 00018446744073709551615\n",
		 18446744073709551615.0, NAN, NAN, NAN);
	accepted("UOPS_ISSUED.ANY 0\n", 0, NAN, NAN, NAN);
	accepted("UOPS_ISSUED.ANY 1.5e3\n", 1500, NAN, NAN, NAN);
}

static void test_reject_negative(void **state)
{
	(void)state;
	rejected("UOPS_ISSUED.ANY 1\nUOPS_ISSUED.ANY\n", 2, "expected");
	rejected("\n# x\ntopdown-retiring -5\n", 3, "negative count '-5'");
	rejected("-5,,UOPS_ISSUED.ANY,0,100.00,,\n", 1, "negative count");
	rejected("UOPS_ISSUED.ANY -0.5\n", 1, "negative");
}

static void test_reject_non_numeric(void **state)
{
	(void)state;
	rejected("UOPS_ISSUED.ANY abc\n", 1, "'abc' is not a number");
	rejected("UOPS_ISSUED.ANY 12x\n", 1, "not a number");
	rejected("UOPS_ISSUED.ANY 0x10\n", 1, "not a number");
	rejected("UOPS_ISSUED.ANY nan\n", 1, "not a number");
	rejected("UOPS_ISSUED.ANY inf\n", 1, "not a number");
	rejected("UOPS_ISSUED.ANY 1e\n", 1, "not a number");
	rejected("UOPS_ISSUED.ANY .\n", 1, "not a number");
	rejected("12a,,UOPS_ISSUED.ANY,0,100.00,,\n", 1, "not a number");
	rejected("+5,,UOPS_ISSUED.ANY\n", 1, "not a number");
}

static void test_reject_overflow(void **state)
{
	(void)state;
	rejected("UOPS_ISSUED.ANY 18446744073709551616\n", 1,
		 "larger than 2^64-1");
	rejected("UOPS_ISSUED.ANY 99999999999999999999999\n", 1,
		 "larger than 2^64-1");
	rejected("UOPS_ISSUED.ANY 18446744073709551615.5\n", 1,
		 "larger than 2^64-1");
	rejected("UOPS_ISSUED.ANY 1e20\n", 1, "larger than 2^64-1");
	rejected("UOPS_ISSUED.ANY 1e999\n", 1, "larger than 2^64-1");
}

static void test_reject_duplicate(void **state)
{
	(void)state;
	rejected("UOPS_ISSUED.ANY 1\n# again\nuops_issued.any 2\n", 3,
		 "second count for UOPS_ISSUED.ANY (first on line 1)");
	rejected("<not counted>,,topdown-retiring,0,0.00,,\n"
		 "5,,topdown-retiring,0,0.00,,\n", 2,
		 "first on line 1");
	rejected("cpu@ITLB_MISSES.WALK_DURATION,cmask=1@ 1\n"
		 "9,,cpu/ITLB_MISSES.WALK_DURATION,cmask=1/,1,100.00,,\n", 2,
		 "second count");
}

static void test_reject_unknown_event(void **state)
{
	(void)state;
	rejected("UOPS_ISSUED.ANY 1\nFOO.BAR 2\n", 2,
		 "unknown event 'FOO.BAR' for model testm; see "
		 "'tdbpf list --model testm'");
	rejected("5,,cycles:u,0,100.00,,\n", 1, "unknown event 'cycles:u'");
	/* control bytes are not echoed to the terminal */
	rejected("FOO\x1b[31m 1\n", 1, "unknown event 'FOO?[31m'");
}

static void test_reject_malformed(void **state)
{
	(void)state;
	rejected("UOPS_ISSUED.ANY 1 2\n", 1, "expected 'EVENT VALUE'");
	rejected("100 UOPS_ISSUED.ANY\n", 1, "value first");
	rejected("100,,\n", 1, "empty event field");
	rejected("100,\n", 1, "no event field");
	/* perf stat -x, -I: a timestamp first */
	rejected("1.000123,100,,UOPS_ISSUED.ANY,1000,100.00,,\n", 1,
		 "perf stat -I");
	/* perf stat without -x: thousands separators */
	rejected("     1,234,567      UOPS_ISSUED.ANY\n", 1, "thousands");
}

static void test_nul_byte(void **state)
{
	static const char text[] = "topdown-retiring 1\nUOPS_ISSUED.ANY\0 2\n";

	(void)state;
	assert_int_equal(parse_n(text, sizeof(text) - 1), -1);
	assert_string_equal(err, "line 2: contains a NUL byte; give a text "
			    "file");
}

static void test_reject_empty(void **state)
{
	(void)state;
	assert_int_equal(parse(""), -1);
	assert_non_null(strstr(err, "no counts found"));
	assert_int_equal(parse("# only a comment\n\n   \n"), -1);
	assert_non_null(strstr(err, "no counts found"));
}

/* a long line is read whole, not split into a second "line" */
static void test_long_line(void **state)
{
	char text[9000];

	(void)state;
	memset(text, 'A', sizeof(text));
	memcpy(text + sizeof(text) - 4, " 1\n", 4);
	rejected(text, 1, "unknown event 'AAAA");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_value_lines),
		cmocka_unit_test(test_case_insensitive),
		cmocka_unit_test(test_perf_csv),
		cmocka_unit_test(test_csv_event_with_commas),
		cmocka_unit_test(test_u64_limits),
		cmocka_unit_test(test_reject_negative),
		cmocka_unit_test(test_reject_non_numeric),
		cmocka_unit_test(test_reject_overflow),
		cmocka_unit_test(test_reject_duplicate),
		cmocka_unit_test(test_reject_unknown_event),
		cmocka_unit_test(test_reject_malformed),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_reject_empty),
		cmocka_unit_test(test_long_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
