// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer (tracer.h), its setup: the plan's counters on every CPU, the
 * BPF programs loaded, configured and attached, and their teardown. The
 * reading of the per-task sums they keep is tracer_collect.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "sources/cgroups_proc.h"
#include "sources/kfeatures.h"
#include "sources/percpu.h"
#include "sources/sock_hooks.h"
#include "sources/targets.h"
#include "sources/tracer_priv.h"
#include "sums/archive.h"
#include "support/array.h"
#include "support/limits.h"
#include "support/loop.h"
#include "support/error.h"

/* the BPF side aligns it so; the skeleton shows where the link put it */
_Static_assert(__builtin_offsetof(struct tdbpf_bpf__bss, track) % 4096 == 0,
	       "track starts a page of the .bss map");

/* libbpf's own messages only with -v: errors are reported by us, once */
/*
 * A program the verifier gave up on for its size, seen in the log that
 * libbpf prints when a load fails (with or without -v): the error then
 * names that cause and its fix, not a map's.
 */
static bool prog_too_large;

bool tracer_verifier_gave_up(const char *msg)
{
	return strstr(msg, "BPF program is too large") ||
	       strstr(msg, "jumps is too complex");
}

static void note_too_large(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	va_list aq;
	char *s;

	if (level == LIBBPF_DEBUG)
		return;
	va_copy(aq, ap);
	if (vasprintf(&s, fmt, aq) >= 0) {
		if (tracer_verifier_gave_up(s))
			prog_too_large = true;
		free(s);
	}
	va_end(aq);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	note_too_large(level, fmt, ap);
	return 0;
}

static int libbpf_print_verbose(enum libbpf_print_level level,
				const char *fmt, va_list ap)
{
	note_too_large(level, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* ---- setup ---------------------------------------------------------- */

static int track_id(struct tracer *t, pid_t id)
{
	__u32 k = (__u32)id;

	/* ids above PID_MAX_LIMIT do not exist; refuse rather than miss */
	if (k >= TDBPF_TRACK_WORDS * 64)
		return -ERANGE;
	/* .bss is mmap'ed: this is the BPF program's own memory */
	__atomic_fetch_or(&t->skel->bss->track.track_bits[k / 64],
			  1ULL << (k % 64),
			  __ATOMIC_RELAXED);
	return 0;
}

bool tracer_followed_alive(void *tracer)
{
	struct tracer *t = tracer;
	const __u64 *bits;
	__u32 w;
	int b;

	if (!t || !t->c.targets.children || !t->skel ||
	    t->skel->bss->track.track_mode != TDBPF_TRACK_TGID)
		return false;
	/* the bits fork set (tdbpf_fork): every tgid followed, once */
	bits = t->skel->bss->track.track_bits;
	for (w = 0; w < TDBPF_TRACK_WORDS; w++) {
		__u64 v = __atomic_load_n(&bits[w], __ATOMIC_RELAXED);

		for (b = 0; v; b++, v >>= 1)
			if ((v & 1) && targets_id_alive((pid_t)(w * 64 + b)))
				return true;
	}
	return false;
}

int tracer_track(struct tracer *t, pid_t tgid)
{
	return track_id(t, tgid);
}

int tracer_see_processes(struct tracer *t, const pid_t *pids, size_t nr)
{
	return cgroups_collect_pids(&t->cgroups, pids, nr, "/proc");
}

static int fill_filter(struct tracer *t)
{
	const struct tracer_targets *g = &t->c.targets;
	int i, e = 0;

	for (i = 0; i < g->nr_pids && !e; i++)
		e = track_id(t, g->pids[i]);
	for (i = 0; i < g->nr_tids && !e; i++)
		e = track_id(t, g->tids[i]);
	if (g->child > 0 && !e)
		e = track_id(t, g->child);
	return e;
}

static int fill_counters(struct tracer *t)
{
	int fd = bpf_map__fd(t->skel->maps.counters);
	__u32 k;
	int i;

	/* in slot order: test_attach_counters' fault injection waits for the last */
	for (i = 0; i < t->ctr.nr * t->ncpu; i++) {
		if (t->ctr.fds[i] < 0)
			continue;
		k = (__u32)i;
		if (bpf_map_update_elem(fd, &k, &t->ctr.fds[i], BPF_ANY))
			return -errno;
	}
	return 0;
}

static const char *bpf_hint(int err)
{
	const char *limit = limits_nofile_hint();

	/* a limit surfaces as any errno (libbpf's BTF load: ESRCH) */
	if (limit || (limit = limits_memory_hint()))
		return limit;
	if (err == -EPERM || err == -EACCES)
		return "run as root, or grant CAP_BPF and CAP_PERFMON";
	if (err == -ENOENT || err == -ESRCH)
		return "the kernel lacks BTF (/sys/kernel/btf/vmlinux) or a sched tracepoint; tdbpf needs Linux >= 5.13 with CONFIG_DEBUG_INFO_BTF (docs/kernels.md)";
	/* the verifier's "program is too large" is E2BIG too */
	if (err == -E2BIG)
		return "a map or a program is too large: lower --max-tasks, raise the locked-memory limit, or give fewer -e events (-v says which)";
	if (err == -ENOMEM)
		return "lower --max-tasks or raise the locked-memory limit";
	return "run with -v to see libbpf's messages";
}

/*
 * Where the waking program finds this CPU's preempt count and hrtimer
 * bases (the waker's context): their distance from the run queue. A
 * kernel that has neither (or no BTF section for them) leaves them 0:
 * interrupts then cannot be told from the task they interrupted.
 */
static void waker_context(struct tracer *t, const struct btf *btf)
{
	__s64 d;

	if (!percpu_distance(btf, "runqueues", "__preempt_count", &d))
		t->skel->rodata->preempt_from_rq = d;
	else if (!percpu_distance(btf, "runqueues", "pcpu_hot", &d))
		/* 6.1-6.14: after pcpu_hot's current_task pointer */
		t->skel->rodata->preempt_from_rq = d + 8;
	if (!percpu_distance(btf, "runqueues", "hrtimer_bases", &d))
		t->skel->rodata->hrtimers_from_rq = d;
	if (t->c.verbose && !t->skel->rodata->preempt_from_rq)
		fprintf(stderr, "tdbpf: no per-CPU preempt count in the kernel's BTF: wakeups from interrupts are charged to the task they interrupt\n");
}

/*
 * The per-CPU variables the programs read through the run queue, from
 * the kernel's BTF, loaded once: the waker's context (--wakeups) and,
 * for spans, a KVM guest's steal clock (struct kvm_steal_time's first
 * field), without which a slice's steal time is spread over its spans.
 */
static void percpu_vars(struct tracer *t, bool wakeups, bool spans)
{
	struct btf *btf;
	__s64 d;

	if (!wakeups && !spans)
		return;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return;
	if (wakeups)
		waker_context(t, btf);
	if (spans && !percpu_distance(btf, "runqueues", "steal_time", &d))
		t->skel->rodata->steal_from_rq = d;
	btf__free(btf);
}

/*
 * Sampled (the default graph): the programs the windows attach
 * (tracer_sample.c), not the skeleton: the waking program, the socket
 * hooks that load, and the switch program when it has nothing else to
 * do (read-free).
 */
static void sampled_progs(struct tracer *t)
{
	struct tdbpf_bpf *skel = t->skel;
	struct bpf_program *all[] = {
		t->switch_prog,
		skel->progs.tdbpf_waking,
		skel->progs.tdbpf_data_ready,
		skel->progs.tdbpf_data_ready_fentry,
		skel->progs.tdbpf_data_ready_kprobe,
		skel->progs.tdbpf_sock_send,
		skel->progs.tdbpf_sock_send_fexit,
		skel->progs.tdbpf_sock_send_kprobe,
		skel->progs.tdbpf_sock_sent_kretprobe,
		skel->progs.tdbpf_sock_send2_fexit,
		skel->progs.tdbpf_sock_send2_kprobe,
		skel->progs.tdbpf_sock_sent2_kretprobe,
		skel->progs.tdbpf_sock_recv,
		skel->progs.tdbpf_sock_recv_fexit,
		skel->progs.tdbpf_sock_recv_kprobe,
		skel->progs.tdbpf_softirq_entry,
		skel->progs.tdbpf_softirq_exit,
		skel->progs.tdbpf_tcp_send,
		skel->progs.tdbpf_tcp_send_fentry,
		skel->progs.tdbpf_tcp_send_kprobe,
	};
	struct sampler *s = &t->sample;
	size_t i;

	_Static_assert(ARRAY_SIZE(all) <= SAMPLE_MAX_PROGS,
		       "SAMPLE_MAX_PROGS holds them");
	s->nr = 0;
	if (!skel->rodata->sampled)
		return;
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		if (!bpf_program__autoload(all[i]) ||
		    (all[i] == t->switch_prog && !t->read_free))
			continue;
		bpf_program__set_autoattach(all[i], false);
		s->progs[s->nr++] = all[i];
	}
}

/*
 * May a JVM that is not running yet be traced: a command, the processes
 * that the targets fork (--children), every task (-a)?
 */
static bool jvm_may_start(const struct tracer_targets *tg)
{
	return tg->child > 0 || tg->children || tg->all;
}

/*
 * --span: its programs are loaded, the switch charges spans too (it runs
 * at every switch then: no read-free), and span_probes.c attaches them.
 */
static void configure_spans(struct tracer *t)
{
	struct tdbpf_bpf *skel = t->skel;
	struct bpf_program *all[] = {
		skel->progs.tdbpf_span_uenter,
		skel->progs.tdbpf_span_uexit,
		skel->progs.tdbpf_span_enter,
		skel->progs.tdbpf_span_exit,
		skel->progs.tdbpf_span_gst_enter,
		skel->progs.tdbpf_span_gst_exit,
	};
	size_t i;

	skel->rodata->track_spans = t->c.nr_spans > 0;
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		bpf_program__set_autoload(all[i], t->c.nr_spans > 0);
		bpf_program__set_autoattach(all[i], false);
	}
	/* thread-span pairs: a pool's threads times its operators */
	bpf_map__set_max_entries(skel->maps.span_sums,
				 !t->c.nr_spans ? 1 :
				 t->c.max_tasks > TDBPF_SPAN_MAX_DEFAULT ?
					 (__u32)t->c.max_tasks :
					 TDBPF_SPAN_MAX_DEFAULT);
}

/* Before load: what the programs are built for, and the map sizes. */
static void configure(struct tracer *t)
{
	const struct tracer_conf *c = &t->c;
	const struct event_plan *plan = c->plan;
	struct tdbpf_bpf *skel = t->skel;
	int i;

	skel->rodata->nr_cpus = (__u32)t->ncpu;
	/* counters only: the rest is read from the task (EV_TASK) */
	skel->rodata->nr_events = (__u32)plan->nr_counters;
	memset(skel->rodata->group_leads, 0, sizeof(skel->rodata->group_leads));
	for (i = 0; i < plan->nr_groups; i++)
		if (plan->leader[i] < plan->nr_counters)
			skel->rodata->group_leads[plan->leader[i] / 64] |=
				1ULL << (plan->leader[i] % 64);
	skel->bss->track.track_mode = c->targets.all     ? TDBPF_TRACK_ALL :
				   c->targets.nr_tids ? TDBPF_TRACK_TID :
							TDBPF_TRACK_TGID;
	skel->rodata->follow_children = c->targets.children;
	bpf_map__set_max_entries(skel->maps.counters,
				 (__u32)(plan->nr_counters ? plan->nr_counters :
							     1) *
					 (__u32)t->ncpu);
	bpf_map__set_max_entries(skel->maps.tasks, (__u32)c->max_tasks);
	bpf_map__set_max_entries(skel->maps.exited, (__u32)c->max_tasks);
	bpf_map__set_max_entries(skel->maps.dead_wakes,
				 c->wakeups ? (__u32)c->max_tasks : 1);
	/* run on demand (flush) or through the iterator link (dump) */
	bpf_program__set_autoattach(skel->progs.tdbpf_flush, false);
	bpf_program__set_autoattach(skel->progs.tdbpf_dump, false);
	/* attached to each libjvm.so found (jvm_probe.c), if names are kept */
	bpf_program__set_autoattach(skel->progs.tdbpf_jthread, false);
	bpf_program__set_autoload(skel->progs.tdbpf_jthread,
				  c->names &&
				  jvm_probe_wanted(c->targets.pids,
						   c->targets.nr_pids,
						   jvm_may_start(&c->targets)));
	skel->rodata->max_tasks = (__u32)c->max_tasks;
	/* no graph (--no-wakeups): the waking program is not even loaded */
	skel->rodata->track_wakeups = c->wakeups;
	/* without them a run-queue wait is charged nearer (kfeatures.h) */
	skel->rodata->percpu_lookup = t->kf & (1U << KF_PERCPU_LOOKUP);
	skel->rodata->have_loop = t->kf & (1U << KF_LOOP);
	/*
	 * Nothing to read at a switch: sums come from the tasks at a collect
	 * and at their exit, and no program runs at a switch at all.
	 */
	t->read_free = !plan->nr_counters && (!c->wakeups || c->sampled) &&
		       !c->nr_spans;
	skel->rodata->read_free = t->read_free;
	skel->rodata->sampled = c->wakeups && c->sampled;
	/* one of the two: sched_switch's prev_state, or the task's */
	t->switch_prog = t->kf & (1U << KF_SWITCH_STATE) ?
				 skel->progs.tdbpf_switch :
				 skel->progs.tdbpf_switch_nostate;
	bpf_program__set_autoload(skel->progs.tdbpf_switch, false);
	bpf_program__set_autoload(skel->progs.tdbpf_switch_nostate, false);
	bpf_program__set_autoload(t->switch_prog,
				  !t->read_free || c->wakeups);
	bpf_program__set_autoload(skel->progs.tdbpf_exit, t->read_free);
	bpf_program__set_autoload(skel->progs.tdbpf_waking, c->wakeups);
	/* every wakeup only: a sample's waits are charged at the switch-in */
	bpf_program__set_autoload(skel->progs.tdbpf_wakeup,
				  c->wakeups && !c->sampled);
	percpu_vars(t, c->wakeups, c->nr_spans > 0);
	bpf_map__set_max_entries(skel->maps.sock_ends,
				 c->wakeups && !t->no_sockets ?
					 (__u32)c->sock_max : 1);
	sock_hooks_choose(t, c->wakeups && !t->no_sockets);
	sampled_progs(t);
	configure_spans(t);
}

/* The BPF object opened and configured for @t. 0, or -1 with @err. */
static int open_bpf(struct tracer *t, char *err, size_t len)
{
	t->skel = tdbpf_bpf__open();
	if (!t->skel) {
		error_set(err, len, "cannot open the BPF object: %s; %s",
			 strerror(errno), bpf_hint(-errno));
		return -1;
	}
	configure(t);
	return 0;
}

/* What to do about a load that failed with @e. */
static const char *load_hint(int e)
{
	if (prog_too_large)
		return "a BPF program is too large for the kernel's verifier, which gave up on it (-v shows its log): give fewer -e events, or fewer groups";
	/* as root, EACCES on load is the verifier saying no */
	if (e == -EACCES && geteuid() == 0)
		return "the kernel's verifier rejected them: run with -v for its log and report it";
	return bpf_hint(e);
}

/*
 * The BPF object loaded; without the socket hooks if the kernel refuses
 * one. 0, or -1 with @err.
 */
static int load_bpf(struct tracer *t, char *err, size_t len)
{
	uint64_t start = loop_now_ns();
	int e;

	if (open_bpf(t, err, len))
		return -1;
	prog_too_large = false;
	e = tdbpf_bpf__load(t->skel);
	if (e && t->skel->rodata->track_sockets) {
		/*
		 * A socket hook the kernel refuses (a callback it cannot
		 * trace): today's judgement of socket wakes, not no trace.
		 */
		if (t->c.verbose)
			fprintf(stderr, "tdbpf: socket hooks did not load (%s): socket wakes are judged by the waker's context\n",
				strerror(-e));
		tdbpf_bpf__destroy(t->skel);
		t->no_sockets = true;
		if (open_bpf(t, err, len))
			return -1;
		e = tdbpf_bpf__load(t->skel);
	}
	if (e) {
		error_set(err, len, "cannot load the BPF programs: %s; %s",
			 strerror(-e), load_hint(e));
		return -1;
	}
	if (t->c.verbose)
		fprintf(stderr, "tdbpf: BPF programs loaded in %.2f s\n",
			(double)(loop_now_ns() - start) / 1e9);
	return 0;
}

/*
 * The loaded object's maps filled, its programs attached and the task
 * iterator made. 0, or -1 with @err.
 */
static int attach_bpf(struct tracer *t, char *err, size_t len)
{
	int e;

	t->tasks_fd = bpf_map__fd(t->skel->maps.tasks);
	t->stats_fd = bpf_map__fd(t->skel->maps.stats);
	t->exited_fd = bpf_map__fd(t->skel->maps.exited);
	t->flush_fd = bpf_program__fd(t->skel->progs.tdbpf_flush);
	t->dead_wakes_fd = bpf_map__fd(t->skel->maps.dead_wakes);

	e = fill_counters(t);
	if (!e)
		e = fill_filter(t);
	if (e) {
		error_set(err, len, "cannot fill the BPF maps: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	e = tdbpf_bpf__attach(t->skel);
	if (e) {
		error_set(err, len, "cannot attach to the sched tracepoints: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	if (t->c.nr_spans &&
	    span_probes_attach(t, t->c.spans, t->c.nr_spans, t->c.exe,
			       t->c.targets.pids, t->c.targets.nr_pids, err,
			       len))
		return -1;
	/* from now on a task born is seen from its first slice: whole */
	__atomic_store_n(&t->skel->data->attach_ns, loop_now_ns(),
			 __ATOMIC_RELEASE);
	t->iter = bpf_program__attach_iter(t->skel->progs.tdbpf_dump, NULL);
	if (!t->iter) {
		e = -errno;
		error_set(err, len, "cannot create the task iterator: %s; %s",
			 strerror(-e), bpf_hint(e));
		return -1;
	}
	return 0;
}

/*
 * Java threads started from now on, named as they start: the -p JVMs'
 * own libjvm.so, and the installed JDKs' where a JVM not started yet
 * may be traced (jvm_may_start()). Best effort, said with -v.
 */
static void name_jvm_threads(struct tracer *t)
{
	const struct tracer_targets *tg = &t->c.targets;
	int n;

	n = jvm_probe_attach(&t->jvm, t->skel->progs.tdbpf_jthread, tg->pids,
			     tg->nr_pids, jvm_may_start(tg));
	if (t->c.verbose && n)
		fprintf(stderr, "tdbpf: hotspot:thread__start probed in %d libjvm.so\n",
			n);
}

static int setup(struct tracer *t, char *err, size_t len)
{
	int e;

	t->ncpu = libbpf_num_possible_cpus();
	if (t->ncpu <= 0 || t->ncpu > TDBPF_MAX_CPUS) {
		error_set(err, len, "cannot count the possible CPUs: %s; %s",
			 t->ncpu < 0 ? strerror(-t->ncpu) : "none found",
			 bpf_hint(t->ncpu));
		return -1;
	}
	t->online = calloc((size_t)t->ncpu, sizeof(*t->online));
	t->vals = calloc(1, sizeof(*t->vals));
	if (!t->online || !t->vals) {
		error_set(err, len, "out of memory");
		return -1;
	}
	cpus_online(t->online, t->ncpu);

	if (counters_open(&t->ctr, t->c.plan, t->ncpu, err, len))
		return -1;
	t->kf = kfeatures_probe(t->c.kernel_lacks,
				t->c.wakeups || t->c.nr_spans);
	if (t->c.nr_spans && !(t->kf & (1U << KF_LOOP))) {
		error_set(err, len, "--span needs bpf_loop (Linux 5.17), which this kernel lacks; trace without --span");
		return -1;
	}
	if (load_bpf(t, err, len))
		return -1;
	kfeatures_report(t->kf, t->c.wakeups,
			 bpf_program__autoload(t->switch_prog));
	if (attach_bpf(t, err, len))
		return -1;
	/* baseline every CPU now, so the first slices are charged whole */
	tracer_flush_cpus(t);
	if (t->sample.nr) {
		e = sampler_start(t);
		if (e) {
			error_set(err, len, "cannot start the sampled windows' thread: %s; run with --wakeups for every wakeup",
				 strerror(-e));
			return -1;
		}
	}
	return 0;
}

struct tracer *tracer_open(const struct tracer_conf *c, char *err,
			   size_t errlen)
{
	struct tracer *t = calloc(1, sizeof(*t));

	if (!t) {
		error_set(err, errlen, "out of memory");
		return NULL;
	}
	t->c = *c;
	tasks_init(&t->archive);
	cgroups_init(&t->cgroups);
	wait_share_init(&t->shares);
	t->fold_key = ARCHIVE_FOLDED_TID;
	/* rows as wide as the counters programmed, not TDBPF_MAX_EVENTS */
	tasks_set_layout(&t->archive, c->plan->nr, c->wakeups);
	libbpf_set_print(c->verbose ? libbpf_print_verbose : libbpf_print);
	if (setup(t, err, errlen)) {
		tracer_close(t);
		return NULL;
	}
	if (bpf_program__autoload(t->skel->progs.tdbpf_jthread))
		name_jvm_threads(t);
	if (c->verbose)
		fprintf(stderr,
			"tdbpf: attached: model %s, %d counters in %d groups on %d CPUs\n",
			c->plan->model ? c->plan->model->name : "none (-e)",
			c->plan->nr, c->plan->nr_groups,
			t->ncpu);
	return t;
}

void tracer_detach(struct tracer *t)
{
	/* the windows first: they attach */
	sampler_stop(t);
	span_probes_close(&t->spans);
	/* detaching waits for the trampolines to drain */
	jvm_probe_detach(&t->jvm);
	if (t->skel && !t->detached)
		tdbpf_bpf__detach(t->skel);
	t->detached = true;
}

void tracer_close(struct tracer *t)
{
	if (!t)
		return;
	sampler_stop(t);
	/* links, programs and maps go with the skeleton; counters after */
	bpf_link__destroy(t->iter);
	jvm_probe_detach(&t->jvm);
	span_probes_close(&t->spans);
	tdbpf_bpf__destroy(t->skel);
	counters_close(&t->ctr);
	tasks_free(&t->archive);
	cgroups_free(&t->cgroups);
	wait_share_free(&t->shares);
	free(t->online);
	free(t->vals);
	free(t);
}
