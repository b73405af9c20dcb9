// SPDX-License-Identifier: GPL-2.0
/*
 * A load that fails with E2BIG is a map or a program too large; the
 * verifier's log, which libbpf prints on failure, tells which, so that
 * the error names the fix (fewer -e events or groups, not the maps').
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "sources/tracer.h"

static void test_gave_up(void **state)
{
	(void)state;
	/* the million instructions, as 6.1 and 6.18 word it */
	assert_true(tracer_verifier_gave_up(
		"BPF program is too large. Processed 1000001 insn\n"
		"processed 1000001 insns (limit 1000000) max_states_per_insn 13\n"));
	/* the log as libbpf prints it: one message, the limit at its end */
	assert_true(tracer_verifier_gave_up(
		"libbpf: prog 'tdbpf_switch': -- BEGIN PROG LOAD LOG --\n"
		"0: R1=ctx() R10=fp0\n; int BPF_PROG(tdbpf_switch\n"
		"BPF program is too large. Processed 1000001 insn\n"
		"-- END PROG LOAD LOG --\n"));
	/* too many branches to follow */
	assert_true(tracer_verifier_gave_up(
		"The sequence of 8193 jumps is too complex.\n"));
}

static void test_other_failures(void **state)
{
	(void)state;
	assert_false(tracer_verifier_gave_up(
		"libbpf: map 'tasks': failed to create: Argument list too long(-7)\n"));
	assert_false(tracer_verifier_gave_up(
		"R5 pointer arithmetic on mem_or_null prohibited, null-check it first\n"));
	assert_false(tracer_verifier_gave_up(
		"libbpf: prog 'tdbpf_switch': failed to load: -7\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gave_up),
		cmocka_unit_test(test_other_failures),
	};

	return cmocka_run_group_tests_name("verifier_log", tests, NULL, NULL);
}
