// SPDX-License-Identifier: GPL-2.0
/*
 * The live run's graph lookups (graph.h: struct graph_lookups): names
 * of tasks not traced and cgroup CPU limits, read from /proc and
 * /sys/fs/cgroup now, while they exist.
 */
#include "commands/cmd.h"
#include "sources/cgroup_cpu.h"
#include "sources/peers.h"
#include "sources/targets.h"

static const char *live_peer(const void *ctx, __u32 pid, __u32 tid,
			     char *buf, size_t len)
{
	(void)ctx;
	return peer_comm(pid, tid, buf, len);
}

static const char *live_tid_name(const void *ctx, __u32 tid, char *buf,
				 size_t len)
{
	(void)ctx;
	return targets_comm(tid, buf, len);
}

static const char *live_cpu_limit(const void *ctx, __u32 tid, char *buf,
				  size_t len)
{
	(void)ctx;
	return cgroup_cpu_describe(tid, buf, len);
}

const struct graph_lookups live_lookups = {
	.peer = live_peer,
	.tid_name = live_tid_name,
	.cpu_limit = live_cpu_limit,
};
