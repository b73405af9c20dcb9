// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side: the maps and configuration every program shares, defined
 * here once (shared.bpf.h). The programs are one file a job: switch.bpf.c
 * (the switch and the flush before a report), wakeups.bpf.c (who ended a
 * wait), lifecycle.bpf.c (fork, exit, free and the task iterator).
 *
 * Why linked objects (bpftool gen object) rather than one file including
 * the others: each job compiles on its own, so a helper or map a file does
 * not include is an error there rather than silently in scope, and the
 * linker checks that every extern matches its one definition. A new job
 * (socket hooks) is a new file and one line in the Makefile's BPF_SRC.
 */
#define TDBPF_DEFINE_SHARED
#include "shared.bpf.h"
/* the socket hooks' maps (sockets.bpf.h) are shared ones too */
#include "sockets.bpf.h"
/* and the one global function, charge_wait() (wait.bpf.h) */
#include "wait.bpf.h"

char LICENSE[] SEC("license") = "GPL";
