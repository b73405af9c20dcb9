/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A running JVM's thread names, asked of the JVM itself through
 * HotSpot's attach mechanism (what jcmd PID Thread.print and jstack
 * use), without starting a JVM of our own: a thread dump, each thread's
 * "name" and nid (its kernel tid) kept.
 *
 * What it does to the target: if its attach listener is not running
 * yet, a file /tmp/.attach_pidN in its root and a SIGQUIT start it (a
 * thread "Attach Listener" that stays); the dump itself is one
 * safepoint, every Java thread stopped for it (well under a millisecond
 * for tens of threads). Asked only of a process that has HotSpot's
 * SIGQUIT handler in place: SIGQUIT would end any other one.
 */
#ifndef TDBPF_JVM_ATTACH_H
#define TDBPF_JVM_ATTACH_H

#include <stdbool.h>
#include <sys/types.h>
#include "sources/thread_names.h"

/* Is process @pid a HotSpot JVM (libjvm.so mapped)? */
bool jvm_is_jvm(pid_t pid);
/*
 * The libjvm.so process @pid maps, as a path from here (through its
 * /proc/PID/root: a JVM in a container maps its own), into @path; false
 * when it maps none.
 */
bool jvm_libjvm_path(pid_t pid, char *path, size_t len);

/*
 * Add each thread of JVM @pid to @n from a thread dump. The number of
 * threads named, or -errno (not a JVM that answers: -ENOTSUP, -ETIMEDOUT,
 * -EACCES...). Needs the rights to signal it and open its files (root).
 */
int jvm_thread_names(pid_t pid, struct thread_names *n);

/*
 * One line of a thread dump: '"NAME" #14 daemon prio=5 ... nid=0x2ff5
 * runnable': the name into @name and the nid into *@tid (hex "0x.." to
 * JDK 17, decimal from JDK 18). false for any other line.
 */
bool jvm_dump_line(const char *line, char *name, size_t len, __u32 *tid);

#endif /* TDBPF_JVM_ATTACH_H */
