// SPDX-License-Identifier: GPL-2.0
/*
 * Outputs are written as root: a symlink anywhere in their path, say a
 * directory link a user planted in /tmp, would send root's write into
 * whatever the link names. O_NOFOLLOW guards the last component only, so
 * the kernel is asked to refuse links in every component (openat2's
 * RESOLVE_NO_SYMLINKS, Linux 5.6); older kernels get the same from a
 * walk that opens each directory with O_NOFOLLOW from the one before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "support/nofollow.h"

/* One directory step from @dir: a link is ELOOP, as openat2 says. */
static int step(int dir, const char *name)
{
	int fd = openat(dir, name,
			O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOTDIR) {
		struct stat st;

		/* O_PATH|O_NOFOLLOW opens the link itself: say what it is */
		if (!fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			errno = ELOOP;
	}
	return fd;
}

static int walk(const char *path, int flags, mode_t mode)
{
	char buf[4096], *name, *slash;
	int dir = AT_FDCWD, next, fd;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	name = buf;
	if (*name == '/') {
		dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			return -errno;
		while (*name == '/')
			name++;
	}
	while ((slash = strchr(name, '/'))) {
		*slash = 0;
		next = *name ? step(dir, name) : dup(dir);
		if (next < 0) {
			fd = -errno;
			goto out;
		}
		if (dir != AT_FDCWD)
			close(dir);
		dir = next;
		name = slash + 1;
	}
	fd = openat(dir, *name ? name : ".", flags | O_NOFOLLOW, mode);
	if (fd < 0)
		fd = -errno;
out:
	if (dir != AT_FDCWD)
		close(dir);
	return fd;
}

int open_no_links(const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned)flags | O_NOFOLLOW,
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_NO_SYMLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd >= 0)
		return (int)fd;
	/* no openat2 (or a seccomp filter that refuses it): walk */
	if (errno == ENOSYS || errno == EPERM)
		return walk(path, flags, mode);
	return -errno;
}

int first_link(const char *path, char *buf, size_t len)
{
	struct stat st;
	size_t i, n = strlen(path);

	if (n >= len)
		return -1;
	for (i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(buf, path, i);
		buf[i] = 0;
		if (!lstat(buf, &st) && S_ISLNK(st.st_mode))
			return 0;
	}
	return -1;
}
