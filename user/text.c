// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <string.h>
#include "text.h"

char *text_printable(char *dst, size_t len, const char *src,
		     const char *also, unsigned int flags)
{
	/* with an ellipsis, stop 3 bytes early to leave it room */
	size_t room = flags & TEXT_ELLIPSIS ? (len > 4 ? len - 4 : 0) :
					      len - 1;
	size_t i;

	for (i = 0; i < room && src[i]; i++) {
		unsigned char c = (unsigned char)src[i];
		bool bad = c < 0x20 || c == 0x7f ||
			   (c >= 0x80 && (flags & TEXT_ASCII)) ||
			   (also && strchr(also, c));

		dst[i] = bad ? '?' : (char)c;
	}
	if ((flags & TEXT_ELLIPSIS) && src[i]) {
		memcpy(dst + i, "...", 3);
		i += 3;
	}
	dst[i] = '\0';
	return dst;
}
