// SPDX-License-Identifier: GPL-2.0
/*
 * pagefaults: touch a known number of fresh pages, for the test that a
 * counter read as a group member (page-faults) is charged to the task.
 *
 * usage: pagefaults [MIB]   (default 64)
 * stdout: "pages=<n>" once every page has been touched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 64;
	long page = sysconf(_SC_PAGESIZE), n, i;
	volatile char *p;

	if (mib <= 0 || mib > 4096) {
		fprintf(stderr, "pagefaults: give 1..4096 MiB\n");
		return 2;
	}
	n = mib * 1024 * 1024 / page;
	/* anonymous and not huge: exactly one fault per page touched */
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("pagefaults: mmap");
		return 1;
	}
	madvise((void *)p, n * page, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	printf("pages=%ld\n", n);
	return 0;
}
