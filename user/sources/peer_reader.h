/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /proc peer reader: a process of its own that reads the traced
 * processes' sockets (flows_proc.h) with the two overrides that takes
 * (CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH), so that tdbpf itself, which
 * may answer the network (--listen), holds no file-reading override.
 * It is told pids and answers flows, over a socket pair; it holds no
 * other fd and ends when tdbpf does.
 */
#ifndef TDBPF_PEER_READER_H
#define TDBPF_PEER_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "sums/flows.h"
#include "sums/tasks.h"

struct peer_reader {
	pid_t pid;		/* 0: none (tdbpf reads /proc itself) */
	int fd;			/* our end of the pair */
};

/*
 * Fork the reader while tdbpf still holds every privilege (before
 * privs_drop_after_setup()). 0, or -1 with @err.
 */
int peer_reader_start(struct peer_reader *r, char *err, size_t len);
/*
 * flows_collect() through the reader; without one (@r NULL or not
 * started), or once it has gone (said once on stderr), with tdbpf's own
 * rights. 0 or -ENOMEM.
 */
int peer_reader_collect(struct peer_reader *r, struct flow_table *out,
			const struct task_table *t);
/* End it and reap it; @r may be unstarted. */
void peer_reader_stop(struct peer_reader *r);

#endif /* TDBPF_PEER_READER_H */
