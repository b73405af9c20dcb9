/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole task names, longer than the kernel's 15-character comm (a JVM's
 * thread names: "Map -> Filter (2/3)#0"), kept once each for the
 * process's life, so that a task row holds a pointer (struct task_row's
 * name) that stays valid in every table the row is copied into.
 */
#ifndef TDBPF_NAMES_H
#define TDBPF_NAMES_H

/* The longest whole name kept; longer ones are cut. */
#define TDBPF_NAME_MAX	128

/*
 * The one stored copy of @s (cut to TDBPF_NAME_MAX - 1 bytes): the same
 * pointer for the same text, never freed, so that what a run stores
 * follows the names its tasks carry, not how often they are asked for.
 * NULL when out of memory.
 */
const char *names_intern(const char *s);

#endif /* TDBPF_NAMES_H */
