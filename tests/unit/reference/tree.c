// SPDX-License-Identifier: GPL-2.0
/* Checks b): the TMA tree and its thresholds against the metric JSON. */
#include "reference.h"

/* ------------------------------------------------------------------ */
/* b) tree, thresholds, formulas                                       */
/* ------------------------------------------------------------------ */

void test_tree(void **state)
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
int setup_analogs(struct refset *r, struct refset *tma)
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
const struct ref_metric *node_threshold(struct refset *r,
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

void test_thresholds(void **state)
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
