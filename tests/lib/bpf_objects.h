/* SPDX-License-Identifier: GPL-2.0 */
/*
 * After every run nothing of tdbpf may stay in the kernel: no tdbpf_*
 * program, no link to one, none of its maps. Seen with bpftool (without
 * it, the check is skipped, said once a call). Compiled once into the
 * test library (tests/lib/).
 */
#ifndef TDBPF_TEST_BPF_OBJECTS_H
#define TDBPF_TEST_BPF_OBJECTS_H

/* Remember what exists before a run: it is not ours. */
void objects_before(void);
/*
 * After a run: every tdbpf object that appeared since objects_before()
 * is gone, unless a live process holds it (another tdbpf, run by someone
 * else at the same time); the test fails naming each one left.
 */
void assert_nothing_left(void);
/*
 * The ids after each of @keys ("prog_id:", "link_id:", "map_id:"; @n of
 * them) in every process's fdinfo: the BPF objects live processes hold
 * an fd of. @add(@ctx, K, ID) for each, K the index of its key.
 */
void held_bpf_ids(const char *const *keys, int n,
		  void (*add)(void *ctx, int k, unsigned int id), void *ctx);

#endif /* TDBPF_TEST_BPF_OBJECTS_H */
