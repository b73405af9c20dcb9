/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --span: which span boundaries to probe, their attach, and the read of
 * the span sums BPF charged (bpf/spans.bpf.c). The specs:
 *
 *   usdt               the tdbpf:span_enter/span_exit USDT probes of the
 *                      command (-- CMD) and the libraries it will load, or
 *                      of the files the -p targets map (lib_files.h);
 *                      include/tdbpf_span.h makes them
 *   usdt:PATH          the same probes in that program or library (an
 *                      engine in a shared library), whoever runs it
 *   BINARY:FUNC[,...]  a uprobe at each function's entry and return; the
 *                      binary a path, a command on PATH or a library's
 *                      soname (as libbpf resolves it)
 *   gstreamer          each GStreamer element a span: uprobes on the pad
 *                      push and pull functions of the command's
 *                      libgstreamer-1.0 or the -p targets' (their maps)
 */
#ifndef TDBPF_SPAN_PROBES_H
#define TDBPF_SPAN_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "tdbpf.h"

struct bpf_link;
struct span_table;
struct tracer;

/* uprobe entry and return a function, and the two USDT probes a binary */
#define SPAN_MAX_LINKS	(2 * TDBPF_SPAN_UPROBES + 2 * 16)

struct span_probes {
	struct bpf_link *links[SPAN_MAX_LINKS];
	int nr_links;
	/* the uprobes' functions, by cookie - 1 */
	char *func[TDBPF_SPAN_UPROBES];
	int nr_func;
};

/*
 * Attach the span programs for @specs (@nr); @exe is the command's path
 * (NULL without one), @pids the -p targets. 0, or -1 with @err.
 */
int span_probes_attach(struct tracer *t, const char *const *specs, int nr,
		       const char *exe, const pid_t *pids, int nr_pids,
		       char *err, size_t len);
/* Every (thread, span)'s sums into @out (reset first): 0 or -errno. */
int span_probes_read(struct tracer *t, struct span_table *out);
void span_probes_close(struct span_probes *p);

#endif /* TDBPF_SPAN_PROBES_H */
