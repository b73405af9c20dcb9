// SPDX-License-Identifier: GPL-2.0
/* The evaluator itself, and that every reference formula resolves. */
#include "reference.h"

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

void test_evaluator(void **state)
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
void test_lexer_ids(void **state)
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
void test_reference_resolves(void **state)
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
