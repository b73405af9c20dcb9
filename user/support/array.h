/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The number of elements of an array (not of a pointer: it must be
 * one), and the growth of one that is appended to.
 */
#ifndef TDBPF_ARRAY_H
#define TDBPF_ARRAY_H

#include <stddef.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Room for element @nr in the array at *@pv (the address of a T *) of
 * *@cap elements of @size bytes: doubled when full, @min the first
 * time. 0, or -ENOMEM with the array and *@cap as they were.
 */
int array_grow(void *pv, size_t *cap, size_t nr, size_t size, size_t min);

/*
 * The array at *@pv (of *@cap elements of @size bytes) made a copy of
 * @src's @nr, grown to @nr exactly if it held fewer. 0, or -ENOMEM with
 * the array and *@cap as they were.
 */
int array_copy(void *pv, size_t *cap, const void *src, size_t nr,
	       size_t size);

#endif /* TDBPF_ARRAY_H */
