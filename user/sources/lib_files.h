/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF files a program runs, each once (by device and inode): a
 * command's and the shared libraries the dynamic loader will map for it,
 * found before it runs as the loader finds them, or the files a running
 * process maps. Where --span looks for probes (span_probes.c).
 */
#ifndef TDBPF_LIB_FILES_H
#define TDBPF_LIB_FILES_H

#include <sys/types.h>

#define LIB_FILES_MAX 512

struct lib_files {
	int nr;
	dev_t dev[LIB_FILES_MAX];
	ino_t ino[LIB_FILES_MAX];
	char *path[LIB_FILES_MAX];
};

/* @path into @f: 1 added, 0 there already, or -errno */
int lib_files_add(struct lib_files *f, const char *path);

/*
 * @exe and, breadth first, every library its DT_NEEDED entries name, as
 * ld.so would find them: DT_RPATH (without DT_RUNPATH), LD_LIBRARY_PATH,
 * DT_RUNPATH, /etc/ld.so.conf's directories, /lib and /usr/lib; $ORIGIN
 * expanded, a file of another class or machine passed over. Libraries
 * not found are left out (the loader will say so); dlopen()ed ones are
 * not known. 0 or -errno.
 */
int lib_files_of_command(struct lib_files *f, const char *exe);

/*
 * Each file @pid maps executable, through its root (a container's file
 * is its own: /proc/PID/root/...). 0 or -errno.
 */
int lib_files_of_pid(struct lib_files *f, pid_t pid);

void lib_files_free(struct lib_files *f);

#endif /* TDBPF_LIB_FILES_H */
