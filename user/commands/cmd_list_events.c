// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf list --events: what -e takes on this machine, as perf list
 * shows it: perf's software names, the hardware ones where a core PMU
 * counts them, each PMU's named events, the tracepoints.
 */
#include <stdio.h>
#include "commands/cmd.h"
#include "model/evsel.h"
#include "outputs/outfile.h"
#include "sources/event_names.h"
#include "sources/evsel_probe.h"
#include "support/json.h"

struct listing {
	FILE *out;
	struct jw *w;		/* JSON, or NULL for text */
	size_t nr;
};

static const char *const kind_names[] = {
	[EVENT_PMU] = "Kernel PMU event",
	[EVENT_TRACEPOINT] = "Tracepoint event",
};

static void one(struct listing *l, const char *kind, const char *name)
{
	l->nr++;
	if (!l->w) {
		fprintf(l->out, "  %-50s [%s]\n", name, kind);
		return;
	}
	jw_obj(l->w, NULL);
	jw_str(l->w, "name", name);
	jw_str(l->w, "kind", kind);
	jw_obj_end(l->w);
}

static void each(void *ctx, enum event_kind kind, const char *name)
{
	one(ctx, kind_names[kind], name);
}

int cmd_list_events(const struct options *o, FILE *out)
{
	struct listing l = { .out = out };
	struct evsel_env env;
	bool hw;
	struct jw w;
	size_t i;

	evsel_env_system(&env);
	hw = event_names_have_cpu_pmu(&env);
	out_mark(out);
	if (o->json) {
		jw_init(&w, out, true);
		jw_obj(&w, NULL);
		jw_bool(&w, "hardware_pmu", hw);
		jw_arr(&w, "events");
		l.w = &w;
	}
	for (i = 0; evsel_known_name(false, i); i++)
		one(&l, "Software event", evsel_known_name(false, i));
	/* perf lists them anyway and fails to open them: say why not */
	for (i = 0; hw && evsel_known_name(true, i); i++)
		one(&l, "Hardware event", evsel_known_name(true, i));
	event_names_each(&env, each, &l);
	if (o->json) {
		jw_arr_end(&w);
		jw_obj_end(&w);
		jw_end(&w);
	} else if (!hw) {
		fprintf(out, "no hardware events: no core PMU in %s (a VM without a virtual PMU?)\n",
			env.pmu_dir);
	}
	if (!env.tracefs)
		errorf("no tracepoints listed: tracefs is not mounted; mount it: mount -t tracefs nodev /sys/kernel/tracing");
	return 0;
}
