// SPDX-License-Identifier: GPL-2.0
/*
 * Event tables and packing: every plan of every model fits the counters,
 * has a valid counter assignment and holds each needed event once. The
 * expected counts are those of ../shared/reference/tma-events.md (perf's
 * JSON, per-task counting): written here as numbers, not read from files.
 *
 * Groups are counted as tdbpf builds them: group 0 holds the fixed-counter
 * events (TOPDOWN.SLOTS and topdown-* on Ice Lake / Sapphire Rapids,
 * INST_RETIRED.ANY and CPU_CLK_UNHALTED.THREAD) and the general-purpose
 * (GP) events follow in their own groups. tma-events.md counts groups "with
 * the fixed counters in every group", which is our number of GP groups.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "model/model.h"
#include "unit_helpers.h"

static bool ev_needed(const struct model_event *e, int level, bool smt)
{
	if (e->kind != EV_SW && e->level > level)
		return false;
	return e->need == NEED_ALWAYS || (e->need == NEED_SMT_ON && smt) ||
	       (e->need == NEED_SMT_OFF && !smt);
}

/* Counters a real PMU lets the event use: the model's mask, see below. */
static unsigned int valid_mask(const struct model *m,
			       const struct model_event *e, bool smt, int gp)
{
	(void)m;
	(void)smt;
	return e->counters & ((1u << gp) - 1);
}

static int count_needed(const struct model *m, int level, bool smt,
			bool gp_only)
{
	int i, n = 0;

	for (i = 0; i < m->nr_events; i++)
		if (ev_needed(&m->events[i], level, smt) &&
		    (!gp_only || m->events[i].kind == EV_GP))
			n++;
	return n;
}

static int gp_groups(const struct event_plan *p)
{
	int g, s, n = 0;

	for (g = 0; g < p->nr_groups; g++)
		for (s = 0; s < p->nr; s++)
			if (p->group[s] == g && p->gp_idx[s] >= 0) {
				n++;
				break;
			}
	return n;
}

static void check_plan(const struct model *m, int level, bool smt)
{
	struct event_plan p;
	char err[256] = "";
	int gp = smt ? m->gp_smt_on : m->gp_smt_off;
	int need = count_needed(m, level, smt, false);
	int seen[MODEL_MAX_EVENTS] = { 0 };
	int i, s, g, rc;

	rc = plan_events(m, level, smt, gp, &p, err, sizeof(err));
	if (need > TDBPF_MAX_EVENTS) {
		/* does not fit the BPF side: a clear error, not a bad plan */
		assert_int_equal(rc, -1);
		assert_non_null(strstr(err, "more than"));
		return;
	}
	if (rc)
		fail_msg("%s L%d smt=%d: %s", m->name, level, smt, err);
	assert_int_equal(p.nr, need);

	for (s = 0; s < p.nr; s++) {
		assert_true(p.ev[s] >= 0 && p.ev[s] < m->nr_events);
		assert_true(ev_needed(&m->events[p.ev[s]], level, smt));
		seen[p.ev[s]]++;
	}
	for (i = 0; i < m->nr_events; i++)
		assert_int_equal(seen[i], ev_needed(&m->events[i], level,
						    smt) ? 1 : 0);

	for (g = 0; g < p.nr_groups; g++) {
		unsigned int used = 0, fixed_used = 0;
		int ngp = 0, first = -1, last = -1, nmember = 0;

		for (s = 0; s < p.nr; s++) {
			const struct model_event *e = &m->events[p.ev[s]];

			if (p.group[s] != g)
				continue;
			if (first < 0)
				first = s;
			/* slots of a group are contiguous */
			if (last >= 0)
				assert_int_equal(s, last + 1);
			last = s;
			nmember++;
			if (e->kind == EV_GP) {
				int c = p.gp_idx[s];

				assert_true(c >= 0 && c < gp);
				assert_true(valid_mask(m, e, smt, gp) >> c & 1);
				assert_false(used >> c & 1);
				used |= 1u << c;
				ngp++;
			} else {
				assert_int_equal(p.gp_idx[s], -1);
			}
			if (e->kind == EV_FIXED) {
				assert_false(fixed_used >> e->fixed & 1);
				fixed_used |= 1u << e->fixed;
			}
			/* metric events only under a SLOTS leader */
			if (e->kind == EV_METRIC)
				assert_int_equal(
					m->events[p.ev[p.leader[g]]].kind,
					EV_SLOTS);
			if (e->kind == EV_SLOTS)
				assert_int_equal(p.leader[g], s);
		}
		assert_true(first >= 0);
		assert_int_equal(p.leader[g], first);
		assert_true(ngp <= gp);
		assert_true(nmember <= GROUP_MAX_EVENTS);
	}
	if (!m->max_level) {
		assert_int_equal(p.nr_groups, 1);
		assert_string_equal(m->events[p.ev[p.leader[0]]].name,
				    "cpu-clock");
	}
}

static void test_every_plan_is_valid(void **state)
{
	int k, level, smt;

	(void)state;
	for (k = 0; models[k]; k++) {
		const struct model *m = models[k];

		for (smt = 0; smt <= 1; smt++) {
			if (!m->max_level) {
				check_plan(m, 0, smt);
				continue;
			}
			for (level = 1; level <= m->max_level; level++)
				check_plan(m, level, smt);
		}
	}
}

/* Events per model and per level, from tma-events.md. */
struct ref_counts {
	const char *model;
	int distinct;		/* encodings over all formula branches */
	int needed[2];		/* L1-L3 per task, [smt off, smt on] */
	int gp_only[2][3];	/* GP events for L1, L1-2, L1-3 */
	int groups[2][3];	/* minimum GP groups for L1, L1-2, L1-3 */
};

static const struct ref_counts refs[] = {
	{ "broadwellx", 41, { 39, 39 },
	  { { 6, 17, 37 }, { 6, 17, 37 } }, { { 1, 3, 5 }, { 2, 5, 10 } } },
	{ "broadwell", 41, { 39, 39 },
	  { { 6, 17, 37 }, { 6, 17, 37 } }, { { 1, 3, 5 }, { 2, 5, 10 } } },
	{ "icelakex", 58, { 51, 52 },
	  { { 2, 16, 44 }, { 3, 17, 45 } }, { { 1, 2, 6 }, { 1, 3, 6 } } },
	{ "icelake", 54, { 53, 54 },
	  { { 2, 16, 46 }, { 3, 17, 47 } }, { { 1, 2, 6 }, { 1, 3, 6 } } },
	{ "sapphirerapids", 67, { 58, 59 },
	  { { 1, 1, 47 }, { 2, 2, 48 } }, { { 1, 1, 6 }, { 1, 1, 6 } } },
	{ "skylakex", 50, { 48, 48 },
	  { { 6, 15, 46 }, { 6, 15, 46 } }, { { 1, 2, 6 }, { 2, 4, 12 } } },
	{ "cascadelakex", 56, { 48, 48 },
	  { { 6, 15, 46 }, { 6, 15, 46 } }, { { 1, 2, 6 }, { 2, 4, 12 } } },
	{ "skylake", 50, { 48, 48 },
	  { { 6, 15, 46 }, { 6, 15, 46 } }, { { 1, 2, 6 }, { 2, 4, 12 } } },
	{ "emeraldrapids", 59, { 58, 59 },
	  { { 1, 1, 47 }, { 2, 2, 48 } }, { { 1, 1, 6 }, { 1, 1, 6 } } },
	{ "graniterapids", 73, { 64, 65 },
	  { { 1, 1, 53 }, { 2, 2, 54 } }, { { 1, 1, 7 }, { 1, 1, 7 } } },
	/* AMD: no SMT conditions, no fixed counters; L1 fills six exactly */
	{ "amdzen4", 12, { 12, 12 },
	  { { 6, 12 }, { 6, 12 } }, { { 1, 2 }, { 1, 2 } } },
	{ "amdzen5", 12, { 12, 12 },
	  { { 6, 12 }, { 6, 12 } }, { { 1, 2 }, { 1, 2 } } },
	/*
	 * Arm: the reference's events plus inst_retired for the IPC column
	 * (N2/V1/V2 9 + 1, N1 3 + 1); cpu_cycles on the cycle counter.
	 */
	{ "neoverse-n1", 4, { 4, 4 }, { { 3 }, { 3 } }, { { 1 }, { 1 } } },
	{ "neoverse-n2", 10, { 10, 10 }, { { 9 }, { 9 } }, { { 2 }, { 2 } } },
	{ "neoverse-v1", 10, { 10, 10 }, { { 9 }, { 9 } }, { { 2 }, { 2 } } },
	{ "neoverse-v2", 10, { 10, 10 }, { { 9 }, { 9 } }, { { 2 }, { 2 } } },
};

/* does the model program any event outside the GP counters? */
static int fixed_groups(const struct model *m)
{
	int i;

	for (i = 0; i < m->nr_events; i++)
		if (m->events[i].kind != EV_GP)
			return 1;
	return 0;
}

static void test_reference_counts(void **state)
{
	size_t r;
	int smt, level;

	(void)state;
	for (r = 0; r < sizeof(refs) / sizeof(refs[0]); r++) {
		const struct model *m = model_find(refs[r].model);

		assert_non_null(m);
		assert_int_equal(m->nr_events, refs[r].distinct);
		for (smt = 0; smt <= 1; smt++) {
			assert_int_equal(count_needed(m, 3, smt, false),
					 refs[r].needed[smt]);
			for (level = 1; level <= m->max_level; level++) {
				int want = refs[r].gp_only[smt][level - 1];

				assert_int_equal(count_needed(m, level, smt,
							      true), want);
			}
		}
	}
}

static void test_minimum_groups(void **state)
{
	struct event_plan p;
	size_t r;
	int smt, level;

	(void)state;
	for (r = 0; r < sizeof(refs) / sizeof(refs[0]); r++) {
		const struct model *m = model_find(refs[r].model);

		for (smt = 0; smt <= 1; smt++) {
			int gp = smt ? m->gp_smt_on : m->gp_smt_off;

			for (level = 1; level <= m->max_level; level++) {
				int want = refs[r].groups[smt][level - 1];

				if (count_needed(m, level, smt, false) >
				    TDBPF_MAX_EVENTS)
					continue;	/* see check_plan */
				plan_ok(&p, m, level, smt, gp);
				assert_int_equal(gp_groups(&p), want);
				/* plus one fixed-counter group, if any */
				assert_int_equal(p.nr_groups,
						 gp_groups(&p) +
							 fixed_groups(m));
			}
		}
	}
}

/* Broadwell-X, SMT on, L1-L3: the reference machine's 10 GP groups. */
static void test_bdx_smt_on(void **state)
{
	struct event_plan p;
	int s, l1d = model_event_index(&model_broadwellx,
				       "CYCLE_ACTIVITY.STALLS_L1D_MISS");

	(void)state;
	plan_ok(&p, &model_broadwellx, 3, true, 4);
	assert_int_equal(p.nr, 39);
	assert_int_equal(p.nr_groups, 11);
	assert_int_equal(gp_groups(&p), 10);
	/* restricted to counter 2 (JSON "Counter": "2") */
	assert_true(l1d >= 0);
	for (s = 0; s < p.nr; s++)
		if (p.ev[s] == l1d)
			assert_int_equal(p.gp_idx[s], 2);
	/* group 0: fixed counters; level-1 GP events in the next groups */
	assert_string_equal(model_broadwellx.events[p.ev[0]].name,
			    "INST_RETIRED.ANY");
	for (s = 0; s < p.nr; s++)
		if (model_broadwellx.events[p.ev[s]].level == 1 &&
		    p.gp_idx[s] >= 0)
			assert_true(p.group[s] <= 2);
	/* the NMI watchdog takes one counter: 3 per group still packs */
	plan_ok(&p, &model_broadwellx, 3, true, 3);
	assert_int_equal(gp_groups(&p), 13);	/* ceil(37 / 3) */
}

/*
 * The counter masks the kernel enforces on the 4+4-counter parts
 * (arch/x86/events/intel/core.c, written here as numbers): perf's JSON
 * lists "0,1,2,3" for almost every event (the SMT-on view), but with SMT
 * off only these stay on low counters. Broadwell: L1D_PEND_MISS.PENDING
 * and CYCLE_ACTIVITY umask bit 0x08 on counter 2 (0x4). Skylake family:
 * MEM_INST_RETIRED, MEM_LOAD_RETIRED, MEM_LOAD_L3_HIT_RETIRED,
 * MEM_TRANS_RETIRED, FRONTEND_RETIRED on counters 0-3. Everything else
 * may use all 8.
 */
static unsigned int kernel_mask(const struct model *m, __u64 config)
{
	unsigned int ev = config & 0xff, um = (config >> 8) & 0xff;

	if (!strncmp(m->name, "broadwell", 9)) {
		if ((ev == 0x48 && um == 0x01) || (ev == 0xa3 && (um & 0x08)))
			return 0x4;
		return 0xff;
	}
	if (ev == 0xd0 || ev == 0xd1 || ev == 0xd2 || ev == 0xcd ||
	    ev == 0xc6)
		return 0x0f;
	return 0xff;
}

static void test_kernel_constraints(void **state)
{
	static const char *const names[] = {
		"broadwellx", "broadwell", "skylakex", "cascadelakex",
		"skylake",
	};
	struct event_plan p;
	size_t k;
	int i, s, low = 0;

	(void)state;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const struct model *m = model_find(names[k]);

		assert_non_null(m);
		assert_int_equal(m->gp_smt_on, 4);
		assert_int_equal(m->gp_smt_off, 8);
		for (i = 0; i < m->nr_events; i++) {
			const struct model_event *e = &m->events[i];

			if (e->kind != EV_GP)
				continue;
			if (e->counters != kernel_mask(m, e->config))
				fail_msg("%s %s: counters %#x, kernel %#x",
					 m->name, e->name, e->counters,
					 kernel_mask(m, e->config));
		}
		/* SMT off, 8 counters: the low-4 events sit on 0-3 */
		plan_ok(&p, m, 3, false, 8);
		for (s = 0; s < p.nr; s++) {
			const struct model_event *e = &m->events[p.ev[s]];

			if (e->kind != EV_GP)
				continue;
			assert_true(kernel_mask(m, e->config) >> p.gp_idx[s] &
				    1);
			low += kernel_mask(m, e->config) == 0x0f;
		}
	}
	/* MEM_INST_RETIRED.ANY and three MEM_LOAD_RETIRED on 3 models */
	assert_int_equal(low, 12);
}

static void test_unique_events(void **state)
{
	int k, i, j;

	(void)state;
	for (k = 0; models[k]; k++) {
		const struct model *m = models[k];

		assert_true(m->nr_events <= MODEL_MAX_EVENTS);
		assert_true(m->nr_nodes <= MODEL_MAX_NODES);
		for (i = 0; i < m->nr_events; i++) {
			assert_non_null(m->events[i].name);
			for (j = i + 1; j < m->nr_events; j++) {
				const struct model_event *a = &m->events[i];
				const struct model_event *b = &m->events[j];

				assert_false(a->type == b->type &&
					     a->config == b->config &&
					     a->config1 == b->config1);
				assert_true(strcasecmp(a->name, b->name));
			}
		}
	}
}

static void test_encodings_spot_check(void **state)
{
	const struct model *icx = &model_icelakex, *spr = &model_sapphirerapids;
	int i;

	(void)state;
	/* fixed-counter overrides from perf's jevents.py, tma-events.md */
	i = model_event_index(&model_broadwellx, "INST_RETIRED.ANY");
	assert_int_equal(model_broadwellx.events[i].config, 0xc0);
	assert_int_equal(model_broadwellx.events[i].kind, EV_FIXED);
	assert_int_equal(model_broadwellx.events[i].fixed, 0);
	i = model_event_index(&model_broadwellx, "CPU_CLK_UNHALTED.THREAD");
	assert_int_equal(model_broadwellx.events[i].config, 0x3c);
	assert_int_equal(model_broadwellx.events[i].fixed, 1);
	i = model_event_index(&model_broadwellx,
			      "INT_MISC.RECOVERY_CYCLES_ANY");
	assert_int_equal(model_broadwellx.events[i].config, 0x120030d);
	assert_int_equal(model_broadwellx.events[i].need, NEED_SMT_ON);
	i = model_event_index(&model_broadwellx, "CPU_CLK_UNHALTED.THREAD_ANY");
	assert_int_equal(model_broadwellx.events[i].need, NEED_NEVER);
	i = model_event_index(icx, "TOPDOWN.SLOTS");
	assert_int_equal(icx->events[i].config, 0x400);
	assert_int_equal(icx->events[i].kind, EV_SLOTS);
	i = model_event_index(icx, "topdown-be-bound");
	assert_int_equal(icx->events[i].config, 0x8300);
	i = model_event_index(spr, "topdown-mem-bound");
	assert_int_equal(spr->events[i].config, 0x8700);
	/* MSR 0x3F7 (frontend) values */
	i = model_event_index(spr, "UOPS_RETIRED.MS");
	assert_int_equal(spr->events[i].config1, 0x8);
	i = model_event_index(spr, "INT_MISC.UNKNOWN_BRANCH_CYCLES");
	assert_int_equal(spr->events[i].config1, 0x7);
}

static void test_bad_arguments(void **state)
{
	struct event_plan p;
	char err[256];

	(void)state;
	err[0] = '\0';
	assert_int_equal(plan_events(&model_broadwellx, 0, true, 4, &p, err,
				     sizeof(err)), -1);
	assert_true(strlen(err) > 0);
	assert_int_equal(plan_events(&model_broadwellx, 4, true, 4, &p, err,
				     sizeof(err)), -1);
	assert_int_equal(plan_events(&model_broadwellx, 1, true, 0, &p, err,
				     sizeof(err)), -1);
	/* STALLS_L1D_MISS needs counter 2: two counters cannot hold it */
	assert_int_equal(plan_events(&model_broadwellx, 3, true, 2, &p, err,
				     sizeof(err)), -1);
	assert_non_null(strstr(err, "CYCLE_ACTIVITY.STALLS_L1D_MISS"));
	/* the software model ignores the level and the counter budget */
	plan_ok(&p, &model_software, 3, false, 0);
	assert_int_equal(p.nr, 4);
}

/*
 * The software model reads no counter: its four events are EV_TASK slots
 * after every counter; -e events are counter groups before them, each
 * group contiguous and led by its first; reports show the model's first.
 */
static void test_task_slots_and_extra_events(void **state)
{
	static const struct model_event ev[3] = {
		{ .name = "syscalls:sys_enter_getppid", .kind = EV_USER,
		  .type = 2, .config = 1234 },
		{ .name = "cs", .kind = EV_USER, .type = 1, .config = 3 },
		{ .name = "task-clock", .kind = EV_USER, .type = 1,
		  .config = 1 },
	};
	static const struct model_event dup = { .name = "cpu-clock",
						 .kind = EV_USER };
	const int group[3] = { 0, 0, 1 };
	struct event_plan p, bdx;
	int order[TDBPF_MAX_EVENTS], i;
	char err[256];

	(void)state;
	plan_ok(&p, &model_software, 0, false, 4);
	assert_int_equal(p.nr, 4);
	assert_int_equal(p.nr_counters, 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(p.evd[i]->kind, EV_TASK);
	assert_int_equal(plan_add_events(&p, ev, group, 3, err, sizeof(err)),
			 0);
	assert_int_equal(p.nr, 7);
	assert_int_equal(p.nr_counters, 3);
	/* counters first: the -e groups, then the task group */
	assert_ptr_equal(p.evd[0], &ev[0]);
	assert_ptr_equal(p.evd[1], &ev[1]);
	assert_ptr_equal(p.evd[2], &ev[2]);
	assert_int_equal(p.nr_groups, 3);
	INTS_ARE(p.group, 0, 0, 1);
	INTS_ARE(p.leader, 0, 2, 3);
	for (i = 3; i < 7; i++) {
		assert_int_equal(p.group[i], 2);
		assert_int_equal(p.ev[i], i - 3);
	}
	assert_int_equal(p.ev[0], -1);
	/* shown: cpu-clock .. cpu-migrations, then the -e events */
	plan_display_order(&p, order);
	assert_int_equal(order[0], 3);
	assert_int_equal(order[3], 6);
	assert_int_equal(order[4], 0);
	assert_int_equal(order[6], 2);
	/* a name the model counts already is refused */
	assert_int_equal(plan_add_events(&p, &dup, group, 1, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "'cpu-clock' is counted by the software model"));
	/* a hardware model's counters stay first, -e groups after them */
	plan_ok(&bdx, &model_broadwellx, 1, true, 4);
	i = bdx.nr;
	assert_int_equal(plan_add_events(&bdx, ev, group, 3, err,
					 sizeof(err)), 0);
	assert_int_equal(bdx.nr_counters, i + 3);
	assert_ptr_equal(bdx.evd[i], &ev[0]);
	assert_int_equal(bdx.leader[bdx.group[i]], i);
	assert_int_equal(bdx.leader[bdx.group[i + 2]], i + 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_task_slots_and_extra_events),
		cmocka_unit_test(test_every_plan_is_valid),
		cmocka_unit_test(test_reference_counts),
		cmocka_unit_test(test_minimum_groups),
		cmocka_unit_test(test_bdx_smt_on),
		cmocka_unit_test(test_kernel_constraints),
		cmocka_unit_test(test_unique_events),
		cmocka_unit_test(test_encodings_spot_check),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
