// SPDX-License-Identifier: GPL-2.0
/*
 * exitwork: a process whose exit costs the kernel real CPU time, for the
 * test that a task's sums hold all of its exit: unmapping MIB of touched
 * memory happens in do_exit(), after the sched_process_exit tracepoint,
 * and the process's CPU time includes it.
 *
 * usage: exitwork [MIB]   (default 128)
 * stdout: "pid=<pid>"; then, once a line comes on stdin, it touches every
 * page of MIB fresh memory, prints "cpu_go=<ns> cpu_end=<ns>" (its CPU
 * clock when the line came and just before it exits) and exits.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
	long mib = argc > 1 ? parse_num(argv[1], "MIB", 1, 4096) : 128;
	long page = sysconf(_SC_PAGESIZE), n = mib * 1024 * 1024 / page, i;
	long long go, end;
	volatile char *p;
	char line[16];

	announce_pid();
	/* the clock's path paged in now: the line's wakeup costs little */
	go = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	go = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("exitwork: mmap");
		return 1;
	}
	/* small pages: the exit frees every one of them */
	madvise((void *)p, (size_t)(n * page), MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	end = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	printf("cpu_go=%lld cpu_end=%lld\n", go, end);
	/* the mapping stays: exit unmaps it */
	return 0;
}
