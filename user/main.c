// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf: per-task TopDown and scheduling breakdown, attributed in the
 * kernel at sched_switch. This file is the CLI: it picks the model and the
 * events, then hands over to list, decode or a tracing session.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include "counters.h"
#include "decode_input.h"
#include "detect.h"
#include "evsel.h"
#include "model.h"
#include "options.h"
#include "outfile.h"
#include "privs.h"
#include "session.h"
#include "task_events.h"
#include "tma.h"

#define TDBPF_VERSION "0.1.0"

static void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void errorf(const char *fmt, ...)
{
	char msg[1024], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* names quoted from the command line stay on one printable line */
	for (p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(stderr, "tdbpf: %s\n", msg);
}

static const struct model *find_model_or_say(const char *name)
{
	const struct model *m = model_find(name);
	char list[256] = "";
	int i;

	if (m)
		return m;
	for (i = 0; models[i]; i++) {
		strncat(list, models[i]->name, sizeof(list) - strlen(list) - 1);
		if (models[i + 1])
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
	}
	errorf("unknown model '%s'; use one of: %s", name, list);
	return NULL;
}

/* GP counters for @m: the detected budget when @m is this machine's. */
static int gp_budget(const struct model *m, bool smt, const struct detect_info *d)
{
	if (d && d->model == m && d->gp_counters > 0)
		return d->gp_counters;
	return smt ? m->gp_smt_on : m->gp_smt_off;
}

static int level_for(const struct model *m, int asked)
{
	if (!asked || asked > m->max_level)
		return m->max_level;
	return asked;
}

/* ---- list ------------------------------------------------------------- */

static int cmd_list(const struct options *o, FILE *out)
{
	struct detect_info d = { 0 };
	const struct model *m;
	struct event_plan plan;
	char err[256];
	bool smt;
	int s, g;

	detect_machine("", &d);
	m = o->model ? find_model_or_say(o->model) : d.model;
	if (!m)
		return 2;
	if (o->level > m->max_level && m->max_level)
		errorf("warning: %s defines levels 1-%d; listing level %d",
		       m->name, m->max_level, m->max_level);
	smt = o->smt >= 0 ? o->smt : d.smt;
	if (plan_events(m, level_for(m, o->level), smt,
			gp_budget(m, smt, &d), &plan, err, sizeof(err))) {
		errorf("%s", err);
		return 1;
	}
	if (o->json) {
		json_object *root = json_object_new_object(), *groups;

		json_object_object_add(root, "model",
				       json_object_new_string(m->name));
		json_object_object_add(root, "smt", json_object_new_boolean(smt));
		json_object_object_add(root, "level",
				       json_object_new_int(plan.level));
		json_object_object_add(root, "gp_counters",
				       json_object_new_int(plan.gp));
		groups = json_object_new_array();
		for (g = 0; g < plan.nr_groups; g++) {
			json_object *grp = json_object_new_object();
			json_object *evs = json_object_new_array();

			for (s = 0; s < plan.nr; s++) {
				const struct model_event *e =
					&m->events[plan.ev[s]];
				json_object *je;

				if (plan.group[s] != g)
					continue;
				je = json_object_new_object();
				json_object_object_add(
					je, "name",
					json_object_new_string(e->name));
				if (e->kind == EV_TASK) {
					/* no counter: read from the task */
					json_object_object_add(
						je, "task",
						json_object_new_string(
							task_events_source(e)));
					json_object_array_add(evs, je);
					continue;
				}
				json_object_object_add(
					je, "type", json_object_new_int64(e->type));
				json_object_object_add(
					je, "config",
					json_object_new_uint64(e->config));
				if (e->config1)
					json_object_object_add(
						je, "config1",
						json_object_new_uint64(e->config1));
				if (plan.gp_idx[s] >= 0)
					json_object_object_add(
						je, "counter",
						json_object_new_int(plan.gp_idx[s]));
				json_object_array_add(evs, je);
			}
			json_object_object_add(grp, "events", evs);
			json_object_array_add(groups, grp);
		}
		json_object_object_add(root, "groups", groups);
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(
				root, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
		return 0;
	}
	fprintf(out, "model %s (%s), SMT %s, level %d: %d events in %d groups, %d GP counters per group\n",
		m->name, m->desc, smt ? "on" : "off", plan.level, plan.nr,
		plan.nr_groups, plan.gp);
	for (g = 0; g < plan.nr_groups; g++) {
		fprintf(out, "group %d:\n", g);
		for (s = 0; s < plan.nr; s++) {
			const struct model_event *e = &m->events[plan.ev[s]];

			if (plan.group[s] != g)
				continue;
			if (e->kind == EV_TASK) {
				fprintf(out, "  %-48s no counter: the task's %s\n",
					e->name, task_events_source(e));
				continue;
			}
			fprintf(out, "  %-48s type %u config 0x%llx", e->name,
				e->type, (unsigned long long)e->config);
			if (e->config1)
				fprintf(out, " config1 0x%llx",
					(unsigned long long)e->config1);
			if (plan.gp_idx[s] >= 0)
				fprintf(out, "  (GP %d)", plan.gp_idx[s]);
			else if (e->kind == EV_FIXED || e->kind == EV_SLOTS)
				fprintf(out, "  (fixed %d)", e->fixed);
			else if (e->kind == EV_METRIC)
				fprintf(out, "  (PERF_METRICS)");
			fputc('\n', out);
		}
	}
	return 0;
}

/* ---- decode ----------------------------------------------------------- */

static int cmd_decode(const struct options *o, FILE *out)
{
	double ev[MODEL_MAX_EVENTS];
	const struct model *m = find_model_or_say(o->model);
	struct tma_result r;
	char err[512];
	FILE *in;
	int level, i, rc;
	bool smt;

	if (!m)
		return 2;
	if (!m->max_level) {
		errorf("model %s has no TopDown tree to decode; use broadwellx, broadwell, icelakex, icelake or sapphirerapids",
		       m->name);
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
	smt = o->smt >= 0 ? o->smt : true;
	level = level_for(m, o->level);
	tma_decode(m, ev, smt, level, &r);

	if (o->json) {
		json_object *root = json_object_new_object();
		json_object *metrics = json_object_new_object();

		json_object_object_add(root, "model",
				       json_object_new_string(m->name));
		json_object_object_add(root, "smt", json_object_new_boolean(smt));
		json_object_object_add(root, "level", json_object_new_int(level));
		for (i = 0; i < m->nr_nodes; i++) {
			/* NAN: not computable from the counts given */
			if (m->nodes[i].level > level || isnan(r.val[i]))
				continue;
			json_object_object_add(
				metrics, m->nodes[i].name,
				json_object_new_double(r.val[i] * 100.0));
		}
		json_object_object_add(root, "metrics", metrics);
		json_object_object_add(root, "bottleneck",
				       r.bottleneck >= 0 ?
					       json_object_new_string(r.path) :
					       NULL);
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(
				root, JSON_C_TO_STRING_PRETTY |
					      JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
		return 0;
	}
	fprintf(out, "model %s, SMT %s, level %d\n", m->name, smt ? "on" : "off",
		level);
	for (i = 0; i < m->nr_nodes; i++) {
		const struct tma_node *n = &m->nodes[i];

		if (n->level > level)
			continue;
		fprintf(out, "%*s%-*s ", 2 * (n->level - 1), "",
			34 - 2 * (n->level - 1), n->name);
		if (isnan(r.val[i]))
			fprintf(out, "%8s", "-");
		else
			fprintf(out, "%7.1f%%", r.val[i] * 100.0);
		if (r.over[i])
			fputs(r.bottleneck == i ? "  <==" : "  *", out);
		fputc('\n', out);
	}
	fprintf(out, "bottleneck: %s\n", r.bottleneck >= 0 ? r.path : "none over threshold");
	return 0;
}

/* ---- trace ------------------------------------------------------------ */

static bool has_cap(cap_value_t c)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return false;
	if (cap_get_flag(caps, c, CAP_EFFECTIVE, &v))
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

static bool id_exists(pid_t id)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", id);
	return access(path, F_OK) == 0;
}

/* Is @cmd something execvp can run? Checked early to fail within a second. */
static bool command_found(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[4096];
	const char *p, *e;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p),
			 e == p ? "." : p, cmd);
		if (access(buf, X_OK) == 0)
			return true;
	}
	return false;
}

/*
 * The -e events into @plan after the model's, each refused before
 * tracing if this machine cannot count it. 0, or the exit status with
 * @err: 2 for what the command line says wrong, 1 for what this machine
 * cannot do.
 */
static int add_events(const struct options *o, struct event_plan *plan,
		      char *err, size_t len)
{
	/* the plan points into it for the whole run */
	static struct evsel_list evs;
	struct evsel_env env;
	bool online[TDBPF_MAX_CPUS];
	int i, cpu = 0;

	if (!o->nr_events)
		return 0;
	evsel_env_system(&env);
	evsel_init(&evs);
	for (i = 0; i < o->nr_events; i++)
		if (evsel_parse(&evs, o->events[i], &env, err, len))
			return 2;
	if (plan_add_events(plan, evs.ev, evs.group, evs.nr, err, len))
		return 2;
	cpus_online(online, TDBPF_MAX_CPUS);
	while (cpu < TDBPF_MAX_CPUS - 1 && !online[cpu])
		cpu++;
	return evsel_probe(&evs, cpu, err, len) ? 1 : 0;
}

static int cmd_trace(const struct options *o, FILE *out)
{
	struct detect_info d = { 0 };
	const struct model *m;
	struct event_plan plan;
	char err[512];
	bool smt;
	int i;

	if (!(has_cap(CAP_SYS_ADMIN) ||
	      (has_cap(CAP_BPF) && has_cap(CAP_PERFMON)))) {
		errorf("tracing needs root, or CAP_BPF and CAP_PERFMON; run it with sudo");
		return 1;
	}
	for (i = 0; i < o->nr_pids; i++)
		if (!id_exists(o->pids[i])) {
			errorf("no process with pid %d; check it with ps or pgrep",
			       o->pids[i]);
			return 2;
		}
	for (i = 0; i < o->nr_tids; i++)
		if (!id_exists(o->tids[i])) {
			errorf("no thread with tid %d; list threads with ps -eLf",
			       o->tids[i]);
			return 2;
		}
	if (o->argv && !command_found(o->argv[0])) {
		errorf("command '%s' not found; check its name and PATH",
		       o->argv[0]);
		return 2;
	}

	detect_machine("", &d);
	if (o->model) {
		m = find_model_or_say(o->model);
		if (!m)
			return 2;
		if (m != &model_software && d.model != m) {
			/* never program events for a PMU that is not there */
			errorf("the %s model does not match this machine (%s); using the %s model",
			       m->name, d.reason[0] ? d.reason : d.cpu_desc,
			       d.model->name);
			m = d.model;
		}
	} else if (o->nr_events) {
		/* -e alone: those events and nothing else */
		m = NULL;
	} else {
		m = d.model;
		if (m == &model_software && d.reason[0])
			errorf("%s", d.reason);
	}
	/* NMI watchdog holding a counter, hybrid part: said once, up front */
	if (m && m == d.model && d.note[0])
		errorf("%s", d.note);
	smt = o->smt >= 0 ? o->smt : d.smt;
	if (!m) {
		memset(&plan, 0, sizeof(plan));
		plan.smt = smt;
	} else if (plan_events(m, level_for(m, o->level), smt,
			       gp_budget(m, smt, &d), &plan, err,
			       sizeof(err))) {
		errorf("%s", err);
		return 1;
	}
	i = add_events(o, &plan, err, sizeof(err));
	if (i) {
		errorf("%s", err);
		return i;
	}
	return session_run(o, &plan, out);
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	FILE *out = stdout;
	off_t mark = -1;
	int rc, fd;

	if (parse_options(argc, argv, &o, err, sizeof(err))) {
		errorf("%s", err);
		return 2;
	}
	if (o.cmd == CMD_HELP) {
		print_usage(stdout);
		return 0;
	}
	if (o.cmd == CMD_VERSION) {
		printf("tdbpf %s\n", TDBPF_VERSION);
		return 0;
	}
	if (o.output) {
		fd = privs_create_output(o.output);
		if (fd == -ELOOP) {
			/* O_NOFOLLOW: maybe a link planted in a shared dir */
			errorf("output file '%s' is a symlink and tdbpf does not follow symlinks there; give the real path or remove the link",
			       o.output);
			return 2;
		}
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			errorf("cannot create output file '%s': %s; pick a writable path in an existing directory",
			       o.output, strerror(fd < 0 ? -fd : errno));
			return 2;
		}
	}
	switch (o.cmd) {
	case CMD_LIST:
		mark = out_mark(out);
		rc = cmd_list(&o, out);
		break;
	case CMD_DECODE:
		mark = out_mark(out);
		rc = cmd_decode(&o, out);
		break;
	default:
		/* reports are checked as they are written (session.c) */
		rc = cmd_trace(&o, out);
		break;
	}
	if (o.cmd != CMD_TRACE && !rc && out_check(out, o.output, mark))
		rc = 1;
	if (out != stdout && fclose(out) && !rc) {
		errorf("cannot write the report to '%s': %s; check the file system",
		       o.output, strerror(errno));
		rc = 1;
	}
	return rc;
}
