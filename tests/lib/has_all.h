/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The strings a test's text must hold, or must not, asserted in one
 * call: a report's line, a DOT file, a command's output; and where in a
 * text or a list a string stands. Compiled once into the test
 * library (tests/lib/).
 */
#ifndef TDBPF_TEST_HAS_ALL_H
#define TDBPF_TEST_HAS_ALL_H

#include <stdbool.h>

/* Each of the NULL-ended @want stands in @s; else the test fails. */
void has_all(const char *s, const char *const *want);

/* None of the NULL-ended @unwanted stands in @s; else the test fails. */
void has_none(const char *s, const char *const *unwanted);

/* Whether @s is one of the @nr strings of @v. */
bool str_in(char *const *v, int nr, const char *s);

/* How many lines of @text hold @what. */
int lines_with(const char *text, const char *what);

/* has_all()'s list: STRS("a", "b") */
#define STRS(...) ((const char *const[]){ __VA_ARGS__, NULL })

#endif /* TDBPF_TEST_HAS_ALL_H */
