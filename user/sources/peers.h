/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of socket peers that are not traced: a wake resolved through a
 * socket names the task at the other end by tid and pid only (the BPF
 * side keeps no names for tasks it does not follow).
 */
#ifndef TDBPF_PEERS_H
#define TDBPF_PEERS_H

#include <stddef.h>
#include <linux/types.h>

/*
 * The name of task @tid of process @pid, from /proc, into @buf; NULL if
 * it is gone (or belongs to another pid now): graph_lookups.peer live.
 */
const char *peer_comm(__u32 pid, __u32 tid, char *buf, size_t len);

#endif /* TDBPF_PEERS_H */
