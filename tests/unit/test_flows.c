// SPDX-License-Identifier: GPL-2.0
/*
 * Flow halves: the address spelling both hosts must agree on, and
 * flows_collect() on this test's own sockets (a listener, a client and
 * the accepted end on loopback), whose ports the kernel told us.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include "sources/flows_proc.h"
#include "sums/flows.h"

static void roundtrip(const char *in, const char *out)
{
	struct flow_end e;
	char buf[FLOW_END_STR];

	assert_true(flow_end_parse(in, &e));
	flow_end_str(&e, buf, sizeof(buf));
	assert_string_equal(buf, out);
}

static void test_spelling(void **state)
{
	struct flow_end a, b;

	(void)state;
	roundtrip("10.1.2.3:9092", "10.1.2.3:9092");
	roundtrip("[fd00::1]:80", "[fd00::1]:80");
	/* a dual-stack socket's IPv4 peer is spelt as IPv4 on both sides */
	roundtrip("[::ffff:10.1.2.3]:9092", "10.1.2.3:9092");
	assert_true(flow_end_parse("[::ffff:10.1.2.3]:9092", &a));
	assert_true(flow_end_parse("10.1.2.3:1", &b));
	assert_true(flow_addr_eq(&a, &b));
	assert_false(flow_end_eq(&a, &b));
	b.port = 9092;
	assert_true(flow_end_eq(&a, &b));
	assert_false(flow_end_parse("10.1.2.3", &a));
	assert_false(flow_end_parse("10.1.2.3:65536", &a));
	assert_false(flow_end_parse("10.1.2:80", &a));
	assert_false(flow_end_parse("[fd00::1:80", &a));
	assert_false(flow_end_parse("host:80", &a));
}

static int port_of(int fd, bool peer)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);

	assert_int_equal(peer ? getpeername(fd, (struct sockaddr *)&sa, &len) :
				getsockname(fd, (struct sockaddr *)&sa, &len),
			 0);
	return ntohs(sa.sin_port);
}

static const struct sock_flow *find(const struct flow_table *t, int lport,
				    int rport, enum flow_state st)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->v[i].local.port == lport &&
		    t->v[i].remote.port == rport && t->v[i].state == st)
			return &t->v[i];
	return NULL;
}

static void test_collect_own(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int lfd, cfd, afd, lport, cport;
	const struct sock_flow *f;
	struct flow_table ft;
	struct task_table t;
	struct task_row *r;
	char buf[FLOW_END_STR];

	(void)state;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	lport = port_of(lfd, false);
	sa.sin_port = htons(lport);
	cfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	cport = port_of(cfd, false);

	tasks_init(&t);
	assert_int_equal(tasks_set_layout(&t, 0, false), 0);
	r = tasks_get(&t, (__u32)getpid());
	assert_non_null(r);
	r->pid = (__u32)getpid();
	flows_init(&ft);
	assert_int_equal(flows_collect(&ft, &t), 0);

	assert_non_null(find(&ft, lport, 0, FLOW_LISTEN));
	/* the client's half and the accepted half: each other reversed */
	f = find(&ft, cport, lport, FLOW_ESTABLISHED);
	assert_non_null(f);
	assert_int_equal(f->pid, getpid());
	assert_string_equal(f->proto, "tcp");
	flow_end_str(&f->remote, buf, sizeof(buf));
	assert_true(strncmp(buf, "127.0.0.1:", 10) == 0);
	assert_non_null(find(&ft, lport, cport, FLOW_ESTABLISHED));

	/* an exited row's process is not read */
	r->exited = true;
	assert_int_equal(flows_collect(&ft, &t), 0);
	assert_int_equal(ft.nr, 0);

	flows_free(&ft);
	tasks_free(&t);
	close(afd);
	close(cfd);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spelling),
		cmocka_unit_test(test_collect_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
