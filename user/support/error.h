/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way tdbpf says what went wrong: a line "tdbpf: <problem>;
 * <fix>" on stderr. Every stage may fail in front of the user (a
 * recording that cannot be written, a bad option), so it lives here.
 */
#ifndef TDBPF_ERROR_H
#define TDBPF_ERROR_H

void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* TDBPF_ERROR_H */
