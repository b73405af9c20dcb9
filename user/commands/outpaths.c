// SPDX-License-Identifier: GPL-2.0
/* Outputs and inputs that are one file (outpaths.h). */
#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "commands/outpaths.h"
#include "support/error.h"

struct named {
	const char *label;	/* "-o", "--record", "the recording" */
	const char *path;	/* NULL: @fd */
	int fd;
	bool input;
	/* who it is: a file's dev and inode, or for a file not there yet
	 * its directory's and its own name */
	bool known;
	dev_t dev;
	ino_t ino;
	char base[256];
};

/*
 * Only regular files (or files still to be made) can be overwritten by
 * another output: two outputs to /dev/null, or stdout and a recording
 * read from a pipe, are not one file.
 */
static void identify(struct named *n)
{
	char dir[4096];
	struct stat st;

	n->known = false;
	if (!n->path) {
		if (!fstat(n->fd, &st) && S_ISREG(st.st_mode))
			goto found;
		return;
	}
	if (!stat(n->path, &st)) {
		if (S_ISREG(st.st_mode))
			goto found;
		return;
	}
	if (errno != ENOENT || strlen(n->path) >= sizeof(dir))
		return;
	/* not there yet: the same name in the same directory */
	strcpy(dir, n->path);
	snprintf(n->base, sizeof(n->base), "%s", basename(dir));
	strcpy(dir, n->path);
	if (stat(dirname(dir), &st))
		return;
found:
	n->known = true;
	n->dev = st.st_dev;
	n->ino = st.st_ino;
}

static bool same(const struct named *a, const struct named *b)
{
	return a->known && b->known && a->dev == b->dev &&
	       a->ino == b->ino && !strcmp(a->base, b->base);
}

static void describe(char *buf, size_t len, const struct named *n)
{
	if (n->path)
		snprintf(buf, len, "%s '%s'", n->label, n->path);
	else
		snprintf(buf, len, "%s", n->label);
}

int out_paths_check(const struct options *o, char *err, size_t len)
{
	struct named f[5];
	char a[300], b[300];
	int nr = 0, i, j;
	bool reads = o->cmd == CMD_REPORT || o->cmd == CMD_DECODE;

	memset(f, 0, sizeof(f));
	if (o->output)
		f[nr++] = (struct named){ .label = "-o", .path = o->output };
	else
		f[nr++] = (struct named){ .label = "standard output", .fd = 1 };
	if (o->record)
		f[nr++] = (struct named){ .label = "--record", .path = o->record };
	if (o->graph)
		f[nr++] = (struct named){ .label = "--graph", .path = o->graph };
	if (reads && o->input && strcmp(o->input, "-"))
		f[nr++] = (struct named){ .label = "the input", .path = o->input,
					  .input = true };
	else if (reads)
		f[nr++] = (struct named){ .label = "standard input", .fd = 0,
					  .input = true };
	for (i = 0; i < nr; i++)
		identify(&f[i]);
	for (i = 0; i < nr; i++)
		for (j = i + 1; j < nr; j++) {
			if (!same(&f[i], &f[j]) || (f[i].input && f[j].input))
				continue;
			describe(a, sizeof(a), &f[i]);
			describe(b, sizeof(b), &f[j]);
			if (f[j].input)
				error_set(err, len,
					 "%s and %s are the same file: writing would destroy what is read; write elsewhere",
					 a, b);
			else
				error_set(err, len,
					 "%s and %s name the same file; give each output a file of its own",
					 a, b);
			return -1;
		}
	return 0;
}
