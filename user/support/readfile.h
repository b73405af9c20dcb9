/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small file read whole: sysfs and procfs values, cgroup limits. Every
 * stage that reads one reads it here.
 */
#ifndef TDBPF_READFILE_H
#define TDBPF_READFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The file @path, at most @len - 1 bytes of it, into @buf, its trailing
 * newlines and blanks cut. 0, or -errno (-EIO when it opened but could
 * not be read), @buf untouched.
 */
int read_small(const char *path, char *buf, size_t len);

/*
 * The file @path's first @len - 1 bytes at most into @buf, as they are,
 * NUL after: their number, or -errno (-EIO when it opened but could not
 * be read), @buf untouched.
 */
ssize_t read_head(const char *path, char *buf, size_t len);

#endif /* TDBPF_READFILE_H */
