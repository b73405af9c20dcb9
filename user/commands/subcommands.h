/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one command table: each subcommand's word, synopsis, the option
 * groups it takes, its own validation (all pure, so they are fuzzed) and
 * what it runs; and parse_options(), which reads a command line through
 * it. A new subcommand: an enum command value (options.h), an entry in
 * the table (subcommands.c), and its cmd_NAME.c. Messages that list the
 * subcommands are made from the table.
 */
#ifndef TDBPF_SUBCOMMANDS_H
#define TDBPF_SUBCOMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "commands/options.h"

struct subcommand {
	enum command id;
	const char *name;	/* the first word; NULL: -p/-t/-a/-- tracing */
	const char *synopsis;	/* what follows "tdbpf " in the usage */
	const char *summary;	/* what it does, one line (its --help) */
	bool hidden;		/* accepted, not listed (help) */
	bool stdout_only;	/* prints on stdout: -o is not opened */
	/* operands may come before options (a file, not a command) */
	bool operands_anywhere;
	unsigned int takes;	/* enum option_group: the groups it takes */
	/*
	 * After the options are read: take operands (@argv from @optind)
	 * and refuse what this subcommand does not take. 0, or -1 with
	 * @err (one line: problem; fix).
	 */
	int (*check)(struct options *o, int argc, char **argv, int optind,
		     char *err, size_t len);
	/* Run it: the exit status (cmd.h). */
	int (*run)(const struct options *o, FILE *out);
};

/* Every subcommand, indexed by enum command. */
extern const struct subcommand subcommands[];
/* The subcommand named @word, or NULL. */
const struct subcommand *find_subcommand(const char *word);
/* "'list', 'decode', ": the words a user is told about, into @buf. */
void subcommand_names(char *buf, size_t len);

/*
 * Parse argv into @o. Returns 0, or -1 with @err holding one line naming
 * the problem and the fix (no "tdbpf: " prefix).
 */
int parse_options(int argc, char **argv, struct options *o, char *err,
		  size_t errlen);

void print_usage(FILE *f);	/* usage.c */

#endif /* TDBPF_SUBCOMMANDS_H */
