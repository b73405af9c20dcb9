// SPDX-License-Identifier: GPL-2.0
/* Checks a): each model event's encoding against the event JSON. */
#include "reference.h"

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
int topdown_umask(const char *name)
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

void test_encodings(void **state)
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
void test_needed_events(void **state)
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
