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
#include <string.h>

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
 * @src. Returns @dst. Inline: every thread name of a report goes
 * through it, and a call cost as much as the loop.
 */
static inline char *text_printable(char *dst, size_t len, const char *src,
				   const char *also, unsigned int flags)
{
	/* with an ellipsis, stop 3 bytes early to leave it room */
	size_t room = flags & TEXT_ELLIPSIS ? (len > 4 ? len - 4 : 0) :
					      len - 1;
	/* kept: 0x20 up to the last byte allowed, but DEL */
	unsigned int span = (flags & TEXT_ASCII ? 0x7eU : 0xffU) - 0x20U;
	size_t i;

	for (i = 0; i < room && src[i]; i++) {
		unsigned int c = (unsigned char)src[i];

		dst[i] = c - 0x20U <= span && c != 0x7f ? (char)c : '?';
	}
	/* a separator: a second pass, only where there is one */
	for (room = i, i = 0; also && i < room; i++)
		if (strchr(also, dst[i]))
			dst[i] = '?';
	i = room;
	if ((flags & TEXT_ELLIPSIS) && src[i]) {
		memcpy(dst + i, "...", 3);
		i += 3;
	}
	dst[i] = '\0';
	return dst;
}

#endif /* TDBPF_TEXT_H */
