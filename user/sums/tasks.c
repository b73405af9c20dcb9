// SPDX-License-Identifier: GPL-2.0
/*
 * The user-side task table. Rows live in one growing array; an index
 * (support/hash.h, load <= 1/2) maps tid -> row so that pulling 10,000
 * tasks from the BPF map stays linear. Rows are never removed: exited tasks stay in the report after
 * their map entry is deleted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sums/tasks.h"
#include "sums/waits.h"

#define TASKS_MIN_ROWS	64
#define TASKS_MIN_INDEX	128


static int clamp_ev(int nr_ev)
{
	if (nr_ev < 0)
		return 0;
	return nr_ev > TDBPF_MAX_EVENTS ? TDBPF_MAX_EVENTS : nr_ev;
}

void sched_add(struct tdbpf_sched *d, const struct tdbpf_sched *s)
{
	d->on_cpu_ns += s->on_cpu_ns;
	d->runq_wait_ns += s->runq_wait_ns;
	d->off_cpu_ns += s->off_cpu_ns;
	d->nvcsw += s->nvcsw;
	d->nivcsw += s->nivcsw;
	d->migrations += s->migrations;
	d->uncounted_ns += s->uncounted_ns;
	d->window_gap_ns += s->window_gap_ns;
	d->softirq_ns += s->softirq_ns;
	d->open_wait_ns += s->open_wait_ns;
}

void sched_sub(struct tdbpf_sched *d, const struct tdbpf_sched *a,
	       const struct tdbpf_sched *b)
{
	/*
	 * Signed, so a restart shows in on-CPU time, not in it; taken
	 * first: @d may be @a.
	 */
	__s64 gap = a->on_cpu_ns < b->on_cpu_ns ?
			    a->window_gap_ns :
			    a->window_gap_ns - b->window_gap_ns;

	d->on_cpu_ns = sub_sat(a->on_cpu_ns, b->on_cpu_ns);
	d->runq_wait_ns = sub_sat(a->runq_wait_ns, b->runq_wait_ns);
	d->off_cpu_ns = sub_sat(a->off_cpu_ns, b->off_cpu_ns);
	d->nvcsw = sub_sat(a->nvcsw, b->nvcsw);
	d->nivcsw = sub_sat(a->nivcsw, b->nivcsw);
	d->migrations = sub_sat(a->migrations, b->migrations);
	d->uncounted_ns = sub_sat(a->uncounted_ns, b->uncounted_ns);
	d->window_gap_ns = gap;
	d->softirq_ns = sub_sat(a->softirq_ns, b->softirq_ns);
	d->open_wait_ns = a->open_wait_ns;	/* as of the later read */
}

void sched_clear(struct tdbpf_sched *d)
{
	memset(d, 0, sizeof(*d));
}

/*
 * Times and switches. Uncounted time is on-CPU time, so it moves with
 * it; a migration alone (a sleeping task moved) is not activity that
 * earns a row in an interval report.
 */
bool sched_changed(const struct tdbpf_sched *cur,
		   const struct tdbpf_sched *prev)
{
	return cur->on_cpu_ns != prev->on_cpu_ns ||
	       cur->runq_wait_ns != prev->runq_wait_ns ||
	       cur->off_cpu_ns != prev->off_cpu_ns ||
	       cur->nvcsw != prev->nvcsw || cur->nivcsw != prev->nivcsw;
}

bool task_increment(const struct task_row *cur, struct task_row *base,
		    size_t row_size, int nr_ev, struct tdbpf_sched *ds,
		    struct tdbpf_count *d)
{
	const struct tdbpf_sched *c = &cur->sched;
	bool any;
	int i;

	if (c->on_cpu_ns < base->sched.on_cpu_ns ||
	    c->nvcsw < base->sched.nvcsw || c->nivcsw < base->sched.nivcsw)
		memset(base, 0, row_size);
	sched_sub(ds, c, &base->sched);
	any = ds->on_cpu_ns | ds->runq_wait_ns | ds->off_cpu_ns | ds->nvcsw |
	      ds->nivcsw | ds->migrations | ds->uncounted_ns | ds->softirq_ns;
	for (i = 0; i < nr_ev && !any; i++)
		any = cur->ctr[i].value != base->ctr[i].value ||
		      cur->ctr[i].enabled != base->ctr[i].enabled ||
		      cur->ctr[i].running != base->ctr[i].running;
	counts_sub(d, cur->ctr, base->ctr, nr_ev);
	return any;
}

static void set_stride(struct task_table *t, int nr_ev, bool waits)
{
	t->nr_ev = clamp_ev(nr_ev);
	t->waits = waits;
	t->row_size = sizeof(struct task_row) +
		      (size_t)t->nr_ev * sizeof(struct tdbpf_count);
}

void tasks_init(struct task_table *t)
{
	memset(t, 0, sizeof(*t));
	set_stride(t, TDBPF_MAX_EVENTS, false);
}

int tasks_set_layout(struct task_table *t, int nr_ev, bool waits)
{
	if (t->nr)
		return -EBUSY;
	if (clamp_ev(nr_ev) != t->nr_ev || waits != t->waits) {
		free(t->mem);
		t->mem = NULL;
		t->cap = 0;
		set_stride(t, nr_ev, waits);
	}
	t->wait_nr = 0;
	return 0;
}

int tasks_set_events(struct task_table *t, int nr_ev)
{
	return tasks_set_layout(t, nr_ev, t->waits);
}

void tasks_layout_like(struct task_table *out, const struct task_table *in)
{
	if (!out->nr)
		tasks_set_layout(out, in->nr_ev, in->waits);
}


void tasks_free(struct task_table *t)
{
	int nr_ev = t->nr_ev;
	bool waits = t->waits;

	free(t->mem);
	free(t->wait);
	hash_index_free(&t->index);
	memset(t, 0, sizeof(*t));
	set_stride(t, nr_ev, waits);
}

void tasks_reset(struct task_table *t)
{
	t->nr = 0;
	t->wait_nr = 0;
	hash_index_clear(&t->index);
}

struct tid_key {
	const struct task_table *t;
	__u32 tid;
};

static bool tid_is(const void *ctx, size_t row)
{
	const struct tid_key *k = ctx;

	return tasks_row(k->t, row)->tid == k->tid;
}

struct task_row *tasks_find(const struct task_table *t, __u32 tid)
{
	struct tid_key k = { t, tid };
	size_t *slot;

	if (!t->index.cap)
		return NULL;
	slot = hash_find(&t->index, hash_id(tid), tid_is, &k);
	return *slot ? tasks_row(t, *slot - 1) : NULL;
}

/* @row is new: its tid is not in the index yet */
static void index_insert(struct hash_index *x, __u32 tid, size_t row)
{
	*hash_find(x, hash_id(tid), NULL, NULL) = row + 1;
}

static int index_resize(struct task_table *t, size_t cap)
{
	struct hash_index x = { 0 };
	size_t i;

	if (hash_index_init(&x, 0, cap))
		return -ENOMEM;
	for (i = 0; i < t->nr; i++)
		index_insert(&x, tasks_row(t, i)->tid, i);
	hash_index_free(&t->index);
	t->index = x;
	return 0;
}

static int index_grow(struct task_table *t)
{
	return index_resize(t, t->index.cap ? t->index.cap * 2 :
					      TASKS_MIN_INDEX);
}

static int rows_grow(struct task_table *t, size_t cap)
{
	char *mem;

	if (cap <= t->cap)
		return 0;
	mem = realloc(t->mem, cap * t->row_size);
	if (!mem)
		return -ENOMEM;
	t->mem = mem;
	t->cap = cap;
	return 0;
}

int tasks_reserve(struct task_table *t, size_t nr)
{
	size_t cap = t->index.cap ? t->index.cap : TASKS_MIN_INDEX;

	if (rows_grow(t, nr))
		return -ENOMEM;
	/* the index at most half full, grown once */
	while (cap < nr * 2)
		cap *= 2;
	return cap > t->index.cap ? index_resize(t, cap) : 0;
}

int tasks_prefault(struct task_table *t, size_t nr)
{
	if (tasks_reserve(t, nr))
		return -ENOMEM;
	if (t->cap > t->nr)
		memset(t->mem + t->nr * t->row_size, 0,
		       (t->cap - t->nr) * t->row_size);
	return 0;
}

/* Append a zeroed row without indexing it (folded tables use this). */
static struct task_row *rows_append(struct task_table *t)
{
	struct task_row *r;

	if (t->nr == t->cap &&
	    rows_grow(t, t->cap ? t->cap * 2 : TASKS_MIN_ROWS))
		return NULL;
	r = tasks_row(t, t->nr++);
	memset(r, 0, t->row_size);
	r->nr_tasks = 1;
	return r;
}

struct task_row *tasks_append(struct task_table *t)
{
	return rows_append(t);
}

struct task_row *tasks_get(struct task_table *t, __u32 tid)
{
	struct task_row *r = tasks_find(t, tid);

	if (r)
		return r;
	/* keep the index at most half full so probes stay short */
	if ((t->nr + 1) * 2 > t->index.cap && index_grow(t))
		return NULL;
	r = rows_append(t);
	if (!r)
		return NULL;
	r->tid = tid;
	index_insert(&t->index, tid, t->nr - 1);
	return r;
}

void tasks_clear(struct task_table *t, __u32 tid)
{
	struct task_row *r = tasks_find(t, tid);
	int i;

	if (!r)
		return;
	sched_clear(&r->sched);
	r->w_nr = 0;
	for (i = 0; i < t->nr_ev; i++)
		memset(&r->ctr[i], 0, sizeof(r->ctr[i]));
}

/* counters both a row of @a and one of @b hold, of the @nr_ev asked */
static int common_ev(int nr_ev, const struct task_table *a,
		     const struct task_table *b)
{
	nr_ev = clamp_ev(nr_ev);
	if (nr_ev > a->nr_ev)
		nr_ev = a->nr_ev;
	return b && nr_ev > b->nr_ev ? b->nr_ev : nr_ev;
}

void counts_add(struct tdbpf_count *d, const struct tdbpf_count *s,
		int nr_ev)
{
	int i;

	for (i = 0; i < nr_ev; i++) {
		d[i].value += s[i].value;
		d[i].enabled += s[i].enabled;
		d[i].running += s[i].running;
	}
}

void counts_sub(struct tdbpf_count *d, const struct tdbpf_count *c,
		const struct tdbpf_count *p, int nr_ev)
{
	int i;

	for (i = 0; i < nr_ev; i++) {
		d[i].value = sub_sat(c[i].value, p ? p[i].value : 0);
		d[i].enabled = sub_sat(c[i].enabled, p ? p[i].enabled : 0);
		d[i].running = sub_sat(c[i].running, p ? p[i].running : 0);
	}
}

/* Copy a name that may fill its buffer without a NUL (BPF comm). */
static void copy_comm(char *dst, size_t dstlen, const char *src, size_t srclen)
{
	size_t n = strnlen(src, srclen);

	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int tasks_add(struct task_table *t, const struct tdbpf_task *s,
	      const struct tdbpf_wait *waits, int nr_ev)
{
	return tasks_add_slots(t, s, waits, waits ? TDBPF_NR_WAITS : 0,
			       nr_ev);
}

int tasks_add_slots(struct task_table *t, const struct tdbpf_task *s,
		    const struct tdbpf_wait *waits, int nr_waits, int nr_ev)
{
	struct task_row *r = tasks_get(t, s->tid);

	if (!r)
		return -ENOMEM;
	r->pid = s->tgid;
	/* the newest name wins: threads rename themselves (prctl) */
	if (s->comm[0])
		copy_comm(r->comm, sizeof(r->comm), s->comm, sizeof(s->comm));
	if (s->flags & TDBPF_TASK_EXITED)
		r->exited = true;
	sched_add(&r->sched, &s->sched);
	counts_add(r->ctr, s->ctr, common_ev(nr_ev, t, NULL));
	return tasks_add_waits(t, r, waits, nr_waits);
}

/* Row @s of @st into row @d of @dt: sums, counters, waker slots. */
static int add_row(struct task_table *dt, struct task_row *d,
		   const struct task_table *st, const struct task_row *s,
		   int nr_ev)
{
	const struct tdbpf_wait *w;
	int n;

	sched_add(&d->sched, &s->sched);
	counts_add(d->ctr, s->ctr, nr_ev);
	w = tasks_waits(st, s, &n);
	return tasks_add_waits(dt, d, w, n);
}

int tasks_merge(struct task_table *dst, const struct task_table *src,
		int nr_ev)
{
	size_t i;

	tasks_layout_like(dst, src);
	nr_ev = common_ev(nr_ev, dst, src);
	/* at most every row of @src is new: no row moves while merging */
	if (tasks_reserve(dst, dst->nr + src->nr))
		return -ENOMEM;
	for (i = 0; i < src->nr; i++) {
		const struct task_row *s = tasks_row(src, i);
		size_t had = dst->nr;
		struct task_row *d = tasks_get(dst, s->tid);

		if (!d)
			return -ENOMEM;
		/* a row new here holds what @s holds: a folded row, several */
		if (dst->nr > had)
			d->nr_tasks = s->nr_tasks;
		d->pid = s->pid;
		if (s->comm[0])
			memcpy(d->comm, s->comm, sizeof(d->comm));
		if (s->name)
			d->name = s->name;
		d->exited |= s->exited;
		if (add_row(dst, d, src, s, nr_ev))
			return -ENOMEM;
	}
	return 0;
}

static const struct task_row zero_row;

/*
 * @prev's row of @c's tid, or a zero row (whose counters are never read).
 * Two collects list the tasks in the same order (the iterator's), so row
 * @i of @prev is tried first: a hash look-up per row, a cache miss each,
 * was a tenth of a report of 10,000 tasks.
 */
static const struct task_row *prev_row(const struct task_table *prev,
				       const struct task_row *c, size_t i)
{
	const struct task_row *p = NULL;

	if (prev && i < prev->nr && tasks_row(prev, i)->tid == c->tid)
		return tasks_row(prev, i);
	if (prev)
		p = tasks_find(prev, c->tid);
	return p ? p : &zero_row;
}

/* Anything to show for @c since @p: time, a switch, its exit? */
static bool row_new(const struct task_row *c, const struct task_row *p)
{
	return (c->exited && !p->exited) || sched_changed(&c->sched, &p->sched);
}

/*
 * Row @d (of @out) = row @c (of @cur) minus @p (of @prev, or zero_row).
 * @d may be @c: every field is read before it is written.
 */
static int diff_row(struct task_table *out, struct task_row *d,
		    const struct task_table *cur, const struct task_row *c,
		    const struct task_table *prev, const struct task_row *p,
		    int nr_ev)
{
	bool have_prev = p != &zero_row;

	if (d != c) {
		d->pid = c->pid;
		memcpy(d->comm, c->comm, sizeof(d->comm));
		d->name = c->name;
		d->exited = c->exited;
		d->nr_tasks = c->nr_tasks;
	}
	sched_sub(&d->sched, &c->sched, &p->sched);
	counts_sub(d->ctr, c->ctr, have_prev ? p->ctr : NULL, nr_ev);
	return tasks_sub_waits(out, d, cur, c, have_prev ? prev : NULL,
			       have_prev ? p : NULL);
}

int tasks_diff(const struct task_table *cur, const struct task_table *prev,
	       struct task_table *out, int nr_ev)
{
	struct task_row *d;
	size_t i;

	tasks_reset(out);
	tasks_layout_like(out, cur);
	nr_ev = common_ev(nr_ev, out, cur);
	if (prev)
		nr_ev = common_ev(nr_ev, prev, NULL);
	if (tasks_reserve(out, cur->nr))
		return -ENOMEM;
	for (i = 0; i < cur->nr; i++) {
		const struct task_row *c = tasks_row(cur, i);
		const struct task_row *p = prev_row(prev, c, i);

		if (!row_new(c, p))
			continue;
		d = tasks_get(out, c->tid);
		if (!d)
			return -ENOMEM;
		if (diff_row(out, d, cur, c, prev, p, nr_ev))
			return -ENOMEM;
	}
	return 0;
}

int tasks_sub(struct task_table *cur, const struct task_table *prev)
{
	size_t i, n = 0;
	int nr_ev = common_ev(cur->nr_ev, cur, NULL);

	if (prev)
		nr_ev = common_ev(nr_ev, prev, NULL);
	for (i = 0; i < cur->nr; i++) {
		struct task_row *c = tasks_row(cur, i);
		const struct task_row *p = prev_row(prev, c, i);

		if (!row_new(c, p))
			continue;
		/* in place: no slots to find room for, cannot fail */
		diff_row(cur, c, cur, c, prev, p, nr_ev);
		if (n != i)
			memcpy(tasks_row(cur, n), c, cur->row_size);
		n++;
	}
	if (n == cur->nr)
		return 0;
	/* rows moved: index them again */
	cur->nr = n;
	return index_resize(cur, cur->index.cap ? cur->index.cap :
						  TASKS_MIN_INDEX);
}

static bool is_sep(char c)
{
	return c && strchr("-_.:/#", c);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * An instance number, or the '*' that stood for one in a folded name
 * (so that folding a folded name keeps it): the length of the run that
 * ends before @end (0: none).
 */
static size_t run_before(const char *s, size_t end)
{
	size_t b = end;

	if (b && s[b - 1] == '*')
		return 1;
	while (b && is_digit(s[b - 1]))
		b--;
	return end - b;
}

/* The length of the run at @s (digits, or one '*'), 0 if none. */
static size_t run_at(const char *s)
{
	size_t n = 0;

	if (*s == '*')
		return 1;
	while (is_digit(s[n]))
		n++;
	return n;
}

/*
 * The key that instances of one thread name share. The instance suffix
 * is the longest tail of the form RUN, then any number of (SEP RUN),
 * that follows a non-digit, where RUN is digits and SEP one of
 * - _ . : / #. It becomes a star: "worker-12" -> "worker-STAR", "parse3"
 * -> "parse" STAR, "kworker/0:1" -> "kworker/" STAR, "worker-1.2" ->
 * "worker-" STAR (STAR being '*', spelled out to keep this a comment).
 * A Flink subtask index, "(N/M)", is one too: "Map (2/3)#0" -> "Map
 * (STAR/3)#STAR". The separator before the suffix stays, so "worker-3"
 * and "worker3" remain two keys. A name made only of digits (or with no
 * trailing digits) is not an instance number of anything and stays.
 */
void fold_name(const char *comm, char *out, size_t outlen)
{
	size_t len = strlen(comm), end = len, cut, r, i, n = 0;

	if (!outlen)
		return;
	/* strip RUN, then (SEP RUN) pairs while they continue */
	end -= run_before(comm, end);
	cut = end;
	while (cut < len && end >= 2 && is_sep(comm[end - 1]) &&
	       (r = run_before(comm, end - 1)) > 0) {
		end = end - 1 - r;
		cut = end;
	}
	if (cut == len || cut == 0)
		cut = len;	/* no instance number, or nothing left to name */
	for (i = 0; i < cut && n + 1 < outlen; i++) {
		out[n++] = comm[i];
		/* "(N/": a subtask index, wherever it stands */
		if (comm[i] == '(' && (r = run_at(comm + i + 1)) &&
		    comm[i + 1 + r] == '/' && i + 1 + r < cut) {
			if (n + 1 < outlen)
				out[n++] = '*';
			i += r;
		}
	}
	if (cut < len && n + 1 < outlen)
		out[n++] = '*';
	out[n] = '\0';
}

/*
 * @disp, the name a folded row shows, joined with @name, a name of the
 * same key: the instance numbers they share stay, those that differ
 * become a star ("Map (1/3)#0" and "Map (2/3)#0" show "Map (STAR/3)#0";
 * two "gst-launch-1.0" stay "gst-launch-1.0"). Runs that do not line up
 * give the key itself.
 */
void fold_join(char *disp, size_t len, const char *name)
{
	char out[TDBPF_NAME_MAX];
	size_t i = 0, j = 0, n = 0, a, b;

	while ((disp[i] || name[j]) && n + 2 < sizeof(out)) {
		a = run_at(disp + i);
		b = run_at(name + j);
		if (a && b) {
			if (a == b && !strncmp(disp + i, name + j, a)) {
				memcpy(out + n, disp + i, a);
				n += a;
			} else {
				out[n++] = '*';
			}
			i += a;
			j += b;
		} else if (disp[i] == name[j] && !a && !b) {
			out[n++] = disp[i++];
			j++;
		} else {
			fold_name(name, disp, len);
			return;
		}
	}
	if (disp[i] || name[j]) {
		fold_name(name, disp, len);
		return;
	}
	out[n] = '\0';
	snprintf(disp, len, "%s", out);
}

/* Is row @row of the folded table the one named @ctx's name? */
struct name_key {
	const struct task_table *t;
	const char *name;
};

static bool name_is(const void *ctx, size_t row)
{
	const struct name_key *k = ctx;
	char key[TDBPF_NAME_MAX];

	/* a row shows its members' name, not the key (fold_join()) */
	fold_name(task_name(tasks_row(k->t, row)), key, sizeof(key));
	return !strcmp(key, k->name);
}

/* Folded row @d's whole name joined with member @s's (fold_join()). */
static int join_name(struct task_row *d, const struct task_row *s)
{
	char disp[TDBPF_NAME_MAX];

	snprintf(disp, sizeof(disp), "%s", d->name ? d->name : "");
	if (!d->name)	/* its first members had no whole name: the key */
		fold_name(task_name(s), disp, sizeof(disp));
	fold_join(disp, sizeof(disp), task_name(s));
	d->name = names_intern(disp);
	return d->name ? 0 : -ENOMEM;
}

int tasks_fold(const struct task_table *in, struct task_table *out,
	       int nr_ev)
{
	/* name -> row of @out: folding without quadratic searches */
	struct hash_index ni = { 0 };
	size_t i;
	int ret = 0;

	tasks_reset(out);
	tasks_layout_like(out, in);
	nr_ev = common_ev(nr_ev, out, in);
	if (hash_index_init(&ni, in->nr, TASKS_MIN_INDEX))
		return -ENOMEM;

	for (i = 0; i < in->nr; i++) {
		const struct task_row *s = tasks_row(in, i);
		char name[TDBPF_NAME_MAX];
		struct name_key k = { out, name };
		struct task_row *d = NULL;
		size_t *slot;

		fold_name(task_name(s), name, sizeof(name));
		slot = hash_find(&ni, hash_str(HASH_FNV_INIT, name), name_is,
				 &k);
		if (*slot)
			d = tasks_row(out, *slot - 1);
		if (!d) {
			d = rows_append(out);
			if (!d) {
				ret = -ENOMEM;
				break;
			}
			*slot = out->nr;
			/* one thread of a name: its name, unfolded */
			memcpy(d->comm, s->comm, sizeof(d->comm));
			d->name = s->name;
			d->tid = s->tid;
			d->pid = s->pid;
			d->exited = s->exited;
			d->nr_tasks = s->nr_tasks;
		} else {
			/* several tasks: no single tid; pid only if shared */
			d->tid = 0;
			fold_join(d->comm, sizeof(d->comm), s->comm);
			if ((d->name || s->name) && join_name(d, s)) {
				ret = -ENOMEM;
				break;
			}
			if (d->pid != s->pid)
				d->pid = 0;
			d->exited = d->exited && s->exited;
			d->nr_tasks = tasks_count_add(d->nr_tasks,
						      s->nr_tasks);
		}
		if (add_row(out, d, in, s, nr_ev)) {
			ret = -ENOMEM;
			break;
		}
	}
	hash_index_free(&ni);
	/*
	 * Rows were appended without the tid index: a folded table is for
	 * reports, looking it up by tid would make no sense.
	 */
	return ret;
}
