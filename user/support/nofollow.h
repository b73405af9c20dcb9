/* SPDX-License-Identifier: GPL-2.0 */
/* Opening a path none of whose components is a symbolic link. */
#ifndef TDBPF_NOFOLLOW_H
#define TDBPF_NOFOLLOW_H

#include <stddef.h>
#include <sys/types.h>

/*
 * open(@path, @flags, @mode), refused with -ELOOP when any component of
 * @path (a directory on the way or the file itself) is a symbolic link.
 * Returns an fd or -errno.
 */
int open_no_links(const char *path, int flags, mode_t mode);
/*
 * The first component of @path that is a symbolic link, into @buf (the
 * path up to it): 0, or -1 when there is none.
 */
int first_link(const char *path, char *buf, size_t len);

#endif /* TDBPF_NOFOLLOW_H */
