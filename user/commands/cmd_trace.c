// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing: check what can be checked before any BPF (privileges, that
 * the targets exist, that the command can be found), pick the model and
 * its events, and hand over to the run driver.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/capability.h>
#include "commands/cmd.h"
#include "commands/run.h"
#include "commands/top.h"
#include "analysis/graph.h"
#include "model/evsel.h"
#include "sources/counters.h"
#include "sources/cgroup_cpu.h"
#include "sources/targets.h"
#include "support/privs.h"

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
 * --graph FILE.dot, created as -o is (no symlinks followed, the sudo
 * user's), before anything is traced or said: a graph that cannot be
 * written fails at once, in one line. NULL after the error.
 */
static FILE *open_graph(const char *path)
{
	int fd = privs_create_output(path);
	FILE *f = NULL;

	if (fd == -ELOOP) {
		errorf("graph file '%s' is a symlink and tdbpf does not follow symlinks there; give the real path or remove the link",
		       path);
		return NULL;
	}
	if (fd >= 0)
		f = fdopen(fd, "w");
	if (!f) {
		errorf("cannot create graph file '%s': %s; pick a writable path in an existing directory",
		       path, strerror(fd < 0 ? -fd : errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
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

int cmd_trace(const struct options *o, FILE *out)
{
	struct detect_info d = { 0 };
	FILE *graph = NULL;
	const struct model *m;
	struct event_plan plan;
	char err[512];
	bool smt;
	int i;

	/* live: the CPU's holders outside the targets are named from /proc */
	graph_tid_name = targets_comm;
	graph_cpu_limit = cgroup_cpu_describe;

	/* top without a terminal: said before anything is set up */
	if (o->cmd == CMD_TOP && !top_has_terminal()) {
		errorf("top needs a terminal on stdin and stdout; for reports in a pipe or file use tdbpf -I MS");
		return 2;
	}
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
	if (o->graph && !(graph = open_graph(o->graph)))
		return 2;

	detect_machine("", &d);
	if (o->model) {
		m = find_model_or_say(o->model);
		if (!m) {
			if (graph)
				fclose(graph);
			return 2;
		}
		if (m != &model_software && d.model != m) {
			/* never program events for a PMU that is not there */
			if (d.reason[0])
				errorf("--model %s: %s", m->name, d.reason);
			else
				errorf("the %s model does not match this machine (%s); using the %s model",
				       m->name, d.cpu_desc, d.model->name);
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
		if (graph)
			fclose(graph);
		return 1;
	}
	i = add_events(o, &plan, err, sizeof(err));
	if (i) {
		errorf("%s", err);
		if (graph)
			fclose(graph);
		return i;
	}
	/* top traces the same targets with the same plan; it draws them */
	if (o->cmd == CMD_TOP) {
		if (graph)
			fclose(graph);
		return top_run(o, &plan, out);
	}
	return run_trace(o, &plan, out, graph);
}
