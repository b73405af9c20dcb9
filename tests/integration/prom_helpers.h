/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the /metrics tests include: the test library's prom_test.h (a
 * tdbpf serving /metrics, an HTTP client, the exposition parsed) and
 * the headers their own code needs. Include after helpers.h.
 */
#ifndef TDBPF_TEST_PROM_HELPERS_H
#define TDBPF_TEST_PROM_HELPERS_H

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include "helpers.h"
#include "prom_test.h"

#endif /* TDBPF_TEST_PROM_HELPERS_H */
