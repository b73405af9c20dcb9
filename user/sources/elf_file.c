// SPDX-License-Identifier: GPL-2.0
/*
 * An ELF file's dynamic entries and USDT notes (elf_file.h), read with
 * libelf, which libbpf already brings in.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sources/elf_file.h"

/* the note type and owner <sys/sdt.h> gives its probes */
#define STAPSDT_TYPE  3
#define STAPSDT_OWNER "stapsdt"

static Elf *elf_open(const char *path, int *fd)
{
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		return e;
	if (e)
		elf_end(e);
	close(*fd);
	*fd = -1;
	errno = ENOEXEC;
	return NULL;
}

static void elf_close(Elf *e, int fd)
{
	elf_end(e);
	close(fd);
}

static int dyn_take(struct elf_dyn *d, const GElf_Dyn *dyn, const char *s)
{
	char **slot;

	if (dyn->d_tag == DT_NEEDED) {
		if (d->nr_needed == ELF_MAX_NEEDED)
			return 0;
		slot = &d->needed[d->nr_needed++];
	} else if (dyn->d_tag == DT_RPATH) {
		slot = &d->rpath;
	} else if (dyn->d_tag == DT_RUNPATH) {
		slot = &d->runpath;
	} else {
		return 0;
	}
	free(*slot);
	*slot = strdup(s);
	return *slot ? 0 : -ENOMEM;
}

/* the entries of the dynamic section @scn, its strings in @link */
static int dyn_section(Elf *e, Elf_Scn *scn, size_t link, struct elf_dyn *d)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Dyn dyn;
	const char *s;
	int i, err = 0;

	for (i = 0; data && !err && gelf_getdyn(data, i, &dyn); i++) {
		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH &&
		    dyn.d_tag != DT_RUNPATH)
			continue;
		s = elf_strptr(e, link, dyn.d_un.d_val);
		if (s)
			err = dyn_take(d, &dyn, s);
	}
	return err;
}

int elf_dyn_read(const char *path, struct elf_dyn *d)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;
	int fd, err = 0;
	Elf *e;

	memset(d, 0, sizeof(*d));
	e = elf_open(path, &fd);
	if (!e)
		return -errno;
	if (!gelf_getehdr(e, &eh)) {
		err = -ENOEXEC;
		goto out;
	}
	d->class = gelf_getclass(e);
	d->machine = eh.e_machine;
	while (!err && (scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC)
			err = dyn_section(e, scn, sh.sh_link, d);
out:
	elf_close(e, fd);
	if (err)
		elf_dyn_free(d);
	return err;
}

void elf_dyn_free(struct elf_dyn *d)
{
	int i;

	for (i = 0; i < d->nr_needed; i++)
		free(d->needed[i]);
	free(d->rpath);
	free(d->runpath);
	memset(d, 0, sizeof(*d));
}

/*
 * One note: a stapsdt probe's descriptor is its address, the base's and
 * the semaphore's (each of the file's word size), then the provider's
 * and the probe's names, NUL-terminated, then its arguments.
 */
static int note_is(const char *buf, const GElf_Nhdr *nh, size_t name_off,
		   size_t desc_off, size_t word, const char *provider,
		   const char *name)
{
	const char *desc = buf + desc_off, *end = desc + nh->n_descsz, *p;

	if (nh->n_type != STAPSDT_TYPE ||
	    nh->n_namesz != sizeof(STAPSDT_OWNER) ||
	    memcmp(buf + name_off, STAPSDT_OWNER, sizeof(STAPSDT_OWNER)) ||
	    nh->n_descsz <= 3 * word)
		return 0;
	p = desc + 3 * word;
	if (!memchr(p, 0, end - p) || strcmp(p, provider))
		return 0;
	p += strlen(p) + 1;
	return p < end && memchr(p, 0, end - p) && !strcmp(p, name);
}

static int notes_have(Elf_Data *data, size_t word, const char *provider,
		      const char *name)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (data &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (note_is(data->d_buf, &nh, name_off, desc_off, word,
			    provider, name))
			return 1;
		off = next;
	}
	return 0;
}

int elf_has_usdt(const char *path, const char *provider, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstr, word;
	const char *sname;
	int fd, found = 0;
	GElf_Shdr sh;
	Elf *e;

	e = elf_open(path, &fd);
	if (!e)
		return -errno;
	if (elf_getshdrstrndx(e, &shstr)) {
		found = -ENOEXEC;
		goto out;
	}
	word = gelf_getclass(e) == ELFCLASS32 ? 4 : 8;
	while (!found && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(e, shstr, sh.sh_name);
		if (sname && !strcmp(sname, ".note.stapsdt"))
			found = notes_have(elf_getdata(scn, NULL), word,
					   provider, name);
	}
out:
	elf_close(e, fd);
	return found;
}
