// SPDX-License-Identifier: GPL-2.0
/*
 * The files a program runs (sources/lib_files.c) and the USDT notes of
 * one (sources/elf_file.c), on this machine's own programs and copies of
 * its C library: the loader's search order, a file of another class
 * passed over, each file once, a process's maps.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "sources/elf_file.h"
#include "sources/lib_files.h"

static char tmp[] = "/tmp/tdbpf-libfiles-XXXXXX";

/* the C library this test runs with, from its own maps */
static void own_libc(char *out, size_t len)
{
	char line[PATH_MAX + 128], *f;
	FILE *m = fopen("/proc/self/maps", "re");

	assert_non_null(m);
	*out = 0;
	while (!*out && fgets(line, sizeof(line), m)) {
		line[strcspn(line, "\n")] = 0;
		f = strchr(line, '/');
		if (f && strstr(f, "/libc.so.6"))
			snprintf(out, len, "%s", f);
	}
	fclose(m);
	assert_true(*out);
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* the index in @f of the file @path is, or -1 */
static int index_of(const struct lib_files *f, const char *path)
{
	int i;

	for (i = 0; i < f->nr; i++)
		if (same_file(f->path[i], path))
			return i;
	return -1;
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out;

	assert_true(in >= 0);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, n), n);
	close(in);
	close(out);
}

/* an ELF header of a 32-bit x86 shared object, nothing else */
static void write_elf32(const char *path)
{
	unsigned char h[52] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	h[16] = 3;	   /* ET_DYN */
	h[18] = 3;	   /* EM_386 */
	h[20] = 1;	   /* EV_CURRENT */
	h[40] = sizeof(h); /* e_ehsize */
	assert_true(fd >= 0);
	assert_int_equal(write(fd, h, sizeof(h)), (ssize_t)sizeof(h));
	close(fd);
}

static void test_command_libraries(void **state)
{
	struct lib_files f = {.nr = 0};
	char libc[PATH_MAX];
	int n;

	(void)state;
	own_libc(libc, sizeof(libc));
	assert_int_equal(lib_files_of_command(&f, "/bin/true"), 0);
	assert_true(same_file(f.path[0], "/bin/true"));
	assert_true(index_of(&f, libc) > 0);
	/* libc's own DT_NEEDED: the loader, found too */
	assert_true(f.nr >= 3);
	/* each file once, however often asked */
	n = f.nr;
	assert_int_equal(lib_files_of_command(&f, "/bin/true"), 0);
	assert_int_equal(f.nr, n);
	assert_int_equal(lib_files_add(&f, libc), 0);
	lib_files_free(&f);
}

/*
 * LD_LIBRARY_PATH's directories before the system's, in order; a file
 * of another class or machine is passed over as the loader passes it.
 */
static void test_search_order(void **state)
{
	char d1[PATH_MAX], d2[PATH_MAX], p[PATH_MAX + 16], libc[PATH_MAX];
	char env[2 * PATH_MAX + 2];
	struct lib_files f = {.nr = 0};
	int i;

	(void)state;
	own_libc(libc, sizeof(libc));
	snprintf(d1, sizeof(d1), "%s/wrong", tmp);
	snprintf(d2, sizeof(d2), "%s/right", tmp);
	assert_int_equal(mkdir(d1, 0755), 0);
	assert_int_equal(mkdir(d2, 0755), 0);
	snprintf(p, sizeof(p), "%s/libc.so.6", d1);
	write_elf32(p);
	snprintf(p, sizeof(p), "%s/libc.so.6", d2);
	copy_file(libc, p);
	snprintf(env, sizeof(env), "%s:%s", d1, d2);
	setenv("LD_LIBRARY_PATH", env, 1);
	assert_int_equal(lib_files_of_command(&f, "/bin/true"), 0);
	unsetenv("LD_LIBRARY_PATH");
	i = index_of(&f, p);
	assert_true(i > 0);
	assert_int_equal(strncmp(f.path[i], d2, strlen(d2)), 0);
	assert_int_equal(index_of(&f, libc), -1);
	lib_files_free(&f);
	unlink(p);
	snprintf(p, sizeof(p), "%s/libc.so.6", d1);
	unlink(p);
	rmdir(d1);
	rmdir(d2);
}

/* a running process: its binary and its libraries, through its root */
static void test_process_maps(void **state)
{
	struct lib_files f = {.nr = 0};
	char libc[PATH_MAX];

	(void)state;
	own_libc(libc, sizeof(libc));
	assert_int_equal(lib_files_of_pid(&f, getpid()), 0);
	assert_true(index_of(&f, "/proc/self/exe") >= 0);
	assert_true(index_of(&f, libc) >= 0);
	assert_int_equal(strncmp(f.path[0], "/proc/", 6), 0);
	assert_non_null(strstr(f.path[0], "/root/"));
	lib_files_free(&f);
	assert_int_equal(lib_files_of_pid(&f, 0), -ENOENT);
}

static void test_usdt_notes(void **state)
{
	char p[PATH_MAX + 16];
	FILE *t;

	(void)state;
	/* no notes of its own, or none of tdbpf's */
	assert_int_equal(elf_has_usdt("/bin/true", "tdbpf", "span_enter"), 0);
	snprintf(p, sizeof(p), "%s/text", tmp);
	t = fopen(p, "w");
	assert_non_null(t);
	fputs("not an ELF file\n", t);
	fclose(t);
	assert_int_equal(elf_has_usdt(p, "tdbpf", "span_enter"), -ENOEXEC);
	unlink(p);
	assert_int_equal(elf_has_usdt("/no/such/file", "tdbpf", "span_enter"),
			 -ENOENT);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_command_libraries),
		cmocka_unit_test(test_search_order),
		cmocka_unit_test(test_process_maps),
		cmocka_unit_test(test_usdt_notes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
