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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "exporter/http.h"
#include "exporter/prom_server.h"
#include "support/error.h"

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
	size_t last_len;		/* the previous body: the next one's size */
	char *spare;			/* a sent body's buffer, for the next */
};

/*
 * The response body, grown by hand: open_memstream() zero-fills each
 * growth and copies on every doubling, and a fresh buffer per scrape
 * faults in its pages again; with a series per thread of 10,000 (15 MB)
 * that was most of a scrape. A buffer is sized from the previous body and
 * reused once sent: its capacity sits in front of the text. It is mapped
 * and grown with mremap(), not malloc()ed: a heap buffer that outgrows
 * itself leaves its old copy resident in the heap, 16 MiB of garbage in
 * the peak RSS when a body of 10,000 series crossed 16 MiB.
 */
struct body {
	char *mem;		/* BODY_HDR bytes (the capacity), then text */
	size_t len, cap;	/* of the text */
};

#define BODY_HDR	16

/* Bytes mapped for a body of @cap: whole pages. */
static size_t body_map_len(size_t cap)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (BODY_HDR + cap + pg - 1) / pg * pg;
}

static int body_alloc(struct body *b, size_t cap)
{
	void *m = mmap(NULL, body_map_len(cap), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	b->mem = m == MAP_FAILED ? NULL : m;
	b->cap = body_map_len(cap) - BODY_HDR;
	b->len = 0;
	return b->mem ? 0 : -ENOMEM;
}

/* A buffer of body_alloc() (its capacity in front), or NULL. */
static void body_free(char *mem)
{
	size_t cap;

	if (!mem)
		return;
	memcpy(&cap, mem, sizeof(cap));
	munmap(mem, body_map_len(cap));
}

static ssize_t body_write(void *cookie, const char *data, size_t n)
{
	struct body *b = cookie;

	if (n > b->cap - b->len) {
		size_t cap = b->cap;
		void *p;

		while (n > cap - b->len)
			cap *= 2;
		p = mremap(b->mem, body_map_len(b->cap), body_map_len(cap),
			   MREMAP_MAYMOVE);
		if (p == MAP_FAILED)
			return -1;
		b->mem = p;
		b->cap = body_map_len(cap) - BODY_HDR;
	}
	memcpy(b->mem + BODY_HDR + b->len, data, n);
	b->len += n;
	return (ssize_t)n;
}

struct prom_server *prom_server_open(const char *spec, char *err, size_t len)
{
	struct prom_server *p = calloc(1, sizeof(*p));

	if (!p) {
		error_set(err, len, "out of memory");
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
	cookie_io_functions_t fns = { .write = body_write };
	struct body b = { 0 };
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
	/* the sockets fold the ports of waits on remote endpoints */
	p->prom.flows = h.flows;
	p->prom.cgroups = h.cgroups;
	p->prom.span_cur = h.spans;
	e = prom_update(&p->prom, t);
	if (e) {
		fprintf(stderr, "tdbpf: a scrape failed: %s; answered 500\n",
			strerror(-e));
		return e;
	}
	if (p->counted)
		p->counted(p->ctx);
	h.start_time = p->start_time;
	if (p->spare) {
		b.mem = p->spare;
		memcpy(&b.cap, b.mem, sizeof(b.cap));
		p->spare = NULL;
	} else if (body_alloc(&b, p->last_len + p->last_len / 8 + 4096)) {
		return -ENOMEM;
	}
	f = fopencookie(&b, "w", fns);
	if (!f) {
		memcpy(b.mem, &b.cap, sizeof(b.cap));
		body_free(b.mem);
		return -ENOMEM;
	}
	/* outbuf.c hands over 16 KiB pieces: no stdio buffer in between */
	setvbuf(f, NULL, _IONBF, 0);
	e = prom_write(&p->prom, &h, om, f);
	if (fclose(f) && !e)
		e = -ENOMEM;
	memcpy(b.mem, &b.cap, sizeof(b.cap));
	*body = b.mem + BODY_HDR;
	*len = b.len;
	p->last_len = b.len;
	*type = prom_content_type(om);
	return e;
}

/*
 * A body was sent: keep its buffer (pages already faulted in) for the
 * next scrape; one is enough, a second concurrent one is freed.
 */
static void on_sent(void *ctx, char *body)
{
	struct prom_server *p = ctx;
	char *mem = body ? body - BODY_HDR : NULL;

	if (p->spare)
		body_free(mem);
	else
		p->spare = mem;
}

int prom_server_start(struct prom_server *p, const struct event_plan *plan,
		      unsigned int labels, int max_series,
		      prom_name_fn process_name, prom_collect_fn collect,
		      prom_counted_fn counted, void *ctx, char *err,
		      size_t len)
{
	struct timespec ts;

	if (prom_init(&p->prom, plan, labels, max_series)) {
		error_set(err, len, "out of memory");
		return -ENOMEM;
	}
	p->prom.process_name = process_name;
	p->prom_ready = true;
	p->collect = collect;
	p->counted = counted;
	p->ctx = ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	p->start_time = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	p->http = http_start(p->fd, on_scrape, on_sent, p, err, len);
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
	body_free(p->spare);
	free(p);
}
