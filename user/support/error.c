// SPDX-License-Identifier: GPL-2.0
/* One error line, on stderr or into a buffer (error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/error.h"
#include "support/text.h"

/* what stands for the middle of a line cut to fit */
#define CUT_MARK	"[...]"

void error_fit(char *dst, size_t len, const char *line)
{
	size_t n = strlen(line), mark = sizeof(CUT_MARK) - 1, head, tail;

	if (!len)
		return;
	if (n < len || len <= mark + 2) {
		n = n < len ? n : len - 1;
		memmove(dst, line, n);
		dst[n] = '\0';
		return;
	}
	/*
	 * A line says the problem first and the fix last; what makes one
	 * too long is the argument it quotes, in the middle. So the ends
	 * stay, the fix (the longer part) most.
	 */
	head = (len - 1 - mark) / 3;
	tail = len - 1 - mark - head;
	memmove(dst, line, head);
	memcpy(dst + head, CUT_MARK, mark);
	memmove(dst + head + mark, line + n - tail, tail);
	dst[len - 1] = '\0';
}

/*
 * @fmt into @dst, printable (a newline or an escape sequence in a quoted
 * argument must not split the line or drive the terminal), cut in the
 * middle to fit.
 */
static void format_line(char *dst, size_t len, const char *fmt, va_list ap)
{
	char *full = NULL;
	va_list again;

	va_copy(again, ap);
	if (vasprintf(&full, fmt, ap) < 0) {
		/* no memory for the whole line: its start, as it comes */
		vsnprintf(dst, len, fmt, again);
		full = NULL;
	} else {
		error_fit(dst, len, full);
	}
	va_end(again);
	free(full);
	text_printable(dst, len, dst, NULL, 0);
}

void errorf(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	format_line(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "tdbpf: %s\n", msg);
}

int error_set(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return -1;
	va_start(ap, fmt);
	format_line(err, len, fmt, ap);
	va_end(ap);
	return -1;
}
