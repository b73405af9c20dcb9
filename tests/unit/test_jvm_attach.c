// SPDX-License-Identifier: GPL-2.0
/*
 * Thread dump lines (sources/jvm_attach.c): a thread's name and nid as
 * JDK 17 (hex) and JDK 18+ (decimal) print them, a name holding quotes
 * and "nid=", and the lines that name no thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "sources/jvm_attach.h"

static void test_dump_lines(void **state)
{
	char name[64];
	__u32 tid = 0;

	(void)state;
	/* a Flink-named thread as JDK 17 prints it (hex nid) */
	assert_true(jvm_dump_line("\"Map -> Filter (2/3)#0\" #14 daemon prio=5 os_prio=0 cpu=1696.12ms elapsed=5.02s tid=0x00007f3c2c1a6800 nid=0x2ff5 runnable  [0x00007f3bfd7fe000]\n",
				  name, sizeof(name), &tid));
	assert_string_equal(name, "Map -> Filter (2/3)#0");
	assert_int_equal(tid, 0x2ff5);
	/* JDK 18 and later: decimal; a VM thread has no "#N" */
	assert_true(jvm_dump_line("\"VM Thread\" os_prio=0 cpu=0.36ms elapsed=5.03s tid=0x00007f3c2c0c7000 nid=12277 runnable\n",
				  name, sizeof(name), &tid));
	assert_string_equal(name, "VM Thread");
	assert_int_equal(tid, 12277);
	/* what the name holds is the name's */
	assert_true(jvm_dump_line("\"a \"q\" nid=0x1 b\" #3 prio=5 nid=0x10 waiting\n",
				  name, sizeof(name), &tid));
	assert_string_equal(name, "a \"q\" nid=0x1 b");
	assert_int_equal(tid, 16);
	/* cut to the buffer */
	assert_true(jvm_dump_line("\"Source: Custom Source -> Map\" nid=0x5 x\n",
				  name, 8, &tid));
	assert_string_equal(name, "Source:");
	assert_false(jvm_dump_line("   java.lang.Thread.State: RUNNABLE\n",
				   name, sizeof(name), &tid));
	assert_false(jvm_dump_line("\"no nid\" #1 prio=5\n", name,
				   sizeof(name), &tid));
	assert_false(jvm_dump_line("\"zero\" nid=0x0 x\n", name, sizeof(name),
				   &tid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dump_lines),
	};

	return cmocka_run_group_tests_name("jvm_attach", tests, NULL, NULL);
}
