/* SPDX-License-Identifier: GPL-2.0 */
/* tdbpf report FILE: print a -j recording again (cmd_report.c). */
#ifndef TDBPF_CMD_REPORT_H
#define TDBPF_CMD_REPORT_H

#include <stdio.h>
#include "options.h"

/* The exit code: 0, 1 runtime error, 2 bad input (one line said). */
int cmd_report(const struct options *o, FILE *out);

#endif /* TDBPF_CMD_REPORT_H */
