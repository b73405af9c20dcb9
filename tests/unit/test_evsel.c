// SPDX-License-Identifier: GPL-2.0
/*
 * -e parsing against a fixture of sysfs and tracefs
 * (tests/fixtures/evsel): every kind of event, groups, modifiers, names,
 * and every refusal with the words of its one-line message. The
 * encodings expected are worked out here from the fixture's format
 * files and perf's ABI numbers (linux/perf_event.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "model/evsel.h"
#include "sources/event_names.h"
#include "sources/evsel_probe.h"
#include "unit_helpers.h"

#define FIX "tests/fixtures/evsel"

static const struct evsel_env env = {
	.pmu_dir = FIX "/pmu",
	.tracefs = FIX "/tracing",
};

static struct evsel_list l;

static void parse_ok(const char *spec)
{
	char err[512] = "";

	evsel_init(&l);
	if (evsel_parse(&l, spec, &env, err, sizeof(err))) {
		print_error("-e '%s' refused: %s\n", spec, err);
		fail();
	}
}

/* refused, with every word of @words in the one-line message */
static void parse_bad(const struct evsel_env *e, const char *spec, ...)
{
	char err[512] = "";
	const char *w;
	va_list ap;

	evsel_init(&l);
	if (!evsel_parse(&l, spec, e, err, sizeof(err))) {
		print_error("-e '%s' accepted, want a refusal\n", spec);
		fail();
	}
	assert_null(strchr(err, '\n'));
	va_start(ap, spec);
	while ((w = va_arg(ap, const char *))) {
		if (!strstr(err, w)) {
			print_error("-e '%s': '%s' lacks '%s'\n", spec, err, w);
			fail();
		}
	}
	va_end(ap);
}

#define BAD(spec, ...) parse_bad(&env, spec, __VA_ARGS__, NULL)

static void test_software_names(void **state)
{
	(void)state;
	parse_ok("cpu-clock,page-faults,cs,cpu-migrations,task-clock");
	assert_int_equal(l.nr, 5);
	assert_int_equal(l.nr_groups, 5);
	assert_int_equal(l.ev[0].type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.ev[0].config, PERF_COUNT_SW_CPU_CLOCK);
	assert_string_equal(l.ev[0].unit, "msec");
	assert_int_equal(l.ev[1].config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_string_equal(l.ev[1].unit, "");
	/* perf's alias, kept as written */
	assert_string_equal(l.ev[2].name, "cs");
	assert_int_equal(l.ev[2].config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_int_equal(l.ev[3].config, PERF_COUNT_SW_CPU_MIGRATIONS);
	assert_int_equal(l.ev[4].config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(l.ev[4].kind, EV_USER);
	assert_int_equal(l.ev[0].excl, 0);
	/* each alone: its own group */
	assert_int_equal(l.group[3], 3);
}

static void test_hardware_and_raw(void **state)
{
	(void)state;
	parse_ok("cycles,instructions,r01c2,rC0,ref-cycles");
	assert_int_equal(l.ev[0].type, PERF_TYPE_HARDWARE);
	assert_int_equal(l.ev[0].config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(l.ev[1].config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_int_equal(l.ev[2].type, PERF_TYPE_RAW);
	assert_int_equal(l.ev[2].config, 0x01c2);
	assert_int_equal(l.ev[3].config, 0xc0);
	assert_int_equal(l.ev[4].config, PERF_COUNT_HW_REF_CPU_CYCLES);
	/* 16 hex digits at most, as perf's lexer */
	parse_ok("rffffffffffffffff");
	assert_true(l.ev[0].config == ~0ULL);
	BAD("r1ffffffffffffffff", "unknown event");
	BAD("rxyz", "unknown event 'rxyz'", "tracepoint");
}

static void test_tracepoints(void **state)
{
	(void)state;
	parse_ok("syscalls:sys_enter_getppid,sched:sched_switch:k");
	assert_int_equal(l.ev[0].type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(l.ev[0].config, 1234);
	assert_string_equal(l.ev[0].name, "syscalls:sys_enter_getppid");
	assert_int_equal(l.ev[1].config, 316);
	assert_int_equal(l.ev[1].excl, EVF_EXCL_USER);
	assert_string_equal(l.ev[1].name, "sched:sched_switch:k");
	BAD("sched:nope", "unknown tracepoint 'sched:nope'", "no event 'nope'");
	BAD("nosys:x", "unknown tracepoint 'nosys:x'", "no subsystem 'nosys'");
	BAD("sched:..", "bad tracepoint");
	BAD("..:sched_switch", "bad tracepoint");
}

static int fake_mount(char *dir, size_t len)
{
	snprintf(dir, len, "%s", FIX "/tracing");
	return 0;
}

static int no_mount(char *dir, size_t len)
{
	(void)dir;
	(void)len;
	return -1;
}

/*
 * perf's tracepoint globs: every match of the subsystem, in name order,
 * with the modifiers and the group of the glob; none is an error.
 */
static void test_tracepoint_glob(void **state)
{
	(void)state;
	parse_ok("sched:sched_*");
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.ev[0].name, "sched:sched_switch");
	assert_string_equal(l.ev[1].name, "sched:sched_wakeup");
	assert_int_equal(l.ev[0].type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(l.ev[0].config, 316);
	assert_int_equal(l.ev[1].config, 317);
	parse_ok("{sched:sched_w?keup:u,cs}");
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.ev[0].name, "sched:sched_wakeup:u");
	assert_int_equal(l.group[0], l.group[1]);
	parse_bad(&env, "sched:nothing*", "no tracepoint matches",
		  "sched:nothing*", NULL);
	parse_bad(&env, "nosys:a*", "no subsystem 'nosys'", NULL);
	/* a glob character among the modifiers is no glob (the fuzzer's) */
	parse_bad(&env, "sched:sched_switch:ked_sw[itcschetc}",
		  "bad character '['", NULL);
}

/* What tdbpf list --events shows, -e takes: each name parses. */
static void takes_listed(void *ctx, enum event_kind kind, const char *name)
{
	int *n = ctx;

	(void)kind;
	parse_ok(name);
	assert_int_equal(l.nr, 1);
	(*n)++;
}

static void test_listed_events_parse(void **state)
{
	const char *name;
	int n = 0;
	size_t i;

	(void)state;
	for (i = 0; (name = evsel_known_name(false, i)); i++) {
		/* bpf-output is refused by design, and never listed */
		assert_string_not_equal(name, "bpf-output");
		parse_ok(name);
	}
	for (i = 0; (name = evsel_known_name(true, i)); i++)
		parse_ok(name);
	event_names_each(&env, takes_listed, &n);
	/* the fixture's: cpu's two events, msr/tsc/, three tracepoints */
	assert_int_equal(n, 6);
	assert_true(event_names_have_cpu_pmu(&env));
}

static void test_tracefs_missing(void **state)
{
	struct evsel_env e = { .pmu_dir = FIX "/pmu" };
	char err[256];

	(void)state;
	parse_bad(&e, "sched:sched_switch", "needs tracefs", "mount -t tracefs",
		  NULL);
	e.mount_tracefs = no_mount;
	parse_bad(&e, "sched:sched_switch", "not mounted", NULL);
	/* mounted on demand, as perf does, and only for a tracepoint */
	e.mount_tracefs = fake_mount;
	evsel_init(&l);
	assert_int_equal(evsel_parse(&l, "sched:sched_wakeup", &e, err,
				     sizeof(err)),
			 0);
	assert_int_equal(l.ev[0].config, 317);
	/* a second -e finds it mounted */
	e.mount_tracefs = no_mount;
	assert_int_equal(evsel_parse(&l, "sched:sched_switch", &e, err,
				     sizeof(err)),
			 0);
	assert_int_equal(l.nr, 2);
}

static void test_pmu_terms(void **state)
{
	(void)state;
	parse_ok("cpu/event=0xc2,umask=0x1/");
	assert_int_equal(l.ev[0].type, 4);
	assert_int_equal(l.ev[0].config, 0x01c2);
	assert_string_equal(l.ev[0].name, "cpu/event=0xc2,umask=0x1/");
	/* a term without value is 1; cmask in bits 24-31 */
	parse_ok("cpu/event=0xa3,umask=4,cmask=4,inv,edge/u");
	assert_int_equal(l.ev[0].excl, EVF_EXCL_KERNEL);
	assert_string_equal(l.ev[0].name,
			    "cpu/event=0xa3,umask=4,cmask=4,inv,edge/u");
	parse_ok("cpu/event=0xa3,umask=4,cmask=4,inv,edge/:u");
	assert_true(l.ev[0].config ==
		    (0xa3ULL | 4 << 8 | 1 << 18 | 1 << 23 | 4ULL << 24));
	assert_int_equal(l.ev[0].excl, EVF_EXCL_KERNEL);
	/* config1 and split fields */
	parse_ok("cpu/event=1,ldlat=0x80/,cpu/split=0x1ff/");
	assert_int_equal(l.ev[0].config1, 0x80);
	assert_true(l.ev[1].config == (0xffULL | 1ULL << 32));
	/* config= terms directly, and an alias from events/ */
	parse_ok("cpu/config=0x5300c0,config1=3,config2=4/,msr/tsc/,cpu/mem-loads/");
	assert_true(l.ev[0].config == 0x5300c0);
	assert_int_equal(l.ev[0].config1, 3);
	assert_int_equal(l.ev[0].config2, 4);
	assert_int_equal(l.ev[1].type, 9);
	assert_int_equal(l.ev[1].config, 0);
	assert_int_equal(l.ev[2].config, 0x1cd);
	assert_int_equal(l.ev[2].config1, 3);
	/* name= renames */
	parse_ok("cpu/event=0x3c,name=my_cycles/");
	assert_string_equal(l.ev[0].name, "my_cycles");
}

static void test_pmu_errors(void **state)
{
	(void)state;
	BAD("nopmu/event=1/", "no PMU 'nopmu'", FIX "/pmu");
	BAD("cpu/bogus=1/", "unknown term 'bogus'", "format");
	BAD("cpu/event=0x1ff/", "does not fit", "8 bits");
	BAD("cpu/event=abc/", "not a number", "event=0x1c");
	BAD("cpu/period=1000/", "not supported", "sample");
	BAD("cpu/event=1", "bad event");
	BAD("cpu/event=1/x", "modifier 'x'");
	BAD("cpu//", "bad event");
	BAD("cpu/event=1,,umask=1/", "empty term");
	BAD("cpu/event=1,/", "empty term");
	BAD("../cpu/event=1/", "bad");
	BAD("cpu/name=a b/", "bad character");
	BAD("cpu/tsc=1/", "unknown term 'tsc'");
}

static void test_groups(void **state)
{
	(void)state;
	parse_ok("{cpu-clock,syscalls:sys_enter_getppid},page-faults,"
		 "{cs,migrations}:u");
	assert_int_equal(l.nr, 5);
	assert_int_equal(l.nr_groups, 3);
	INTS_ARE(l.group, 0, 0, 1, 2, 2);
	/* the group's modifier goes to its members, and their names */
	assert_int_equal(l.ev[3].excl, EVF_EXCL_KERNEL);
	assert_string_equal(l.ev[3].name, "cs:u");
	assert_string_equal(l.ev[4].name, "migrations:u");
	assert_int_equal(l.ev[2].excl, 0);
	/* a pmu event's commas inside a group */
	parse_ok("{cpu/event=1,umask=2/,msr/tsc/}");
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.nr_groups, 1);
	assert_int_equal(l.ev[0].config, 0x201);
	BAD("{cpu-clock,cs", "unbalanced '{'");
	BAD("cpu-clock}", "unbalanced '}'");
	BAD("{}", "empty group");
	BAD("{cpu-clock,{cs}}", "not nested");
	BAD("{cpu-clock,}", "empty event");
	BAD("{cpu-clock}:", "empty group modifier");
	BAD("{cpu-clock}cs", "expected ','");
}

static void test_multiple_options(void **state)
{
	char err[256];

	(void)state;
	/* -e given twice appends, groups numbered on */
	parse_ok("cpu-clock");
	assert_int_equal(evsel_parse(&l, "{cs,faults}", &env, err, sizeof(err)),
			 0);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.nr_groups, 2);
	assert_int_equal(l.group[2], 1);
	assert_string_equal(l.ev[0].name, "cpu-clock");
	assert_ptr_equal(l.ev[2].name, l.name[2]);
	/* the same event twice, however spelled, is refused */
	assert_int_equal(evsel_parse(&l, "context-switches", &env, err,
				     sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "the same as 'cs'"));
}

static void test_syntax_errors(void **state)
{
	char many[4096], max[32];
	int i, n = 0;

	(void)state;
	BAD("", "empty -e");
	BAD("cpu-clock,", "trailing ','");
	BAD(",cpu-clock", "empty event");
	BAD("cpu-clock,,cs", "empty event");
	BAD("nosuch", "unknown event 'nosuch'");
	BAD("cpu-clock:p", "modifier 'p'", ":u", ":k");
	BAD("cpu-clock:", "empty modifier");
	BAD("cpu-clock:u:k", "one modifier list");
	BAD("bpf-output", "not a count");
	BAD("cpu clock", "bad character ' '");
	BAD("cycles\"", "bad character");
	BAD("page-faults,faults", "the same as 'page-faults'");
	BAD("cycles:u,cycles:u", "the same as");
	/* more than tdbpf can program */
	for (i = 0; i < EVSEL_MAX + 6; i++)
		n += snprintf(many + n, sizeof(many) - n, "%sr%x", i ? "," : "",
			      i + 1);
	snprintf(max, sizeof(max), "at most %d", EVSEL_MAX);
	BAD(many, "too many events", max);
	/* a group larger than a group may be */
	n = snprintf(many, sizeof(many), "{");
	for (i = 0; i < 17; i++)
		n += snprintf(many + n, sizeof(many) - n, "%sr%x", i ? "," : "",
			      i + 1);
	snprintf(many + n, sizeof(many) - n, "}");
	BAD(many, "group of 17 events", "at most 16");
	/* different modifiers are different events */
	parse_ok("cycles:u,cycles:k,cycles");
	assert_int_equal(l.nr, 3);
}

/* Names are safe to print unescaped (JSON keys, CSV fields). */
static void test_names_printable(void **state)
{
	const char *specs[] = { "cpu/event=1,umask=2/:u",
				"{cs,syscalls:sys_enter_getppid}:k",
				"cpu/event=2,name=x.y-z_1/" };
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		parse_ok(specs[i]);
		for (k = 0; k < (size_t)l.nr; k++) {
			const char *p;

			for (p = l.ev[k].name; *p; p++)
				assert_true(*p > 0x20 && *p < 0x7f &&
					    *p != '"' && *p != '\\');
		}
	}
}

/* Why perf_event_open refused an event: one line, the cause named. */
static void test_probe_reasons(void **state)
{
	char err[512];

	(void)state;
	parse_ok("cycles,syscalls:sys_enter_getppid,cpu/event=1/");
	assert_int_equal(evsel_why(&l.ev[1], EACCES, NULL, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "'syscalls:sys_enter_getppid' needs privileges"));
	assert_non_null(strstr(err, "perf_event_paranoid"));
	assert_non_null(strstr(err, "CAP_PERFMON"));
	evsel_why(&l.ev[0], ENOENT, NULL, err, sizeof(err));
	assert_non_null(strstr(err, "'cycles' cannot be counted here: no hardware PMU"));
	evsel_why(&l.ev[2], EINVAL, NULL, err, sizeof(err));
	assert_non_null(strstr(err, "rejected by its PMU"));
	assert_non_null(strstr(err, "type 4 config 0x1"));
	evsel_why(&l.ev[1], EINVAL, "cycles", err, sizeof(err));
	assert_non_null(strstr(err, "cannot be counted in one group with 'cycles'"));
	evsel_why(&l.ev[1], EMFILE, NULL, err, sizeof(err));
	assert_non_null(strstr(err, "ulimit -n"));
	assert_null(strchr(err, '\n'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software_names),
		cmocka_unit_test(test_hardware_and_raw),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_tracepoint_glob),
		cmocka_unit_test(test_listed_events_parse),
		cmocka_unit_test(test_tracefs_missing),
		cmocka_unit_test(test_pmu_terms),
		cmocka_unit_test(test_pmu_errors),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_multiple_options),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_names_printable),
		cmocka_unit_test(test_probe_reasons),
	};

	return cmocka_run_group_tests_name("evsel", tests, NULL, NULL);
}
