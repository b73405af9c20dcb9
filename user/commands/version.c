// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf --version: what this build is and what this kernel offers it.
 *
 * A bug report needs three things besides the command line: which tdbpf,
 * which libbpf (the one the dynamic loader picked, not only the headers we
 * compiled against), and whether the kernel has each BPF feature the
 * tracer uses. The features are probed here by loading a two-instruction
 * program or creating a one-entry map of each kind, as bpftool's feature
 * probes do. libbpf's own probes are not enough: libbpf 1.1 (bookworm)
 * reports tracing programs as unsupported on every kernel and says yes to
 * helpers when it was refused for lack of privileges.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>
#include "commands/cmd.h"
#include "commands/version.h"
#include "support/array.h"
#include "tdbpf_version.h"

/* the kernel's own "not supported", which user headers do not define */
#ifndef ENOTSUPP
#define ENOTSUPP 524
#endif

const char *tdbpf_version(void)
{
	return TDBPF_VERSION;
}

enum probe_kind {
	P_BTF,		/* vmlinux BTF, for CO-RE and tp_btf */
	P_TP_BTF,	/* BPF_PROG_TYPE_TRACING at a tracepoint (arg: its name) */
	P_ITER,		/* BPF_PROG_TYPE_TRACING iterator (arg: bpf_iter_ name) */
	P_RUN_ON_CPU,	/* BPF_PROG_TEST_RUN with BPF_F_TEST_RUN_ON_CPU */
	P_MAP,		/* a map type (val) */
	P_HELPER,	/* a helper (val) callable from tp_btf programs */
};

struct probe {
	const char *what;
	enum probe_kind kind;
	const char *arg;
	int val;
};

/* what bpf/ and its loader (user/sources/tracer.c) use, in that order */
static const struct probe probes[] = {
	{ "vmlinux BTF (/sys/kernel/btf/vmlinux)", P_BTF, NULL, 0 },
	{ "tp_btf programs (sched_switch)", P_TP_BTF, "sched_switch", 0 },
	{ "tp_btf programs (sched_process_fork)", P_TP_BTF,
	  "sched_process_fork", 0 },
	{ "tp_btf programs (sched_process_free)", P_TP_BTF,
	  "sched_process_free", 0 },
	{ "task iterator (iter/task)", P_ITER, "bpf_iter_task", 0 },
	{ "test run on a chosen CPU (flush)", P_RUN_ON_CPU, NULL, 0 },
	{ "task-local storage maps", P_MAP, NULL, BPF_MAP_TYPE_TASK_STORAGE },
	{ "perf event array maps", P_MAP, NULL, BPF_MAP_TYPE_PERF_EVENT_ARRAY },
	{ "per-CPU array maps", P_MAP, NULL, BPF_MAP_TYPE_PERCPU_ARRAY },
	{ "hash maps", P_MAP, NULL, BPF_MAP_TYPE_HASH },
	{ "queue maps", P_MAP, NULL, BPF_MAP_TYPE_QUEUE },
	{ "helper bpf_perf_event_read_value", P_HELPER, NULL,
	  BPF_FUNC_perf_event_read_value },
	{ "helper bpf_perf_event_read", P_HELPER, NULL,
	  BPF_FUNC_perf_event_read },
	{ "helper bpf_task_storage_get", P_HELPER, NULL,
	  BPF_FUNC_task_storage_get },
	{ "helper bpf_task_storage_delete", P_HELPER, NULL,
	  BPF_FUNC_task_storage_delete },
	{ "helper bpf_get_current_task_btf", P_HELPER, NULL,
	  BPF_FUNC_get_current_task_btf },
};

/* r0 = 0; exit, optionally after calling helper @call (its args unset) */
static int load(enum bpf_prog_type type, enum bpf_attach_type attach,
		__u32 btf_id, int call, char *log, size_t log_len)
{
	struct bpf_insn insns[3] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach,
		    .attach_btf_id = btf_id, .log_buf = log,
		    .log_size = (__u32)log_len, .log_level = log ? 1 : 0);
	int n = 2;

	if (call) {
		insns[2] = insns[1];
		insns[1] = insns[0];
		insns[0] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
					      .imm = call };
		n = 3;
	}
	if (log)
		log[0] = '\0';
	return bpf_prog_load(type, NULL, "GPL", insns, n, &opts);
}

static __u32 btf_id(const struct btf *vmlinux, const char *prefix,
		    const char *name, int kind)
{
	char full[128];
	int id;

	if (!vmlinux)
		return 0;
	snprintf(full, sizeof(full), "%s%s", prefix, name);
	id = btf__find_by_name_kind(vmlinux, full, kind);
	return id > 0 ? (__u32)id : 0;
}

/* 1: present, 0: absent, -errno: could not tell */
static int run_probe(const struct probe *p, const struct btf *vmlinux)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .flags = BPF_F_TEST_RUN_ON_CPU);
	char log[4096];
	__u32 id;
	int fd, r;

	switch (p->kind) {
	case P_BTF:
		return vmlinux != NULL;
	case P_TP_BTF:
	case P_ITER:
		id = p->kind == P_TP_BTF ?
			     btf_id(vmlinux, "btf_trace_", p->arg,
				    BTF_KIND_TYPEDEF) :
			     btf_id(vmlinux, "", p->arg, BTF_KIND_FUNC);
		if (!id)
			return 0;
		fd = load(BPF_PROG_TYPE_TRACING,
			  p->kind == P_TP_BTF ? BPF_TRACE_RAW_TP :
						BPF_TRACE_ITER,
			  id, 0, NULL, 0);
		if (fd < 0)
			return errno == EINVAL || errno == ENOTSUPP ||
					       errno == EOPNOTSUPP ?
				       0 :
				       -errno;
		close(fd);
		return 1;
	case P_RUN_ON_CPU:
		fd = load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0, 0, NULL, 0);
		if (fd < 0)
			return -errno;
		r = bpf_prog_test_run_opts(fd, &run);
		r = r ? -errno : 1;
		close(fd);
		/* an old kernel refuses the flag, or the test run, with EINVAL */
		return r == -EINVAL || r == -ENOTSUPP || r == -EOPNOTSUPP ? 0 : r;
	case P_MAP:
		return libbpf_probe_bpf_map_type((enum bpf_map_type)p->val, NULL);
	case P_HELPER:
		id = btf_id(vmlinux, "btf_trace_", "sched_switch",
			    BTF_KIND_TYPEDEF);
		if (!id)
			return 0;
		fd = load(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, id, p->val,
			  log, sizeof(log));
		if (fd >= 0) {
			close(fd);
			return 1;
		}
		r = -errno;
		/* the verifier's words for "no such helper here" */
		if (strstr(log, "invalid func ") || strstr(log, "unknown func ") ||
		    strstr(log, "cannot use helper") ||
		    strstr(log, "cannot call GPL-restricted"))
			return 0;
		/* refused for its unset arguments: the helper is there */
		return log[0] ? 1 : r;
	}
	return -EINVAL;
}

/* The libbpf the loader mapped: its file name carries the patch level. */
static void print_libbpf(FILE *out)
{
	char real[PATH_MAX];
	Dl_info info;
	const char *so = NULL;

	if (dladdr((void *)libbpf_version_string, &info) && info.dli_fname &&
	    realpath(info.dli_fname, real))
		so = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	fprintf(out, "libbpf %u.%u%s%s%s, built against %d.%d\n",
		libbpf_major_version(), libbpf_minor_version(), so ? " (" : "",
		so ? so : "", so ? ")" : "", LIBBPF_MAJOR_VERSION,
		LIBBPF_MINOR_VERSION);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int version_print(FILE *out)
{
	libbpf_print_fn_t old = libbpf_set_print(quiet);
	struct btf *vmlinux;
	struct utsname u;
	size_t i;
	int fd, r;

	fprintf(out, "tdbpf %s\n", tdbpf_version());
	print_libbpf(out);
	if (!uname(&u))
		fprintf(out, "kernel %s %s %s\n", u.sysname, u.release,
			u.machine);

	/* loading anything at all needs privileges: say so once */
	fd = load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0, 0, NULL, 0);
	if (fd < 0 && (errno == EPERM || errno == EACCES)) {
		fprintf(out, "BPF features: not probed: loading BPF programs needs root, or CAP_BPF and CAP_PERFMON (sudo tdbpf --version)\n");
		libbpf_set_print(old);
		return 0;
	}
	if (fd >= 0)
		close(fd);

	vmlinux = btf__load_vmlinux_btf();	/* NULL without BTF */
	fprintf(out, "BPF features (probed now):\n");
	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		r = run_probe(&probes[i], vmlinux);
		if (r > 0)
			fprintf(out, "  %-42s yes\n", probes[i].what);
		else if (!r)
			fprintf(out, "  %-42s NO: tracing needs it\n",
				probes[i].what);
		else
			fprintf(out, "  %-42s unknown (%s)\n", probes[i].what,
				strerror(-r));
	}
	btf__free(vmlinux);
	libbpf_set_print(old);
	return 0;
}

int cmd_version(const struct options *o, FILE *out)
{
	(void)o;
	return version_print(out);
}
