/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Spans for tdbpf: mark the operator a thread runs, so that `tdbpf
 * --span usdt` charges its on-CPU time, waits and counters to the
 * operator rather than to the thread (docs/spans.md).
 *
 *	TDBPF_SPAN_ENTER("enrich");
 *	enrich(rec);
 *	TDBPF_SPAN_EXIT("enrich");
 *
 * Each macro is a USDT probe of <sys/sdt.h> (Debian: systemtap-sdt-dev):
 * provider "tdbpf", probes "span_enter" and "span_exit", arg0 the
 * operator's name, a NUL-terminated string read at each boundary (its
 * first 31 bytes name the span: an exit matches its enter by name, not
 * by address). Untraced, a probe is one nop instruction and the name's
 * address in a register: no semaphore, no branch. Traced, it is a trap
 * (2-5 us on a small VM, docs/spans.md): mark operators that run for
 * tens of microseconds or more. Spans nest (the innermost gets the
 * time); an exit pops the spans up to the one of its name, so a longjmp
 * out of an inner span leaks nothing.
 */
#ifndef TDBPF_SPAN_H
#define TDBPF_SPAN_H

#include <sys/sdt.h>

#define TDBPF_SPAN_ENTER(name)	DTRACE_PROBE1(tdbpf, span_enter, name)
#define TDBPF_SPAN_EXIT(name)	DTRACE_PROBE1(tdbpf, span_exit, name)

#endif /* TDBPF_SPAN_H */
