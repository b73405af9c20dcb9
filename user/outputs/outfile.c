// SPDX-License-Identifier: GPL-2.0
/*
 * Write errors on the report, and the exit status of a launched command.
 * stdio does not keep the errno of a failed write; the flush at the end
 * of a report retries what is still buffered and sets it again, and
 * errno is cleared when the report starts, so the cause given is the
 * write's own.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "outputs/outfile.h"
#include "support/error.h"
#include "support/nofollow.h"
#include "support/privs.h"

/*
 * Outputs opened and not emptied yet: -o, --record, --graph (a few at
 * most). A run's outputs are opened before anything is checked, so that
 * a path that cannot be written fails at once; emptying them waits for
 * the first report.
 */
#define MAX_PENDING 8

static struct pending {
	FILE *f;
	char *path;
	bool created;	/* by us: removed if nothing was written */
	bool emptied;
	dev_t dev;
	ino_t ino;
} pending[MAX_PENDING];

static struct pending *pending_of(FILE *f)
{
	int i;

	for (i = 0; f && i < MAX_PENDING; i++)
		if (pending[i].f == f)
			return &pending[i];
	return NULL;
}

FILE *out_open(const char *path, int *err)
{
	struct pending *p = NULL;
	struct stat st;
	bool created;
	FILE *f;
	int fd, i;

	for (i = 0; i < MAX_PENDING && !p; i++)
		if (!pending[i].f)
			p = &pending[i];
	if (!p) {
		*err = -EMFILE;
		return NULL;
	}
	fd = privs_create_output(path, &created);
	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f || fstat(fd, &st) || !(p->path = strdup(path))) {
		*err = -errno;
		if (f)
			fclose(f);
		else
			close(fd);
		if (created)
			unlink(path);
		return NULL;
	}
	p->f = f;
	p->created = created;
	p->emptied = !S_ISREG(st.st_mode);	/* a device or pipe: nothing to empty */
	p->dev = st.st_dev;
	p->ino = st.st_ino;
	return f;
}

void out_open_error(const char *what, const char *path, int err)
{
	char link[4096];
	uid_t uid;

	if (err == ELOOP && !first_link(path, link, sizeof(link)) &&
	    strcmp(link, path)) {
		/* a directory on the way: maybe a user's link to root's dir */
		errorf("%s file '%s' is reached through the symlink '%s' and tdbpf does not write through symlinks; give the real path (realpath '%s') or remove the link",
		       what, path, link, link);
	} else if (err == ELOOP) {
		/* O_NOFOLLOW: maybe a link planted in a shared dir */
		errorf("%s file '%s' is a symlink and tdbpf does not follow symlinks there; give the real path or remove the link",
		       what, path);
	} else if ((err == EACCES || err == EPERM) &&
		   privs_output_uid(&uid)) {
		errorf("cannot create %s file '%s': %s; under sudo tdbpf creates its files as the invoking user (uid %u, SUDO_UID): pick a path that user may write",
		       what, path, strerror(err), (unsigned)uid);
	} else {
		errorf("cannot create %s file '%s': %s; pick a writable path in an existing directory",
		       what, path, strerror(err));
	}
}

int out_close(FILE *f)
{
	struct pending *p = pending_of(f);
	struct stat st;
	int rc;

	if (!f)
		return 0;
	rc = fclose(f);
	if (!p)
		return rc;
	/* made for a run that wrote nothing: gone, if it is still ours */
	if (p->created && !p->emptied && !lstat(p->path, &st) &&
	    st.st_dev == p->dev && st.st_ino == p->ino && !st.st_size)
		unlink(p->path);
	free(p->path);
	memset(p, 0, sizeof(*p));
	return rc;
}

/* The first report to a file that was there: yesterday's goes now. */
static void empty_once(FILE *f)
{
	struct pending *p = pending_of(f);

	if (!p || p->emptied)
		return;
	p->emptied = true;
	if (!fflush(f) && !ftruncate(fileno(f), 0))
		rewind(f);
}

off_t out_mark(FILE *f)
{
	struct stat st;
	off_t off = -1;

	empty_once(f);
	if (!fflush(f) && !fstat(fileno(f), &st) && S_ISREG(st.st_mode))
		off = ftello(f);
	errno = 0;
	return off;
}

/* EFBIG from the file-size limit (ulimit -f), not the file system's */
static bool fsize_limited(void)
{
	struct rlimit rl;

	return !getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY;
}

static const char *hint(int e, bool report)
{
	if (e == EFBIG && fsize_limited())
		return report ? "the file-size limit (ulimit -f, RLIMIT_FSIZE) stops it; raise the limit or write elsewhere (-o FILE)" :
				"the file-size limit (ulimit -f, RLIMIT_FSIZE) stops it; raise the limit";
	switch (e) {
	case ENOSPC:
	case EDQUOT:
		return report ? "free some space or write elsewhere (-o FILE)" :
				"free some space or write it elsewhere";
	case EFBIG:
		return report ? "the file is too large for its file system; write elsewhere (-o FILE)" :
				"the file is too large for its file system; write it elsewhere";
	case EIO:
		return report ? "the device failed; write elsewhere (-o FILE)" :
				"the device failed; write it elsewhere";
	default:
		return report ? "check the output and write elsewhere (-o FILE)" :
				"check the output and write it elsewhere";
	}
}

int out_check(FILE *f, const char *name, off_t mark)
{
	return out_check_what(f, "the report", name, mark);
}

int out_check_what(FILE *f, const char *what, const char *name, off_t mark)
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
	fprintf(stderr, "tdbpf: cannot write %s to %s: %s%s; %s\n",
		what, where, strerror(e), cut,
		hint(e, !strcmp(what, "the report")));
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
