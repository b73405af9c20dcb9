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
#include <sys/stat.h>
#include "commands/cmd.h"
#include "commands/repeat.h"
#include "commands/run.h"
#include "commands/top.h"
#include "model/evsel.h"
#include "exporter/http.h"
#include "outputs/outfile.h"
#include "sources/counters.h"
#include "sources/cgroup_members.h"
#include "sources/evsel_probe.h"
#include "sources/jvm_probe.h"
#include "sources/span_spec.h"
#include "sources/targets.h"
#include "support/limits.h"
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

/* The first of @ids (@nr of them) with no task in /proc, or -1 */
static int first_gone(const pid_t *ids, int nr)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!id_exists(ids[i]))
			return i;
	return -1;
}

/*
 * Is @cmd something execvp can run? Checked early to fail within a
 * second. 0, or why not: ENOENT, EISDIR, EACCES (there, not executable).
 */
static int command_found(const char *cmd)
{
	const char *path = getenv("PATH");
	struct stat st;
	char buf[4096];
	const char *p, *e;

	if (strchr(cmd, '/')) {
		if (stat(cmd, &st))
			return ENOENT;
		if (S_ISDIR(st.st_mode))
			return EISDIR;
		return access(cmd, X_OK) ? EACCES : 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p),
			 e == p ? "." : p, cmd);
		if (!stat(buf, &st) && !S_ISDIR(st.st_mode) &&
		    access(buf, X_OK) == 0)
			return 0;
	}
	return ENOENT;
}

/*
 * The file of a --span BINARY:FUNC or usdt:PATH, checked before the BPF
 * load as the command is: libbpf would refuse it only at the attach, a
 * second later. A bare name is a program on PATH, as libbpf looks it
 * up; a bare library name ("libc.so.6") is left to libbpf's own search.
 * 0, or ENOENT or EISDIR, @bin (of @size) holding the file's name.
 */
static int span_binary_found(const char *spec, char *bin, size_t size)
{
	struct stat st;

	if (span_spec_binary(spec, bin, size))
		return 0;
	if (!strchr(bin, '/'))
		return strstr(bin, ".so") || !command_found(bin) ? 0 : ENOENT;
	if (stat(bin, &st))
		return ENOENT;
	return S_ISDIR(st.st_mode) ? EISDIR : 0;
}

/*
 * --graph FILE.dot, created as -o is (no symlinks followed, the sudo
 * user's), before anything is traced or said: a graph that cannot be
 * written fails at once, in one line. NULL after the error.
 */
static FILE *open_graph(const char *path)
{
	int fd = 0;
	FILE *f = out_open(path, &fd);

	if (!f)
		out_open_error("graph", path, -fd);
	return f;
}

/* cmd.h: the -e events into @plan (also tdbpf selftest's) */
int cmd_add_events(const struct options *o, struct event_plan *plan,
		   char *err, size_t len)
{
	/* the plan points into it for the whole run */
	static struct evsel_list evs;
	struct evsel_env env;
	bool online[TDBPF_MAX_CPUS];
	int i, cpu = 0, nr_unsup;

	if (!o->nr_events)
		return 0;
	evsel_env_system(&env);
	evsel_init(&evs);
	for (i = 0; i < o->nr_events; i++)
		if (evsel_parse(&evs, o->events[i], &env, err, len))
			return 2;
	cpus_online(online, TDBPF_MAX_CPUS);
	while (cpu < TDBPF_MAX_CPUS - 1 && !online[cpu])
		cpu++;
	/* as perf stat: what the machine lacks is <not supported>, the rest counted */
	if (evsel_probe_supported(&evs, cpu, &nr_unsup, err, len))
		return 1;
	for (i = 0; i < evs.nr && !o->quiet; i++)
		if (evs.ev[i].kind == EV_UNSUP)
			errorf("<not supported>: %s", evs.why[i]);
	return plan_add_events(plan, evs.ev, evs.group, evs.nr, err, len) ? 2 : 0;
}

/*
 * The open files a run holds: a counter per event and CPU, and about 40
 * more (BPF maps, programs and links, the loop's timers and signalfd,
 * the outputs: 38 measured with -e cpu-clock on 2 CPUs, --no-wakeups),
 * the graph's programs, maps and links (52 with it, every wakeup or in a
 * sampled window: 14 more), a pidfd per -p target, the JVMs' thread
 * start probes (a link each, JVM_PROBE_MAX_LINKS at most) and the
 * /metrics server's connections. Raised to that when the hard limit allows,
 * refused in one line when not, rather than failing halfway with EMFILE
 * under another name.
 */
static int make_room(const struct options *o, const struct event_plan *plan,
		     char *err, size_t len)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	size_t need = 48 + (size_t)o->nr_pids + JVM_PROBE_MAX_LINKS;

	if (o->wakeups)
		need += 24;

	need += (size_t)(ncpu > 0 ? ncpu : 1) * (size_t)plan->nr_counters;
	if (o->listen)
		need += 8 + HTTP_MAX_CONNECTIONS;
	return limits_nofile(need, err, len);
}

/* -G PATH is a cgroup here; else false, said in one line. */
static bool cgroup_exists(const char *path)
{
	struct cgroup_members m;
	char err[512];

	if (cgroup_members_open(&m, path, "/proc/self/mountinfo", err,
				sizeof(err))) {
		errorf("%s", err);
		return false;
	}
	return true;
}

/*
 * What can be refused before any BPF: privileges, the targets and the
 * command. 0, or the exit status after the error.
 */
static int check_targets(const struct options *o)
{
	int i, e;

	if (!(has_cap(CAP_SYS_ADMIN) ||
	      (has_cap(CAP_BPF) && has_cap(CAP_PERFMON)))) {
		errorf("tracing needs root, or CAP_BPF and CAP_PERFMON; run it with sudo");
		return 1;
	}
	if (targets_pid_ns_problem()) {
		errorf("%s", targets_pid_ns_problem());
		return 1;
	}
	i = first_gone(o->pids, o->nr_pids);
	if (i >= 0) {
		errorf("no process with pid %d; check it with ps or pgrep",
		       o->pids[i]);
		return 2;
	}
	/* a thread's id traces nothing as -p: it is no tgid */
	for (i = 0; i < o->nr_pids; i++) {
		pid_t tgid = targets_tgid(o->pids[i]);

		if (tgid != o->pids[i]) {
			errorf("-p %d: that is thread %d of process %d; trace the thread with -t %d or the process with -p %d",
			       o->pids[i], o->pids[i], tgid, o->pids[i], tgid);
			return 2;
		}
	}
	i = first_gone(o->tids, o->nr_tids);
	if (i >= 0) {
		errorf("no thread with tid %d; list threads with ps -eLf",
		       o->tids[i]);
		return 2;
	}
	if (o->cgroup && !cgroup_exists(o->cgroup))
		return 2;
	for (i = 0; i < o->nr_spans; i++) {
		char bin[4096];

		e = span_binary_found(o->spans[i], bin, sizeof(bin));
		if (e) {
			errorf(e == ENOENT ? "--span %s: no file '%s'; give the binary's path, or a program on PATH" :
					     "--span %s: '%s' is a directory; give the program or library in it",
			       o->spans[i], bin);
			return 2;
		}
	}
	e = o->argv ? command_found(o->argv[0]) : 0;
	if (e) {
		errorf(e == ENOENT ? "command '%s' not found; check its name and PATH" :
		       e == EISDIR ? "command '%s' is a directory; give the program in it" :
				     "command '%s' is not executable; chmod +x it, or run it through its interpreter (-- sh FILE)",
		       o->argv[0]);
		return 2;
	}
	return 0;
}

/*
 * The model to trace with into @m (NULL: -e alone, those events and
 * nothing else): --model, else the detected one. 0, or 2 after the
 * error.
 */
static int trace_model(const struct options *o, const struct detect_info *d,
		       const struct model **m)
{
	if (o->model) {
		*m = find_model_or_say(o->model);
		if (!*m)
			return 2;
		if (*m != &model_software && d->model != *m) {
			/* never program events for a PMU that is not there */
			if (d->reason[0])
				errorf("--model %s: %s", (*m)->name, d->reason);
			else
				errorf("the %s model does not match this machine (%s); using the %s model",
				       (*m)->name, d->cpu_desc, d->model->name);
			*m = d->model;
		}
	} else if (o->nr_events) {
		*m = NULL;
	} else {
		*m = d->model;
		/* -q: the fallback is known (a VM without a PMU, every run) */
		if (*m == &model_software && d->reason[0] && !o->quiet)
			errorf("%s", d->reason);
	}
	/* NMI watchdog holding a counter, hybrid part: said once, up front */
	if (*m && *m == d->model && d->note[0] && !o->quiet)
		errorf("%s", d->note);
	return 0;
}

/*
 * The events to count into @plan: the model's, then -e's, and the open
 * files they need. 0, or the exit status after the error.
 */
static int trace_plan(const struct options *o, struct event_plan *plan)
{
	struct detect_info d = { 0 };
	const struct model *m;
	char err[512];
	bool smt;
	int rc;

	detect_machine("", &d);
	rc = trace_model(o, &d, &m);
	if (rc)
		return rc;
	smt = o->smt >= 0 ? o->smt : d.smt;
	if (!m) {
		memset(plan, 0, sizeof(*plan));
		plan->smt = smt;
	} else if (plan_events(m, level_for(m, o->level), smt,
			       gp_budget(m, smt, &d), plan, err,
			       sizeof(err))) {
		errorf("%s", err);
		return 1;
	}
	rc = cmd_add_events(o, plan, err, sizeof(err));
	if (!rc && make_room(o, plan, err, sizeof(err)))
		rc = 1;
	if (rc)
		errorf("%s", err);
	return rc;
}

int cmd_trace(const struct options *o, FILE *out)
{
	struct event_plan plan;
	FILE *graph = NULL;
	int rc;

	/* top without a terminal: said before anything is set up */
	if (o->cmd == CMD_TOP && !top_has_terminal()) {
		errorf("top needs a terminal on stdin and stdout; for reports in a pipe or file use tdbpf -I MS");
		return 2;
	}
	rc = check_targets(o);
	if (rc)
		return rc;
	if (o->graph && !(graph = open_graph(o->graph)))
		return 2;
	rc = trace_plan(o, &plan);
	if (rc) {
		if (graph)
			out_close(graph);
		return rc;
	}
	/* top traces the same targets with the same plan; it draws them */
	if (o->cmd == CMD_TOP)
		return top_run(o, &plan, out);
	if (o->repeat > 1)
		return repeat_run(o, &plan, out);
	/* the run owns the graph file from here */
	return run_trace(o, &plan, out, graph);
}
