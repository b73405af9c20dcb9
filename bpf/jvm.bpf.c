// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side, whole Java thread names: HotSpot's USDT probe
 * hotspot:thread__start (args: the name's bytes, their length, the Java
 * thread id, the native tid, daemon), fired by each Java thread as it
 * starts, records a tracked thread's name by tid for user space, which
 * takes them at each collect (sources/jvm_probe.c). Attached only to
 * the libjvm.so files of JVMs tdbpf may trace.
 */
#include "shared.bpf.h"
#include "task.bpf.h"
#include <bpf/usdt.bpf.h>

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TDBPF_JNAMES_MAX);
	__type(key, __u32);
	__type(value, struct tdbpf_jname);
} jnames SEC(".maps");

SEC("usdt")
int BPF_USDT(tdbpf_jthread, void *name, int len)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct tdbpf_jname v = {};
	__u32 tid = t->pid, n;

	if (!tracked(t) || len <= 0)
		return 0;
	n = (__u32)len < TDBPF_JNAME_LEN - 1 ? (__u32)len : TDBPF_JNAME_LEN - 1;
	/* keep clang from dropping the mask the verifier bounds it by */
	asm volatile("" : "+r"(n));
	n &= TDBPF_JNAME_LEN - 1;
	v.tgid = t->tgid;
	v.len = n;
	if (bpf_probe_read_user(v.name, n, name))
		return 0;
	bpf_map_update_elem(&jnames, &tid, &v, BPF_ANY);
	return 0;
}
