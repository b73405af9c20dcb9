/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TDBPF_COMPLETE_H
#define TDBPF_COMPLETE_H

#include <stdio.h>

/*
 * tdbpf --complete WHAT (hidden, for completion/tdbpf): the words an
 * option takes, one per line, from the tables the program itself uses.
 * WHAT is "models" or "sort". Returns the exit status.
 */
int complete_print(FILE *out, const char *what);

#endif
