/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way tdbpf says what went wrong: a line "tdbpf: <problem>;
 * <fix>" on stderr. Every stage may fail in front of the user (a
 * recording that cannot be written, a bad option), so it lives here.
 */
#ifndef TDBPF_ERROR_H
#define TDBPF_ERROR_H

#include <stddef.h>

void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The same line, without "tdbpf: ", into @err (@len bytes) for a caller
 * to print: the parsers' and checks' way to fail. Returns -1.
 */
int error_set(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * @line into @dst (@len bytes with the NUL): whole when it fits, else
 * its start and its end (the problem and the fix) with "[...]" for the
 * middle. @dst may be @line. Every error line is made to fit so.
 */
void error_fit(char *dst, size_t len, const char *line);

#endif /* TDBPF_ERROR_H */
