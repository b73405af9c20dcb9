// SPDX-License-Identifier: GPL-2.0
/* One error line on stderr (error.h). */
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
