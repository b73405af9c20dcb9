/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf's exit habits for the report's output and a launched command: a
 * report that cannot be written is one line and exit 1, never silence;
 * a reader that went away is not an error; -- COMMAND's status is ours.
 */
#ifndef TDBPF_OUTFILE_H
#define TDBPF_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

/*
 * Open output @path (privs_create_output(): no symlinks, the sudo user's)
 * without emptying it: the first out_mark() empties it, so that a run
 * refused before its first report leaves yesterday's file as it was.
 * NULL with -errno in *@err.
 */
FILE *out_open(const char *path, int *err);
/*
 * The one error line for out_open()'s -@err on @path, the @what file
 * ("output", "record", "graph"): a symlink on the way is named, and a
 * refusal under sudo says whose rights the file is created with.
 */
void out_open_error(const char *what, const char *path, int err);
/*
 * Close @f (from out_open() or not): 0 or EOF as fclose(). A file that
 * out_open() created and nothing was written to is removed again.
 */
int out_close(FILE *f);

/*
 * Before a report to @f: where it starts, if @f is a regular file (else
 * -1). Also clears errno, so that out_check() sees the write's own.
 */
off_t out_mark(FILE *f);

/*
 * After a report to @f (named @name: the -o FILE, or NULL for stdout):
 * flush it; 0 if all was written. -EPIPE if the reader went away (a
 * closed pipe: quiet, as perf, for `tdbpf ... | head`). Any other error
 * (ENOSPC, EIO, ...): one line on stderr naming the output and the
 * cause, the partial report cut from a regular file back to @mark so
 * that what remains holds only whole reports, and -errno.
 */
int out_check(FILE *f, const char *name, off_t mark);
/* The same for @what ("the graph", "the recording"), not the report. */
int out_check_what(FILE *f, const char *what, const char *name, off_t mark);

/*
 * The exit status of a command from its wait status, as a shell gives
 * it: its exit code, or 128 + N when signal N killed it.
 */
int out_child_status(int wstatus);

#endif /* TDBPF_OUTFILE_H */
