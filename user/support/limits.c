// SPDX-License-Identifier: GPL-2.0
/* Resource limits named as the cause they are (limits.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "support/limits.h"
#include "support/error.h"

/* The limits as tdbpf found them, for a command it launches. */
static struct rlimit orig_nofile, orig_stack;
static bool raised_nofile, raised_stack;

void limits_restore(void)
{
	if (raised_nofile)
		setrlimit(RLIMIT_NOFILE, &orig_nofile);
	if (raised_stack)
		setrlimit(RLIMIT_STACK, &orig_stack);
}

int limits_nofile(size_t need, char *err, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		error_set(err, len,
			 "the open-file limit (ulimit -n) is %llu and tracing here needs about %zu files (counters, BPF maps and programs); raise it, e.g. ulimit -n %zu",
			 (unsigned long long)rl.rlim_max, need,
			 need < 1024 ? (size_t)1024 : need * 2);
		return -1;
	}
	orig_nofile = rl;
	rl.rlim_cur = need;
	/* refused: a later open fails and limits_nofile_hint() says why */
	raised_nofile = !setrlimit(RLIMIT_NOFILE, &rl);
	return 0;
}

int limits_stack(size_t need, char *err, size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		error_set(err, len,
			 "the stack limit (ulimit -s) is %llu KiB and tdbpf needs %zu KiB (its report writers keep their buffers there); raise it, e.g. ulimit -s 8192",
			 (unsigned long long)rl.rlim_max >> 10, need >> 10);
		return -1;
	}
	orig_stack = rl;
	rl.rlim_cur = need;
	raised_stack = !setrlimit(RLIMIT_STACK, &rl);
	return 0;
}

const char *limits_memory_hint(void)
{
	static char msg[200];
	const size_t probe = 32 << 20;
	struct rlimit rl;
	void *p;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return NULL;
	/* address space, not memory: the mapping is never touched */
	p = mmap(NULL, probe, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED) {
		munmap(p, probe);
		return NULL;
	}
	snprintf(msg, sizeof(msg),
		 "out of memory under the address-space limit (ulimit -v is %llu KiB): raise it, or lift it with ulimit -v unlimited",
		 (unsigned long long)rl.rlim_cur >> 10);
	return msg;
}

const char *limits_nofile_hint(void)
{
	static char msg[200];
	struct rlimit rl;
	int fd = fcntl(0, F_DUPFD_CLOEXEC, 0);

	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	if (errno != EMFILE || getrlimit(RLIMIT_NOFILE, &rl))
		return NULL;
	snprintf(msg, sizeof(msg),
		 "no file descriptor left under the open-file limit (ulimit -n is %llu): raise it, e.g. ulimit -n 1024",
		 (unsigned long long)rl.rlim_cur);
	return msg;
}
