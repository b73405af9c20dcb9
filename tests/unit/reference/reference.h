/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the reference tests share (the files of tests/unit/reference/,
 * linked into each test_reference_* binary).
 *
 * An independent check of the CPU models against the kernel perf tool's
 * own event and metric JSON (../shared/reference, see its SOURCES.md).
 *
 * Nothing here is taken from the models: encodings are recomputed from the
 * event JSON the way perf's jevents.py does, and formulas are evaluated by a
 * small interpreter of perf's metric expression language
 * (tools/perf/util/expr.y), then compared with model->eval() on many counter
 * vectors. When the reference folder is absent every test is skipped with
 * one clear line.
 *
 * AMD and Arm follow the same rules with their own: AMD's 12-bit event
 * selects in config bits 0-7 and 32-35, metrics of PipelineL1-L2; Arm's
 * {"ArchStdEvent": ...} entries merged with arm64/ as jevents.py does,
 * #slots and strcmp_cpuid_str() of the part the model stands for,
 * TopdownL1 and Cycle_Accounting in percent (ScaleUnit) where tdbpf has
 * fractions. perf has no MetricThreshold for either: each node's is
 * checked against the Intel TMA node it takes its threshold from.
 */
#ifndef TDBPF_TEST_REFERENCE_H
#define TDBPF_TEST_REFERENCE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include <linux/perf_event.h>

#include "model/model.h"
#include "model/tma.h"

#define REF_DEFAULT	"../shared/reference"
#define VECTORS		2000	/* counter vectors per model and SMT state */
#define REL_TOL		1e-9


enum { T_END, T_NUM, T_ID, T_LIT, T_OP, T_IF, T_ELSE, T_MIN, T_MAX, T_ERR };

enum nkind {
	N_NUM, N_ID, N_LIT, N_NEG, N_BIN, N_IF, N_MIN, N_MAX, N_FUNC,
	N_NODE,		/* a model node's value (analog thresholds) */
};

struct enode {
	enum nkind kind;
	int op;			/* N_BIN: one of + - * / % | & ^ < > */
	double num;		/* N_NUM */
	char *id;		/* N_ID (escapes removed), N_LIT ("#smt_on") */
	int metric;		/* N_ID: index of a metric, -1 event, -2 unset */
	int event;		/* N_ID event: model event index, -1 none */
	struct enode *a, *b, *c;
};

struct lexer {
	const char *s;
	int tok;
	double num;
	char buf[256];
	char err[160];
};

struct ref_metric {
	const char *name;
	const char *expr;
	const char *group;
	const char *thresh;
	struct enode *ast;	/* NULL if it did not parse, see err */
	char err[160];
	int level;		/* 1..3 from TopdownLn / tma_Ln_group, 0 else */
	char parent[64];	/* <x> of the <x>_group, "" if none */
	double scale;		/* from ScaleUnit: value * scale = fraction */
};

struct ref_event {
	const char *name;
	struct json_object *obj;
};

/*
 * Where perf has no MetricThreshold (AMD, Arm), a tdbpf node takes the one
 * of the Intel TMA node it corresponds to; tma NULL: no counterpart, the
 * threshold is tdbpf's own.
 */
struct analog {
	const char *node;
	const char *tma;
};

/* One model and the reference it is checked against. */
struct spec {
	const char *dir;
	const struct model *m;
	const char *mname;
	enum cpu_vendor vendor;
	const char *std;	/* Arm: arch-standard folder (ArchStdEvent) */
	unsigned int midr;	/* Arm: the CPU that strcmp_cpuid_str() sees */
	double slots;		/* Arm: #slots (caps/slots), NAN if none */
	int gp;			/* GP counters where the JSON has no Counter */
	const struct analog *analogs;	/* no MetricThreshold in perf */
};


struct refset {
	const char *dir;
	const struct spec *sp;
	const struct model *m;
	bool smt;
	struct json_object *roots[24];
	int nr_roots;
	struct json_object **std;	/* Arm arch-standard entries */
	int nr_std;
	struct ref_metric *metrics;
	int nr_metrics;
	struct ref_event *events;
	int nr_events;
	int gp_generic;		/* CountersNumGeneric of the core PMU */
	/* evaluation */
	const double *ev;
	double *memo;
	unsigned *memo_gen;
	unsigned gen;
	char missing[256];	/* first id that resolved to nothing */
};

struct idset {
	char *name[256];
	int nr;
};

/* NULL when the reference is absent (ref_run()) */
extern const char *refdir;
extern bool nan_strict;
extern const double *node_vals;
extern const struct spec intel_thresholds;
extern struct spec specs[];

/* expr.c */
void free_node(struct enode *n);
struct enode *parse_expr(const char *s, char *err, size_t errlen);

/* refset.c */
const char *spec_name(const struct spec *sp);
const char *jstr(struct json_object *o, const char *key);
struct json_object *std_find(const struct refset *r, const char *key,
			     const char *name);
const char *field(struct json_object *o, struct json_object *base,
		  const char *key);
int ref_load(struct refset *r, const struct spec *sp);
void ref_free(struct refset *r);
int find_metric(const struct refset *r, const char *name);
const struct ref_event *find_event(const struct refset *r,
				   const char *name);
int model_event(const struct model *m, const char *name);

/* eval.c */
double eval_node(struct refset *r, struct enode *n);
double eval_metric(struct refset *r, int idx);
double ref_value(struct refset *r, int idx);
void idset_free(struct idset *s);
void collect_metric(struct refset *r, int mi, struct idset *s,
		    int depth);
void collect(struct refset *r, struct enode *n, struct idset *s,
	     int depth);

/* specs.c */
void setup_ref(void **state, struct refset *r);
bool in_tree(const struct refset *r, const struct ref_metric *rm);

/* encodings.c */
int topdown_umask(const char *name);
void test_encodings(void **state);
void test_needed_events(void **state);

/* tree.c */
void test_tree(void **state);
int setup_analogs(struct refset *r, struct refset *tma);
const struct ref_metric *node_threshold(struct refset *r,
					struct refset *tma,
					const struct tma_node *nd,
					const char **as);
void test_thresholds(void **state);

/* formulas.c */
void rename_ids(const struct refset *r, struct enode *n,
		const char *from, const char *to);
void test_formulas(void **state);
void test_threshold_flags(void **state);
void test_missing_inputs(void **state);

/* selftest.c */
void test_evaluator(void **state);
void test_lexer_ids(void **state);
void test_reference_resolves(void **state);

/* named "<model> <check>" so that the log says which model failed */
#define T(i, dir, fn) { dir " " #fn, fn, NULL, NULL, &specs[i] }
#define MODEL_TESTS(i, dir)						\
	T(i, dir, test_reference_resolves), T(i, dir, test_encodings),	\
	T(i, dir, test_needed_events), T(i, dir, test_tree),		\
	T(i, dir, test_thresholds), T(i, dir, test_formulas),	\
	T(i, dir, test_threshold_flags), T(i, dir, test_missing_inputs)

/*
 * Find the reference (TDBPF_REFERENCE, else REF_DEFAULT: each test skips
 * without it) and run @tests as group @name.
 */
int ref_run(const char *name, const struct CMUnitTest *tests, size_t n);

#endif /* TDBPF_TEST_REFERENCE_H */
