// SPDX-License-Identifier: GPL-2.0
/* A real Prometheus server for the tests (prometheus.h). */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "prometheus.h"
#include "proc.h"

int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
	    !getsockname(fd, (struct sockaddr *)&a, &len))
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

pid_t start_prometheus(const char *dir, const int *ports,
		       const char *const *hosts, int n, int *port)
{
	char cfg[320], a1[64], a2[336], a3[336], log[320];
	char *argv[] = { "prometheus", a1, a2, a3, "--log.level=warn", NULL };
	struct spawn_opts o = { .out = IO_CREATE, .out_path = log,
				.err = IO_AS_OUT, .search_path = true };
	FILE *f;
	int i;

	snprintf(cfg, sizeof(cfg), "%s/prometheus.yml", dir);
	f = fopen(cfg, "w");
	assert_non_null(f);
	fprintf(f, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
		   "scrape_configs:\n  - job_name: tdbpf\n    static_configs:\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "      - targets: ['127.0.0.1:%d']\n", ports[i]);
		if (hosts)
			fprintf(f, "        labels: {host: %s}\n", hosts[i]);
	}
	fclose(f);
	*port = free_port();
	assert_true(*port > 0);
	snprintf(a1, sizeof(a1), "--web.listen-address=127.0.0.1:%d", *port);
	snprintf(a2, sizeof(a2), "--storage.tsdb.path=%s/data", dir);
	snprintf(a3, sizeof(a3), "--config.file=%s", cfg);
	snprintf(log, sizeof(log), "%s/prometheus.log", dir);
	return spawn_with(argv, &o).pid;
}
