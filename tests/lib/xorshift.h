/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' pseudo-random numbers: xorshift64, from a fixed seed, so
 * that a failure repeats. Compiled once into the test library.
 */
#ifndef TDBPF_TEST_XORSHIFT_H
#define TDBPF_TEST_XORSHIFT_H

#include <stdint.h>

#define XORSHIFT_SEED 0x9e3779b97f4a7c15ULL

/* The next number after *@s (seed it with XORSHIFT_SEED). */
uint64_t xorshift64(uint64_t *s);

#endif /* TDBPF_TEST_XORSHIFT_H */
