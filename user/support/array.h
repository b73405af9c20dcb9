/* SPDX-License-Identifier: GPL-2.0 */
/* The number of elements of an array (not of a pointer: it must be one). */
#ifndef TDBPF_ARRAY_H
#define TDBPF_ARRAY_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* TDBPF_ARRAY_H */
