// SPDX-License-Identifier: GPL-2.0
/* One error line, on stderr or into a buffer (error.h). */
#include <stdarg.h>
#include <stdio.h>
#include "support/error.h"
#include "support/text.h"

void errorf(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* names quoted from the command line stay on one printable line */
	text_printable(msg, sizeof(msg), msg, NULL, 0);
	fprintf(stderr, "tdbpf: %s\n", msg);
}

int error_set(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	/*
	 * The message quotes the user's argument: a newline or an escape
	 * sequence in it must not split the line or drive the terminal.
	 */
	text_printable(err, len, err, NULL, 0);
	return -1;
}
