/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The strings a test's text must hold, asserted in one call: a report's
 * line, a DOT file, a command's output. Compiled once into the test
 * library (tests/lib/).
 */
#ifndef TDBPF_TEST_HAS_ALL_H
#define TDBPF_TEST_HAS_ALL_H

/* Each of the NULL-ended @want stands in @s; else the test fails. */
void has_all(const char *s, const char *const *want);

/* has_all()'s list: STRS("a", "b") */
#define STRS(...) ((const char *const[]){ __VA_ARGS__, NULL })

#endif /* TDBPF_TEST_HAS_ALL_H */
