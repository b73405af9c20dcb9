// SPDX-License-Identifier: GPL-2.0
/*
 * streamgraph: the stream-processing pipeline tdbpf's demo traces.
 *
 *   source -> parse-1..N -> join -> filter -> compute -> sink
 *
 * Each stage is one thread named after it (parse has N instances, so
 * `tdbpf --per-name` folds them into one "parse-*" row).  Stages hand over
 * batches of records through bounded queues (mutex + condition variables),
 * and batches return from sink to source through a free list, so memory is
 * fixed.  Every stage stresses one part of the core on purpose; on an Intel
 * PMU each row of tdbpf's table should show that stage's own bottleneck:
 *
 *   source   xorshift random records printed as hex text: short integer
 *            work on L1-resident data, mostly Retiring.
 *   parse    hex text back into integers through a 256-entry lookup table:
 *            predictable loads and shifts, Retiring with some Core bound.
 *   join     looks each key up in a 128 MiB table by chasing 16 dependent
 *            pointers around one random cycle: every load misses the caches
 *            and the TLB and the next address depends on it, so prefetchers
 *            cannot help.  Backend.Memory, DRAM bound.  THE BOTTLENECK: the
 *            others are far cheaper per record, so they spend most of their
 *            time blocked on a full (upstream) or empty (downstream) queue.
 *   filter   a chain of branches on random bits of each record, taken half
 *            the time at random: Bad Speculation, Branch Mispredicts.
 *   compute  per record, a chain of FP divides and multiplies plus a 64-bit
 *            multiply chain: Backend.Core bound (divider, port pressure).
 *   sink     checksums and recycles batches: little work, mostly blocked.
 *
 * Without a hardware PMU (as on most VMs) the table shows the scheduling
 * picture instead: join on CPU nearly all the time, the rest blocked.
 *
 * -s STAGE:KIND moves the bottleneck: STAGE (source, parse, join,
 * filter, compute, sink) also does, per batch of 256 records, 4 ms of
 * CPU work (KIND cpu) or a 4 ms wait in nanosleep, standing in for slow
 * I/O (KIND io).  That is several times join's own cost per batch, so
 * STAGE becomes the stage the others wait on; with parse, the pool of
 * parsers shares it.  tdbpf names it in its bottleneck line (by default).
 *
 * usage: streamgraph [-t PARSERS] [-m TABLE_MIB] [-s STAGE:KIND] [SECONDS]
 *   SECONDS of run time (default 10, counted from start, table build
 *   included); SIGINT/SIGTERM stop early.  Exits 0 after one summary line of
 *   records handled per stage.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NSEC		1000000000LL
#define BATCH		256	/* records per queue hand-off */
#define LINE		26	/* "%016x %08x\n" */
#define QUEUE_CAP	4	/* batches per queue: small, so stages block */
#define POOL		64	/* batches in flight: fixed memory */
#define JOIN_HOPS	16	/* dependent loads per record in join */
#define COMPUTE_ITERS	48
#define MAX_PARSERS	64

struct rec {
	uint64_t key;
	uint32_t val;
	uint32_t hops;		/* where the join's chase ended */
	double x;
};

struct batch {
	unsigned int n;		/* records; filter shrinks it */
	char text[BATCH * LINE];
	struct rec rec[BATCH];
};

/* A bounded FIFO of batches; closed once every producer has finished. */
struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	struct batch *slot[POOL];
	unsigned int cap, head, count;
	int producers;
};

enum stage { SOURCE, PARSE, JOIN, FILTER, COMPUTE, SINK, NSTAGES };

static const char *const stage_name[NSTAGES] = {
	"source", "parse", "join", "filter", "compute", "sink",
};

/* -s STAGE:KIND: the stage that also burns or waits SLOW_NS per batch */
#define SLOW_NS		4000000LL
static int slow_stage = -1;
static int slow_io;		/* 1: wait (io), 0: burn CPU (cpu) */

static atomic_int stop;
static struct queue q_free, q_text, q_parsed, q_joined, q_kept, q_done;
static uint32_t *table;		/* join: next[] of one random cycle */
static size_t table_len;
static atomic_ullong items[NSTAGES];
static volatile uint64_t checksum;	/* keeps results live */

static void q_init(struct queue *q, unsigned int cap, int producers)
{
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	q->cap = cap;
	q->producers = producers;
}

static void q_push(struct queue *q, struct batch *b)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == q->cap)
		pthread_cond_wait(&q->not_full, &q->lock);
	q->slot[(q->head + q->count++) % q->cap] = b;
	pthread_cond_signal(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

/* NULL once the queue is closed and drained. */
static struct batch *q_pop(struct queue *q)
{
	struct batch *b = NULL;

	pthread_mutex_lock(&q->lock);
	while (q->count == 0 && q->producers > 0)
		pthread_cond_wait(&q->not_empty, &q->lock);
	if (q->count) {
		b = q->slot[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
		pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->lock);
	return b;
}

static void q_close(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	if (--q->producers == 0)
		pthread_cond_broadcast(&q->not_empty);
	pthread_mutex_unlock(&q->lock);
}

static inline uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/* What -s adds to a batch of @stage: 4 ms of CPU, or of waiting. */
static void slow_down(enum stage stage)
{
	struct timespec ts = { 0, SLOW_NS };
	volatile uint64_t x = 1;
	long long end;

	if ((int)stage != slow_stage)
		return;
	if (slow_io) {
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		return;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = ts.tv_sec * NSEC + ts.tv_nsec + SLOW_NS;
	do {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ULL + 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec * NSEC + ts.tv_nsec < end);
}

static void put_hex(char *p, uint64_t v, int digits)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = digits - 1; i >= 0; i--, v >>= 4)
		p[i] = hex[v & 15];
}

static void *source_main(void *arg)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull, n = 0;
	struct batch *b;

	(void)arg;
	pthread_setname_np(pthread_self(), "source");
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		b = q_pop(&q_free);
		for (int i = 0; i < BATCH; i++) {
			uint64_t r = xorshift64(&seed);
			char *p = b->text + i * LINE;

			put_hex(p, r, 16);
			p[16] = ' ';
			put_hex(p + 17, r >> 29 ^ r, 8);
			p[25] = '\n';
		}
		b->n = BATCH;
		n += BATCH;
		slow_down(SOURCE);
		q_push(&q_text, b);
	}
	atomic_store(&items[SOURCE], n);
	q_close(&q_text);
	return NULL;
}

static signed char hex_val[256];

/* Parse @digits hex digits; -1 on a malformed line (never, by design). */
static int get_hex(const char *p, int digits, uint64_t *out)
{
	uint64_t v = 0;

	for (int i = 0; i < digits; i++) {
		int d = hex_val[(unsigned char)p[i]];

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

static void *parse_main(void *arg)
{
	char name[16];
	struct batch *b;
	uint64_t n = 0, bad = 0;

	snprintf(name, sizeof(name), "parse-%u",
		 (unsigned int)(uintptr_t)arg % 100u);
	pthread_setname_np(pthread_self(), name);
	while ((b = q_pop(&q_text))) {
		unsigned int k = 0;

		for (unsigned int i = 0; i < b->n; i++) {
			const char *p = b->text + i * LINE;
			uint64_t key, val;

			if (get_hex(p, 16, &key) || p[16] != ' ' ||
			    get_hex(p + 17, 8, &val) || p[25] != '\n') {
				bad++;
				continue;
			}
			b->rec[k].key = key;
			b->rec[k].val = val;
			k++;
		}
		b->n = k;
		n += k;
		slow_down(PARSE);
		q_push(&q_parsed, b);
	}
	atomic_fetch_add(&items[PARSE], n);
	if (bad)
		fprintf(stderr, "streamgraph: %s: %llu malformed lines\n", name,
			(unsigned long long)bad);
	q_close(&q_parsed);
	return NULL;
}

/*
 * One random cycle through the whole table (Sattolo's shuffle): following
 * next[] from any slot visits every slot in random order, so no address is
 * predictable from the previous one.  Built here, by join, so the build's
 * random writes are charged to the memory-bound stage they belong to.
 */
static void build_table(void)
{
	uint64_t seed = 0x2545f4914f6cdd1dull;

	for (size_t i = 0; i < table_len; i++)
		table[i] = i;
	for (size_t i = table_len - 1; i > 0; i--) {
		size_t j = (size_t)((xorshift64(&seed) >> 32) * i >> 32);
		uint32_t t = table[i];

		if (atomic_load_explicit(&stop, memory_order_relaxed))
			break;	/* a short run: leave the table half shuffled */
		table[i] = table[j];
		table[j] = t;
	}
}

static void *join_main(void *arg)
{
	struct batch *b;
	uint64_t n = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "join");
	build_table();
	while ((b = q_pop(&q_parsed))) {
		for (unsigned int i = 0; i < b->n; i++) {
			struct rec *r = &b->rec[i];
			uint32_t idx = r->key % table_len;

			/* each load's address is the previous load's value */
			for (int h = 0; h < JOIN_HOPS; h++)
				idx = table[idx];
			r->hops = idx;
		}
		n += b->n;
		slow_down(JOIN);
		q_push(&q_joined, b);
	}
	atomic_store(&items[JOIN], n);
	q_close(&q_joined);
	return NULL;
}

/*
 * Twelve data-dependent branches per record, each taken with probability
 * 1/2 at random.  The empty asm in one arm keeps the compiler from turning
 * the branch into a conditional move, which would hide the mispredicts.
 */
static int keep_record(const struct rec *r)
{
	uint64_t h = (r->key ^ r->hops) * 0xff51afd7ed558ccdull;
	int score = 0;

	h ^= h >> 33;
	for (int i = 0; i < 12; i++, h >>= 3) {
		if (h & 1) {
			__asm__ volatile("");
			score += 3;
		} else {
			score -= 2;
		}
	}
	return score >= 6;	/* at least 6 of 12 arms taken: ~61% kept */
}

static void *filter_main(void *arg)
{
	struct batch *b;
	uint64_t n = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "filter");
	while ((b = q_pop(&q_joined))) {
		unsigned int k = 0;

		for (unsigned int i = 0; i < b->n; i++)
			if (keep_record(&b->rec[i]))
				b->rec[k++] = b->rec[i];
		b->n = k;
		n += k;
		slow_down(FILTER);
		q_push(&q_kept, b);
	}
	atomic_store(&items[FILTER], n);
	q_close(&q_kept);
	return NULL;
}

static void *compute_main(void *arg)
{
	struct batch *b;
	uint64_t n = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "compute");
	while ((b = q_pop(&q_kept))) {
		for (unsigned int i = 0; i < b->n; i++) {
			struct rec *r = &b->rec[i];
			double x = (double)(r->val | 1), acc = 0.0;
			uint64_t k = r->key | 1;

			/* serial chains: the divider and multipliers are the
			 * limit, not memory or branches */
			for (int j = 0; j < COMPUTE_ITERS; j++) {
				acc += x / (double)(j + 3);
				x = x * 0.999999 + 0.5;
				k = k * 0x9e3779b97f4a7c15ull + j;
			}
			r->x = acc + (double)(k >> 11);
		}
		n += b->n;
		slow_down(COMPUTE);
		q_push(&q_done, b);
	}
	atomic_store(&items[COMPUTE], n);
	q_close(&q_done);
	return NULL;
}

static void *sink_main(void *arg)
{
	struct batch *b;
	uint64_t n = 0, sum = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "sink");
	while ((b = q_pop(&q_done))) {
		for (unsigned int i = 0; i < b->n; i++)
			sum += b->rec[i].hops + (uint64_t)b->rec[i].x;
		n += b->n;
		slow_down(SINK);
		q_push(&q_free, b);
	}
	checksum = sum;
	atomic_store(&items[SINK], n);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: streamgraph [-t PARSERS] [-m TABLE_MIB] "
		"[-s STAGE:cpu|io] [SECONDS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	void *(*const fn[NSTAGES])(void *) = {
		source_main, parse_main, join_main, filter_main, compute_main,
		sink_main,
	};
	pthread_t th[NSTAGES + MAX_PARSERS];
	long parsers = 4, mib = 128;
	double secs = 10.0;
	long long t0, end;
	sigset_t stop_sigs;
	struct batch *pool;
	int opt, nth = 0;
	char *endp;

	while ((opt = getopt(argc, argv, "t:m:s:")) != -1) {
		switch (opt) {
		case 's': {
			char *colon = strchr(optarg, ':');

			for (int i = 0; colon && i < NSTAGES; i++)
				if ((size_t)(colon - optarg) ==
					    strlen(stage_name[i]) &&
				    !strncmp(optarg, stage_name[i],
					     colon - optarg))
					slow_stage = i;
			if (slow_stage < 0 || (strcmp(colon + 1, "cpu") &&
					       strcmp(colon + 1, "io"))) {
				fprintf(stderr, "streamgraph: -s wants STAGE:cpu "
					"or STAGE:io, STAGE one of source, parse, "
					"join, filter, compute, sink\n");
				return 2;
			}
			slow_io = !strcmp(colon + 1, "io");
			break;
		}
		case 't':
			parsers = strtol(optarg, &endp, 10);
			if (*endp || parsers < 1 || parsers > MAX_PARSERS) {
				fprintf(stderr, "streamgraph: -t wants 1..%d\n",
					MAX_PARSERS);
				return 2;
			}
			break;
		case 'm':
			mib = strtol(optarg, &endp, 10);
			if (*endp || mib < 1 || mib > 16384) {
				fprintf(stderr,
					"streamgraph: -m wants 1..16384 MiB\n");
				return 2;
			}
			break;
		default:
			usage();
		}
	}
	if (optind < argc) {
		secs = strtod(argv[optind++], &endp);
		if (*endp || !(secs > 0) || secs > 1e6) {
			fprintf(stderr, "streamgraph: SECONDS must be > 0\n");
			return 2;
		}
	}
	if (optind < argc)
		usage();
	t0 = mono_ns();

	table_len = (size_t)mib << 20 >> 2;
	table = mmap(NULL, table_len * sizeof(*table), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pool = calloc(POOL, sizeof(*pool));
	if (table == MAP_FAILED || !pool) {
		fprintf(stderr, "streamgraph: out of memory for a %ld MiB "
			"table (try -m)\n", mib);
		return 1;
	}
	/*
	 * Plain 4 KiB pages: with huge pages the chase would miss the caches
	 * but hardly the TLB, and the demo wants the full cost of a random
	 * access to a large working set.
	 */
	madvise(table, table_len * sizeof(*table), MADV_NOHUGEPAGE);

	memset(hex_val, -1, sizeof(hex_val));
	for (int c = 0; c < 10; c++)
		hex_val['0' + c] = c;
	for (int c = 0; c < 6; c++)
		hex_val['a' + c] = 10 + c;

	q_init(&q_free, POOL, 1);
	q_init(&q_text, QUEUE_CAP, 1);
	q_init(&q_parsed, QUEUE_CAP, parsers);
	q_init(&q_joined, QUEUE_CAP, 1);
	q_init(&q_kept, QUEUE_CAP, 1);
	q_init(&q_done, QUEUE_CAP, 1);
	for (int i = 0; i < POOL; i++)
		q_push(&q_free, &pool[i]);

	/*
	 * blocked everywhere (the stages inherit the mask): main takes them
	 * in sigtimedwait(), no handler runs in a stage
	 */
	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_sigs, NULL);
	for (int s = 0; s < NSTAGES; s++) {
		int copies = s == PARSE ? parsers : 1;

		for (int i = 1; i <= copies; i++) {
			int err = pthread_create(&th[nth], NULL, fn[s],
						 (void *)(uintptr_t)i);

			if (err) {
				fprintf(stderr, "streamgraph: %s: %s\n",
					stage_name[s], strerror(err));
				return 1;
			}
			nth++;
		}
	}

	end = t0 + (long long)(secs * NSEC);
	for (;;) {
		long long left = end - mono_ns();
		struct timespec ts;

		if (left <= 0)
			break;
		ts.tv_sec = left / NSEC;
		ts.tv_nsec = left % NSEC;
		/* a stop signal, or the time is up; EINTR (another) waits on */
		if (sigtimedwait(&stop_sigs, NULL, &ts) > 0 || errno == EAGAIN)
			break;
	}
	/* source stops; every other stage drains its queue and closes the
	 * next, so the pipeline empties in order */
	atomic_store(&stop, 1);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);

	printf("streamgraph: %.2f s, %ld parsers, %ld MiB table; records:",
	       (mono_ns() - t0) / 1e9, parsers, mib);
	for (int s = 0; s < NSTAGES; s++)
		printf(" %s=%llu", stage_name[s],
		       (unsigned long long)atomic_load(&items[s]));
	printf("\n");
	munmap(table, table_len * sizeof(*table));
	free(pool);
	return 0;
}
