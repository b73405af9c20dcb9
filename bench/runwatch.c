// SPDX-License-Identifier: GPL-2.0
/*
 * runwatch: run a command, pass its stderr through, and time it.
 *
 * usage: runwatch MARKER -- COMMAND [ARGS]
 *
 * Prints on stdout, one per line:
 *   child=<pid>          at once, so a script can look at the process
 *   marker_ms=<ms>       when a line of the child's stderr contains MARKER
 *                        (time since fork), once
 *   wall_ms=<ms>         when the child has exited
 *   maxrss_kb=<kb>       the child's peak RSS (wait4 rusage)
 *   status=<exit code>
 * The child's stdout is inherited; its stderr is copied to our stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

static double mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	char line[4096];
	struct rusage ru;
	const char *marker;
	int seen = 0, pfd[2], status;
	double t0;
	FILE *err;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: runwatch MARKER -- COMMAND [ARGS]\n");
		return 2;
	}
	marker = argv[1];
	if (pipe(pfd)) {
		perror("runwatch: pipe");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, forward);
	signal(SIGTERM, forward);
	t0 = mono_ms();
	child = fork();
	if (child < 0) {
		perror("runwatch: fork");
		return 1;
	}
	if (child == 0) {
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[3], argv + 3);
		fprintf(stderr, "runwatch: %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	printf("child=%d\n", (int)child);
	err = fdopen(pfd[0], "r");
	while (err && fgets(line, sizeof(line), err)) {
		if (!seen && strstr(line, marker)) {
			printf("marker_ms=%.3f\n", mono_ms() - t0);
			seen = 1;
		}
		fputs(line, stderr);
	}
	while (wait4(child, &status, 0, &ru) < 0 && errno == EINTR)
		;
	printf("wall_ms=%.3f\n", mono_ms() - t0);
	printf("maxrss_kb=%ld\n", ru.ru_maxrss);
	printf("status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) :
						  128 + WTERMSIG(status));
	return 0;
}
