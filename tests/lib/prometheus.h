/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A real Prometheus server for test_prometheus and test_fleet_prom:
 * Debian's `prometheus` (make deps), its own config, data and log in a
 * scratch directory, on 127.0.0.1 at a port the kernel picks. Compiled
 * once into the test library (tests/lib/).
 */
#ifndef TDBPF_TEST_PROMETHEUS_H
#define TDBPF_TEST_PROMETHEUS_H

#include <sys/types.h>

/* A port free now on 127.0.0.1 (the kernel's pick). */
int free_port(void);

/*
 * Start prometheus in @dir (@dir/prometheus.yml, @dir/data, its output
 * in @dir/prometheus.log), scraping every second, as job "tdbpf", the
 * @n targets 127.0.0.1:@ports[i], each labelled host=@hosts[i] when
 * @hosts is not NULL. It listens on 127.0.0.1:*@port; returns its pid
 * (-1 if fork failed). Not waited for: its /-/ready says when it is.
 */
pid_t start_prometheus(const char *dir, const int *ports,
		       const char *const *hosts, int n, int *port);

#endif /* TDBPF_TEST_PROMETHEUS_H */
