// SPDX-License-Identifier: GPL-2.0
/*
 * The form of a --span source (span_spec.h), apart from the probes
 * themselves: option parsing, and its fuzzer, need no libbpf.
 */
#include <stdio.h>
#include <string.h>
#include "sources/span_spec.h"
#include "support/error.h"

int span_spec_check(const char *spec, char *err, size_t len)
{
	const char *colon = strrchr(spec, ':');

	if (!strcmp(spec, "usdt") || !strcmp(spec, "gstreamer"))
		return 0;
	if (!strncmp(spec, "usdt:", 5)) {
		if (!spec[5])
			return error_set(err, len,
					 "--span usdt: names no binary; give usdt:PATH (a program or a library)");
		return 0;
	}
	if (!colon || colon == spec || !colon[1] || strstr(colon, ",,") ||
	    colon[strlen(colon) - 1] == ',') {
		/* error_set(): the spec quoted as printable, on one line */
		return error_set(err, len,
				 "--span %s: not a span source; give usdt, usdt:PATH, gstreamer or BINARY:FUNC[,FUNC...]",
				 spec);
	}
	return 0;
}

int span_spec_binary(const char *spec, char *bin, size_t size)
{
	const char *colon = strrchr(spec, ':');

	if (!strncmp(spec, "usdt:", 5))
		snprintf(bin, size, "%s", spec + 5);
	else if (colon && strcmp(spec, "usdt") && strcmp(spec, "gstreamer"))
		snprintf(bin, size, "%.*s", (int)(colon - spec), spec);
	else
		return -1;
	return 0;
}
