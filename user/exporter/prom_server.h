/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --listen: the /metrics endpoint of a tracing run. It binds early (before
 * privileges are dropped), then answers each scrape by asking the run for
 * a fresh collect, folding it into the Prometheus series (prom.c) and
 * writing the exposition (prom_text.c) into the HTTP response (http.c).
 */
#ifndef TDBPF_PROM_SERVER_H
#define TDBPF_PROM_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include "exporter/prom.h"

/*
 * A fresh collect for a scrape: point @tasks at every task's cumulative
 * sums (live and exited, by tid) and fill @h's loss counters, tasks
 * held, collect time and BPF run times. 0 or -errno.
 */
typedef int (*prom_collect_fn)(void *ctx, const struct task_table **tasks,
			       struct prom_health *h);
/*
 * After a scrape counted that collect: every exited task in it has its
 * final sums in the series, so the run may fold those tasks' rows by
 * name (archive_fold()); prom.c skips folded rows. May be NULL.
 */
typedef void (*prom_counted_fn)(void *ctx);

struct prom_server;

/* Parse @spec and bind it; NULL with @err (one line: problem; fix). */
struct prom_server *prom_server_open(const char *spec, char *err,
				     size_t len);
/* "127.0.0.1:9100": the address bound (the port the kernel picked for 0) */
const char *prom_server_address(const struct prom_server *p);
/*
 * Serve from now on: series as @labels and @max_series say, processes
 * not traced named by @process_name.
 */
int prom_server_start(struct prom_server *p, const struct event_plan *plan,
		      unsigned int labels, int max_series,
		      prom_name_fn process_name, prom_collect_fn collect,
		      prom_counted_fn counted, void *ctx, char *err,
		      size_t len);
/* For the run's event loop: the fd to poll, the longest wait, the work. */
int prom_server_fd(const struct prom_server *p);
int prom_server_timeout_ms(const struct prom_server *p);
void prom_server_run(struct prom_server *p);
/* Stop serving and free (NULL is fine). */
void prom_server_close(struct prom_server *p);

#endif /* TDBPF_PROM_SERVER_H */
