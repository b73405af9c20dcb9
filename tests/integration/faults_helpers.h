/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What test_faults, test_conservation and test_privs share: the
 * capabilities tdbpf keeps, and (in the test library, bpf_objects.h)
 * the tdbpf objects in the kernel before and after a run. Include after
 * helpers.h.
 */
#ifndef TDBPF_TEST_FAULTS_HELPERS_H
#define TDBPF_TEST_FAULTS_HELPERS_H

#include <dirent.h>
#include <sys/prctl.h>
#include "bpf_objects.h"
#include "helpers.h"

#define NOBODY		65534
/*
 * CAP_PERFMON (38), CAP_BPF (39): what tdbpf keeps; CAP_KILL (5) too
 * only with a command to stop (-- COMMAND)
 */
#define KEPT_CAPS	((1ULL << 38) | (1ULL << 39))

#endif /* TDBPF_TEST_FAULTS_HELPERS_H */
