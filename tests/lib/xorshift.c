// SPDX-License-Identifier: GPL-2.0
/* The tests' pseudo-random numbers (xorshift.h). */
#include "xorshift.h"

uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}
