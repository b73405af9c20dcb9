// SPDX-License-Identifier: GPL-2.0
/* --listen ADDR:PORT and --listen-labels, parsed (listen_opts.c). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include "exporter/listen_opts.h"

static void good(const char *spec, int family, const char *text)
{
	struct listen_addr a;
	char err[256] = "";

	if (listen_parse_addr(spec, &a, err, sizeof(err)))
		fail_msg("'%s' refused: %s", spec, err);
	assert_int_equal(a.ss.ss_family, family);
	assert_int_equal(a.len, family == AF_INET ? sizeof(struct sockaddr_in) :
						    sizeof(struct sockaddr_in6));
	if (strcmp(a.text, text))
		fail_msg("'%s' -> '%s', want '%s'", spec, a.text, text);
}

static void bad(const char *spec, const char *says)
{
	struct listen_addr a;
	char err[256] = "";

	if (!listen_parse_addr(spec, &a, err, sizeof(err)))
		fail_msg("'%s' accepted as %s", spec, a.text);
	if (!strstr(err, says))
		fail_msg("'%s': message '%s' lacks '%s'", spec, err, says);
	assert_null(strchr(err, '\n'));
}

static void test_addresses(void **state)
{
	(void)state;
	/* no host: loopback only */
	good("9100", AF_INET, "127.0.0.1:9100");
	good(":9100", AF_INET, "127.0.0.1:9100");
	good("localhost:9100", AF_INET, "127.0.0.1:9100");
	good("0", AF_INET, "127.0.0.1:0");
	good("0.0.0.0:80", AF_INET, "0.0.0.0:80");
	good("10.1.2.3:65535", AF_INET, "10.1.2.3:65535");
	good("[::1]:9100", AF_INET6, "[::1]:9100");
	good("[::]:9100", AF_INET6, "[::]:9100");
	good("[fe80::1]:1", AF_INET6, "[fe80::1]:1");

	bad("", "invalid --listen ''");
	bad(":", "give [ADDR:]PORT");
	bad("65536", "give [ADDR:]PORT");
	bad("-1", "give [ADDR:]PORT");
	bad("+80", "give [ADDR:]PORT");
	bad("80x", "give [ADDR:]PORT");
	bad("1.2.3:80", "numeric address");
	bad("example.com:80", "numeric address");
	bad("::1:9100", "IPv6 address in brackets");
	bad("[::1]9100", "give [ADDR:]PORT");
	bad("[::1]:", "give [ADDR:]PORT");
	bad("[1.2.3.4]:80", "give [ADDR:]PORT");
	bad("[::1", "give [ADDR:]PORT");
	bad("a\nb:1", "invalid --listen");
}

static void test_labels(void **state)
{
	unsigned int l;

	(void)state;
	assert_int_equal(listen_parse_labels("pid", &l), 0);
	assert_int_equal(l, LISTEN_LABEL_PID);
	/* a tid label needs its pid: a tid alone is reused across pids */
	assert_int_equal(listen_parse_labels("tid", &l), 0);
	assert_int_equal(l, LISTEN_LABEL_PID | LISTEN_LABEL_TID);
	assert_int_equal(listen_parse_labels("tid,pid", &l), 0);
	assert_int_equal(l, LISTEN_LABEL_PID | LISTEN_LABEL_TID);
	assert_int_equal(listen_parse_labels("none", &l), 0);
	assert_int_equal(l, 0);
	assert_int_equal(listen_parse_labels("comm", &l), -1);
	assert_int_equal(listen_parse_labels("", &l), -1);
	assert_int_equal(listen_parse_labels("pid,none", &l), -1);
	assert_int_equal(listen_parse_labels(NULL, &l), -1);
	assert_int_equal(listen_parse_labels("pid,tid", &l), 0);
	assert_int_equal(l, LISTEN_LABEL_PID | LISTEN_LABEL_TID);
	/* an empty item after a comma is skipped; nothing but commas is not */
	assert_int_equal(listen_parse_labels("pid,", &l), 0);
	assert_int_equal(l, LISTEN_LABEL_PID);
	assert_int_equal(listen_parse_labels(",", &l), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_labels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
