/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one printable-text sanitizer. Names tdbpf prints come from
 * elsewhere (thread names, the command line, input files) and can hold
 * any byte: a newline would split a one-line error or a CSV record, an
 * escape sequence would drive the terminal. JSON has its own escaping
 * (json.c); everything else goes through here.
 */
#ifndef TDBPF_TEXT_H
#define TDBPF_TEXT_H

#include <stddef.h>

enum text_flags {
	/* every byte >= 0x80 too: fixed-width columns count bytes */
	TEXT_ASCII = 1,
	/* a cut text ends in "..." (within @len) */
	TEXT_ELLIPSIS = 2,
};

/*
 * Copy @src into @dst (@len bytes with the NUL, @len > 0), writing '?'
 * for each control byte (< 0x20, DEL), each byte of @also (may be NULL:
 * a CSV separator) and, with TEXT_ASCII, each byte >= 0x80. @dst may be
 * @src. Returns @dst.
 */
char *text_printable(char *dst, size_t len, const char *src,
		     const char *also, unsigned int flags);

#endif /* TDBPF_TEXT_H */
