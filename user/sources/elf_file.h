/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tdbpf reads of an ELF file itself (libelf): the dynamic section's
 * library names and search paths, for finding the libraries a command
 * will load (lib_files.c), and whether its USDT notes hold a probe.
 */
#ifndef TDBPF_ELF_FILE_H
#define TDBPF_ELF_FILE_H

#include <stddef.h>

#define ELF_MAX_NEEDED 64

struct elf_dyn {
	int class;   /* ELFCLASS32/64 */
	int machine; /* EM_* */
	int nr_needed;
	char *needed[ELF_MAX_NEEDED]; /* DT_NEEDED, in order */
	char *rpath;		      /* DT_RPATH, or NULL */
	char *runpath;		      /* DT_RUNPATH, or NULL */
};

/*
 * @path's class, machine and dynamic entries into @d (elf_dyn_free()
 * after): 0, -ENOEXEC when it is no ELF file, or -errno. A static
 * program or a file without a dynamic section has none of them.
 */
int elf_dyn_read(const char *path, struct elf_dyn *d);
void elf_dyn_free(struct elf_dyn *d);

/*
 * Whether @path's .note.stapsdt holds probe @name of @provider: 1, 0,
 * or -errno (-ENOEXEC: no ELF file).
 */
int elf_has_usdt(const char *path, const char *provider, const char *name);

#endif /* TDBPF_ELF_FILE_H */
