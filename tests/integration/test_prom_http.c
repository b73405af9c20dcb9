// SPDX-License-Identifier: GPL-2.0
/*
 * --listen's HTTP server against bad requests and slow clients: each
 * gets its status, none stalls a scrape of the others. Root (BPF).
 */
#include "helpers.h"
#include "prom_helpers.h"

/* A client that sends half a request and stays. */
static int slow_client(int port)
{
	static const char part[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
	int fd = connect_port(port);

	if (fd >= 0 && write(fd, part, sizeof(part) - 1) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A request the server refuses, and what its answer must say */
struct refused {
	const char *req;
	int status;
	const char *head;	/* a line of the answer's head, or NULL */
};

static const struct refused refused[] = {
	{ "GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404,
	  NULL },
	{ "GET /metrics/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	  404, NULL },
	{ "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
	  405, "Allow: GET, HEAD" },
	{ "DELETE / HTTP/1.1\r\nHost: x\r\n\r\n", 405, NULL },
};

static void check_refused(int port, const struct refused *c)
{
	struct reply r;

	assert_int_equal(http_raw(port, c->req, strlen(c->req), &r, 5000), 0);
	if (r.status != c->status || (c->head && !strstr(r.head, c->head)))
		fail_msg("%.*s: answered %d, want %d%s%s",
			 (int)strcspn(c->req, "\r"), c->req, r.status,
			 c->status, c->head ? " with " : "",
			 c->head ? c->head : "");
	reply_free(&r);
}

static void test_bad_requests(void **state)
{
	char *big;
	struct reply r;
	struct server s = { 0 };
	int slow[3], i;
	struct pollfd p;
	double t0;

	(void)state;
	NEED_BPF();
	start_tdbpf_on(&s, getpid());
	for (i = 0; i < (int)(sizeof(refused) / sizeof(refused[0])); i++)
		check_refused(s.port, &refused[i]);

	/* two requests on one connection: kept alive between scrapes */
	{
		static const char two[] =
			"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
			"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
		const char *p;
		int n = 0;

		assert_int_equal(http_raw(s.port, two, sizeof(two) - 1, &r, 5000),
				 0);
		for (p = r.head; (p = strstr(p, "HTTP/1.1 200 OK")); p++)
			n++;
		for (p = r.body; (p = strstr(p, "HTTP/1.1 200 OK")); p++)
			n++;
		assert_int_equal(n, 2);
		reply_free(&r);
	}

	/* a 64 KiB header: refused, 431 */
	big = malloc(70000);
	assert_non_null(big);
	i = snprintf(big, 70000, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
	memset(big + i, 'a', 65536);
	strcpy(big + i + 65536, "\r\n\r\n");
	assert_int_equal(http_raw(s.port, big, strlen(big), &r, 5000), 0);
	assert_int_equal(r.status, 431);
	reply_free(&r);
	free(big);

	/* not HTTP at all: libmicrohttpd closes at once, no answer */
	if (http_raw(s.port, "hello\r\n\r\n", 9, &r, 5000) == 0) {
		assert_int_equal(r.status, 400);
		reply_free(&r);
	} else if (!(r.secs < 2)) {
		fail_msg("a request that is not HTTP held its connection %.1f s",
			 r.secs);
	}

	/* slow clients hold connections: scrapes still answer at once */
	for (i = 0; i < 3; i++) {
		slow[i] = slow_client(s.port);
		assert_true(slow[i] >= 0);
	}
	for (i = 0; i < 5; i++) {
		get_expect(s.port, "/metrics", NULL, 200, &r);
		if (r.secs > 1.0)
			fail_msg("a scrape took %.2f s beside slow clients",
				 r.secs);
		reply_free(&r);
	}
	/* and the server drops them after its idle timeout (10 s) */
	t0 = mono_s();
	p.fd = slow[0];
	p.events = POLLIN;
	assert_int_equal(poll(&p, 1, 15000), 1);
	print_message("a stalled client was dropped after %.1f s\n",
		      mono_s() - t0);
	for (i = 0; i < 3; i++)
		close(slow[i]);
	assert_int_equal(stop_tdbpf(&s), 0);
}

/* ---- slow clients --------------------------------------------------- */

#define NR_SLOW		50

struct slow_pool {
	int port;
	int fd[NR_SLOW];
	double since[NR_SLOW];	/* connected at */
	double longest;		/* the longest a slow client stayed, s */
	int closed;		/* times the server closed one */
	volatile int stop;
};

/* A connection from 127.0.0.@last: the server tells addresses apart. */
static int connect_from(int port, int last)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	struct sockaddr_in me = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* 127.0.0.0/8: any of its 2^24 addresses is this machine's */
	me.sin_addr.s_addr = htonl(0x7f000000 | ((unsigned)last & 0xffffff));
	if (fd < 0 || bind(fd, (struct sockaddr *)&me, sizeof(me)) ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * 50 clients that send a request one byte every 100 ms: 10 from the
 * scraper's own address (it had 8 slots in all), 20 from each of two
 * others (more than an address may hold: HTTP_MAX_PER_IP, 16). One the
 * server closes reconnects after 20 ms, so the slots stay contested the
 * whole time (bounded: never faster than that).
 */
static void *slow_main(void *arg)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: slow\r\n";
	struct slow_pool *sp = arg;
	size_t off[NR_SLOW] = { 0 };
	double reopen[NR_SLOW] = { 0 };
	char b[256];
	int i;

	while (!sp->stop) {
		for (i = 0; i < NR_SLOW; i++) {
			double now = mono_s();

			if (sp->fd[i] < 0) {
				if (now < reopen[i])
					continue;
				sp->fd[i] = connect_from(sp->port,
							 i < 10 ? 1 : 2 + i % 2);
				sp->since[i] = now;
				off[i] = 0;
				continue;
			}
			/* closed by the server: count it, come back later */
			if (recv(sp->fd[i], b, sizeof(b), MSG_DONTWAIT) == 0 ||
			    send(sp->fd[i], req + off[i] % (sizeof(req) - 1), 1,
				 MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
				if (now - sp->since[i] > sp->longest)
					sp->longest = now - sp->since[i];
				close(sp->fd[i]);
				sp->fd[i] = -1;
				sp->closed++;
				reopen[i] = now + 0.02;
				continue;
			}
			off[i]++;
		}
		usleep(100000);
	}
	for (i = 0; i < NR_SLOW; i++)
		if (sp->fd[i] >= 0)
			close(sp->fd[i]);
	return NULL;
}

/*
 * The README's promise: a slow client neither delays scrapes nor stays.
 * With 50 clients trickling requests from the scraper's address and
 * others, every scrape is answered within a second. Why a second holds:
 * a scrape of this test's process is a collect of a few tasks and a
 * page of text, milliseconds even on a CPU shared with a spinning
 * thread (CFS gives each a slice within a few ms); a scrape that had to
 * wait for a slot would wait for a slow client's whole time (seconds),
 * and one whose SYN was dropped for a full backlog would wait TCP's 1 s
 * retransmission. A slow client is closed within the whole-request bound
 * (HTTP_REQUEST_S, 10 s) whatever it sends.
 */
static void test_slow_clients(void **state)
{
	struct slow_pool sp = { .longest = 0 };
	struct server s = { 0 };
	pthread_t slow, busy;
	struct reply r;
	double worst = 0, t0;
	int i, n = 0, fd, bad = 200;
	struct pollfd p;

	(void)state;
	NEED_BPF();
	start_tdbpf_on(&s, getpid());
	sp.port = s.port;
	for (i = 0; i < NR_SLOW; i++)
		sp.fd[i] = -1;
	busy_stop = 0;
	assert_int_equal(pthread_create(&busy, NULL, busy_main, NULL), 0);
	assert_int_equal(pthread_create(&slow, NULL, slow_main, &sp), 0);
	usleep(500000);	/* every slow client in, the slots contested */
	for (t0 = mono_s(); mono_s() - t0 < 6; n++) {
		bad = http_get(s.port, "/metrics", NULL, &r) ? -1 : r.status;
		if (bad != 200)
			break;
		if (r.secs > worst)
			worst = r.secs;
		reply_free(&r);
		usleep(100000);
	}
	/* the threads end before any verdict: cmocka leaves by longjmp */
	sp.stop = 1;
	pthread_join(slow, NULL);
	busy_stop = 1;
	pthread_join(busy, NULL);
	if (bad != 200)
		fail_msg("scrape %d beside %d slow clients: no answer (status %d after %.2f s)",
			 n, NR_SLOW, bad, r.secs);
	print_message("%d scrapes beside %d slow clients: slowest %.3f s; slow clients closed %d times\n",
		      n, NR_SLOW, worst, sp.closed);
	if (worst > 1.0)
		fail_msg("a scrape took %.2f s beside slow clients", worst);
	/* more clients than slots: the server made room by closing them */
	assert_true(sp.closed > 0);

	/* alone, a slow client is still closed within the bound */
	fd = connect_from(s.port, 3);
	assert_true(fd >= 0);
	t0 = mono_s();
	p.fd = fd;
	p.events = POLLIN;
	for (i = 0; i < 150 && poll(&p, 1, 100) == 0; i++)
		assert_int_equal(send(fd, "G", 1, MSG_NOSIGNAL), 1);
	print_message("a client sending a byte every 100 ms was closed after %.1f s\n",
		      mono_s() - t0);
	assert_true(mono_s() - t0 < 12.0);
	close(fd);
	assert_int_equal(stop_tdbpf(&s), 0);
}

/* ---- many addresses, bursts ----------------------------------------- */

#define NR_ADDRS	200

/*
 * A half-open connection (nothing, or half a request) from each of 200
 * addresses, more than the slots (64) and the listen backlog (128) then:
 * a scrape from 127.0.0.1 still gets its answer within a second (the
 * bound of test_slow_clients, for the same reasons). It took 10 s (a
 * slow client's whole time): libmicrohttpd takes its listening socket
 * off its epoll set when full and put it back only at its next run,
 * which nothing woke.
 */
static void test_many_addresses(void **state)
{
	static const char part[] = "GET /metrics HTTP/1.1\r\n";
	struct server s = { 0 };
	int fd[NR_ADDRS], i, held = 0;
	struct reply r;
	double t0;

	(void)state;
	NEED_BPF();
	start_tdbpf_on(&s, getpid());
	for (i = 0; i < NR_ADDRS; i++) {
		/* 127.0.1.x, 127.0.2.x: none is the scraper's */
		fd[i] = connect_from(s.port, 256 + i);
		if (fd[i] >= 0 && i % 2 &&
		    write(fd[i], part, sizeof(part) - 1) < 0) {
			close(fd[i]);
			fd[i] = -1;
		}
		held += fd[i] >= 0;
	}
	assert_true(held > 150);
	usleep(300000);	/* accepted, or waiting in the backlog */
	for (i = 0; i < 5; i++) {
		t0 = mono_s();
		get_expect(s.port, "/metrics", NULL, 200, &r);
		print_message("a scrape beside %d half-open connections: %.3f s\n",
			      held, mono_s() - t0);
		if (r.secs > 1.0)
			fail_msg("a scrape took %.2f s beside %d half-open connections from as many addresses",
				 r.secs, held);
		reply_free(&r);
	}
	for (i = 0; i < NR_ADDRS; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	assert_int_equal(stop_tdbpf(&s), 0);
}

#define HTTP_SHARE	16	/* http.h's HTTP_MAX_PER_IP */

/*
 * 1,000 scrapes, 50 at a time from one address (more than its 16
 * slots), each request sent at once: every one gets an answer, a 200 or
 * a 503 with Retry-After that a scraper acts on; 518 were closed
 * unanswered. Each round's first 16 fit the address's share: served.
 */
static void test_bursts(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: b\r\n"
				  "Connection: close\r\n\r\n";
	enum { ROUNDS = 20, AT_ONCE = 50 };
	int fd[AT_ONCE], i, k, ok = 0, busy = 0, none = 0, round_ok;
	struct server s = { 0 };
	char buf[4096];

	(void)state;
	NEED_BPF();
	start_tdbpf_on(&s, getpid());
	for (k = 0; k < ROUNDS; k++) {
		for (i = 0; i < AT_ONCE; i++) {
			fd[i] = connect_from(s.port, 1);
			assert_true(fd[i] >= 0);
			assert_int_equal(write(fd[i], req, sizeof(req) - 1),
					 (ssize_t)sizeof(req) - 1);
		}
		for (i = 0, round_ok = 0; i < AT_ONCE; i++) {
			char rest[4096];
			ssize_t n, got = 0;

			/* its head (the first 4 KiB), then on to the close */
			while (got < (ssize_t)sizeof(buf) - 1 &&
			       (n = read(fd[i], buf + got,
					 sizeof(buf) - 1 - (size_t)got)) > 0)
				got += n;
			buf[got] = 0;
			while (read(fd[i], rest, sizeof(rest)) > 0)
				;
			close(fd[i]);
			if (!strncmp(buf, "HTTP/1.1 200", 12)) {
				ok++;
				round_ok++;
			} else if (!strncmp(buf, "HTTP/1.1 503", 12) &&
				   strstr(buf, "Retry-After: 1")) {
				busy++;
			} else {
				none++;
			}
		}
		assert_true(round_ok >= HTTP_SHARE);
	}
	print_message("%d scrapes, %d at a time from one address: %d answered 200, %d 503, %d unanswered\n",
		      ROUNDS * AT_ONCE, AT_ONCE, ok, busy, none);
	assert_int_equal(none, 0);
	assert_int_equal(ok + busy, ROUNDS * AT_ONCE);
	assert_int_equal(stop_tdbpf(&s), 0);
}

/* ---- clients that ask and never read ------------------------------- */

#define NR_UNREAD	60

/* A field of /proc/@pid/status in bytes ("VmRSS", "VmHWM"). */
static double status_bytes(pid_t pid, const char *key)
{
	char path[64], line[256];
	double kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			kb = strtod(line + strlen(key) + 1, NULL);
	fclose(f);
	assert_true(kb >= 0);
	return kb * 1024;
}

/*
 * A series per thread of 3,000 (a body of 5 MB), and 60 clients
 * that send a GET and never read: each answer stays in tdbpf until its
 * client reads it (60 held 300 MB). Bodies unread are bounded: past
 * HTTP_UNREAD_MAX (32 MiB) a scrape gets 503 with Retry-After, so the
 * peak RSS stays within the baseline, that bound and two bodies (the
 * one let out past it and the one being built); once those clients go,
 * a scrape gets its 200 again.
 */
static void test_unread_answers(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: u\r\n\r\n";
	char *wl[] = { (char *)workload("manythreads"), "-n", "3000", "-d",
		       "120", "-p", "1000", NULL };
	const char *args[] = { "--listen-labels", "pid,tid",
			       "--listen-max-series", "10000", "-p", NULL,
			       NULL };
	int fd[NR_UNREAD], i, rcv = 4096, status = 0;
	double base, peak, body;
	char line[64], pidarg[32];
	struct server s = { 0 };
	struct child w;
	struct reply r;

	(void)state;
	NEED_BPF();
	snprintf(pidarg, sizeof(pidarg), "%d", start_tracked(wl, &w));
	assert_non_null(read_line(w.out, line, sizeof(line), 60000));
	assert_string_equal(line, "ready");
	args[5] = pidarg;
	start_tdbpf(&s, args);
	/* a thread's series once it has run since the attach: a period */
	usleep(3000000);
	get_expect(s.port, "/metrics", NULL, 200, &r);
	body = (double)strlen(r.body);
	print_message("a body of %.2f MB\n", body / 1e6);
	reply_free(&r);
	/* enough clients to hold twice the bound, were it not there */
	assert_true(body * NR_UNREAD > 2 * 32.0 * 1024 * 1024);
	base = status_bytes(s.pid, "VmRSS");
	for (i = 0; i < NR_UNREAD; i++) {
		fd[i] = connect_from(s.port, 512 + i);
		assert_true(fd[i] >= 0);
		/* a small window: the answers stay in tdbpf, not in ours */
		setsockopt(fd[i], SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
		assert_int_equal(write(fd[i], req, sizeof(req) - 1),
				 (ssize_t)sizeof(req) - 1);
	}
	/* within a request's time (10 s), every one of them answered */
	for (i = 0; i < 40 && status != 503; i++) {
		usleep(200000);
		if (http_get(s.port, "/metrics", NULL, &r))
			continue;
		status = r.status;
		if (status == 503)
			assert_non_null(strstr(r.head, "Retry-After: 1"));
		reply_free(&r);
	}
	peak = status_bytes(s.pid, "VmHWM");
	print_message("body %.1f MB; RSS %.1f MB before %d clients that never read, peak %.1f MB\n",
		      body / 1e6, base / 1e6, NR_UNREAD, peak / 1e6);
	assert_int_equal(status, 503);
	assert_true(peak <= base + 32.0 * 1024 * 1024 + 2 * body);
	for (i = 0; i < NR_UNREAD; i++)
		close(fd[i]);
	for (i = 0, status = 0; i < 20 && status != 200; i++) {
		usleep(100000);
		if (http_get(s.port, "/metrics", NULL, &r))
			continue;
		status = r.status;
		reply_free(&r);
	}
	assert_int_equal(status, 200);
	assert_int_equal(stop_tdbpf(&s), 0);
	kill(w.pid, SIGTERM);
	assert_int_equal(wait_for(w.pid, 30), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_bad_requests, teardown),
		cmocka_unit_test_teardown(test_slow_clients, teardown),
		cmocka_unit_test_teardown(test_many_addresses, teardown),
		cmocka_unit_test_teardown(test_bursts, teardown),
		cmocka_unit_test_teardown(test_unread_answers, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
