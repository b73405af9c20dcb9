// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus series for --listen: each scrape's task table is turned into
 * increments since the previous scrape, per tid, and each increment is
 * added to the series of the task's labels at that moment. Series only
 * ever grow, whatever the tasks do between scrapes (exit, rename, tid
 * reuse, a source that drops them), and their number is bounded: tasks
 * beyond --listen-max-series go to one `other` series.
 *
 * Counters are scaled per increment (value x enabled / running of the
 * increment), as -I scales each interval: the scaled estimate of a whole
 * life can shrink when a multiplexed group catches up, an increment
 * cannot. TMA nodes likewise: each series' increment is decoded and its
 * node fractions are added as slot counts (fraction x the increment's
 * slots), so that sum(rate(node)) / sum(rate(slots)) over any set of
 * series and hosts is the slot-weighted fraction.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analysis/report.h"
#include "model/tma.h"
#include "outputs/prom.h"
#include "sums/archive.h"
#include "sums/waits.h"
#include "support/text.h"

/* ---- process names ---------------------------------------------------- */

struct pcomm_entry {
	__u32 tgid;		/* 0 = empty */
	char comm[TDBPF_COMM_LEN + 1];
};

struct pcomm_map {
	struct pcomm_entry *e;
	size_t cap;
};

static size_t u32_hash(__u32 v, size_t mask)
{
	return (size_t)(((uint64_t)v * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static struct pcomm_entry *pcomm_slot(struct pcomm_map *m, __u32 tgid)
{
	size_t mask, i;

	if (!m || !m->cap)
		return NULL;
	mask = m->cap - 1;
	for (i = u32_hash(tgid, mask); m->e[i].tgid; i = (i + 1) & mask)
		if (m->e[i].tgid == tgid)
			return &m->e[i];
	return &m->e[i];
}

static void pcomm_free(struct pcomm_map *m)
{
	if (m)
		free(m->e);
	free(m);
}

/* /proc/TGID/comm, for a process whose main thread tdbpf did not see */
static void read_pcomm(const char *proc, __u32 tgid, char *out, size_t len)
{
	char path[96];
	ssize_t n;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%u/comm", proc, tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		n = 0;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

static void copy_name(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * tgid -> process name for the tgids of @cur: the main thread's own row
 * when the table has it (the newest name), else what the previous scrape
 * knew, else /proc. Rebuilt each update so it never outgrows the table.
 */
static int pcomm_build(struct prom_state *st, const struct task_table *cur)
{
	struct pcomm_map *m = calloc(1, sizeof(*m));
	struct pcomm_entry *e, *old;
	size_t i;

	if (!m)
		return -ENOMEM;
	m->cap = 64;
	while (m->cap < cur->nr * 2)
		m->cap *= 2;
	m->e = calloc(m->cap, sizeof(*m->e));
	if (!m->e) {
		free(m);
		return -ENOMEM;
	}
	for (i = 0; i < cur->nr; i++) {
		const struct task_row *r = tasks_row(cur, i);

		if (!r->pid || r->tid != r->pid)
			continue;
		e = pcomm_slot(m, r->pid);
		e->tgid = r->pid;
		copy_name(e->comm, sizeof(e->comm), r->comm);
	}
	for (i = 0; i < cur->nr; i++) {
		const struct task_row *r = tasks_row(cur, i);

		if (!r->pid)
			continue;
		e = pcomm_slot(m, r->pid);
		if (e->tgid)
			continue;
		e->tgid = r->pid;
		old = pcomm_slot(st->pcomm, r->pid);
		if (old && old->tgid)
			memcpy(e->comm, old->comm, sizeof(e->comm));
		else
			read_pcomm(st->proc, r->pid, e->comm, sizeof(e->comm));
	}
	pcomm_free(st->pcomm);
	st->pcomm = m;
	return 0;
}

/* ---- label escaping --------------------------------------------------- */

/*
 * A label value as the exposition formats want it: backslash, double
 * quote and newline escaped, and valid UTF-8 (Prometheus rejects the
 * whole scrape otherwise; a thread name can hold any byte): each byte
 * outside a valid sequence becomes U+FFFD. @dst needs 3 bytes per byte
 * of @s, plus one.
 */
char *prom_esc_label(char *dst, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, l;

	while (i < n) {
		switch (u[i]) {
		case '\\':
			*dst++ = '\\';
			*dst++ = '\\';
			i++;
			continue;
		case '"':
			*dst++ = '\\';
			*dst++ = '"';
			i++;
			continue;
		case '\n':
			*dst++ = '\\';
			*dst++ = 'n';
			i++;
			continue;
		}
		l = text_utf8_seq(u + i, n - i);
		if (!l) {
			memcpy(dst, "\xef\xbf\xbd", 3);
			dst += 3;
			i++;
			continue;
		}
		memcpy(dst, u + i, l);
		dst += l;
		i += l;
	}
	*dst = '\0';
	return dst;
}

/* ---- series ----------------------------------------------------------- */

struct prom_key {
	char comm[TDBPF_COMM_LEN + 1];
	char thread[TDBPF_COMM_LEN + 2];
	__u32 pid, tid;
};

static size_t key_hash(const struct prom_key *k)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */
	const char *s;

	for (s = k->comm; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	h = (h ^ 0xff) * 0x100000001b3ull;	/* not a byte of a name */
	for (s = k->thread; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	h = (h ^ k->pid) * 0x100000001b3ull;
	h = (h ^ k->tid) * 0x100000001b3ull;
	return (size_t)h;
}

static bool key_is(const struct prom_series *s, const struct prom_key *k)
{
	return s->pid == k->pid && s->tid == k->tid &&
	       !strcmp(s->comm, k->comm) && !strcmp(s->thread, k->thread);
}

static int nr_nodes(const struct prom_state *st)
{
	const struct model *m = st->plan->model;

	return m && m->max_level > 0 && st->plan->level > 0 ? m->nr_nodes : 0;
}

static struct prom_series *series_new(const struct prom_state *st,
				      const struct prom_key *k, bool other)
{
	size_t nr = (size_t)st->plan->nr, nn = (size_t)nr_nodes(st);
	size_t labels = 3 * (sizeof(k->comm) + sizeof(k->thread)) + 64;
	struct prom_series *s;
	char *p;

	s = calloc(1, sizeof(*s) + 2 * nr * sizeof(struct tdbpf_count) +
			      (nr + nn) * sizeof(double) + labels);
	if (!s)
		return NULL;
	s->raw = (struct tdbpf_count *)(s + 1);
	s->delta = s->raw + nr;
	s->scaled = (double *)(s->delta + nr);
	s->tma = s->scaled + nr;
	s->labels = (char *)(s->tma + nn);
	memcpy(s->comm, k->comm, sizeof(s->comm));
	memcpy(s->thread, k->thread, sizeof(s->thread));
	s->pid = k->pid;
	s->tid = k->tid;
	/* every series of a family carries the same label names */
	p = s->labels;
	p += sprintf(p, "comm=\"");
	p = prom_esc_label(p, other ? "other" : k->comm);
	p += sprintf(p, "\",thread=\"");
	p = prom_esc_label(p, other ? "other" : k->thread);
	*p++ = '"';
	*p = '\0';
	if (st->labels & (LISTEN_LABEL_PID | LISTEN_LABEL_TID)) {
		if (other)
			p += sprintf(p, ",pid=\"\"");
		else
			p += sprintf(p, ",pid=\"%u\"", k->pid);
	}
	if (st->labels & LISTEN_LABEL_TID) {
		if (other)
			sprintf(p, ",tid=\"\"");
		else
			sprintf(p, ",tid=\"%u\"", k->tid);
	}
	return s;
}

static int index_rebuild(struct prom_state *st, size_t cap)
{
	size_t *index = calloc(cap, sizeof(*index)), mask = cap - 1, i, h;
	struct prom_key k;

	if (!index)
		return -ENOMEM;
	for (i = 0; i < (size_t)st->nr_series; i++) {
		const struct prom_series *s = st->series[i];

		memset(&k, 0, sizeof(k));
		memcpy(k.comm, s->comm, sizeof(k.comm));
		memcpy(k.thread, s->thread, sizeof(k.thread));
		k.pid = s->pid;
		k.tid = s->tid;
		for (h = key_hash(&k) & mask; index[h]; h = (h + 1) & mask)
			;
		index[h] = i + 1;
	}
	free(st->index);
	st->index = index;
	st->index_cap = cap;
	return 0;
}

/* The series of @k, created while there is room; else `other`. */
static struct prom_series *series_get(struct prom_state *st,
				      const struct prom_key *k)
{
	struct prom_series *s, **arr;
	size_t mask = st->index_cap - 1, h;

	for (h = key_hash(k) & mask; st->index[h]; h = (h + 1) & mask) {
		s = st->series[st->index[h] - 1];
		if (key_is(s, k))
			return s;
	}
	if (st->nr_live_series >= st->max_series)
		goto other;
	if ((size_t)(st->nr_series + 1) * 2 > st->index_cap) {
		if (index_rebuild(st, st->index_cap * 2))
			goto other;
		return series_get(st, k);
	}
	arr = realloc(st->series, (size_t)(st->nr_series + 1) * sizeof(*arr));
	if (!arr)
		goto other;
	st->series = arr;
	s = series_new(st, k, false);
	if (!s)
		goto other;
	st->series[st->nr_series++] = s;
	st->index[h] = (size_t)st->nr_series;
	st->nr_live_series++;
	return s;
other:
	if (!st->other) {
		struct prom_key none = { .comm = "" };

		st->other = series_new(st, &none, true);
	}
	return st->other;
}

int prom_init(struct prom_state *st, const struct event_plan *plan,
	      unsigned int labels, int max_series)
{
	const struct model *m = plan->model;
	int i, ev;

	memset(st, 0, sizeof(*st));
	st->plan = plan;
	st->labels = labels;
	if (st->labels & LISTEN_LABEL_TID)
		st->labels |= LISTEN_LABEL_PID;
	st->max_series = max_series > 0 ? max_series : LISTEN_DEFAULT_MAX_SERIES;
	st->proc = "/proc";
	tasks_init(&st->last);
	tasks_init(&st->next);
	tasks_set_events(&st->last, plan->nr);
	tasks_set_events(&st->next, plan->nr);
	tasks_init(&st->wait_last);
	tasks_init(&st->wait_next);
	tasks_set_layout(&st->wait_last, 0, true);
	tasks_set_layout(&st->wait_next, 0, true);
	/*
	 * The weight of TMA nodes: the increment's slots. The model's slots
	 * event where it counts one (EV_SLOTS: Intel's TOPDOWN.SLOTS); else
	 * its cycles event (the IPC column's) times the slots per cycle it
	 * declares, 4 where it declares none: the width of perf's SLOTS =
	 * 4 * CLKS on the Intel cores before Ice Lake. A model with neither
	 * event gets no TMA families.
	 */
	st->slots_slot = st->clk_slot = -1;
	st->slots_per_unit = 1;
	for (i = 0; m && i < plan->nr; i++) {
		ev = plan->ev[i];
		if (ev < 0 || ev >= m->nr_events)
			continue;
		if (m->events[ev].kind == EV_SLOTS)
			st->slots_slot = i;
		if (m->ipc_cycles &&
		    !strcasecmp(m->events[ev].name, m->ipc_cycles))
			st->clk_slot = i;
	}
	if (st->slots_slot < 0 && st->clk_slot >= 0) {
		st->slots_slot = st->clk_slot;
		st->slots_per_unit = m->slots > 0 ? m->slots : 4;
	}
	return index_rebuild(st, 64);
}

void prom_free(struct prom_state *st)
{
	int i;

	for (i = 0; i < st->nr_series; i++)
		free(st->series[i]);
	free(st->series);
	free(st->other);
	free(st->index);
	tasks_free(&st->last);
	tasks_free(&st->next);
	for (i = 0; i < st->nr_waits; i++) {
		free(st->waits[i]->labels);
		free(st->waits[i]);
	}
	free(st->waits);
	if (st->wait_other)
		free(st->wait_other->labels);
	free(st->wait_other);
	free(st->wait_index);
	tasks_free(&st->wait_last);
	tasks_free(&st->wait_next);
	pcomm_free(st->pcomm);
	memset(st, 0, sizeof(*st));
}

static __u64 sub_sat(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

/* The labels @r has now. */
static void key_of(const struct prom_state *st, const struct task_row *r,
		   struct prom_key *k)
{
	struct pcomm_entry *e = pcomm_slot(st->pcomm, r->pid);

	memset(k, 0, sizeof(*k));
	if (e && e->tgid)
		memcpy(k->comm, e->comm, sizeof(k->comm));
	if (st->labels & LISTEN_LABEL_TID)
		copy_name(k->thread, sizeof(k->thread), r->comm);
	else
		fold_name(r->comm, k->thread, sizeof(k->thread));
	if (st->labels & (LISTEN_LABEL_PID | LISTEN_LABEL_TID))
		k->pid = r->pid;
	if (st->labels & LISTEN_LABEL_TID)
		k->tid = r->tid;
}

/* Slot @slot of @d, scaled with its group leader's times. */
static double scale_slot(const struct event_plan *plan,
			 const struct tdbpf_count *d, int slot)
{
	int g = plan->group[slot], l = slot;
	struct tdbpf_count c;

	if (g >= 0 && g < plan->nr_groups && plan->leader[g] >= 0 &&
	    plan->leader[g] < plan->nr)
		l = plan->leader[g];
	c.value = d[slot].value;
	c.enabled = d[l].enabled;
	c.running = d[l].running;
	return scale_count(&c);
}

/* Add a series' increment (delta[]) to its scaled counts and TMA slots. */
static void series_finish(const struct prom_state *st, struct prom_series *s)
{
	const struct event_plan *plan = st->plan;
	const struct model *m = plan->model;
	double ev[MODEL_MAX_EVENTS], sc[TDBPF_MAX_EVENTS], w, v;
	struct tma_result res;
	int i, nn = nr_nodes(st);

	for (i = 0; i < plan->nr; i++) {
		s->raw[i].value += s->delta[i].value;
		s->raw[i].enabled += s->delta[i].enabled;
		s->raw[i].running += s->delta[i].running;
		sc[i] = scale_slot(plan, s->delta, i);
		/* enabled but never running: nothing to add (coverage) */
		if (isfinite(sc[i]))
			s->scaled[i] += sc[i];
	}
	if (!nn || st->slots_slot < 0)
		return;
	w = sc[st->slots_slot] * st->slots_per_unit;
	if (!isfinite(w) || w <= 0)
		return;
	for (i = 0; i < MODEL_MAX_EVENTS; i++)
		ev[i] = NAN;
	for (i = 0; i < plan->nr; i++)
		if (plan->ev[i] >= 0 && plan->ev[i] < MODEL_MAX_EVENTS)
			ev[plan->ev[i]] = sc[i];
	tma_decode(m, ev, plan->smt, plan->level, &res);
	for (i = 0; i < nn; i++) {
		v = res.val[i];
		if (m->nodes[i].level > plan->level || !isfinite(v))
			continue;
		/*
		 * A node can leave 0-1 when its inputs come from different
		 * multiplexed groups; a counter cannot go back, so an
		 * increment is clamped as the table clamps for display.
		 */
		s->tma[i] += (v < 0 ? 0 : v > 1 ? 1 : v) * w;
	}
	s->slots += w;
}

static void series_begin(const struct prom_state *st, struct prom_series *s)
{
	s->live = false;
	s->changed = false;
	s->threads = 0;
	memset(s->delta, 0, (size_t)st->plan->nr * sizeof(*s->delta));
}

/* Series that identify one process or thread end once it has gone. */
static int series_expire(struct prom_state *st)
{
	int i, j, ended = 0;

	if (!(st->labels & (LISTEN_LABEL_PID | LISTEN_LABEL_TID)))
		return 0;
	for (i = 0; i < st->nr_series; i++) {
		struct prom_series *s = st->series[i];

		if (s->live) {
			s->idle = 0;
			continue;
		}
		/* shown once with its final sums, then gone (stale) */
		if (++s->idle < 2)
			continue;
		free(s);
		st->series[i] = NULL;
		st->nr_live_series--;
		ended++;
	}
	if (!ended)
		return 0;
	for (i = j = 0; i < st->nr_series; i++)
		if (st->series[i])
			st->series[j++] = st->series[i];
	st->nr_series = j;
	return index_rebuild(st, st->index_cap);
}

/* ---- wait series ------------------------------------------------------ */

static size_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (size_t)h;
}

static struct prom_wait *wait_new(const char *labels)
{
	struct prom_wait *w = calloc(1, sizeof(*w));

	if (w && !(w->labels = strdup(labels))) {
		free(w);
		w = NULL;
	}
	return w;
}

static int wait_index_rebuild(struct prom_state *st, size_t cap)
{
	size_t *index = calloc(cap, sizeof(*index)), mask = cap - 1, h;
	int i;

	if (!index)
		return -ENOMEM;
	for (i = 0; i < st->nr_waits; i++) {
		for (h = str_hash(st->waits[i]->labels) & mask; index[h];
		     h = (h + 1) & mask)
			;
		index[h] = (size_t)i + 1;
	}
	free(st->wait_index);
	st->wait_index = index;
	st->wait_index_cap = cap;
	return 0;
}

/*
 * The wait series of @labels, created while there are fewer than
 * max_series; else the one `other` series. NULL: out of memory.
 */
static struct prom_wait *wait_get(struct prom_state *st, const char *labels)
{
	struct prom_wait *w, **arr;
	size_t mask, h;

	if (!st->wait_index_cap && wait_index_rebuild(st, 64))
		return NULL;
	mask = st->wait_index_cap - 1;
	for (h = str_hash(labels) & mask; st->wait_index[h];
	     h = (h + 1) & mask) {
		w = st->waits[st->wait_index[h] - 1];
		if (!strcmp(w->labels, labels))
			return w;
	}
	if (st->nr_waits >= st->max_series)
		goto other;
	if ((size_t)(st->nr_waits + 1) * 2 > st->wait_index_cap) {
		if (wait_index_rebuild(st, st->wait_index_cap * 2))
			goto other;
		return wait_get(st, labels);
	}
	arr = realloc(st->waits, (size_t)(st->nr_waits + 1) * sizeof(*arr));
	if (!arr)
		goto other;
	st->waits = arr;
	w = wait_new(labels);
	if (!w)
		goto other;
	st->waits[st->nr_waits++] = w;
	st->wait_index[h] = (size_t)st->nr_waits;
	return w;
other:
	if (!st->wait_other)
		st->wait_other = wait_new(
			"comm=\"other\",thread=\"other\",waker_comm=\"\",waker_thread=\"other\"");
	return st->wait_other;
}

/*
 * Add @r's waker slots since the last update (per tid, as the sums) to
 * the wait series of its series @s. A task waker is named by its own
 * series' labels; one that has no row now, as another process.
 */
static int waits_update(struct prom_state *st, const struct task_table *cur,
			const struct task_row *r, const struct prom_series *s)
{
	const struct tdbpf_wait *now = tasks_waits(cur, r);
	struct tdbpf_wait d[TDBPF_NR_WAITS];
	struct task_row *p, *n;
	size_t len = strlen(s->labels) + 3 * 2 * TDBPF_COMM_LEN + 64;
	char *labels;
	int i;

	if (!now)
		return 0;
	p = tasks_get(&st->wait_last, r->tid);
	n = tasks_get(&st->wait_next, r->tid);
	if (!p || !n)
		return -ENOMEM;
	waits_sub(d, now, tasks_waits(&st->wait_last, p));
	memcpy(tasks_waits(&st->wait_next, n), now, sizeof(d));
	labels = malloc(len);
	if (!labels)
		return -ENOMEM;
	for (i = 0; i < TDBPF_NR_WAITS; i++) {
		const struct task_row *wr = NULL;
		struct prom_wait *w;
		struct prom_key k;
		char *q;

		if (d[i].kind == TDBPF_WAKER_NONE ||
		    (!d[i].wait_ns && !d[i].wakeups))
			continue;
		if (d[i].kind == TDBPF_WAKER_TASK)
			wr = tasks_find(cur, d[i].tid);
		q = labels + sprintf(labels, "%s,waker_comm=\"", s->labels);
		if (wr) {
			key_of(st, wr, &k);
			q = prom_esc_label(q, k.comm);
			q += sprintf(q, "\",waker_thread=\"");
			q = prom_esc_label(q, k.thread);
		} else {
			q += sprintf(q, "\",waker_thread=\"%s",
				     waker_kind_name(d[i].kind == TDBPF_WAKER_TASK ?
							     TDBPF_WAKER_PROCESS :
							     d[i].kind));
		}
		strcpy(q, "\"");
		w = wait_get(st, labels);
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

int prom_update(struct prom_state *st, const struct task_table *cur)
{
	const struct event_plan *plan = st->plan;
	struct task_table tmp;
	int nr = plan->nr, i, e;
	size_t r_i;

	if (cur->nr_ev < nr || st->last.nr_ev < nr)
		return -EINVAL;
	e = pcomm_build(st, cur);
	if (e)
		return e;
	for (i = 0; i < st->nr_series; i++)
		series_begin(st, st->series[i]);
	if (st->other)
		series_begin(st, st->other);
	st->overflow_tasks = 0;
	tasks_reset(&st->next);
	tasks_reset(&st->wait_next);

	for (r_i = 0; r_i < cur->nr; r_i++) {
		const struct task_row *r = tasks_row(cur, r_i);
		struct task_row *p, *n;
		struct prom_series *s;
		struct prom_key k;
		struct tdbpf_count d;
		__u64 on, rq, off, nv, niv, mig, unc;
		bool any, restart, was_exited;

		/* exited tasks folded by name: counted before they were */
		if (archive_is_folded(r))
			continue;
		n = tasks_get(&st->next, r->tid);
		p = tasks_get(&st->last, r->tid);	/* zeroed when new */
		if (!n || !p)
			return -ENOMEM;
		/* smaller sums: the source restarted this tid, count anew */
		restart = r->sched.on_cpu_ns < p->sched.on_cpu_ns ||
			  r->sched.nvcsw < p->sched.nvcsw ||
			  r->sched.nivcsw < p->sched.nivcsw;
		if (restart)
			memset(p, 0, st->last.row_size);
		was_exited = p->exited;
		on = sub_sat(r->sched.on_cpu_ns, p->sched.on_cpu_ns);
		rq = sub_sat(r->sched.runq_wait_ns, p->sched.runq_wait_ns);
		off = sub_sat(r->sched.off_cpu_ns, p->sched.off_cpu_ns);
		nv = sub_sat(r->sched.nvcsw, p->sched.nvcsw);
		niv = sub_sat(r->sched.nivcsw, p->sched.nivcsw);
		mig = sub_sat(r->sched.migrations, p->sched.migrations);
		unc = sub_sat(r->sched.uncounted_ns, p->sched.uncounted_ns);
		any = on | rq | off | nv | niv | mig | unc;
		for (i = 0; i < nr && !any; i++)
			any = r->ctr[i].value != p->ctr[i].value ||
			      r->ctr[i].enabled != p->ctr[i].enabled ||
			      r->ctr[i].running != p->ctr[i].running;

		memcpy(n, r, st->next.row_size);
		/*
		 * Off-CPU time includes a run-queue wait still in progress;
		 * when it ends it moves to run-queue wait. Remember the most
		 * counted, so the series never gives it back.
		 */
		if (p->sched.off_cpu_ns > r->sched.off_cpu_ns)
			n->sched.off_cpu_ns = p->sched.off_cpu_ns;
		if (!any && (r->exited || !r->sched.on_cpu_ns))
			continue;	/* nothing new, nothing alive to show */

		key_of(st, r, &k);
		s = series_get(st, &k);
		if (!s)
			return -ENOMEM;
		if (s == st->other)
			st->overflow_tasks++;
		if (!r->exited) {
			s->live = true;
			s->threads++;
		} else if (!was_exited) {
			s->exited++;
		}
		s->on_cpu_ns += on;
		s->runq_wait_ns += rq;
		s->off_cpu_ns += off;
		s->nvcsw += nv;
		s->nivcsw += niv;
		s->migrations += mig;
		s->uncounted_ns += unc;
		for (i = 0; i < nr; i++) {
			d.value = sub_sat(r->ctr[i].value, p->ctr[i].value);
			d.enabled = sub_sat(r->ctr[i].enabled, p->ctr[i].enabled);
			d.running = sub_sat(r->ctr[i].running, p->ctr[i].running);
			s->delta[i].value += d.value;
			s->delta[i].enabled += d.enabled;
			s->delta[i].running += d.running;
		}
		s->changed |= any;
		if (cur->waits && waits_update(st, cur, r, s))
			return -ENOMEM;
	}
	for (i = 0; i < st->nr_series; i++)
		if (st->series[i]->changed)
			series_finish(st, st->series[i]);
	if (st->other && st->other->changed)
		series_finish(st, st->other);

	/* what was counted becomes the base of the next update */
	tmp = st->last;
	st->last = st->next;
	st->next = tmp;
	tmp = st->wait_last;
	st->wait_last = st->wait_next;
	st->wait_next = tmp;
	return series_expire(st);
}
