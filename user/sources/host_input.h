/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdbpf graph's files: a JSON report (tdbpf -j) or a recording
 * (--record, -I or not) read into one host's report (sums/hosts.h).
 */
#ifndef TDBPF_HOST_INPUT_H
#define TDBPF_HOST_INPUT_H

#include <stddef.h>
#include "sums/hosts.h"

/*
 * Read @path ("-": stdin) into @h: its whole-run report (a recording's
 * last one, which covers all of its intervals), named @name, or by its
 * "host" when @name is NULL. 0, or -1 with @err holding one line,
 * "problem; fix", that does not name the file (the caller does).
 */
int host_read_file(const char *path, const char *name, struct host_report *h,
		   char *err, size_t len);

#endif /* TDBPF_HOST_INPUT_H */
