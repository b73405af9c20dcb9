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

#endif /* TDBPF_TEST_BPF_OBJECTS_H */
