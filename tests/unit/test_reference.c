// SPDX-License-Identifier: GPL-2.0
/*
 * Independent check of the CPU models against the kernel perf tool's own
 * event and metric JSON (../shared/reference, see its SOURCES.md).
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

/*
 * Weak, so that this file still links while a model is being written; a
 * missing model then fails its tests with a clear message instead of
 * breaking the build of every other test.
 */
#pragma weak model_broadwellx
#pragma weak model_broadwell
#pragma weak model_icelakex
#pragma weak model_icelake
#pragma weak model_sapphirerapids
#pragma weak model_skylakex
#pragma weak model_cascadelakex
#pragma weak model_skylake
#pragma weak model_emeraldrapids
#pragma weak model_graniterapids
#pragma weak model_amdzen4
#pragma weak model_amdzen5
#pragma weak model_neoverse_n1
#pragma weak model_neoverse_n2
#pragma weak model_neoverse_v1
#pragma weak model_neoverse_v2

#define REF_DEFAULT	"../shared/reference"
#define VECTORS		2000	/* counter vectors per model and SMT state */
#define REL_TOL		1e-9

static const char *refdir;	/* NULL when the reference is absent */

/* ------------------------------------------------------------------ */
/* perf metric expression language                                     */
/* ------------------------------------------------------------------ */

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

static bool sym_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '@' ||
	       c == '?';
}

/* Length of flex's {number}: ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)? */
static size_t number_len(const char *s)
{
	size_t i = 0, d = 0;

	while (isdigit((unsigned char)s[i]))
		i++, d++;
	if (s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++, d++;
	}
	if (!d)
		return 0;
	if (s[i] == 'e') {
		size_t j = i + 1;

		if (s[j] == '-')
			j++;
		if (isdigit((unsigned char)s[j])) {
			while (isdigit((unsigned char)s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* Length of flex's {symbol}: ([0-9a-zA-Z_.:@?] | \\.)+ */
static size_t symbol_len(const char *s)
{
	size_t i = 0;

	for (;;) {
		if (s[i] == '\\' && s[i + 1])
			i += 2;
		else if (s[i] && sym_char((unsigned char)s[i]))
			i++;
		else
			return i;
	}
}

static void lex(struct lexer *l)
{
	const char *s = l->s;
	size_t n, sl, i, o;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		l->tok = T_END;
		l->s = s;
		return;
	}
	if (strchr("+-*/%|&^<>(),", *s)) {
		l->tok = T_OP;
		l->buf[0] = *s;
		l->buf[1] = 0;
		l->s = s + 1;
		return;
	}
	if (*s == '#') {
		for (n = 1; isalnum((unsigned char)s[n]) || s[n] == '_'; n++)
			;
		l->tok = T_LIT;
		snprintf(l->buf, sizeof(l->buf), "%.*s", (int)n, s);
		l->s = s + n;
		return;
	}
	n = number_len(s);
	sl = symbol_len(s);
	if (n && n >= sl) {
		l->tok = T_NUM;
		l->num = strtod(s, NULL);
		l->s = s + n;
		return;
	}
	if (!sl || sl >= sizeof(l->buf)) {
		l->tok = T_ERR;
		snprintf(l->err, sizeof(l->err), "bad character at '%.20s'", s);
		return;
	}
	/* perf removes the backslashes of escaped characters from ids */
	for (i = 0, o = 0; i < sl; i++) {
		if (s[i] == '\\')
			i++;
		l->buf[o++] = s[i];
	}
	l->buf[o] = 0;
	l->s = s + sl;
	if (!strcmp(l->buf, "if") && sl == 2)
		l->tok = T_IF;
	else if (!strcmp(l->buf, "else") && sl == 4)
		l->tok = T_ELSE;
	else if (!strcmp(l->buf, "min") && sl == 3)
		l->tok = T_MIN;
	else if (!strcmp(l->buf, "max") && sl == 3)
		l->tok = T_MAX;
	else
		l->tok = T_ID;
}

static struct enode *mknode(enum nkind k)
{
	struct enode *n = calloc(1, sizeof(*n));

	assert_non_null(n);
	n->kind = k;
	n->metric = -2;
	n->event = -1;
	return n;
}

static void free_node(struct enode *n)
{
	if (!n)
		return;
	free_node(n->a);
	free_node(n->b);
	free_node(n->c);
	free(n->id);
	free(n);
}

static bool is_op(struct lexer *l, char c)
{
	return l->tok == T_OP && l->buf[0] == c;
}

static struct enode *p_if(struct lexer *l);
static struct enode *p_bin(struct lexer *l, int prec);

static bool is_func(const char *id)
{
	return !strcmp(id, "d_ratio") || !strcmp(id, "source_count") ||
	       !strcmp(id, "has_event") || !strcmp(id, "strcmp_cpuid_str");
}

static struct enode *p_unary(struct lexer *l)
{
	struct enode *n = NULL;

	if (l->tok == T_ERR)
		return NULL;
	if (is_op(l, '-')) {
		lex(l);
		n = mknode(N_NEG);
		n->a = p_unary(l);
		if (!n->a)
			goto fail;
		return n;
	}
	if (is_op(l, '(')) {
		lex(l);
		n = p_if(l);
		if (!n || !is_op(l, ')'))
			goto fail;
		lex(l);
		return n;
	}
	if (l->tok == T_MIN || l->tok == T_MAX) {
		n = mknode(l->tok == T_MIN ? N_MIN : N_MAX);
		lex(l);
		if (!is_op(l, '('))
			goto fail;
		lex(l);
		n->a = p_if(l);
		if (!n->a || !is_op(l, ','))
			goto fail;
		lex(l);
		n->b = p_if(l);
		if (!n->b || !is_op(l, ')'))
			goto fail;
		lex(l);
		return n;
	}
	if (l->tok == T_NUM) {
		n = mknode(N_NUM);
		n->num = l->num;
		lex(l);
		return n;
	}
	if (l->tok == T_ID && is_func(l->buf)) {
		/* d_ratio(a, b), has_event(id), source_count(id), ... */
		n = mknode(N_FUNC);
		n->id = strdup(l->buf);
		lex(l);
		if (!is_op(l, '('))
			goto fail;
		lex(l);
		n->a = p_if(l);
		if (n->a && is_op(l, ',')) {
			lex(l);
			n->b = p_if(l);
		}
		if (!n->a || !is_op(l, ')'))
			goto fail;
		lex(l);
		return n;
	}
	if (l->tok == T_ID || l->tok == T_LIT) {
		n = mknode(l->tok == T_ID ? N_ID : N_LIT);
		n->id = strdup(l->buf);
		lex(l);
		return n;
	}
fail:
	if (!l->err[0])
		snprintf(l->err, sizeof(l->err), "syntax error at '%.20s'",
			 l->s);
	free_node(n);
	return NULL;
}

/* expr.y precedence, lowest first: | ^ & <> +- * / % */
static int prec_of(struct lexer *l)
{
	if (l->tok != T_OP)
		return -1;
	switch (l->buf[0]) {
	case '|': return 0;
	case '^': return 1;
	case '&': return 2;
	case '<': case '>': return 3;
	case '+': case '-': return 4;
	case '*': case '/': case '%': return 5;
	}
	return -1;
}

/* precedence climbing; every binary operator is left-associative */
static struct enode *p_bin(struct lexer *l, int prec)
{
	struct enode *lhs = p_unary(l), *n;
	int p, op;

	while (lhs && (p = prec_of(l)) >= prec) {
		op = l->buf[0];
		lex(l);
		n = mknode(N_BIN);
		n->op = op;
		n->a = lhs;
		n->b = p_bin(l, p + 1);
		lhs = n;
		if (!n->b) {
			free_node(n);
			return NULL;
		}
	}
	return lhs;
}

/* if_expr: expr IF expr ELSE if_expr | expr */
static struct enode *p_if(struct lexer *l)
{
	struct enode *e = p_bin(l, 0), *n;

	if (!e || l->tok != T_IF)
		return e;
	lex(l);
	n = mknode(N_IF);
	n->a = e;
	n->b = p_bin(l, 0);
	if (!n->b || l->tok != T_ELSE) {
		if (!l->err[0])
			snprintf(l->err, sizeof(l->err), "if without else");
		free_node(n);
		return NULL;
	}
	lex(l);
	n->c = p_if(l);
	if (!n->c) {
		free_node(n);
		return NULL;
	}
	return n;
}

static struct enode *parse_expr(const char *s, char *err, size_t errlen)
{
	struct lexer l = { .s = s };
	struct enode *n;

	lex(&l);
	n = p_if(&l);
	if (n && l.tok != T_END) {
		snprintf(l.err, sizeof(l.err), "trailing '%.20s'", l.s);
		free_node(n);
		n = NULL;
	}
	if (!n)
		snprintf(err, errlen, "%s", l.err[0] ? l.err : "parse error");
	return n;
}

/* ------------------------------------------------------------------ */
/* reference data of one CPU directory                                  */
/* ------------------------------------------------------------------ */

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

/* the tdbpf model name of a spec, for messages */
static const char *spec_name(const struct spec *sp)
{
	return sp->m ? sp->m->name : sp->dir;
}

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

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return json_object_get_string(v);
}

/*
 * Intel TopdownLn / tma_Ln_group, AMD PipelineLn, Arm TopdownL1; Arm's
 * Cycle_Accounting is a level-1 group of its own.
 */
static int metric_level(const char *group)
{
	char k1[16], k2[24], k3[16];
	int lv;

	for (lv = 1; lv <= 3; lv++) {
		snprintf(k1, sizeof(k1), "TopdownL%d", lv);
		snprintf(k2, sizeof(k2), "tma_L%d_group", lv);
		snprintf(k3, sizeof(k3), "PipelineL%d", lv);
		if (strstr(group, k1) || strstr(group, k2) || strstr(group, k3))
			return lv;
	}
	return strstr(group, "Cycle_Accounting") ? 1 : 0;
}

/* "100%" 1, "1percent of slots" 0.01: what makes the value a fraction */
static double metric_scale(const char *unit)
{
	char *end;
	double num;

	if (!unit)
		return 1;
	num = strtod(unit, &end);
	if (end == unit)
		return 1;
	if (*end == '%' || !strncmp(end, "percent", 7))
		return num / 100;
	return 1;
}

/* "a;b;tma_frontend_bound_group;c" -> "tma_frontend_bound" (AMD alike) */
static void metric_parent(const char *group, char *out, size_t len)
{
	char buf[512], *save = NULL, *t;

	out[0] = 0;
	snprintf(buf, sizeof(buf), "%s", group);
	for (t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save)) {
		size_t n = strlen(t);

		if (n < 7 || strcmp(t + n - 6, "_group"))
			continue;
		if (!strncmp(t, "tma_L", 5) && isdigit((unsigned char)t[5]) &&
		    n == 12)
			continue;	/* tma_L1_group: the level, not a parent */
		snprintf(out, len, "%.*s", (int)(n - 6), t);
	}
}

/* a JSON array file of the reference, kept in @r->roots */
static struct json_object *load_array(struct refset *r, const char *file)
{
	struct json_object *root = json_object_from_file(file);

	if (!root || !json_object_is_type(root, json_type_array)) {
		print_error("cannot parse %s\n", file);
		json_object_put(root);
		return NULL;
	}
	assert_true(r->nr_roots < 24);
	r->roots[r->nr_roots++] = root;
	return root;
}

/* What load_dir() does with each entry of each file; non-zero stops it. */
typedef int (*entry_fn)(struct refset *r, struct json_object *o,
			const char *file, const struct spec *sp);

/*
 * Every *.json array in refdir/@sub but the file named @skip (NULL:
 * none), loaded into @r; @fn on each of its entries in turn.
 */
static int load_dir(struct refset *r, const char *sub, const char *skip,
		    entry_fn fn, const struct spec *sp)
{
	char path[512], file[800];
	struct dirent *de;
	DIR *d;
	int i, n;

	snprintf(path, sizeof(path), "%s/%s", refdir, sub);
	d = opendir(path);
	if (!d) {
		print_error("cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		struct json_object *root;
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 5, ".json") ||
		    (skip && !strcmp(de->d_name, skip)))
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, de->d_name);
		root = load_array(r, file);
		if (!root) {
			closedir(d);
			return -1;
		}
		n = (int)json_object_array_length(root);
		for (i = 0; i < n; i++) {
			if (fn(r, json_object_array_get_idx(root, i), file, sp)) {
				closedir(d);
				return -1;
			}
		}
	}
	closedir(d);
	return 0;
}

static int std_entry(struct refset *r, struct json_object *o,
		     const char *file, const struct spec *sp)
{
	(void)file;
	(void)sp;
	if (!jstr(o, "MetricName") && !jstr(o, "EventName"))
		return 0;
	r->std = realloc(r->std, (r->nr_std + 1) * sizeof(*r->std));
	r->std[r->nr_std++] = o;
	return 0;
}

/*
 * Arm's arch-standard files (arm64/: sbsa.json metrics, the common events):
 * a core's {"ArchStdEvent": NAME, ...} entry is that entry with the core's
 * fields winning, as jevents.py preprocess_arch_std_files() merges them.
 */
static int std_load(struct refset *r, const char *std)
{
	return load_dir(r, std, NULL, std_entry, NULL);
}

static struct json_object *std_find(const struct refset *r, const char *key,
				    const char *name)
{
	int i;

	for (i = 0; i < r->nr_std; i++)
		if (jstr(r->std[i], key) &&
		    !strcasecmp(jstr(r->std[i], key), name))
			return r->std[i];
	return NULL;
}

/* @key of the core's entry @o, else of its arch-standard entry @base */
static const char *field(struct json_object *o, struct json_object *base,
			 const char *key)
{
	const char *v = jstr(o, key);

	return v || !base ? v : jstr(base, key);
}

static void add_metric(struct refset *r, struct json_object *o,
		       struct json_object *base)
{
	struct ref_metric *m;

	if (!field(o, base, "MetricName") || !field(o, base, "MetricExpr"))
		return;
	r->metrics = realloc(r->metrics, (r->nr_metrics + 1) * sizeof(*m));
	m = &r->metrics[r->nr_metrics++];
	memset(m, 0, sizeof(*m));
	m->name = field(o, base, "MetricName");
	m->expr = field(o, base, "MetricExpr");
	m->group = field(o, base, "MetricGroup");
	if (!m->group)
		m->group = "";
	m->thresh = field(o, base, "MetricThreshold");
	m->scale = metric_scale(field(o, base, "ScaleUnit"));
	m->level = metric_level(m->group);
	metric_parent(m->group, m->parent, sizeof(m->parent));
}

static void add_event(struct refset *r, const char *name,
		      struct json_object *o)
{
	r->events = realloc(r->events, (r->nr_events + 1) * sizeof(*r->events));
	r->events[r->nr_events].name = name;
	r->events[r->nr_events++].obj = o;
}

/* One entry of a core's files: its counters, a metric or an event. */
static int ref_entry(struct refset *r, struct json_object *o,
		     const char *file, const struct spec *sp)
{
	const char *std = jstr(o, "ArchStdEvent");
	const char *base_name = strrchr(file, '/') + 1;
	struct json_object *base;

	if (!strcmp(base_name, "counter.json")) {
		const char *u = jstr(o, "Unit");
		const char *g = jstr(o, "CountersNumGeneric");

		if (u && g && !strcmp(u, "core"))
			r->gp_generic = atoi(g);
	} else if (std) {
		/* an arch-standard metric, or event */
		base = std_find(r, "MetricName", std);
		if (base) {
			add_metric(r, o, base);
			return 0;
		}
		base = std_find(r, "EventName", std);
		if (!base) {
			print_error("%s: ArchStdEvent %s is in no %s file\n",
				    file, std, sp->std ?: "standard");
			return -1;
		}
		add_event(r, jstr(base, "EventName"), base);
	} else if (jstr(o, "MetricName")) {
		add_metric(r, o, NULL);
	} else if (jstr(o, "EventName")) {
		add_event(r, jstr(o, "EventName"), o);
	}
	return 0;
}

static int ref_load(struct refset *r, const struct spec *sp)
{
	int i;

	if (sp->std && std_load(r, sp->std))
		return -1;
	if (load_dir(r, sp->dir, "metricgroups.json", ref_entry, sp))
		return -1;
	if (!r->nr_metrics || !r->nr_events) {
		print_error("%s/%s: no metrics or no events found\n", refdir,
			    sp->dir);
		return -1;
	}
	for (i = 0; i < r->nr_metrics; i++) {
		char err[sizeof(r->metrics[i].err)];

		r->metrics[i].ast = parse_expr(r->metrics[i].expr, err,
					       sizeof(err));
		/* fatal only where a tma_* metric needs it (see collect) */
		if (!r->metrics[i].ast)
			snprintf(r->metrics[i].err, sizeof(r->metrics[i].err),
				 "%s", err);
	}
	r->memo = calloc(r->nr_metrics, sizeof(double));
	r->memo_gen = calloc(r->nr_metrics, sizeof(unsigned));
	r->dir = spec_name(sp);
	r->sp = sp;
	return 0;
}

static void ref_free(struct refset *r)
{
	int i;

	for (i = 0; i < r->nr_metrics; i++)
		free_node(r->metrics[i].ast);
	for (i = 0; i < r->nr_roots; i++)
		json_object_put(r->roots[i]);
	free(r->metrics);
	free(r->events);
	free(r->std);
	free(r->memo);
	free(r->memo_gen);
	memset(r, 0, sizeof(*r));
}

static int find_metric(const struct refset *r, const char *name)
{
	int i;

	for (i = 0; i < r->nr_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return i;
	return -1;
}

static const struct ref_event *find_event(const struct refset *r,
					  const char *name)
{
	int i;

	for (i = 0; i < r->nr_events; i++)
		if (!strcasecmp(r->events[i].name, name))
			return &r->events[i];
	return NULL;
}

/* our event of this exact perf name (case-insensitive), -1 if none */
static int model_event(const struct model *m, const char *name)
{
	int i;

	for (i = 0; i < m->nr_events; i++)
		if (!strcasecmp(m->events[i].name, name))
			return i;
	return -1;
}

/* ------------------------------------------------------------------ */
/* evaluation with expr.y's semantics (compute_ids == false)             */
/* ------------------------------------------------------------------ */

static double literal(const struct refset *r, const char *lit, bool *ok)
{
	*ok = true;
	if (!strcasecmp(lit, "#smt_on"))
		return r->smt ? 1 : 0;
	/* per-task counting: tools/perf/util/smt.c core_wide() is false */
	if (!strcasecmp(lit, "#core_wide"))
		return 0;
	/* no Optane persistent memory on the machines we decode for */
	if (!strcasecmp(lit, "#has_pmem"))
		return 0;
	/* Arm: the PMU's caps/slots, NAN where it has none (perf's too) */
	if (!strcasecmp(lit, "#slots") && r->sp && r->sp->vendor == VENDOR_ARM)
		return r->sp->slots;
	*ok = false;
	return NAN;
}

/*
 * perf's arm64 strcmp_cpuid_str() as expr.y uses it: 1 when the CPU is
 * the part of @id (MIDR without variant and revision) at @id's
 * variant/revision or later (tools/perf/arch/arm64/util/header.c).
 */
static double cpuid_at_least(const struct refset *r, const char *id)
{
	const unsigned long long vr = 0xf0000fULL;
	unsigned long long want = strtoull(id, NULL, 16);
	unsigned long long have = r->sp ? r->sp->midr : 0;

	if (!have || (want & ~vr) != (have & ~vr))
		return 0;
	return ((have >> 20 & 0xf) << 4 | (have & 0xf)) >=
	       ((want >> 20 & 0xf) << 4 | (want & 0xf));
}

static bool is_cpuid(const struct enode *n)
{
	return n->kind == N_FUNC && !strcmp(n->id, "strcmp_cpuid_str");
}

static double eval_metric(struct refset *r, int idx);
static bool is_const(struct refset *r, struct enode *n);

/*
 * NAN propagates through max, min and conditions (through both branches
 * of a condition on data, as perf's compute_ids pass needs the events of
 * both), and a division by zero is 0 rather than NAN: a NAN result then
 * says only that a NAN input is read (diagnosis, missing-input check).
 */
static bool nan_strict;

static void resolve(struct refset *r, struct enode *n)
{
	if (n->metric != -2)
		return;
	n->metric = find_metric(r, n->id);
	if (n->metric < 0 && r->m)
		n->event = model_event(r->m, n->id);
}

/* N_NODE values: the model's decoded nodes, see rename_ids() */
static const double *node_vals;

static double eval_node(struct refset *r, struct enode *n)
{
	double a, b, c;
	bool ok;

	switch (n->kind) {
	case N_NUM:
		return n->num;
	case N_NODE:
		return node_vals ? node_vals[n->event] : NAN;
	case N_LIT:
		a = literal(r, n->id, &ok);
		if (!ok && !r->missing[0])
			snprintf(r->missing, sizeof(r->missing), "%s", n->id);
		return a;
	case N_ID:
		resolve(r, n);
		if (n->metric >= 0)
			return eval_metric(r, n->metric);
		if (n->event >= 0)
			return r->ev[n->event];
		if (!r->missing[0])
			snprintf(r->missing, sizeof(r->missing), "%s", n->id);
		return NAN;
	case N_NEG:
		return -eval_node(r, n->a);
	case N_FUNC:
		/* values as perf's; strict: an unmeasured input is NAN */
		if (!strcmp(n->id, "d_ratio")) {
			a = eval_node(r, n->a);
			b = n->b ? eval_node(r, n->b) : NAN;
			if (nan_strict && (isnan(a) || isnan(b)))
				return NAN;
			return fpclassify(b) == FP_ZERO ? 0 : a / b;
		}
		if (is_cpuid(n))
			return n->a->kind == N_ID ? cpuid_at_least(r, n->a->id) :
						    NAN;
		if (!strcmp(n->id, "source_count"))
			return 1;
		if (!strcmp(n->id, "has_event"))
			return n->a->kind == N_ID && r->m &&
			       model_event(r->m, n->a->id) >= 0;
		return 0;
	case N_IF:
		/* every operand is evaluated, as bison does */
		a = eval_node(r, n->a);
		b = eval_node(r, n->b);
		c = eval_node(r, n->c);
		/*
		 * strict, as perf's compute_ids pass: a constant condition
		 * (#SMT_on) keeps the branch taken, any other needs both
		 */
		if (nan_strict && (isnan(b) || (is_const(r, n->b) ?
				  isnan(fpclassify(b) == FP_ZERO ? c : a) :
				  isnan(a) || isnan(c))))
			return NAN;
		/* only an exact zero is false: a NAN condition is true */
		return fpclassify(b) == FP_ZERO ? c : a;
	case N_MIN:
		a = eval_node(r, n->a);
		b = eval_node(r, n->b);
		if (nan_strict && (isnan(a) || isnan(b)))
			return NAN;
		return a < b ? a : b;
	case N_MAX:
		a = eval_node(r, n->a);
		b = eval_node(r, n->b);
		if (nan_strict && (isnan(a) || isnan(b)))
			return NAN;
		return a > b ? a : b;
	case N_BIN:
		a = eval_node(r, n->a);
		b = eval_node(r, n->b);
		switch (n->op) {
		case '/':
			/* strict: NAN means "reads a missing event" only */
			if (fpclassify(b) == FP_ZERO)
				return nan_strict && !isnan(a) ? 0.0 : NAN;
			return a / b;
		case '%':
			if (fpclassify(b) == FP_ZERO)
				return NAN;
			return (long)a % (long)b;
		case '|':
			if (!isfinite(a) && !isfinite(b))
				return NAN;
			if (isfinite(a) && isfinite(b))
				return a != 0 || b != 0;
			if (isfinite(a))
				return a == 0 ? b : 1;
			return b == 0 ? a : 1;
		case '&':
			if (!isfinite(a) && !isfinite(b))
				return NAN;
			if (isfinite(a) && isfinite(b))
				return a != 0 && b != 0;
			if (isfinite(a))
				return a != 0 ? b : 0;
			return b != 0 ? a : 0;
		case '^':
			if (isfinite(a) && isfinite(b))
				return (a == 0) != (b == 0);
			return NAN;
		}
		/* BINARY_OP: NAN in, NAN out */
		if (isnan(a) || isnan(b))
			return NAN;
		switch (n->op) {
		case '+': return a + b;
		case '-': return a - b;
		case '*': return a * b;
		case '<': return a < b;
		case '>': return a > b;
		}
	}
	return NAN;
}

static double eval_metric(struct refset *r, int idx)
{
	if (!r->metrics[idx].ast) {
		if (!r->missing[0])
			snprintf(r->missing, sizeof(r->missing), "%s (%s)",
				 r->metrics[idx].name, r->metrics[idx].err);
		return NAN;
	}
	if (r->memo_gen[idx] != r->gen) {
		r->memo[idx] = eval_node(r, r->metrics[idx].ast);
		r->memo_gen[idx] = r->gen;
	}
	return r->memo[idx];
}

/* a metric's value as a fraction, as tdbpf's models give it */
static double ref_value(struct refset *r, int idx)
{
	double v = eval_metric(r, idx);

	return r->metrics[idx].scale == 1 ? v : v * r->metrics[idx].scale;
}

/* ------------------------------------------------------------------ */
/* events a formula needs (expr.y's compute_ids mode)                  */
/* ------------------------------------------------------------------ */

struct idset {
	char *name[256];
	int nr;
};

static void idset_add(struct idset *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (!strcasecmp(s->name[i], name))
			return;
	assert_true(s->nr < 256);
	s->name[s->nr++] = strdup(name);
}

static void idset_free(struct idset *s)
{
	while (s->nr)
		free(s->name[--s->nr]);
}

/* does the value depend on no event (only numbers and #literals)? */
static bool is_const(struct refset *r, struct enode *n)
{
	if (!n || is_cpuid(n))	/* the CPU is fixed by the spec */
		return true;
	if (n->kind == N_ID) {
		resolve(r, n);
		if (n->metric >= 0)
			return r->metrics[n->metric].ast &&
			       is_const(r, r->metrics[n->metric].ast);
		return false;
	}
	return is_const(r, n->a) && is_const(r, n->b) && is_const(r, n->c);
}

static void collect(struct refset *r, struct enode *n, struct idset *s,
		    int depth);

/* a formula that does not parse is recorded as an unresolvable id */
static void collect_metric(struct refset *r, int mi, struct idset *s,
			   int depth)
{
	char bad[300];

	if (r->metrics[mi].ast) {
		collect(r, r->metrics[mi].ast, s, depth);
		return;
	}
	snprintf(bad, sizeof(bad), "unparsable metric %s: %s",
		 r->metrics[mi].name, r->metrics[mi].err);
	idset_add(s, bad);
}

static void collect(struct refset *r, struct enode *n, struct idset *s,
		    int depth)
{
	assert_true(depth < 64);
	if (!n || is_cpuid(n))	/* its argument is a MIDR, not an event */
		return;
	if (n->kind == N_ID) {
		int mi = find_metric(r, n->id);

		if (mi >= 0)
			collect_metric(r, mi, s, depth + 1);
		else
			idset_add(s, n->id);
		return;
	}
	if (n->kind == N_IF && is_const(r, n->b)) {
		/* constant condition (#SMT_on, #core_wide): one branch */
		r->gen++;
		if (fpclassify(eval_node(r, n->b)) == FP_ZERO)
			collect(r, n->c, s, depth + 1);
		else
			collect(r, n->a, s, depth + 1);
		return;
	}
	collect(r, n->a, s, depth + 1);
	collect(r, n->b, s, depth + 1);
	collect(r, n->c, s, depth + 1);
}

/* ------------------------------------------------------------------ */
/* test plumbing                                                        */
/* ------------------------------------------------------------------ */

#define ANALOGS_L1							\
	{ "frontend_bound", "tma_frontend_bound" },			\
	{ "bad_speculation", "tma_bad_speculation" },			\
	{ "backend_bound", "tma_backend_bound" },			\
	{ "retiring", "tma_retiring" }

/* SMT contention has no TMA counterpart: tdbpf's own 0.15 */
static const struct analog zen4_analogs[] = {
	ANALOGS_L1,
	{ "smt_contention", NULL },
	{ "frontend_bound_latency", "tma_fetch_latency" },
	{ "frontend_bound_bandwidth", "tma_fetch_bandwidth" },
	{ "bad_speculation_mispredicts", "tma_branch_mispredicts" },
	{ "bad_speculation_pipeline_restarts", "tma_machine_clears" },
	{ "backend_bound_memory", "tma_memory_bound" },
	{ "backend_bound_cpu", "tma_core_bound" },
	{ "retiring_fastpath", "tma_light_operations" },
	{ "retiring_microcode", "tma_heavy_operations" },
	{ NULL, NULL },
};

static const struct analog zen5_analogs[] = {
	ANALOGS_L1,
	{ "smt_contention", NULL },
	{ "frontend_bound_by_latency", "tma_fetch_latency" },
	{ "frontend_bound_by_bandwidth", "tma_fetch_bandwidth" },
	{ "bad_speculation_from_mispredicts", "tma_branch_mispredicts" },
	{ "bad_speculation_from_pipeline_restarts", "tma_machine_clears" },
	{ "backend_bound_by_memory", "tma_memory_bound" },
	{ "backend_bound_by_cpu", "tma_core_bound" },
	{ "retiring_from_fastpath", "tma_light_operations" },
	{ "retiring_from_microcode", "tma_heavy_operations" },
	{ NULL, NULL },
};

/* stalled cycles: the frontend / backend bound of cycles, not slots */
#define ANALOGS_STALLED							\
	{ "frontend_stalled_cycles", "tma_frontend_bound" },		\
	{ "backend_stalled_cycles", "tma_backend_bound" }

static const struct analog arm_analogs[] = {
	ANALOGS_L1, ANALOGS_STALLED, { NULL, NULL },
};

static const struct analog n1_analogs[] = {
	ANALOGS_STALLED, { NULL, NULL },
};

/* the Intel thresholds the analogs are read from */
static const struct spec intel_thresholds = {
	.dir = "sapphirerapids", .m = NULL, .mname = "thresholds",
};

#define INTEL(d, sym)							\
	{ .dir = d, .m = &sym, .mname = #sym, .vendor = VENDOR_INTEL }
/* AMD: no Counter field in the JSON; PerfCtr0-5 (tma-events.md) */
#define AMD(d, sym, an)							\
	{ .dir = d, .m = &sym, .mname = #sym, .vendor = VENDOR_AMD,	\
	  .gp = 6, .analogs = an }
/* Arm: six event counters; the MIDR and #slots the model stands for */
#define ARM(d, sym, id, sl, an)						\
	{ .dir = d, .m = &sym, .mname = #sym, .vendor = VENDOR_ARM,	\
	  .std = "arm64", .midr = id, .slots = sl, .gp = 6, .analogs = an }

static struct spec specs[] = {
	INTEL("broadwellx", model_broadwellx),
	INTEL("broadwell", model_broadwell),
	INTEL("icelakex", model_icelakex),
	INTEL("icelake", model_icelake),
	INTEL("sapphirerapids", model_sapphirerapids),
	AMD("amdzen4", model_amdzen4, zen4_analogs),
	AMD("amdzen5", model_amdzen5, zen5_analogs),
	ARM("neoverse-n1", model_neoverse_n1, 0x413fd0c1, NAN, n1_analogs),
	ARM("neoverse-n2-v2", model_neoverse_n2, 0x410fd493, 5, arm_analogs),
	ARM("neoverse-v1", model_neoverse_v1, 0x411fd401, 8, arm_analogs),
	ARM("neoverse-n2-v2", model_neoverse_v2, 0x410fd4f0, 8, arm_analogs),
	INTEL("skylakex", model_skylakex),
	INTEL("cascadelakex", model_cascadelakex),
	INTEL("skylake", model_skylake),
	INTEL("emeraldrapids", model_emeraldrapids),
	INTEL("graniterapids", model_graniterapids),
};


/* skip without reference data, fail without the model; load the JSON */
static void setup_ref(void **state, struct refset *r)
{
	const struct spec *sp = *state;

	if (!refdir)
		skip();
	if (!sp->m) {
		print_error("%s is not linked: user/model/cpus/ lacks it\n",
			    sp->mname);
		fail();
	}
	memset(r, 0, sizeof(*r));
	r->m = sp->m;
	assert_int_equal(ref_load(r, sp), 0);
}

/*
 * The metrics of the TopDown levels (Intel tma_*, tma_info_* excluded;
 * AMD PipelineL1-L2; Arm TopdownL1 and Cycle_Accounting), from @max on.
 */
static bool in_scope(const struct spec *sp, const struct ref_metric *rm,
		     int max)
{
	if (rm->level < 1 || rm->level > max)
		return false;
	if (sp->vendor == VENDOR_AMD || sp->vendor == VENDOR_ARM)
		return true;
	return !strncmp(rm->name, "tma_", 4) &&
	       strncmp(rm->name, "tma_info_", 9);
}

/* L1..L3 tree metrics in scope for the model */
static bool in_tree(const struct refset *r, const struct ref_metric *rm)
{
	int max = r->m->max_level < 3 ? r->m->max_level : 3;

	return in_scope(r->sp, rm, max);
}

/* ------------------------------------------------------------------ */
/* a) encodings                                                         */
/* ------------------------------------------------------------------ */

struct enc {
	unsigned long event, umask, cmask, inv, edge, any;
};

static unsigned long jnum(struct json_object *o, const char *key)
{
	const char *s = jstr(o, key);

	/* "0xB7,0xBB" (offcore pairs): the first code is the event */
	return s ? strtoul(s, NULL, 0) : 0;
}

/*
 * The x86 cpu PMU formats: Intel event=config:0-7; AMD event=config:0-7,
 * 32-35 for its 12-bit event selects (Intel's never exceed 8 bits). Arm's
 * event=config:0-15 is the event number as is.
 */
static __u64 enc_config(const struct enc *e, bool arm)
{
	if (arm)
		return e->event;
	return (e->event & 0xff) | (__u64)(e->event >> 8 & 0xf) << 32 |
	       e->umask << 8 | e->edge << 18 | e->any << 21 | e->inv << 23 |
	       e->cmask << 24;
}

/* perf's jevents.py real_event(): the fixed-counter events */
static bool fixed_override(const char *name, struct enc *e)
{
	static const struct {
		const char *name;
		struct enc e;
	} fx[] = {
		{ "inst_retired.any", { 0xc0, 0, 0, 0, 0, 0 } },
		{ "inst_retired.any_p", { 0xc0, 0, 0, 0, 0, 0 } },
		{ "cpu_clk_unhalted.ref", { 0, 3, 0, 0, 0, 0 } },
		{ "cpu_clk_unhalted.thread", { 0x3c, 0, 0, 0, 0, 0 } },
		{ "cpu_clk_unhalted.core", { 0x3c, 0, 0, 0, 0, 0 } },
		{ "cpu_clk_unhalted.thread_any", { 0x3c, 0, 0, 0, 0, 1 } },
	};
	size_t i;

	for (i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		if (!strcasecmp(name, fx[i].name)) {
			*e = fx[i].e;
			return true;
		}
	}
	return false;
}

/* kernel sysfs aliases (arch/x86/events/intel/core.c), see tma-events.md */
static int topdown_umask(const char *name)
{
	static const char *const td[] = {
		"topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
		"topdown-be-bound", "topdown-heavy-ops",
		"topdown-br-mispredict", "topdown-fetch-lat",
		"topdown-mem-bound",
	};
	int i;

	for (i = 0; i < 8; i++)
		if (!strcasecmp(name, td[i]))
			return 0x80 + i;
	return -1;
}

/* "0,1,2,3" -> 0xf; "Fixed counter 1" -> -1 with *fixed = 1 */
static int counter_mask(const char *s, int *fixed)
{
	int mask = 0;

	*fixed = -1;
	if (!strncasecmp(s, "Fixed counter ", 14)) {
		*fixed = atoi(s + 14);
		return -1;
	}
	while (*s) {
		char *end;
		long c = strtol(s, &end, 10);

		if (end == s || c < 0 || c > 7)
			return -2;
		mask |= 1 << c;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -2;
	}
	return mask;
}

static int check_one_encoding(struct refset *r, const struct model_event *me)
{
	char base[160], terms[160] = "", *save = NULL, *t;
	const struct ref_event *re;
	const char *msr, *cnt;
	struct enc e;
	__u64 want1 = 0;
	int td, mask, fixed;
	bool arm;

	td = topdown_umask(me->name);
	if (td >= 0) {
		if (me->config != (__u64)td << 8 || me->kind != EV_METRIC) {
			print_error("%s %s: config %#llx kind %d, want %#x "
				    "(event=0,umask=%#x) kind EV_METRIC\n",
				    r->dir, me->name,
				    (unsigned long long)me->config, me->kind,
				    td << 8, td);
			return 1;
		}
		return 0;
	}
	/* cpu@EVENT,term,term@ as written in the metric expression */
	if (!strncasecmp(me->name, "cpu@", 4)) {
		const char *in = me->name + 4, *comma = strchr(in, ',');
		size_t len = strlen(in);

		if (!len || in[len - 1] != '@') {
			print_error("%s %s: malformed name\n", r->dir,
				    me->name);
			return 1;
		}
		len--;
		if (comma && (size_t)(comma - in) < len) {
			snprintf(base, sizeof(base), "%.*s", (int)(comma - in),
				 in);
			snprintf(terms, sizeof(terms), "%.*s",
				 (int)(len - (comma - in) - 1), comma + 1);
		} else {
			snprintf(base, sizeof(base), "%.*s", (int)len, in);
		}
	} else {
		snprintf(base, sizeof(base), "%s", me->name);
	}
	re = find_event(r, base);
	if (!re && r->sp->std) {
		/* an architected event the core's JSON does not list */
		static struct ref_event std;

		std.obj = std_find(r, "EventName", base);
		std.name = base;
		if (std.obj) {
			re = &std;
			print_message("%s %s: architected common event, from "
				      "%s/\n", r->dir, me->name, r->sp->std);
		}
	}
	if (!re) {
		print_error("%s %s: no event %s in the reference JSON\n",
			    r->dir, me->name, base);
		return 1;
	}
	if (!fixed_override(base, &e)) {
		e.event = jnum(re->obj, "EventCode");
		e.umask = jnum(re->obj, "UMask");
		e.cmask = jnum(re->obj, "CounterMask");
		e.inv = jnum(re->obj, "Invert");
		e.edge = jnum(re->obj, "EdgeDetect");
		e.any = jnum(re->obj, "AnyThread");
	}
	for (t = strtok_r(terms, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		unsigned long v = eq ? strtoul(eq + 1, NULL, 0) : 1;

		if (eq)
			*eq = 0;
		if (!strcasecmp(t, "cmask"))
			e.cmask = v;
		else if (!strcasecmp(t, "umask"))
			e.umask = v;
		else if (!strcasecmp(t, "edge"))
			e.edge = v;
		else if (!strcasecmp(t, "inv"))
			e.inv = v;
		else if (!strcasecmp(t, "any"))
			e.any = v;
		else if (!strcasecmp(t, "event"))
			e.event = v;
		else {
			print_error("%s %s: unknown term %s\n", r->dir,
				    me->name, t);
			return 1;
		}
	}
	arm = r->sp->vendor == VENDOR_ARM;
	if (me->type != PERF_TYPE_RAW || me->config != enc_config(&e, arm)) {
		print_error("%s %s: type %u config %#llx, reference "
			    "PERF_TYPE_RAW config %#llx\n", r->dir, me->name,
			    me->type, (unsigned long long)me->config,
			    (unsigned long long)enc_config(&e, arm));
		return 1;
	}
	msr = jstr(re->obj, "MSRIndex");
	if (msr && (strcasestr(msr, "0x3f7") || strcasestr(msr, "0x1a6")))
		want1 = strtoull(jstr(re->obj, "MSRValue") ?: "0", NULL, 0);
	if (me->config1 != want1) {
		print_error("%s %s: config1 %#llx, reference MSR %s value "
			    "%#llx\n", r->dir, me->name,
			    (unsigned long long)me->config1, msr ?: "none",
			    (unsigned long long)want1);
		return 1;
	}
	cnt = jstr(re->obj, "Counter");
	if (!cnt && r->sp->gp) {
		/* every event on any of the PMU's counters (tma-events.md) */
		int all = (1 << r->sp->gp) - 1;
		/* Arm: cpu_cycles goes to the cycle counter PMCCNTR_EL0 */
		bool cyc = arm && !strcasecmp(base, "cpu_cycles") &&
			   me->kind == EV_FIXED;

		if (!cyc && (me->kind != EV_GP || me->counters != all)) {
			print_error("%s %s: kind %d counters %#x, want a "
				    "general counter of %#x\n", r->dir,
				    me->name, me->kind, me->counters, all);
			return 1;
		}
		return 0;
	}
	if (!cnt) {
		print_error("%s %s: no Counter field\n", r->dir, base);
		return 1;
	}
	mask = counter_mask(cnt, &fixed);
	if (fixed >= 0) {
		bool ok = me->fixed == fixed &&
			  (fixed == 3 ? me->kind == EV_SLOTS :
					me->kind == EV_FIXED);

		if (!ok) {
			print_error("%s %s: kind %d fixed %d, reference "
				    "\"%s\"\n", r->dir, me->name, me->kind,
				    me->fixed, cnt);
			return 1;
		}
		return 0;
	}
	if (mask < 0 || me->kind != EV_GP) {
		print_error("%s %s: kind %d, reference Counter \"%s\"\n",
			    r->dir, me->name, me->kind, cnt);
		return 1;
	}
	/*
	 * An unrestricted event may list only the counters that exist with
	 * SMT on (BDX "0,1,2,3"); the model may then allow all of them.
	 */
	if (me->counters != mask &&
	    !(mask == (1 << r->gp_generic) - 1 && me->counters == 0xff)) {
		print_error("%s %s: counters %#x, reference \"%s\" (%#x)\n",
			    r->dir, me->name, me->counters, cnt, mask);
		return 1;
	}
	return 0;
}

static void test_encodings(void **state)
{
	struct refset r;
	int i, bad = 0, raw = 0;

	setup_ref(state, &r);
	for (i = 0; i < r.m->nr_events; i++) {
		if (r.m->events[i].type != PERF_TYPE_RAW)
			continue;
		raw++;
		bad += check_one_encoding(&r, &r.m->events[i]);
	}
	print_message("%s: %d raw events checked, %d wrong\n", r.dir, raw,
		      bad);
	ref_free(&r);
	assert_true(raw > 0);
	assert_int_equal(bad, 0);
}

/* every event the reference L1..L3 formulas need is one of ours */
static void test_needed_events(void **state)
{
	struct refset r;
	int i, s, bad = 0;

	setup_ref(state, &r);
	for (s = 0; s < 2; s++) {
		struct idset ids = { .nr = 0 };

		r.smt = s;
		for (i = 0; i < r.nr_metrics; i++)
			if (in_tree(&r, &r.metrics[i]))
				collect_metric(&r, i, &ids, 0);
		for (i = 0; i < ids.nr; i++) {
			int k = model_event(r.m, ids.name[i]);

			if (k < 0) {
				print_error("%s smt %s: %s is needed by the "
					    "reference formulas but not "
					    "defined by the model\n", r.dir,
					    s ? "on" : "off", ids.name[i]);
				bad++;
			} else if (r.m->events[k].need == NEED_NEVER ||
				   r.m->events[k].need ==
					   (s ? NEED_SMT_OFF : NEED_SMT_ON)) {
				print_error("%s smt %s: %s is needed but the "
					    "model marks it need=%d\n", r.dir,
					    s ? "on" : "off", ids.name[i],
					    r.m->events[k].need);
				bad++;
			}
		}
		print_message("%s smt %s: %d events needed for L1-L%d\n",
			      r.dir, s ? "on" : "off", ids.nr,
			      r.m->max_level);
		idset_free(&ids);
	}
	ref_free(&r);
	assert_int_equal(bad, 0);
}

/* ------------------------------------------------------------------ */
/* b) tree, thresholds, formulas                                       */
/* ------------------------------------------------------------------ */

static void test_tree(void **state)
{
	struct refset r;
	const struct model *m;
	int i, k, bad = 0, n = 0;
	bool topdown = false;

	setup_ref(state, &r);
	m = r.m;
	if (m->max_level < 3)
		print_message("%s: note: the model stops at level %d\n",
			      r.dir, m->max_level);
	for (i = 0; i < r.nr_metrics; i++)
		if (in_tree(&r, &r.metrics[i]) &&
		    strstr(r.metrics[i].group, "TopdownL1"))
			topdown = true;
	for (i = 0; i < r.nr_metrics; i++) {
		const struct ref_metric *rm = &r.metrics[i];

		if (!in_tree(&r, rm))
			continue;
		n++;
		for (k = 0; k < m->nr_nodes; k++)
			if (!strcmp(m->nodes[k].name, rm->name))
				break;
		if (k == m->nr_nodes) {
			print_error("%s: reference node %s (L%d) missing\n",
				    r.dir, rm->name, rm->level);
			bad++;
			continue;
		}
		/* Cycle_Accounting beside a TopdownL1 tree is aside */
		if (m->nodes[k].aside !=
		    (strstr(rm->group, "Cycle_Accounting") && topdown)) {
			print_error("%s: %s aside %d, reference group %s\n",
				    r.dir, rm->name, m->nodes[k].aside,
				    rm->group);
			bad++;
		}
		if (m->nodes[k].level != rm->level) {
			print_error("%s: %s level %d, reference %d\n", r.dir,
				    rm->name, m->nodes[k].level, rm->level);
			bad++;
		}
		if (rm->level == 1 ? m->nodes[k].parent != -1 :
		    m->nodes[k].parent < 0 || m->nodes[k].parent >= m->nr_nodes ||
		    strcmp(m->nodes[m->nodes[k].parent].name, rm->parent)) {
			print_error("%s: %s parent %s, reference %s\n", r.dir,
				    rm->name, m->nodes[k].parent < 0 ? "-" :
				    m->nodes[m->nodes[k].parent].name,
				    rm->parent[0] ? rm->parent : "-");
			bad++;
		}
	}
	/* and nothing of ours that the reference does not have */
	for (k = 0; k < m->nr_nodes; k++) {
		i = find_metric(&r, m->nodes[k].name);
		if (i < 0 || !in_tree(&r, &r.metrics[i])) {
			print_error("%s: node %s is not a reference L1-L%d "
				    "tree metric\n", r.dir, m->nodes[k].name,
				    m->max_level);
			bad++;
		}
	}
	print_message("%s: %d reference nodes, model has %d\n", r.dir, n,
		      m->nr_nodes);
	ref_free(&r);
	assert_true(n > 0);
	assert_int_equal(bad, 0);
}

static const struct analog *analog_of(const struct spec *sp,
				      const char *node)
{
	const struct analog *a;

	for (a = sp->analogs; a && a->node; a++)
		if (!strcmp(a->node, node))
			return a;
	return NULL;
}

/*
 * Where perf has no MetricThreshold (sp->analogs): none of the model's
 * reference metrics may have one (if perf gains one, tdbpf must follow
 * it), and @tma gets the Intel reference the analogs are read from.
 * Returns the number of problems.
 */
static int setup_analogs(struct refset *r, struct refset *tma)
{
	int i, bad = 0;

	memset(tma, 0, sizeof(*tma));
	if (!r->sp->analogs)
		return 0;
	for (i = 0; i < r->nr_metrics; i++) {
		if (!in_tree(r, &r->metrics[i]) || !r->metrics[i].thresh)
			continue;
		print_error("%s: perf now has a MetricThreshold for %s "
			    "('%s'): follow it instead of the TMA analog\n",
			    r->dir, r->metrics[i].name, r->metrics[i].thresh);
		bad++;
	}
	assert_int_equal(ref_load(tma, &intel_thresholds), 0);
	return bad;
}

/*
 * The reference threshold of node @nd: perf's own, or its Intel analog's
 * (in @tma, named *@as); NULL with *@as NULL where tdbpf has its own.
 */
static const struct ref_metric *node_threshold(struct refset *r,
					       struct refset *tma,
					       const struct tma_node *nd,
					       const char **as)
{
	const struct analog *a;
	int i;

	*as = nd->name;
	if (!r->sp->analogs) {
		i = find_metric(r, nd->name);
		return i < 0 ? NULL : &r->metrics[i];
	}
	a = analog_of(r->sp, nd->name);
	*as = a ? a->tma : NULL;
	if (!*as)
		return NULL;
	i = find_metric(tma, *as);
	return i < 0 ? NULL : &tma->metrics[i];
}

static void test_thresholds(void **state)
{
	struct refset r, tma;
	int k, bad = 0;

	setup_ref(state, &r);
	bad += setup_analogs(&r, &tma);
	for (k = 0; k < r.m->nr_nodes; k++) {
		const struct tma_node *nd = &r.m->nodes[k];
		const char *t, *name;
		const struct ref_metric *rm = node_threshold(&r, &tma, nd,
							     &name);
		size_t len;
		double want;

		if (r.sp->analogs && !name) {
			if (!analog_of(r.sp, nd->name)) {
				print_error("%s: %s has no analog entry\n",
					    r.dir, nd->name);
				bad++;
			} else {
				print_message("%s: %s: no TMA counterpart, "
					      "tdbpf's own threshold %g\n",
					      r.dir, nd->name, nd->thresh);
			}
			continue;
		}
		if (!rm || !rm->thresh) {
			print_error("%s: %s has no reference threshold\n",
				    r.dir, nd->name);
			bad++;
			continue;
		}
		/* "tma_x > N ..." : the node's own comparison comes first */
		len = strlen(name);
		t = rm->thresh;
		while (*t == '(' || *t == ' ')
			t++;
		if (strncmp(t, name, len) || !strchr(" >", t[len])) {
			print_error("%s: %s: cannot read threshold '%s'\n",
				    r.dir, nd->name, rm->thresh);
			bad++;
			continue;
		}
		t += len;
		while (*t == ' ')
			t++;
		if (*t != '>') {
			print_error("%s: %s: threshold '%s' is not '>'\n",
				    r.dir, nd->name, rm->thresh);
			bad++;
			continue;
		}
		want = strtod(t + 1, NULL);
		if (nd->thresh != want) {
			print_error("%s: %s threshold %g, reference %g%s%s\n",
				    r.dir, nd->name, nd->thresh, want,
				    r.sp->analogs ? " of its analog " : "",
				    r.sp->analogs ? name : "");
			bad++;
		}
	}
	if (r.sp->analogs)
		ref_free(&tma);
	ref_free(&r);
	assert_int_equal(bad, 0);
}

/*
 * An analog's threshold in the model's own terms: the analog is the node,
 * the other TMA nodes their counterparts, a TMA node without one (heavy
 * operations on Arm) 0. They read the model's decoded values (N_NODE),
 * which test_formulas compares with perf's: perf's Arm values are
 * percent, and 100 * x / 100 is not always x at a threshold's edge.
 */
static void rename_ids(const struct refset *r, struct enode *n,
		       const char *from, const char *to)
{
	const struct analog *a;
	const char *name = NULL;
	int k;

	if (!n)
		return;
	if (n->kind != N_ID) {
		rename_ids(r, n->a, from, to);
		rename_ids(r, n->b, from, to);
		rename_ids(r, n->c, from, to);
		return;
	}
	if (!strcmp(n->id, from))
		name = to;
	for (a = r->sp->analogs; !name && a->node; a++)
		if (a->tma && !strcmp(a->tma, n->id))
			name = a->node;
	for (k = 0; name && k < r->m->nr_nodes; k++)
		if (!strcmp(r->m->nodes[k].name, name))
			break;
	free(n->id);
	n->id = NULL;
	if (!name || k == r->m->nr_nodes) {
		n->kind = N_NUM;
		n->num = 0;
		return;
	}
	n->kind = N_NODE;
	n->event = k;
}

/* deterministic xorshift64*, so a failure can be reproduced */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static double unif(void)
{
	return (rnd() >> 11) * (1.0 / 9007199254740992.0);
}

static bool name_is(const struct model_event *e, const char *n)
{
	return !strcasecmp(e->name, n);
}

/*
 * One counter vector. Kinds: realistic (clocks 1e5..1e10, slots 4-6 x
 * clocks, topdown-* splitting slots, other events a share of clocks or
 * slots), independent wild values up to 2^48, realistic with random zeros,
 * all zero, and tiny values 0..3 that make ties and zero divisors likely.
 */
static void gen_vector(const struct model *m, int n, double *ev)
{
	int kind = n % 20, i;
	double clk = floor(pow(10, 5 + 5 * unif()));
	double width = 4 + (rnd() % 3);
	double slots = width * clk;
	double l1[4], sum = 0;

	if (kind == 19) {
		for (i = 0; i < m->nr_events; i++)
			ev[i] = 0;
		return;
	}
	if (kind >= 16) {
		for (i = 0; i < m->nr_events; i++)
			ev[i] = rnd() % 4;
		return;
	}
	if (kind >= 13) {
		for (i = 0; i < m->nr_events; i++)
			ev[i] = floor(unif() * pow(2, 48 * unif()));
		return;
	}
	for (i = 0; i < 4; i++)
		sum += l1[i] = unif();
	for (i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		double scale[] = { 0.001, 0.01, 0.1, 0.5, 1, width };

		if (name_is(e, "CPU_CLK_UNHALTED.THREAD") ||
		    name_is(e, "ls_not_halted_cyc") ||
		    name_is(e, "cpu_cycles"))
			ev[i] = clk;
		else if (name_is(e, "TOPDOWN.SLOTS"))
			ev[i] = slots;
		else if (name_is(e, "topdown-retiring"))
			ev[i] = floor(slots * l1[0] / sum);
		else if (name_is(e, "topdown-bad-spec"))
			ev[i] = floor(slots * l1[1] / sum);
		else if (name_is(e, "topdown-fe-bound"))
			ev[i] = floor(slots * l1[2] / sum);
		else if (name_is(e, "topdown-be-bound"))
			ev[i] = floor(slots * l1[3] / sum);
		else if (name_is(e, "topdown-heavy-ops"))
			ev[i] = floor(slots * l1[0] / sum * unif());
		else if (name_is(e, "topdown-br-mispredict"))
			ev[i] = floor(slots * l1[1] / sum * unif());
		else if (name_is(e, "topdown-fetch-lat"))
			ev[i] = floor(slots * l1[2] / sum * unif());
		else if (name_is(e, "topdown-mem-bound"))
			ev[i] = floor(slots * l1[3] / sum * unif());
		else
			ev[i] = floor(clk * unif() * scale[rnd() % 6]);
		if (kind >= 10 && rnd() % 4 == 0)
			ev[i] = 0;
	}
}

static bool same(double a, double b)
{
	double mag;

	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return a == b;
	mag = fmax(1.0, fmax(fabs(a), fabs(b)));
	return fabs(a - b) <= REL_TOL * mag;
}

static void dump_vector(const struct model *m, const double *ev)
{
	int i;

	for (i = 0; i < m->nr_events; i++)
		print_error("    %s = %.17g\n", m->events[i].name, ev[i]);
}

/*
 * Differences are split in two: a formula that computes something else
 * (real), and one that only treats a NAN operand differently from expr.y
 * (nan): perf gives max(NAN, x) = x, max(x, NAN) = NAN (a > b ? a : b) and
 * takes the true branch of "a if NAN else b"; a model that propagates NAN
 * there matches the strict evaluation but not perf's.
 */
static void test_formulas(void **state)
{
	struct refset r;
	const struct model *m;
	int k, s, v, real = 0, nan = 0, compared = 0, unmapped = 0;
	int map[MODEL_MAX_NODES], nreal[MODEL_MAX_NODES];
	int nnan[MODEL_MAX_NODES];
	double *ev, out[MODEL_MAX_NODES], want[MODEL_MAX_NODES];

	setup_ref(state, &r);
	m = r.m;
	assert_non_null(m->eval);
	assert_true(m->nr_nodes <= MODEL_MAX_NODES);
	for (k = 0; k < m->nr_nodes; k++) {
		map[k] = find_metric(&r, m->nodes[k].name);
		nreal[k] = nnan[k] = 0;
		if (map[k] < 0) {
			print_error("%s: node %s has no reference formula\n",
				    r.dir, m->nodes[k].name);
			unmapped++;
		}
	}
	ev = calloc(m->nr_events, sizeof(*ev));
	r.ev = ev;
	rng_state = 0x9e3779b97f4a7c15ULL ^ (uint64_t)m->nr_events << 32;
	for (s = 0; s < 2; s++) {
		struct tma_input in = { .ev = ev, .smt = s };

		r.smt = s;
		for (v = 0; v < VECTORS; v++) {
			gen_vector(m, v, ev);
			for (k = 0; k < m->nr_nodes; k++)
				out[k] = NAN;
			m->eval(&in, out);
			r.gen++;
			r.missing[0] = 0;
			for (k = 0; k < m->nr_nodes; k++)
				want[k] = map[k] < 0 ? NAN :
					  ref_value(&r, map[k]);
			for (k = 0; k < m->nr_nodes; k++) {
				double strict;

				if (map[k] < 0)
					continue;
				compared++;
				if (same(want[k], out[k]))
					continue;
				nan_strict = true;
				r.gen++;
				strict = ref_value(&r, map[k]);
				nan_strict = false;
				if (same(strict, out[k])) {
					if (!nnan[k]++)
						print_error("%s smt %s vector "
							    "%d: %s = %.17g, "
							    "perf %.17g (NAN "
							    "handling only)\n",
							    r.dir, s ? "on" :
							    "off", v,
							    m->nodes[k].name,
							    out[k], want[k]);
					nan++;
					continue;
				}
				if (!nreal[k]++) {
					print_error("%s smt %s vector %d: %s = "
						    "%.17g, reference %.17g%s%s\n",
						    r.dir, s ? "on" : "off", v,
						    m->nodes[k].name, out[k],
						    want[k], r.missing[0] ?
						    "; unresolved: " : "",
						    r.missing);
					dump_vector(m, ev);
				}
				real++;
			}
		}
	}
	for (k = 0; k < m->nr_nodes; k++) {
		if (nreal[k])
			print_error("%s: %s differs from the reference formula "
				    "in %d of %d vectors\n", r.dir,
				    m->nodes[k].name, nreal[k], 2 * VECTORS);
		if (nnan[k])
			print_error("%s: %s differs from perf only in NAN "
				    "handling in %d of %d vectors\n", r.dir,
				    m->nodes[k].name, nnan[k], 2 * VECTORS);
	}
	print_message("%s: %d node values compared: %d differ in the "
		      "formula, %d in NAN handling only\n", r.dir, compared,
		      real, nan);
	free(ev);
	ref_free(&r);
	assert_int_equal(unmapped, 0);
	assert_int_equal(real, 0);
	assert_int_equal(nan, 0);
}

/*
 * The flags tma_decode() sets against perf's own MetricThreshold
 * expressions, evaluated by the reference evaluator on the same vectors:
 * perf flags a node when its threshold expression is neither 0 nor NAN.
 * This checks the thresholds' shape (parent conditions, retiring's "|"),
 * not only their constants.
 */
static void test_threshold_flags(void **state)
{
	struct enode *thr[MODEL_MAX_NODES];
	int k, s, v, bad = 0, flagged = 0, compared = 0;
	struct tma_result res;
	const struct model *m;
	struct refset r, tma;
	char err[200];
	double *ev, t;

	setup_ref(state, &r);
	m = r.m;
	bad += setup_analogs(&r, &tma);
	for (k = 0; k < m->nr_nodes; k++) {
		const struct ref_metric *rm;
		const char *as;

		rm = node_threshold(&r, &tma, &m->nodes[k], &as);
		thr[k] = NULL;
		if (r.sp->analogs && !as) {
			print_message("%s: %s: tdbpf's own threshold, not "
				      "compared\n", r.dir, m->nodes[k].name);
			continue;
		}
		if (rm && rm->thresh)
			thr[k] = parse_expr(rm->thresh, err, sizeof(err));
		if (thr[k] && r.sp->analogs)
			rename_ids(&r, thr[k], as, m->nodes[k].name);
		if (!thr[k]) {
			print_error("%s: %s: no usable reference threshold\n",
				    r.dir, m->nodes[k].name);
			bad++;
		}
	}
	ev = calloc(m->nr_events, sizeof(*ev));
	r.ev = ev;
	rng_state = 0x51ed27011ULL ^ (uint64_t)m->nr_events << 32;
	for (s = 0; s < 2 && !bad; s++) {
		r.smt = s;
		for (v = 0; v < VECTORS; v++) {
			gen_vector(m, v, ev);
			tma_decode(m, ev, s, m->max_level, &res);
			node_vals = res.val;
			r.gen++;
			for (k = 0; k < m->nr_nodes; k++) {
				bool want;

				if (!thr[k])
					continue;
				t = eval_node(&r, thr[k]);
				want = !isnan(t) && t != 0.0;
				flagged += want;
				compared++;
				if (want == res.over[k])
					continue;
				if (bad++ < 5)
					print_error("%s smt %s vector %d: %s "
						    "= %.17g flagged %d, perf "
						    "%d (%.17g)\n",
						    r.dir, s ? "on" : "off", v,
						    m->nodes[k].name,
						    res.val[k], res.over[k],
						    want, t);
			}
		}
	}
	print_message("%s: %d flags compared, %d set by perf%s, %d differ\n",
		      r.dir, compared, flagged,
		      r.sp->analogs ? " (TMA analogs)" : "", bad);
	for (k = 0; k < m->nr_nodes; k++)
		if (thr[k])
			free_node(thr[k]);
	free(ev);
	if (r.sp->analogs)
		ref_free(&tma);
	ref_free(&r);
	assert_int_equal(bad, 0);
	/* the vectors must exercise the flags, or this proves nothing */
	assert_true(flagged > VECTORS);
}

/*
 * Unmeasured events: knock out one event at a time. A node needs that
 * event when the reference expression, evaluated strictly (NAN through
 * max, min and both branches of a condition on data; x / 0 = 0 so that
 * only a NAN input makes NAN), is NAN: perf would not compute it, and it
 * must come out NAN; every other node with exactly perf's value.
 */
#define KO_VECTORS 150

static void test_missing_inputs(void **state)
{
	double *ev, *save, want[MODEL_MAX_NODES];
	int map[MODEL_MAX_NODES], k, s, v, j, bad = 0, deps = 0;
	struct tma_result res;
	const struct model *m;
	struct refset r;

	setup_ref(state, &r);
	m = r.m;
	for (k = 0; k < m->nr_nodes; k++)
		map[k] = find_metric(&r, m->nodes[k].name);
	ev = calloc(m->nr_events, sizeof(*ev));
	save = calloc(m->nr_events, sizeof(*save));
	r.ev = ev;
	rng_state = 0xabcdef12345ULL ^ (uint64_t)m->nr_events << 32;
	for (s = 0; s < 2; s++) {
		r.smt = s;
		for (v = 0; v < KO_VECTORS; v++) {
			gen_vector(m, v, save);
			for (j = 0; j < m->nr_events; j++) {
				memcpy(ev, save, m->nr_events * sizeof(*ev));
				ev[j] = 3.25e6;	/* unlike tma.c's stand-in */
				r.gen++;
				for (k = 0; k < m->nr_nodes; k++)
					want[k] = map[k] < 0 ? NAN :
						  ref_value(&r, map[k]);
				nan_strict = true;
				ev[j] = NAN;
				r.gen++;
				for (k = 0; k < m->nr_nodes; k++) {
					if (map[k] < 0)
						continue;
					if (isnan(eval_metric(&r, map[k]))) {
						want[k] = NAN;
						deps++;
					}
				}
				nan_strict = false;
				ev[j] = NAN;
				tma_decode(m, ev, s, m->max_level, &res);
				for (k = 0; k < m->nr_nodes; k++) {
					if (map[k] < 0 ||
					    same(want[k], res.val[k]))
						continue;
					if (bad++ < 5)
						print_error("%s smt %s vector %d "
							    "without %s: %s = "
							    "%.17g, want %.17g\n",
							    r.dir, s ? "on" :
							    "off", v,
							    m->events[j].name,
							    m->nodes[k].name,
							    res.val[k], want[k]);
				}
			}
		}
	}
	print_message("%s: %d knock-outs, %d node values read the missing "
		      "event, %d differ\n", r.dir,
		      2 * KO_VECTORS * m->nr_events, deps, bad);
	free(ev);
	free(save);
	ref_free(&r);
	assert_int_equal(bad, 0);
	assert_true(deps > KO_VECTORS);
}

/* ------------------------------------------------------------------ */
/* the evaluator itself, on fixed expressions with known values          */
/* ------------------------------------------------------------------ */

static double eval_str(const char *s, bool smt)
{
	struct refset r = { .smt = smt };
	char err[200];
	struct enode *n = parse_expr(s, err, sizeof(err));
	double v;

	if (!n)
		print_error("%s: %s\n", s, err);
	assert_non_null(n);
	v = eval_node(&r, n);
	free_node(n);
	return v;
}

static void test_evaluator(void **state)
{
	(void)state;
	/* precedence and associativity of expr.y */
	assert_true(eval_str("1 + 2 * 3", false) == 7);
	assert_true(eval_str("8 / 4 / 2", false) == 1);
	assert_true(eval_str("10 - 4 - 3", false) == 3);
	assert_true(eval_str("-2 * 3 + 1", false) == -5);
	assert_true(eval_str("(1 + 2) * 3", false) == 9);
	assert_true(eval_str("1.5e2 + .5", false) == 150.5);
	/* a if c else b, nested to the right; #literals */
	assert_true(eval_str("4 if #SMT_on else 8", true) == 4);
	assert_true(eval_str("4 if #SMT_on else 8", false) == 8);
	assert_true(eval_str("1 if 0 else 2 if 0 else 3", false) == 3);
	assert_true(eval_str("(2 if #core_wide < 1 else 5)", true) == 2);
	assert_true(eval_str("1 if #has_pmem else 0", true) == 0);
	/* comparisons and the logical operators of thresholds */
	assert_true(eval_str("0.3 > 0.2 & 0.1 > 0.2", false) == 0);
	assert_true(eval_str("0.3 > 0.2 | 0.1 > 0.2", false) == 1);
	assert_true(eval_str("2 < 3", false) == 1);
	/* min/max and division by zero, as expr.y computes them */
	assert_true(eval_str("max(1, 2) + min(3, 4)", false) == 5);
	assert_true(isnan(eval_str("1 / 0", false)));
	assert_true(isnan(eval_str("1 / (2 - 2) + 1", false)));
	assert_true(eval_str("max(1 / 0, 0)", false) == 0);
	assert_true(isnan(eval_str("max(0, 1 / 0)", false)));
	/* a NAN condition takes the true branch (only 0 is false) */
	assert_true(eval_str("7 if 1 / 0 else 9", false) == 7);
	assert_true(isnan(eval_str("(1 / 0) > 1", false)));
	assert_true(eval_str("d_ratio(1, 0) + d_ratio(6, 3)", false) == 2);
}

/* ids keep '.', '@', escaped ',' '=' '-' and lose the backslashes */
static void test_lexer_ids(void **state)
{
	char err[200];
	struct enode *n;

	(void)state;
	n = parse_expr("cpu@ITLB_MISSES.WALK_DURATION\\,cmask\\=1@ / "
		       "topdown\\-fe\\-bound", err, sizeof(err));
	assert_non_null(n);
	assert_int_equal(n->kind, N_BIN);
	assert_int_equal(n->op, '/');
	assert_int_equal(n->a->kind, N_ID);
	assert_string_equal(n->a->id, "cpu@ITLB_MISSES.WALK_DURATION,cmask=1@");
	assert_string_equal(n->b->id, "topdown-fe-bound");
	free_node(n);
	n = parse_expr("4 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE",
		       err, sizeof(err));
	assert_non_null(n);
	assert_int_equal(n->a->kind, N_NUM);
	assert_string_equal(n->b->id,
			    "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE");
	free_node(n);
	assert_null(parse_expr("1 +", err, sizeof(err)));
	assert_null(parse_expr("(1 + 2", err, sizeof(err)));
	assert_null(parse_expr("1 if 2", err, sizeof(err)));
}

/* every id of every reference formula is a metric or a JSON/kernel event */
static void test_reference_resolves(void **state)
{
	const struct spec *sp = *state;
	struct refset r;
	int i, s, j, bad = 0;

	if (!refdir)
		skip();
	memset(&r, 0, sizeof(r));
	assert_int_equal(ref_load(&r, sp), 0);
	for (s = 0; s < 2; s++) {
		struct idset ids = { .nr = 0 };

		r.smt = s;
		for (i = 0; i < r.nr_metrics; i++) {
			if (r.metrics[i].level < 1 ||
			    (sp->vendor != VENDOR_AMD &&
			     sp->vendor != VENDOR_ARM &&
			     strncmp(r.metrics[i].name, "tma_", 4)))
				continue;
			collect_metric(&r, i, &ids, 0);
		}
		for (j = 0; j < ids.nr; j++) {
			char base[160];
			const char *n = ids.name[j];

			if (topdown_umask(n) >= 0)
				continue;
			if (!strncasecmp(n, "cpu@", 4)) {
				snprintf(base, sizeof(base), "%s", n + 4);
				base[strcspn(base, ",@")] = 0;
				n = base;
			}
			if (!find_event(&r, n)) {
				print_error("%s: %s resolves to nothing\n",
					    spec_name(sp), ids.name[j]);
				bad++;
			}
		}
		idset_free(&ids);
	}
	ref_free(&r);
	assert_int_equal(bad, 0);
}

/* named "<model> <check>" so that the log says which model failed */
#define T(i, dir, fn) { dir " " #fn, fn, NULL, NULL, &specs[i] }
#define MODEL_TESTS(i, dir)						\
	T(i, dir, test_reference_resolves), T(i, dir, test_encodings),	\
	T(i, dir, test_needed_events), T(i, dir, test_tree),		\
	T(i, dir, test_thresholds), T(i, dir, test_formulas),	\
	T(i, dir, test_threshold_flags), T(i, dir, test_missing_inputs)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evaluator),
		cmocka_unit_test(test_lexer_ids),
		MODEL_TESTS(0, "broadwellx"),
		MODEL_TESTS(1, "broadwell"),
		MODEL_TESTS(2, "icelakex"),
		MODEL_TESTS(3, "icelake"),
		MODEL_TESTS(4, "sapphirerapids"),
		MODEL_TESTS(11, "skylakex"),
		MODEL_TESTS(12, "cascadelakex"),
		MODEL_TESTS(13, "skylake"),
		MODEL_TESTS(14, "emeraldrapids"),
		MODEL_TESTS(15, "graniterapids"),
		MODEL_TESTS(5, "amdzen4"),
		MODEL_TESTS(6, "amdzen5"),
		MODEL_TESTS(7, "neoverse-n1"),
		MODEL_TESTS(8, "neoverse-n2"),
		MODEL_TESTS(9, "neoverse-v1"),
		MODEL_TESTS(10, "neoverse-v2"),
	};
	const char *env = getenv("TDBPF_REFERENCE");
	const char *dir = env && *env ? env : REF_DEFAULT;
	char probe[512];
	struct stat st;

	snprintf(probe, sizeof(probe), "%s/mapfile.csv", dir);
	if (stat(probe, &st) == 0)
		refdir = dir;
	else
		printf("reference data not found at %s: skipping\n", dir);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
