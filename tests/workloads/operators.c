// SPDX-License-Identifier: GPL-2.0
/*
 * operators: a pool engine. A feeder puts operator tasks of three kinds
 * (parse, enrich, emit, in turn) on one shared queue (mutex and condition
 * variables); a pool of workers takes whichever comes next, so every
 * worker runs every operator and a per-thread row cannot say which one
 * costs. enrich is the heavy one: it burns -H us of CPU (or, with -S,
 * sleeps them); parse and emit burn -L us. Each operator runs inside the
 * tdbpf USDT span probes (include/tdbpf_span.h) and is a function of its
 * own (op_parse, op_enrich, op_emit: --span BINARY:op_parse,...).
 *
 * Each operator also touches -F fresh pages (a page fault each), and
 * measures itself, inside its span: its thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) and page faults (getrusage RUSAGE_THREAD).
 * Each call is also timed from its caller, so that the test can bound
 * by measure, not by a guess, what a span holds beyond the operator's
 * own: edge_ns, the CPU time of the call outside the operator's measure
 * and outside the calls nested in it (the probes' traps, the calls, the
 * clock reads), and nested_edge_ns, the edge_ns of the calls nested in
 * it. At the end it prints, per operator and per worker and operator:
 *
 *	op=enrich entries=N cpu_ns=X faults=F edge_ns=B nested_edge_ns=D
 *	worker=worker-0 tid=T op=enrich entries=N cpu_ns=X faults=F ...
 *	elapsed_ns=W
 *
 * -C adds a collector thread: emit hands each result to it on a queue
 * of its own, inside emit's span, so that emit is the span that ends the
 * collector's waits (it prints collected=N).
 *
 * -N nests a lookup operator (-L us) in enrich; -R DEPTH makes it recurse
 * DEPTH deep (each level a span of its own); -J makes the innermost
 * longjmp back to enrich, past every lookup's exit (spans must not leak).
 * Times are exclusive: an operator's own, less what is nested in it.
 *
 * Usage: operators [-w WORKERS] [-n TASKS] [-H US] [-L US] [-F PAGES] [-S]
 *		    [-N] [-R DEPTH] [-J] [-C]
 */
#include <setjmp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "workload.h"
#include "../../include/tdbpf_span.h"

#define NR_OPS		4	/* lookup runs inside enrich (-N) */
#define NR_KINDS	3	/* the tasks the feeder queues */
#define MAX_WORKERS	64	/* two digits in a name */

enum { OP_PARSE, OP_ENRICH, OP_EMIT, OP_LOOKUP };

static const char *const op_name[NR_OPS] = { "parse", "enrich", "emit",
					     "lookup" };

struct op_sum {
	long long entries, cpu_ns, faults, edge_ns, nested_edge_ns;
};

/*
 * One call of an operator, timed by its caller: its start, the calls
 * nested in it so far (kids_ns), and its measure with the part of the
 * nested calls inside that measure (set by RUN_OP_LAST).
 */
struct frame {
	int op;
	long long t0, kids_ns, m_ns, m_kids_ns, edges0;
};

#define MAX_FRAMES	72	/* -R 64 under enrich */

struct worker {
	pthread_t th;
	pid_t tid;
	char name[16];
	struct op_sum sum[NR_OPS];
	/* CPU time of the operators nested in the running one, so far */
	long long inner_ns, inner_faults;
	/* the calls under way, and the edge_ns of every call ended so far */
	struct frame frames[MAX_FRAMES];
	int depth;
	long long edges_ns;
	jmp_buf out;		/* -J: where lookup jumps back to */
};

static struct wq queue, results;
static long heavy_us = 2000, light_us = 300, pages = 4, depth;
static bool sleepy, jump, collect;

static long long thread_faults(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt + ru.ru_majflt;
}

/* one fault a page: fresh anonymous memory, touched once, given back */
static void touch_pages(void)
{
	size_t len = (size_t)pages * 4096;
	char *p;

	if (!pages)
		return;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (long i = 0; i < pages; i++)
		p[i * 4096] = 1;
	munmap(p, len);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * The span and the measure around the operator's work: the workload's
 * own clocks read inside the probes, so that tdbpf's span holds them.
 * An operator's own time leaves out those nested in it (exclusive, as
 * tdbpf charges the innermost span); @last runs after the measure, in
 * the span (lookup's longjmp out of it).
 */
#define RUN_OP_LAST(w, op, work, last)					\
	do {								\
		struct op_sum *s = &(w)->sum[op];			\
		long long c0, f0, in0 = (w)->inner_ns, op_ns;		\
		long long fin0 = (w)->inner_faults, op_f;		\
									\
		TDBPF_SPAN_ENTER(op_name[op]);				\
		c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);			\
		f0 = thread_faults();					\
		touch_pages();						\
		work;							\
		op_f = thread_faults() - f0;				\
		s->faults += op_f - ((w)->inner_faults - fin0);		\
		(w)->inner_faults = fin0 + op_f;			\
		op_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;		\
		s->cpu_ns += op_ns - ((w)->inner_ns - in0);		\
		(w)->inner_ns = in0 + op_ns;				\
		(w)->frames[(w)->depth - 1].m_ns = op_ns;		\
		(w)->frames[(w)->depth - 1].m_kids_ns =			\
			(w)->frames[(w)->depth - 1].kids_ns;		\
		s->entries++;						\
		last;							\
		TDBPF_SPAN_EXIT(op_name[op]);				\
	} while (0)
#define RUN_OP(w, op, work)	RUN_OP_LAST(w, op, work, (void)0)

static void call_start(struct worker *w, int op)
{
	struct frame *f = &w->frames[w->depth++];

	f->op = op;
	f->kids_ns = f->m_ns = f->m_kids_ns = 0;
	f->edges0 = w->edges_ns;
	f->t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * The innermost call under way ended at @t1: its time less its nested
 * calls' is its measure's (less the nested calls inside it) and its
 * edge.
 */
static void call_end(struct worker *w, long long t1)
{
	struct frame *f = &w->frames[--w->depth];
	struct op_sum *s = &w->sum[f->op];
	long long t = t1 - f->t0, edge;

	edge = (t - f->kids_ns) - (f->m_ns - f->m_kids_ns);
	s->edge_ns += edge;
	s->nested_edge_ns += w->edges_ns - f->edges0;
	w->edges_ns += edge;
	if (w->depth)
		w->frames[w->depth - 1].kids_ns += t;
}

/* @call, an operator's function, timed from outside its probes */
#define CALL_OP(w, op, call)						\
	do {								\
		call_start(w, op);					\
		call;							\
		call_end(w, clock_ns(CLOCK_THREAD_CPUTIME_ID));		\
	} while (0)

/*
 * -N: lookup, nested in enrich, recursing @d deep (-R); with -J the
 * innermost jumps back to enrich, past the exits of every lookup.
 */
__attribute__((noinline)) void op_lookup(struct worker *w, long d)
{
	/* deeper after its own measure: its time is exclusive as it is */
	RUN_OP_LAST(w, OP_LOOKUP, burn_ns(light_us * 1000LL), {
		if (d > 1)
			CALL_OP(w, OP_LOOKUP, op_lookup(w, d - 1));
		else if (jump)
			longjmp(w->out, 1);
	});
}

/* the calls a longjmp left end where it lands */
static void enrich_work(struct worker *w)
{
	int base = w->depth;
	long long t;

	burn_ns(heavy_us * 1000LL);
	if (!depth)
		return;
	if (!setjmp(w->out)) {
		CALL_OP(w, OP_LOOKUP, op_lookup(w, depth));
		return;
	}
	t = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	while (w->depth > base)
		call_end(w, t);
}

/* the operators: functions of their own, for uprobes */
__attribute__((noinline)) void op_parse(struct worker *w)
{
	RUN_OP(w, OP_PARSE, burn_ns(light_us * 1000LL));
}

__attribute__((noinline)) void op_enrich(struct worker *w)
{
	if (sleepy)
		RUN_OP(w, OP_ENRICH, sleep_us(heavy_us));
	else
		RUN_OP(w, OP_ENRICH, enrich_work(w));
}

/* emit's work: the burn, then (-C) its result to the collector */
static void emit_work(void)
{
	burn_ns(light_us * 1000LL);
	if (collect)
		wq_push(&results, 1);
}

__attribute__((noinline)) void op_emit(struct worker *w)
{
	RUN_OP(w, OP_EMIT, emit_work());
}

static void *collector(void *arg)
{
	long *n = arg;
	uint64_t v;

	pthread_setname_np(pthread_self(), "collector");
	while (wq_pop(&results, &v))
		(*n)++;
	return NULL;
}

/*
 * The thread's stack pages and first clock reads faulted in before any
 * span: else an operator's first run faults them in inside its span but
 * outside its own measure.
 */
static void warm_up(void)
{
	char pad[65536];

	memset(pad, 1, sizeof(pad));
	__asm__ volatile("" : : "r"(pad) : "memory");
	thread_faults();
	clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t task;

	w->tid = (pid_t)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), w->name);
	warm_up();
	while (wq_pop(&queue, &task)) {
		if (task == OP_PARSE)
			CALL_OP(w, OP_PARSE, op_parse(w));
		else if (task == OP_ENRICH)
			CALL_OP(w, OP_ENRICH, op_enrich(w));
		else
			CALL_OP(w, OP_EMIT, op_emit(w));
	}
	return NULL;
}

static void report(const struct worker *ws, long nr)
{
	struct op_sum all[NR_OPS] = {};

	for (long i = 0; i < nr; i++)
		for (int o = 0; o < NR_OPS; o++) {
			const struct op_sum *s = &ws[i].sum[o];

			all[o].entries += s->entries;
			all[o].cpu_ns += s->cpu_ns;
			all[o].faults += s->faults;
			all[o].edge_ns += s->edge_ns;
			all[o].nested_edge_ns += s->nested_edge_ns;
			printf("worker=%s tid=%d op=%s entries=%lld cpu_ns=%lld faults=%lld edge_ns=%lld nested_edge_ns=%lld\n",
			       ws[i].name, ws[i].tid, op_name[o], s->entries,
			       s->cpu_ns, s->faults, s->edge_ns,
			       s->nested_edge_ns);
		}
	for (int o = 0; o < NR_OPS; o++)
		printf("op=%s entries=%lld cpu_ns=%lld faults=%lld edge_ns=%lld nested_edge_ns=%lld\n",
		       op_name[o], all[o].entries, all[o].cpu_ns,
		       all[o].faults, all[o].edge_ns, all[o].nested_edge_ns);
}

/*
 * Built as liboperators.so (-DOPERATORS_LIB), the engine is a library
 * and its probes are the library's: operators_so's main calls this.
 */
#ifdef OPERATORS_LIB
#define OPERATORS_MAIN operators_main
int operators_main(int argc, char **argv);
#else
#define OPERATORS_MAIN main
#endif

int OPERATORS_MAIN(int argc, char **argv)
{
	static struct worker ws[MAX_WORKERS];
	pthread_t coll;
	long collected = 0;
	long nr = 3, tasks = 600;
	long long t0;
	int c;

	while ((c = getopt(argc, argv, "w:n:H:L:F:SNR:JC")) != -1) {
		switch (c) {
		case 'w': nr = parse_num(optarg, "-w", 1, MAX_WORKERS); break;
		case 'n': tasks = parse_num(optarg, "-n", 1, 100000000); break;
		case 'H': heavy_us = parse_num(optarg, "-H", 0, 10000000); break;
		case 'L': light_us = parse_num(optarg, "-L", 0, 10000000); break;
		case 'F': pages = parse_num(optarg, "-F", 0, 4096); break;
		case 'S': sleepy = true; break;
		case 'N': depth = depth ? depth : 1; break;
		case 'R': depth = parse_num(optarg, "-R", 1, 64); break;
		case 'J': jump = true; break;
		case 'C': collect = true; break;
		default:
			fprintf(stderr, "usage: operators [-w WORKERS] [-n TASKS] [-H US] [-L US] [-F PAGES] [-S] [-N] [-R DEPTH] [-J] [-C]\n");
			return 2;
		}
	}
	announce_pid();
	wq_init(&queue, 16);
	wq_init(&results, 16);
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (collect)
		pthread_create(&coll, NULL, collector, &collected);
	for (int i = 0; i < nr; i++) {
		snprintf(ws[i].name, sizeof(ws[i].name), "worker-%d", i % 100);
		pthread_create(&ws[i].th, NULL, work, &ws[i]);
	}
	/* the feeder: the kinds in turn, as a stream's records come */
	for (long i = 0; i < tasks; i++)
		wq_push(&queue, (uint64_t)(i % NR_KINDS));
	wq_close(&queue);
	for (long i = 0; i < nr; i++)
		pthread_join(ws[i].th, NULL);
	if (collect) {
		wq_close(&results);
		pthread_join(coll, NULL);
		printf("collected=%ld\n", collected);
	}
	report(ws, nr);
	/* the run's wall time: the cost of tracing it (bench) */
	printf("elapsed_ns=%lld\n", clock_ns(CLOCK_MONOTONIC) - t0);
	return 0;
}
