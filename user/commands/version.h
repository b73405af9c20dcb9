/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TDBPF_VERSION_H
#define TDBPF_VERSION_H

#include <stdio.h>

/* The build's version string (git describe, or the package's version). */
const char *tdbpf_version(void);

/*
 * tdbpf --version: our version, libbpf's (the one loaded, and the one we
 * were built against), the kernel, and the BPF features tracing needs,
 * probed now. Returns the exit status: 0 (a missing feature is reported,
 * not an error: --version must work anywhere).
 */
int version_print(FILE *out);

#endif
