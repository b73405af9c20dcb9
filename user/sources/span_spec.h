/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The form of a --span source: usdt, usdt:PATH, gstreamer or
 * BINARY:FUNC[,FUNC...].
 */
#ifndef TDBPF_SPAN_SPEC_H
#define TDBPF_SPAN_SPEC_H

#include <stddef.h>

/* Is @spec one --span takes? 0, or -1 with @err. Nothing attached. */
int span_spec_check(const char *spec, char *err, size_t len);

/*
 * The file a checked @spec probes into @bin (of @size): usdt:PATH's
 * PATH, BINARY:FUNC's BINARY. 0, or -1 for usdt and gstreamer, whose
 * files are the targets'.
 */
int span_spec_binary(const char *spec, char *bin, size_t size);

#endif /* TDBPF_SPAN_SPEC_H */
