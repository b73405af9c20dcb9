/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every file a command writes (-o, --record, --graph) is a file of its
 * own, and none is the file it reads (report's or decode's input): the
 * same file by device and inode, whatever the names (./x, an absolute
 * path, a hard link), so one output never overwrites another or the
 * recording it is made from.
 */
#ifndef TDBPF_OUTPATHS_H
#define TDBPF_OUTPATHS_H

#include <stddef.h>
#include "commands/options.h"

/* 0, or -1 with the one-line refusal in @err (exit status 2). */
int out_paths_check(const struct options *o, char *err, size_t len);

#endif /* TDBPF_OUTPATHS_H */
