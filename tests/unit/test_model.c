// SPDX-License-Identifier: GPL-2.0
/*
 * The table of models (model.c): lookup by name and alias, the order of
 * models[], and matching an event name in perf's spellings to a model's
 * event. Packing the events into groups is test_plan.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "model/model.h"

static void test_model_find(void **state)
{
	(void)state;
	assert_ptr_equal(model_find("broadwellx"), &model_broadwellx);
	assert_ptr_equal(model_find("BDX"), &model_broadwellx);
	assert_ptr_equal(model_find("bdw"), &model_broadwell);
	assert_ptr_equal(model_find("IceLakeX"), &model_icelakex);
	assert_ptr_equal(model_find("icx"), &model_icelakex);
	assert_ptr_equal(model_find("icl"), &model_icelake);
	assert_ptr_equal(model_find("spr"), &model_sapphirerapids);
	assert_ptr_equal(model_find("sw"), &model_software);
	assert_ptr_equal(model_find("software"), &model_software);
	assert_ptr_equal(model_find("skx"), &model_skylakex);
	assert_ptr_equal(model_find("CLX"), &model_cascadelakex);
	assert_ptr_equal(model_find("skl"), &model_skylake);
	assert_ptr_equal(model_find("skylake"), &model_skylake);
	assert_ptr_equal(model_find("emr"), &model_emeraldrapids);
	assert_ptr_equal(model_find("GNR"), &model_graniterapids);
	assert_null(model_find("haswell"));
	assert_null(model_find(""));
	assert_null(model_find(NULL));
	/* NULL-terminated, software last */
	{
		int k = 0;

		while (models[k + 1])
			k++;
		assert_ptr_equal(models[k], &model_software);
	}
}

/*
 * Spellings of one event: each finds the index @as does (NULL: the
 * first spelling's), or none (-1 in @none).
 */
#define BDX	(&model_broadwellx)
#define SPR	(&model_sapphirerapids)
static const struct spelling {
	const struct model *m;
	const char *name, *as;
	bool none;
} spellings[] = {
	{ BDX, "cpu@ITLB_MISSES.WALK_DURATION\\,cmask\\=1@", NULL, false },
	{ BDX, "cpu/itlb_misses.walk_duration,cmask=1/", NULL, false },
	{ BDX, "cpu/ITLB_MISSES.WALK_DURATION,cmask=0x1/", NULL, false },
	{ BDX, "cpu/ITLB_MISSES.WALK_DURATION,cmask=2/", NULL, true },
	{ BDX, "uops_issued.any", "UOPS_ISSUED.ANY", false },
	{ BDX, "cpu/UOPS_ISSUED.ANY/", "UOPS_ISSUED.ANY", false },
	{ BDX, "NO_SUCH.EVENT", NULL, true },
	{ BDX, "cpu/broken", NULL, true },
	{ SPR, "cpu/UOPS_RETIRED.MS,cmask=1,edge/", NULL, false },
	{ SPR, "cpu/UOPS_RETIRED.MS,edge=1,cmask=1/", NULL, false },
	{ SPR, "TOPDOWN-RETIRING", "topdown-retiring", false },
};

static void test_event_names(void **state)
{
	const struct model *bdx = &model_broadwellx;
	const struct model *spr = &model_sapphirerapids;
	int bdx_walk, spr_ms, want;
	size_t k;

	(void)state;
	bdx_walk = model_event_index(bdx, "cpu@ITLB_MISSES.WALK_DURATION,cmask=1@");
	assert_true(bdx_walk >= 0);
	assert_int_equal(bdx->events[bdx_walk].config, 0x1001085);
	spr_ms = model_event_index(spr, "cpu@UOPS_RETIRED.MS\\,cmask\\=1\\,edge@");
	assert_true(spr_ms >= 0);
	assert_int_equal(spr->events[spr_ms].config, 0x10404c2);
	for (k = 0; k < sizeof(spellings) / sizeof(spellings[0]); k++) {
		const struct spelling *x = &spellings[k];

		if (x->none)
			want = -1;
		else if (x->as)
			want = model_event_index(x->m, x->as);
		else
			want = x->m == bdx ? bdx_walk : spr_ms;
		if (model_event_index(x->m, x->name) != want) {
			print_error("%s: %s is not index %d\n", x->m->name,
				    x->name, want);
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_find),
		cmocka_unit_test(test_event_names),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
