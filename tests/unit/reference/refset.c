// SPDX-License-Identifier: GPL-2.0
/* The reference data of one CPU directory: perf's event and metric JSON. */
#include "reference.h"

/* ------------------------------------------------------------------ */
/* reference data of one CPU directory                                  */
/* ------------------------------------------------------------------ */

/* the tdbpf model name of a spec, for messages */
const char *spec_name(const struct spec *sp)
{
	return sp->m ? sp->m->name : sp->dir;
}

const char *jstr(struct json_object *o, const char *key)
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

struct json_object *std_find(const struct refset *r, const char *key,
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
const char *field(struct json_object *o, struct json_object *base,
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

int ref_load(struct refset *r, const struct spec *sp)
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

void ref_free(struct refset *r)
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

/*
 * The first of the @n records of @size bytes at @v whose name (each one's
 * first member, a const char *) is @name, @nocase: in any case; -1 if none.
 */
static int name_index(const void *v, size_t size, int n, const char *name,
		      bool nocase)
{
	const char *p = v;
	int i;

	for (i = 0; i < n; i++) {
		const char *k = *(const char *const *)(p + i * size);

		if (!(nocase ? strcasecmp(k, name) : strcmp(k, name)))
			return i;
	}
	return -1;
}

int find_metric(const struct refset *r, const char *name)
{
	return name_index(r->metrics, sizeof(*r->metrics), r->nr_metrics,
			  name, false);
}

const struct ref_event *find_event(const struct refset *r,
				   const char *name)
{
	int i = name_index(r->events, sizeof(*r->events), r->nr_events, name,
			   true);

	return i < 0 ? NULL : &r->events[i];
}

/* our event of this exact perf name (case-insensitive), -1 if none */
int model_event(const struct model *m, const char *name)
{
	return name_index(m->events, sizeof(*m->events), m->nr_events, name,
			  true);
}
