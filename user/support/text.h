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

/* JSON and the Prometheus exposition both pass valid UTF-8 through. */
/* Length of the valid UTF-8 sequence at @s (@n bytes left), 0 if none. */
static inline size_t text_utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;	/* continuation byte, 0xc0/0xc1, 0xf5.. */
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

#endif /* TDBPF_TEXT_H */
