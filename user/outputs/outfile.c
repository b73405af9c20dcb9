// SPDX-License-Identifier: GPL-2.0
/*
 * Write errors on the report, and the exit status of a launched command.
 * stdio does not keep the errno of a failed write; the flush at the end
 * of a report retries what is still buffered and sets it again, and
 * errno is cleared when the report starts, so the cause given is the
 * write's own.
 */
#include <errno.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "outputs/outfile.h"

off_t out_mark(FILE *f)
{
	struct stat st;
	off_t off = -1;

	if (!fflush(f) && !fstat(fileno(f), &st) && S_ISREG(st.st_mode))
		off = ftello(f);
	errno = 0;
	return off;
}

static const char *hint(int e)
{
	switch (e) {
	case ENOSPC:
	case EDQUOT:
		return "free some space or write elsewhere (-o FILE)";
	case EFBIG:
		return "the file is too large for its file system; write elsewhere (-o FILE)";
	case EIO:
		return "the device failed; write elsewhere (-o FILE)";
	default:
		return "check the output and write elsewhere (-o FILE)";
	}
}

int out_check(FILE *f, const char *name, off_t mark)
{
	char where[300], *p;
	const char *cut = "";
	int e;

	if (!fflush(f) && !ferror(f))
		return 0;
	e = errno ? errno : EIO;
	if (e == EPIPE)
		return -EPIPE;
	/* what stays in the file is whole reports only */
	if (mark >= 0) {
		cut = ftruncate(fileno(f), mark) ?
			      "; the file holds a partial report" :
			      "; the partial report was removed from it";
	}
	if (name)
		snprintf(where, sizeof(where), "'%s'", name);
	else
		snprintf(where, sizeof(where), "standard output");
	for (p = where; *p; p++)	/* one printable line */
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	fprintf(stderr, "tdbpf: cannot write the report to %s: %s%s; %s\n",
		where, strerror(e), cut, hint(e));
	/* stdio would try the buffer again at exit: drop it */
	__fpurge(f);
	clearerr(f);
	return -e;
}

int out_child_status(int wstatus)
{
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	return 1;
}
