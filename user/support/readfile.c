// SPDX-License-Identifier: GPL-2.0
/* A small file read whole (readfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "support/readfile.h"

ssize_t read_head(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return n;
}

int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n = read_head(path, buf, len);

	if (n < 0)
		return (int)n;
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}
