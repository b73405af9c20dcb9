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

static void test_event_names(void **state)
{
	const struct model *bdx = &model_broadwellx;
	const struct model *spr = &model_sapphirerapids;
	int i;

	(void)state;
	i = model_event_index(bdx, "cpu@ITLB_MISSES.WALK_DURATION,cmask=1@");
	assert_true(i >= 0);
	assert_int_equal(bdx->events[i].config, 0x1001085);
	assert_int_equal(model_event_index(bdx,
		"cpu@ITLB_MISSES.WALK_DURATION\\,cmask\\=1@"), i);
	assert_int_equal(model_event_index(bdx,
		"cpu/itlb_misses.walk_duration,cmask=1/"), i);
	assert_int_equal(model_event_index(bdx,
		"cpu/ITLB_MISSES.WALK_DURATION,cmask=0x1/"), i);
	assert_int_equal(model_event_index(bdx,
		"cpu/ITLB_MISSES.WALK_DURATION,cmask=2/"), -1);
	assert_int_equal(model_event_index(bdx, "uops_issued.any"),
			 model_event_index(bdx, "UOPS_ISSUED.ANY"));
	assert_int_equal(model_event_index(bdx, "cpu/UOPS_ISSUED.ANY/"),
			 model_event_index(bdx, "UOPS_ISSUED.ANY"));
	assert_int_equal(model_event_index(bdx, "NO_SUCH.EVENT"), -1);
	assert_int_equal(model_event_index(bdx, "cpu/broken"), -1);

	i = model_event_index(spr, "cpu@UOPS_RETIRED.MS\\,cmask\\=1\\,edge@");
	assert_true(i >= 0);
	assert_int_equal(spr->events[i].config, 0x10404c2);
	assert_int_equal(model_event_index(spr,
		"cpu/UOPS_RETIRED.MS,cmask=1,edge/"), i);
	assert_int_equal(model_event_index(spr,
		"cpu/UOPS_RETIRED.MS,edge=1,cmask=1/"), i);
	assert_int_equal(model_event_index(spr, "TOPDOWN-RETIRING"),
			 model_event_index(spr, "topdown-retiring"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_find),
		cmocka_unit_test(test_event_names),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
