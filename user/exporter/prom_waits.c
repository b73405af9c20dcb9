// SPDX-License-Identifier: GPL-2.0
/*
 * Wait series of /metrics (prom.h): each task's waker slots, as
 * increments since the last scrape per tid (as prom.c counts the sums),
 * on the series of the task's labels and its waker's, at most
 * max_series of them, the rest summed in one `other`. What joins hosts'
 * graphs (docs/graph.md, "Across hosts").
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "exporter/prom_table.h"
#include "sums/waits.h"

static struct prom_wait *wait_new(const char *labels, bool holds)
{
	struct prom_wait *w = prom_lset_new(labels, sizeof(*w));

	if (w)
		w->holds = holds;
	return w;
}

/* The series past max_series of waits (@holds false) or holds (true). */
static struct prom_wait *other_of(struct prom_state *st, bool holds)
{
	struct prom_wait **o = holds ? &st->hold_other : &st->wait_other;

	if (!*o)
		*o = wait_new(holds ?
			"comm=\"other\",thread=\"other\",holder_comm=\"\",holder_thread=\"other\"" :
			"comm=\"other\",thread=\"other\",waker_comm=\"\",waker_thread=\"other\"",
			holds);
	return *o;
}

/*
 * The wait (@holds: hold) series of @labels, created while there are
 * fewer than max_series; else the one `other` series of its family.
 * NULL: out of memory.
 */
static struct prom_wait *wait_get(struct prom_state *st, const char *labels,
				  bool holds)
{
	struct prom_wait *w;
	void *e;

	if (prom_lset_get(&st->waits, labels, sizeof(*w), st->max_series, &e))
		return NULL;
	if (!e)
		return other_of(st, holds);
	/* the labels say which: holder_ or waker_ */
	w = e;
	w->holds = holds;
	return w;
}

/*
 * A waker slot's remote endpoint (IPv4 address in tgid, network order;
 * port in tid) as the wakee's process's socket to it sees it, its port
 * folded as that socket's flow half is (flow_fold_ports()): the label
 * the other host's tdbpf_socket_flows mirrors.
 */
static void endpoint_label(const struct prom_state *st,
			   const struct task_row *r, const struct tdbpf_wait *w,
			   char *buf, size_t len)
{
	struct flow_end e = { .family = AF_INET, .port = (__u16)w->tid };
	size_t i;

	memcpy(e.addr, &w->tgid, 4);
	for (i = 0; st->flows && i < st->flows->nr; i++) {
		const struct sock_flow *f = &st->flows->v[i];
		struct sock_flow folded;

		if (f->pid == r->pid && flow_end_eq(&f->remote, &e)) {
			flow_fold_ports(st->flows, f, &folded);
			e = folded.remote;
			break;
		}
	}
	flow_end_str(&e, buf, len);
}

/*
 * Add @r's waker slots since the last update (per tid, as the sums) to
 * the wait series of its series @s, and its holder slots to its hold
 * series. A task waker or holder is named by its own series' labels;
 * one that has no row now, as another process (a holder: cpu-other).
 */
int prom_waits_update(struct prom_state *st, const struct task_table *cur,
			const struct task_row *r, const struct prom_series *s)
{
	int nw, pn, i;
	const struct tdbpf_wait *now = tasks_waits(cur, r, &nw), *was;
	struct tdbpf_wait d[TDBPF_NR_WAITS];
	struct task_row *p, *n;
	/* escaped, a byte is 3 at most: the waker's comm and thread labels */
	size_t len = strlen(s->labels) +
		     3 * (sizeof(s->comm) + sizeof(s->thread)) + 64;
	char *labels;

	if (!nw)
		return 0;
	p = tasks_get(&st->wait_last, r->tid);
	n = tasks_get(&st->wait_next, r->tid);
	if (!p || !n)
		return -ENOMEM;
	was = tasks_waits(&st->wait_last, p, &pn);
	waits_sub(d, now, nw, was, pn);
	if (tasks_add_waits(&st->wait_next, n, now, nw))
		return -ENOMEM;
	labels = malloc(len);
	if (!labels)
		return -ENOMEM;
	for (i = 0; i < nw; i++) {
		bool holds = TDBPF_KIND_HOLDS(d[i].kind);
		const char *who = holds ? "holder" : "waker";
		unsigned int kind = d[i].kind;
		const struct task_row *wr = NULL;
		struct prom_wait *w;
		struct prom_key k;
		char *q;

		if (kind == TDBPF_WAKER_NONE ||
		    (!d[i].wait_ns && !d[i].wakeups))
			continue;
		if (kind == TDBPF_WAKER_TASK || kind == TDBPF_HOLDER_TASK) {
			wr = tasks_find(cur, d[i].tid);
			/* not in this window */
			if (!wr)
				kind = holds ? TDBPF_HOLDER_OTHER :
					       TDBPF_WAKER_PROCESS;
		}
		q = labels + sprintf(labels, "%s,%s_comm=\"", s->labels, who);
		if (kind == TDBPF_WAKER_ENDPOINT) {
			char ep[FLOW_END_STR];

			endpoint_label(st, r, &d[i], ep, sizeof(ep));
			q += sprintf(q, "\",waker_thread=\"endpoint\",remote=\"%s",
				     ep);
		} else if (wr) {
			prom_key_of(st, wr, &k);
			q = prom_esc_label(q, k.comm);
			q += sprintf(q, "\",%s_thread=\"", who);
			q = prom_esc_label(q, k.thread);
		} else {
			q += sprintf(q, "\",%s_thread=\"%s", who,
				     waker_kind_name(kind));
		}
		strcpy(q, "\"");
		w = wait_get(st, labels, holds);
		if (!w) {
			free(labels);
			return -ENOMEM;
		}
		w->wait_ns += d[i].wait_ns;
		w->wakeups += d[i].wakeups;
	}
	free(labels);
	return 0;
}

void prom_waits_free(struct prom_state *st)
{
	prom_lset_free(&st->waits);
	prom_lset_entry_free(st->wait_other);
	prom_lset_entry_free(st->hold_other);
	tasks_free(&st->wait_last);
	tasks_free(&st->wait_next);
}
