// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf: per-task TopDown and scheduling breakdown, attributed in the
 * kernel at sched_switch. This file reads the command line, opens the
 * output and runs the subcommand (cmd_*.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "commands/cmd.h"
#include "commands/complete.h"
#include "commands/options.h"
#include "commands/outpaths.h"
#include "commands/subcommands.h"
#include "outputs/outfile.h"
#include "support/limits.h"
#include "support/privs.h"

/*
 * Descriptors 0-2 that the caller closed are filled with /dev/null:
 * else the next open takes one, and a warning meant for stderr lands in
 * the -o file, or the report meant for stdout in a BPF map's fd. Returns
 * whether stdout was closed (a report there would be lost: refused).
 */
static bool fill_std_fds(void)
{
	bool out_closed = false;
	int fd;

	for (fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (fd == 1)
			out_closed = true;
		/* the lowest free fd is @fd itself */
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(2);
	}
	return out_closed;
}

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	FILE *out = stdout;
	off_t mark = -1;
	int rc, fd = 0;
	bool out_closed = fill_std_fds();

	/*
	 * A write past the file-size limit (ulimit -f) would end tdbpf
	 * with SIGXFSZ, before or after the run's signal loop and with no
	 * word: ignored, the write fails with EFBIG and is said as any
	 * write error is (the loop still takes a kill -XFSZ as a stop).
	 */
	signal(SIGXFSZ, SIG_IGN);

	/*
	 * Keep freed memory for the next report: a report of 10,000 tasks
	 * fills tables of megabytes, and on a VM the first touch of a page
	 * costs tens of microseconds (the host backs it then), so pages
	 * handed back to the kernel and taken again cost more than the
	 * report's own work. Big blocks come from the heap and stay there.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	/* hidden: word lists for completion/tdbpf */
	if (argc == 3 && !strcmp(argv[1], "--complete"))
		return complete_print(stdout, argv[2]);
	if (parse_options(argc, argv, &o, err, sizeof(err))) {
		errorf("%s", err);
		return 2;
	}
	/* help and version print on stdout: -o is not even created */
	if (subcommands[o.cmd].stdout_only)
		return subcommands[o.cmd].run(&o, stdout);
	/*
	 * A report writer keeps 256 KiB buffers on the stack (report_json.c,
	 * report_table.c, cmd_list.c): under ulimit -s 256 tdbpf died of
	 * SIGSEGV with its -o file half made. 1 MiB is four of them.
	 */
	if (limits_stack(1 << 20, err, sizeof(err))) {
		errorf("%s", err);
		return 1;
	}
	/*
	 * A launched command's report goes to stderr, as perf stat's: the
	 * command's own output keeps stdout, and neither is cut into the
	 * other's lines (-o FILE puts it anywhere else)
	 */
	if (o.cmd == CMD_TRACE && o.argv && !o.output) {
		/* buffered as stdout is: stderr's own FILE writes unbuffered */
		fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		out = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!out) {
			if (fd >= 0)
				close(fd);
			out = stderr;
		}
		fd = 0;
	}
	if (out_closed && !o.output && out == stdout) {
		errorf("standard output is closed, and the report would be lost; give -o FILE, or run tdbpf with its output open");
		return 2;
	}
	/* whose files and command these are: unreadable is refused */
	if (privs_check_sudo(err, sizeof(err)) ||
	    out_paths_check(&o, err, sizeof(err))) {
		errorf("%s", err);
		return 2;
	}
	if (o.output) {
		out = out_open(o.output, &fd);
		if (!out) {
			out_open_error("output", o.output, -fd);
			return 2;
		}
	}
	/*
	 * Reports check themselves as they are written (sink.c), and the
	 * first empties the -o file (out_open()); list and decode empty it
	 * once their input is checked.
	 */
	rc = subcommands[o.cmd].run(&o, out);
	if (o.cmd != CMD_TRACE && !rc && out_check(out, o.output, mark))
		rc = 1;
	if (out != stdout && out != stderr && out_close(out) && !rc &&
	    o.output) {
		errorf("cannot write the report to '%s': %s; check the file system",
		       o.output, strerror(errno));
		rc = 1;
	}
	return rc;
}
