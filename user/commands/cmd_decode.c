// SPDX-License-Identifier: GPL-2.0
/* tdbpf decode: counts gathered elsewhere through a model's TMA tree. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "commands/cmd.h"
#include "model/tma.h"
#include "outputs/outfile.h"
#include "sources/decode_input.h"
#include "support/json.h"

/* one node and, depth first, its children: the tree as perf draws it */
static void print_node(FILE *out, const struct model *m,
		       const struct tma_result *r, int i, int level, int width)
{
	const struct tma_node *n = &m->nodes[i];
	int k;

	if (n->level > level)
		return;
	fprintf(out, "%*s%-*s ", 2 * (n->level - 1), "",
		width - 2 * (n->level - 1), n->name);
	if (isnan(r->val[i]))
		fprintf(out, "%8s", "-");
	else
		fprintf(out, "%7.1f%%", r->val[i] * 100.0);
	if (r->over[i])
		fputs(r->bottleneck == i ? "  <==" : "  *", out);
	fputc('\n', out);
	for (k = 0; k < m->nr_nodes; k++)
		if (m->nodes[k].parent == i)
			print_node(out, m, r, k, level, width);
}

int cmd_decode(const struct options *o, FILE *out)
{
	double ev[MODEL_MAX_EVENTS];
	const struct model *m = find_model_or_say(o->model);
	struct tma_result r;
	char err[512];
	FILE *in;
	int level, i, rc, width = 34;
	bool smt;

	if (!m)
		return 2;
	if (!m->max_level) {
		const char *names[32];
		char list[512];
		int n = 0;

		/* the models that have a tree, from the table */
		for (i = 0; models[i] && n < 32; i++)
			if (models[i]->max_level)
				names[n++] = models[i]->name;
		join_names(list, sizeof(list), names, n, ", ", " or ");
		errorf("model %s has no TopDown tree to decode; use %s",
		       m->name, list);
		return 2;
	}
	if (!o->input || !strcmp(o->input, "-")) {
		in = stdin;
	} else {
		struct stat st;

		in = fopen(o->input, "r");
		/* a directory opens fine and fails only at the first read */
		if (in && !fstat(fileno(in), &st) && S_ISDIR(st.st_mode)) {
			fclose(in);
			in = NULL;
			errno = EISDIR;
		}
		if (!in) {
			errorf("cannot read '%s': %s; give a readable file of 'EVENT VALUE' lines or perf stat -x, CSV",
			       o->input, strerror(errno));
			return 2;
		}
	}
	rc = decode_input_parse(in, m, ev, err, sizeof(err));
	if (in != stdin)
		fclose(in);
	if (rc) {
		errorf("%s%s%s", o->input && strcmp(o->input, "-") ? o->input : "stdin",
		       ": ", err);
		return 2;
	}
	/* without a hint, assume SMT on: the Xeon default */
	smt = o->smt >= 0 ? o->smt : !m->no_smt;
	level = level_for(m, o->level);
	tma_decode(m, ev, smt, level, &r);
	/* the input was good: now the -o file may be emptied (outfile.h) */
	out_mark(out);

	if (o->json) {
		struct jw w;

		jw_init(&w, out, true);
		jw_obj(&w, NULL);
		jw_str(&w, "model", m->name);
		jw_bool(&w, "smt", smt);
		jw_int(&w, "level", level);
		jw_obj(&w, "metrics");
		for (i = 0; i < m->nr_nodes; i++) {
			/* NAN: not computable from the counts given */
			if (m->nodes[i].level > level || isnan(r.val[i]))
				continue;
			jw_double(&w, m->nodes[i].name, r.val[i] * 100.0);
		}
		jw_obj_end(&w);
		jw_str(&w, "bottleneck", r.bottleneck >= 0 ? r.path : NULL);
		jw_obj_end(&w);
		jw_end(&w);
		return 0;
	}
	fprintf(out, "model %s, SMT %s, level %d\n", m->name, smt ? "on" : "off",
		level);
	/* names in a column of 34, or as wide as the model's longest */
	for (i = 0; i < m->nr_nodes; i++)
		if (2 * (m->nodes[i].level - 1) +
		    (int)strlen(m->nodes[i].name) > width)
			width = 2 * (m->nodes[i].level - 1) +
				(int)strlen(m->nodes[i].name);
	for (i = 0; i < m->nr_nodes; i++)
		if (m->nodes[i].parent < 0)
			print_node(out, m, &r, i, level, width);
	fprintf(out, "bottleneck: %s\n", r.bottleneck >= 0 ? r.path : "none over threshold");
	return 0;
}
