// SPDX-License-Identifier: GPL-2.0
/*
 * Choosing the socket hooks' programs (sock_hooks.h). The tracepoints
 * came in 6.3 (sk_data_ready, sock_send_length, sock_recv_length) and
 * 6.12 (tcp_sendmsg_locked); before them the same handler runs from the
 * function each tracepoint sits in (bpf/sockets.bpf.c says which).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "sources/fnhooks.h"
#include "sources/sock_hooks.h"
#include "sources/tracer_priv.h"

static const char *const kind_name[] = {
	[SOCK_HOOK_TRACEPOINT] = "tracepoint",
	[SOCK_HOOK_FENTRY] = "fentry",
	[SOCK_HOOK_KPROBE] = "kprobe",
	[SOCK_HOOK_NONE] = "none",
};

int sock_hooks_kind(const char *word, enum sock_hook_kind *kind)
{
	int k;

	for (k = SOCK_HOOK_TRACEPOINT; k < SOCK_HOOK_NONE; k++)
		if (!strcmp(word, kind_name[k])) {
			*kind = (enum sock_hook_kind)k;
			return 0;
		}
	return -EINVAL;
}

/* one hook: its tracepoint, its function and the programs of each kind */
struct hook {
	const char *tp;
	const char *fn;		/* NULL: a tracepoint every kernel has */
	const char *fentry;	/* "fentry" or "fexit", as the program is */
	bool needed;		/* the others are of no use without it */
	struct bpf_program *prog[SOCK_HOOK_NONE][2];	/* entry, return */
	/*
	 * The function @fn's callers go through where the kernel has it,
	 * taken first (NULL: none), and its fentry and kprobe programs
	 * (@alt_prog[kind - SOCK_HOOK_FENTRY])
	 */
	const char *alt;
	struct bpf_program *alt_prog[2][2];
};

#define NR_HOOKS 6

static void hooks_of(struct tdbpf_bpf *s, struct hook *h)
{
	const struct hook all[NR_HOOKS] = {
		{ "sk_data_ready", "sock_def_readable", "fentry", true,
		  { { s->progs.tdbpf_data_ready },
		    { s->progs.tdbpf_data_ready_fentry },
		    { s->progs.tdbpf_data_ready_kprobe } },
		  NULL, { { NULL } } },
		{ "sock_send_length", "sock_sendmsg", "fexit", true,
		  { { s->progs.tdbpf_sock_send },
		    { s->progs.tdbpf_sock_send_fexit },
		    { s->progs.tdbpf_sock_send_kprobe,
		      s->progs.tdbpf_sock_sent_kretprobe } },
		  "__sock_sendmsg",
		  { { s->progs.tdbpf_sock_send2_fexit },
		    { s->progs.tdbpf_sock_send2_kprobe,
		      s->progs.tdbpf_sock_sent2_kretprobe } } },
		{ "sock_recv_length", "sock_recvmsg", "fexit", true,
		  { { s->progs.tdbpf_sock_recv },
		    { s->progs.tdbpf_sock_recv_fexit },
		    { s->progs.tdbpf_sock_recv_kprobe } },
		  NULL, { { NULL } } },
		{ "softirq_entry", NULL, NULL, true,
		  { { s->progs.tdbpf_softirq_entry } }, NULL, { { NULL } } },
		{ "softirq_exit", NULL, NULL, true,
		  { { s->progs.tdbpf_softirq_exit } }, NULL, { { NULL } } },
		{ "tcp_sendmsg_locked", "tcp_sendmsg_locked", "fentry", false,
		  { { s->progs.tdbpf_tcp_send },
		    { s->progs.tdbpf_tcp_send_fentry },
		    { s->progs.tdbpf_tcp_send_kprobe } },
		  NULL, { { NULL } } },
	};

	memcpy(h, all, sizeof(all));
}

/*
 * The first kind from @first that the kernel has for @h; a function
 * only when @fn_ok. The sampled graph attaches its programs at each
 * window's start and detaches them at its end: a trampoline or a kprobe
 * takes the kernel's RCU grace periods to attach and detach, which ate
 * most of each 50 ms window on 6.1 (windows 4% of the run, not 10%), so
 * function hooks are for --wakeups, attached once.
 */
static enum sock_hook_kind choose(const struct hook *h, const struct btf *btf,
				  const bool kprobe[2], enum sock_hook_kind first,
				  bool fn_ok, bool *alt)
{
	char name[64];

	*alt = false;
	snprintf(name, sizeof(name), "btf_trace_%s", h->tp);
	if ((first == SOCK_HOOK_TRACEPOINT || !h->fn) && btf &&
	    btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0)
		return SOCK_HOOK_TRACEPOINT;
	if (!h->fn || !fn_ok)
		return SOCK_HOOK_NONE;
	if (first <= SOCK_HOOK_FENTRY && h->alt &&
	    fnhooks_fentry(btf, h->alt)) {
		*alt = true;
		return SOCK_HOOK_FENTRY;
	}
	if (first <= SOCK_HOOK_FENTRY && fnhooks_fentry(btf, h->fn))
		return SOCK_HOOK_FENTRY;
	*alt = h->alt && kprobe[1];
	return kprobe[0] || *alt ? SOCK_HOOK_KPROBE : SOCK_HOOK_NONE;
}

/* Autoload @h's programs of kind @k (of its alternative's, @alt), no other */
static void load_only(const struct hook *h, enum sock_hook_kind k, bool alt)
{
	int m, j;

	for (m = 0; m < SOCK_HOOK_NONE; m++)
		for (j = 0; j < 2; j++) {
			struct bpf_program *a = m ? h->alt_prog[m - 1][j] :
						    NULL;

			if (h->prog[m][j])
				bpf_program__set_autoload(
					h->prog[m][j],
					k == (enum sock_hook_kind)m && !alt);
			if (a)
				bpf_program__set_autoload(
					a, k == (enum sock_hook_kind)m && alt);
		}
}

/* -v: what each hook runs from, or what is missing and what it costs */
static void say(const struct hook *h, const enum sock_hook_kind *k,
		const bool *alt, bool on, enum sock_hook_kind first,
		bool sampled)
{
	/* what was tried for a missing hook */
	const char *tried = sampled ? "no tracepoint (its function's hook only with --wakeups)" :
			    first == SOCK_HOOK_TRACEPOINT ?
				    "no tracepoint, fentry or kprobe" :
			    first == SOCK_HOOK_FENTRY ? "no fentry or kprobe" :
							"no kprobe";
	size_t i;

	for (i = 0; i < NR_HOOKS; i++) {
		if (!on && k[i] == SOCK_HOOK_NONE && h[i].needed)
			fprintf(stderr, "tdbpf: socket hook %s: %s in this kernel: socket wakes are judged by the waker's context (softirq over TCP and UDP)\n",
				h[i].tp, h[i].fn ? tried : "no tracepoint");
		else if (!on)
			continue;
		else if (k[i] == SOCK_HOOK_TRACEPOINT)
			fprintf(stderr, "tdbpf: socket hook %s: tracepoint\n",
				h[i].tp);
		else if (k[i] != SOCK_HOOK_NONE)
			fprintf(stderr, "tdbpf: socket hook %s: %s %s\n",
				h[i].tp,
				k[i] == SOCK_HOOK_FENTRY ? h[i].fentry :
							   "kprobe",
				alt[i] ? h[i].alt : h[i].fn);
		else
			fprintf(stderr, "tdbpf: socket hook %s: %s in this kernel: TCP back-pressure waits are judged by the waker's context\n",
				h[i].tp, tried);
	}
}

void sock_hooks_choose(struct tracer *t, bool on)
{
	struct hook h[NR_HOOKS];
	enum sock_hook_kind k[NR_HOOKS];
	/* each hook's function, then its alternative ("": none) */
	const char *fns[2 * NR_HOOKS];
	bool kp[2 * NR_HOOKS], alt[NR_HOOKS], ask = on;
	struct btf *btf = on ? btf__load_vmlinux_btf() : NULL;
	size_t i;

	hooks_of(t->skel, h);
	for (i = 0; i < NR_HOOKS; i++) {
		fns[2 * i] = h[i].fn ? h[i].fn : "";
		fns[2 * i + 1] = h[i].alt ? h[i].alt : "";
	}
	if (on)
		fnhooks_kprobes(fns, kp, 2 * NR_HOOKS);
	for (i = 0; i < NR_HOOKS; i++) {
		alt[i] = false;
		k[i] = ask ? choose(&h[i], btf, &kp[2 * i], t->c.sock_hooks,
				    !t->c.sampled, &alt[i]) :
			     SOCK_HOOK_NONE;
		if (k[i] == SOCK_HOOK_NONE && h[i].needed)
			on = false;
	}
	for (i = 0; i < NR_HOOKS; i++)
		load_only(&h[i], on ? k[i] : SOCK_HOOK_NONE, alt[i]);
	t->skel->rodata->track_sockets = on;
	if (ask && t->c.verbose && t->c.wakeups)
		say(h, k, alt, on, t->c.sock_hooks, t->c.sampled);
	btf__free(btf);
}
