// SPDX-License-Identifier: GPL-2.0
/*
 * tdbpf: per-task TopDown and scheduling breakdown, attributed in the
 * kernel at sched_switch. This file reads the command line, opens the
 * output and runs the subcommand (cmd_*.c).
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include "commands/cmd.h"
#include "commands/complete.h"
#include "commands/options.h"
#include "commands/version.h"
#include "outputs/outfile.h"
#include "support/privs.h"

static int cmd_help(const struct options *o, FILE *out)
{
	(void)o;
	print_usage(out);
	return 0;
}

static int cmd_version(const struct options *o, FILE *out)
{
	(void)o;
	return version_print(out);
}

/* What each subcommand runs, by enum command (options.c parses them). */
static int (*const run_cmd[CMD_NR])(const struct options *, FILE *) = {
	[CMD_TRACE] = cmd_trace,
	[CMD_LIST] = cmd_list,
	[CMD_DECODE] = cmd_decode,
	[CMD_REPORT] = cmd_report,
	[CMD_TOP] = cmd_trace,		/* the same targets, another driver */
	[CMD_GRAPH] = cmd_graph,
	[CMD_HELP] = cmd_help,
	[CMD_VERSION] = cmd_version,
};

int main(int argc, char **argv)
{
	struct options o;
	char err[512];
	FILE *out = stdout;
	off_t mark = -1;
	int rc, fd;

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
		return run_cmd[o.cmd](&o, stdout);
	if (o.output) {
		fd = privs_create_output(o.output);
		if (fd == -ELOOP) {
			/* O_NOFOLLOW: maybe a link planted in a shared dir */
			errorf("output file '%s' is a symlink and tdbpf does not follow symlinks there; give the real path or remove the link",
			       o.output);
			return 2;
		}
		if (fd < 0 || !(out = fdopen(fd, "w"))) {
			errorf("cannot create output file '%s': %s; pick a writable path in an existing directory",
			       o.output, strerror(fd < 0 ? -fd : errno));
			return 2;
		}
	}
	/* tracing checks each report as it is written (sink.c) */
	if (o.cmd != CMD_TRACE)
		mark = out_mark(out);
	rc = run_cmd[o.cmd](&o, out);
	if (o.cmd != CMD_TRACE && !rc && out_check(out, o.output, mark))
		rc = 1;
	if (out != stdout && fclose(out) && !rc) {
		errorf("cannot write the report to '%s': %s; check the file system",
		       o.output, strerror(errno));
		rc = 1;
	}
	return rc;
}
