// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF files a program runs (lib_files.h). By hand: no Debian library
 * resolves a program's libraries without running the loader on it, and
 * tdbpf, as root, runs nothing of a user's program but the program.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sources/elf_file.h"
#include "sources/lib_files.h"

/* include depth of ld.so.conf, as ldconfig allows nesting */
#define CONF_DEPTH 4

int lib_files_add(struct lib_files *f, const char *path)
{
	struct stat st;
	int i;

	if (stat(path, &st))
		return -errno;
	for (i = 0; i < f->nr; i++)
		if (f->dev[i] == st.st_dev && f->ino[i] == st.st_ino)
			return 0;
	if (f->nr == LIB_FILES_MAX)
		return -E2BIG;
	f->path[f->nr] = strdup(path);
	if (!f->path[f->nr])
		return -ENOMEM;
	f->dev[f->nr] = st.st_dev;
	f->ino[f->nr++] = st.st_ino;
	return 1;
}

void lib_files_free(struct lib_files *f)
{
	int i;

	for (i = 0; i < f->nr; i++)
		free(f->path[i]);
	f->nr = 0;
}

/* @s appended to the colon-separated list *@list */
static int list_add(char **list, const char *s)
{
	size_t n = *list ? strlen(*list) : 0;
	char *p = realloc(*list, n + strlen(s) + 2);

	if (!p)
		return -ENOMEM;
	if (n)
		p[n++] = ':';
	strcpy(p + n, s);
	*list = p;
	return 0;
}

static int conf_read(const char *path, char **dirs, int depth);

/* "include PATTERN": each file it matches, relative to /etc */
static int conf_include(const char *pattern, char **dirs, int depth)
{
	char full[PATH_MAX];
	glob_t g;
	size_t i;
	int err = 0;

	snprintf(full, sizeof(full), "%s%s", *pattern == '/' ? "" : "/etc/",
		 pattern);
	if (glob(full, 0, NULL, &g))
		return 0;
	for (i = 0; !err && i < g.gl_pathc; i++)
		err = conf_read(g.gl_pathv[i], dirs, depth + 1);
	globfree(&g);
	return err;
}

/* ld.so.conf's directories (ldconfig's, which its cache holds) */
static int conf_read(const char *path, char **dirs, int depth)
{
	char line[PATH_MAX], *s, *end;
	int err = 0;
	FILE *c;

	if (depth > CONF_DEPTH || !(c = fopen(path, "re")))
		return 0;
	while (!err && fgets(line, sizeof(line), c)) {
		line[strcspn(line, "#\n")] = 0;
		for (s = line; *s == ' ' || *s == '\t'; s++)
			;
		for (end = s + strlen(s);
		     end > s && (end[-1] == ' ' || end[-1] == '\t');)
			*--end = 0;
		if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t'))
			err = conf_include(s + 8 + strspn(s + 8, " \t"), dirs,
					   depth);
		else if (*s == '/')
			err = list_add(dirs, s);
	}
	fclose(c);
	return err;
}

/* a directory of a search list, $ORIGIN and ${ORIGIN} made @origin */
static int dir_expand(const char *dir, size_t n, const char *origin, char *out,
		      size_t len)
{
	size_t o = 0;

	while (n && o < len) {
		if (!strncmp(dir, "$ORIGIN", 7) ||
		    !strncmp(dir, "${ORIGIN}", 9)) {
			size_t k = dir[1] == '{' ? 9 : 7;

			if (k > n)
				return -1;
			o += snprintf(out + o, len - o, "%s", origin);
			dir += k;
			n -= k;
			continue;
		}
		/* $LIB, $PLATFORM: the loader's own; not guessed */
		if (*dir == '$')
			return -1;
		out[o++] = *dir++;
		n--;
	}
	if (o >= len)
		return -1;
	out[o] = 0;
	return 0;
}

/* @name in one of @dirs, of @want's class and machine, into @out */
static int find_in(const char *dirs, const char *origin, const char *name,
		   const struct elf_dyn *want, char *out, size_t len)
{
	char dir[PATH_MAX];
	struct elf_dyn d;
	size_t n;
	int ok;

	for (; dirs && *dirs; dirs += n + !!dirs[n]) {
		n = strcspn(dirs, ":;");
		if (!n || dir_expand(dirs, n, origin, dir, sizeof(dir)))
			continue;
		if (snprintf(out, len, "%s/%s", dir, name) >= (int)len ||
		    elf_dyn_read(out, &d))
			continue;
		ok = d.class == want->class && d.machine == want->machine;
		elf_dyn_free(&d);
		if (ok)
			return 1;
	}
	return 0;
}

struct search {
	const struct elf_dyn *exe;
	const char *exe_dir;
	const char *conf; /* ld.so.conf's directories */
};

/*
 * One DT_NEEDED @name of the object @obj (in @obj_dir), the loader's
 * order (ld.so(8)): a name with a slash is a path; else DT_RPATH of the
 * object, then of the program, unless the object has DT_RUNPATH; then
 * LD_LIBRARY_PATH, DT_RUNPATH, ld.so.conf, the default directories.
 */
static int resolve(const struct search *s, const struct elf_dyn *obj,
		   const char *obj_dir, const char *name, char *out, size_t len)
{
	const char *defaults = sizeof(void *) == 8
				       ? "/lib64:/usr/lib64:/lib:/usr/lib"
				       : "/lib:/usr/lib";

	if (strchr(name, '/'))
		return snprintf(out, len, "%s", name) < (int)len;
	if (!obj->runpath &&
	    (find_in(obj->rpath, obj_dir, name, s->exe, out, len) ||
	     (obj != s->exe &&
	      find_in(s->exe->rpath, s->exe_dir, name, s->exe, out, len))))
		return 1;
	return find_in(getenv("LD_LIBRARY_PATH"), s->exe_dir, name, s->exe, out,
		       len) ||
	       find_in(obj->runpath, obj_dir, name, s->exe, out, len) ||
	       find_in(s->conf, "", name, s->exe, out, len) ||
	       find_in(defaults, "", name, s->exe, out, len);
}

/* the directory of @path, as $ORIGIN means it */
static void dir_of(const char *path, char *out, size_t len)
{
	char real[PATH_MAX], *slash;

	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	slash = strrchr(real, '/');
	if (slash)
		*slash = 0;
	snprintf(out, len, "%s", slash ? (*real ? real : "/") : ".");
}

/* the libraries @f->path[@i] needs, appended to @f */
static int add_needed(struct lib_files *f, int i, const struct search *s,
		      const struct elf_dyn *obj)
{
	char dir[PATH_MAX], lib[PATH_MAX];
	int j, err = 0;

	dir_of(f->path[i], dir, sizeof(dir));
	for (j = 0; j < obj->nr_needed && err >= 0; j++)
		if (resolve(s, obj, dir, obj->needed[j], lib, sizeof(lib)))
			err = lib_files_add(f, lib);
	return err < 0 ? err : 0;
}

int lib_files_of_command(struct lib_files *f, const char *exe)
{
	char exe_dir[PATH_MAX];
	struct search s = {0};
	struct elf_dyn e, d;
	char *conf = NULL;
	int i, err;

	err = lib_files_add(f, exe);
	if (err < 0)
		return err;
	err = elf_dyn_read(exe, &e);
	if (err)
		return err;
	dir_of(exe, exe_dir, sizeof(exe_dir));
	err = conf_read("/etc/ld.so.conf", &conf, 0);
	s = (struct search){.exe = &e, .exe_dir = exe_dir, .conf = conf};
	for (i = 0; !err && i < f->nr; i++) {
		if (elf_dyn_read(f->path[i], &d))
			continue;
		err = add_needed(f, i, &s, &d);
		elf_dyn_free(&d);
	}
	free(conf);
	elf_dyn_free(&e);
	return err;
}

int lib_files_of_pid(struct lib_files *f, pid_t pid)
{
	char path[64], line[PATH_MAX + 128], file[PATH_MAX + 64];
	char perms[8], *name;
	int err = 0;
	FILE *m;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	m = fopen(path, "re");
	if (!m)
		return -errno;
	while (err >= 0 && fgets(line, sizeof(line), m)) {
		line[strcspn(line, "\n")] = 0;
		name = strchr(line, '/');
		if (!name || sscanf(line, "%*s %7s", perms) != 1 ||
		    !strchr(perms, 'x') || strstr(name, " (deleted)"))
			continue;
		snprintf(file, sizeof(file), "/proc/%d/root%s", (int)pid, name);
		err = lib_files_add(f, file);
		/* a file gone or hidden since it was mapped: none to probe */
		if (err < 0 && err != -ENOMEM && err != -E2BIG)
			err = 0;
	}
	fclose(m);
	return err < 0 ? err : 0;
}
