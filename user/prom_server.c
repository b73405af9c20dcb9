// SPDX-License-Identifier: GPL-2.0
/*
 * --listen: one /metrics endpoint per run. The socket is bound while
 * tdbpf still has its privileges (a port below 1024 needs them); the
 * server starts once the tracer runs. A scrape collects on demand in the
 * loop's thread, as a report does, so nothing is collected when nobody
 * scrapes and a scrape never races a report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "http.h"
#include "prom_server.h"

struct prom_server {
	struct listen_addr addr;
	int fd;				/* bound socket until started */
	struct http_server *http;
	struct prom_state prom;
	bool prom_ready;
	prom_collect_fn collect;
	prom_counted_fn counted;
	void *ctx;
	double start_time;		/* Unix time of prom_server_start() */
};

struct prom_server *prom_server_open(const char *spec, char *err, size_t len)
{
	struct prom_server *p = calloc(1, sizeof(*p));

	if (!p) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	p->fd = -1;
	if (listen_parse_addr(spec, &p->addr, err, len)) {
		free(p);
		return NULL;
	}
	p->fd = http_listen(&p->addr, err, len);
	if (p->fd < 0) {
		free(p);
		return NULL;
	}
	return p;
}

const char *prom_server_address(const struct prom_server *p)
{
	return p->addr.text;
}

static int on_scrape(void *ctx, const char *accept, char **body, size_t *len,
		     const char **type)
{
	struct prom_server *p = ctx;
	bool om = prom_wants_openmetrics(accept);
	struct prom_health h;
	const struct task_table *t = NULL;
	FILE *f;
	int e;

	memset(&h, 0, sizeof(h));
	e = p->collect(p->ctx, &t, &h);
	if (e) {
		fprintf(stderr,
			"tdbpf: a scrape could not read the task sums: %s; answered 500\n",
			strerror(-e));
		return e;
	}
	e = prom_update(&p->prom, t);
	if (e) {
		fprintf(stderr, "tdbpf: a scrape failed: %s; answered 500\n",
			strerror(-e));
		return e;
	}
	if (p->counted)
		p->counted(p->ctx);
	h.start_time = p->start_time;
	f = open_memstream(body, len);
	if (!f)
		return -ENOMEM;
	e = prom_write(&p->prom, &h, om, f);
	if (fclose(f) && !e)
		e = -ENOMEM;
	*type = prom_content_type(om);
	return e;
}

int prom_server_start(struct prom_server *p, const struct event_plan *plan,
		      unsigned int labels, int max_series,
		      prom_collect_fn collect, prom_counted_fn counted,
		      void *ctx, char *err, size_t len)
{
	struct timespec ts;

	if (prom_init(&p->prom, plan, labels, max_series)) {
		snprintf(err, len, "out of memory");
		return -ENOMEM;
	}
	p->prom_ready = true;
	p->collect = collect;
	p->counted = counted;
	p->ctx = ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	p->start_time = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	p->http = http_start(p->fd, on_scrape, p, err, len);
	p->fd = -1;		/* taken over, or closed on failure */
	return p->http ? 0 : -EIO;
}

int prom_server_fd(const struct prom_server *p)
{
	return p ? http_poll_fd(p->http) : -1;
}

int prom_server_timeout_ms(const struct prom_server *p)
{
	return p ? http_timeout_ms(p->http) : -1;
}

void prom_server_run(struct prom_server *p)
{
	if (p)
		http_run(p->http);
}

void prom_server_close(struct prom_server *p)
{
	if (!p)
		return;
	http_stop(p->http);
	if (p->fd >= 0)
		close(p->fd);
	if (p->prom_ready)
		prom_free(&p->prom);
	free(p);
}
