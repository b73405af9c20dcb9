// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf BPF side, span boundaries (--span): a uprobe's entry and return
 * (--span BINARY:FUNC, the function's index the attach cookie) or the
 * USDT probes tdbpf:span_enter and tdbpf:span_exit (--span usdt, the
 * name's hash the id). At each, the innermost open span is charged up to
 * now (spans.bpf.h), then the stack moves.
 *
 * The stack is bounded (TDBPF_SPAN_DEPTH; deeper entries only counted)
 * and an exit pops down to the innermost open span of its id: an exit
 * that never comes (a longjmp out of a span, whose uretprobe the kernel
 * drops) is popped by the next exit of an outer span; recursion pushes
 * and pops the same id; an exit that matches no open span is counted
 * and moves nothing.
 */
#include "shared.bpf.h"
#include "task.bpf.h"
#include "spans.bpf.h"
#include <bpf/usdt.bpf.h>
/* --span gstreamer's offsets, from GStreamer's headers (Makefile) */
#include "gst_offsets.h"

/* USDT ids have the top bit: apart from uprobes' cookies (small) */
#define SPAN_USDT_BIT	(1ULL << 63)

static __always_inline void span_push(struct task_struct *p,
				      struct tdbpf_spans *s, __u64 id)
{
	struct tdbpf_span_sums *v;
	__u32 d = s->depth;

	s->depth = d + 1;
	if (d >= TDBPF_SPAN_DEPTH) {
		stat_inc(TDBPF_STAT_SPAN_DEEP);
		return;
	}
	s->id[d & (TDBPF_SPAN_DEPTH - 1)] = id;
	v = span_sums_get(p, id);
	if (v)
		v->entries++;
}

/* @id 0: the innermost, whatever it is (a USDT exit without a name) */
static __always_inline void span_pop(struct tdbpf_spans *s, __u64 id)
{
	__u32 d = s->depth, i;

	if (d > TDBPF_SPAN_DEPTH || (d && !id)) {
		s->depth = d - 1;
		return;
	}
	for (i = 0; i < TDBPF_SPAN_DEPTH; i++) {
		if (i >= d)
			break;
		if (s->id[(d - 1 - i) & (TDBPF_SPAN_DEPTH - 1)] == id) {
			s->depth = d - 1 - i;
			return;
		}
	}
	stat_inc(TDBPF_STAT_SPAN_UNMATCHED);
}

static __always_inline int span_boundary(__u64 id, bool enter)
{
	struct task_struct *p = bpf_get_current_task_btf();
	struct tdbpf_span_sums *v;
	struct tdbpf_spans *s;
	struct tdbpf_cpu *st;
	__u32 gen, z = 0;
	__u64 now;

	if (!tracked(p))
		return 0;
	now = bpf_ktime_get_ns();
	s = bpf_task_storage_get(&span_store, p, 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s)
		return 0;
	gen = s->gen;
	if (!s->seen) {
		/* running since before the attach: a tick's precision */
		s->seen = 1;
		span_mark_slice(p, s, now);
		s->in_exec = p->se.sum_exec_runtime;
		s->mark_delay = p->sched_info.run_delay;
		s->mark_faults = task_faults(p);
	}
	span_missed_in(p, s, now);
	v = span_top(p, s);
	span_charge_running(p, s, v, now);
	st = bpf_map_lookup_elem(&cpu_state, &z);
	span_read_counters(s, v, bpf_get_smp_processor_id(), gen,
			   st && st->tid == p->pid);
	if (enter)
		span_push(p, s, id);
	else
		span_pop(s, id);
	return 0;
}

SEC("uprobe")
int tdbpf_span_uenter(struct pt_regs *ctx)
{
	return span_boundary(bpf_get_attach_cookie(ctx), true);
}

SEC("uretprobe")
int tdbpf_span_uexit(struct pt_regs *ctx)
{
	return span_boundary(bpf_get_attach_cookie(ctx), false);
}

/*
 * A USDT span's id: its name's hash (FNV-1a), so that an exit matches
 * its enter by name whatever copy of the string it passes; the name is
 * kept for user space at its first sight.
 */
static __always_inline __u64 span_usdt_id(const char *uname)
{
	struct tdbpf_span_name_key k = {};
	char name[TDBPF_SPAN_NAME] = {};
	__u64 h = 0xcbf29ce484222325ULL;
	__u32 i;

	if (bpf_probe_read_user_str(name, sizeof(name), uname) <= 0)
		return 0;
	for (i = 0; i < TDBPF_SPAN_NAME; i++) {
		if (!name[i])
			break;
		h = (h ^ (__u8)name[i]) * 0x100000001b3ULL;
	}
	k.id = h | SPAN_USDT_BIT;
	if (!bpf_map_lookup_elem(&span_names, &k))
		bpf_map_update_elem(&span_names, &k, name, BPF_NOEXIST);
	return k.id;
}

SEC("usdt")
int BPF_USDT(tdbpf_span_enter, const char *name)
{
	__u64 id = span_usdt_id(name);

	return id ? span_boundary(id, true) : 0;
}

SEC("usdt")
int tdbpf_span_exit(struct pt_regs *ctx)
{
	long name = 0;
	__u64 id = 0;

	if (bpf_usdt_arg_cnt(ctx) >= 1 && !bpf_usdt_arg(ctx, 0, &name))
		id = span_usdt_id((const char *)name);
	return span_boundary(id, false);
}

/*
 * --span gstreamer: uprobes on libgstreamer's gst_pad_push(),
 * gst_pad_push_list() and gst_pad_pull_range(), whose first argument is
 * the pad. Inside a push on a src pad the peer pad's element runs its
 * chain function (inside a pull, the peer's getrange): that element is
 * the span, named as the pipeline names it (GstObject's name), nested
 * pushes nesting.
 */
static __always_inline __u64 span_gst_id(const void *pad)
{
	static const char unlinked[TDBPF_SPAN_NAME] = "(unlinked)";
	struct tdbpf_span_name_key k = { .id = SPAN_USDT_BIT | 1 };
	const void *peer = NULL, *elem = NULL, *name = NULL;

	bpf_probe_read_user(&peer, sizeof(peer), pad + TDBPF_GST_PAD_PEER);
	if (peer)
		bpf_probe_read_user(&elem, sizeof(elem),
				    peer + TDBPF_GST_OBJECT_PARENT);
	if (elem)
		bpf_probe_read_user(&name, sizeof(name),
				    elem + TDBPF_GST_OBJECT_NAME);
	if (name) {
		__u64 id = span_usdt_id(name);

		if (id)
			return id;
	}
	/* no peer (a push that fails NOT_LINKED): a span, for its return */
	if (!bpf_map_lookup_elem(&span_names, &k))
		bpf_map_update_elem(&span_names, &k, unlinked, BPF_NOEXIST);
	return k.id;
}

SEC("uprobe")
int tdbpf_span_gst_enter(struct pt_regs *ctx)
{
	const void *pad = (const void *)PT_REGS_PARM1(ctx);

	return span_boundary(span_gst_id(pad), true);
}

/* the return pops the innermost span: the one its entry pushed */
SEC("uretprobe")
int tdbpf_span_gst_exit(struct pt_regs *ctx)
{
	return span_boundary(0, false);
}
