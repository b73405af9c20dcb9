// SPDX-License-Identifier: GPL-2.0
/* --span's probes (span_probes.h): parsed, attached, their sums read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "sources/elf_file.h"
#include "sources/lib_files.h"
#include "sources/span_probes.h"
#include "sources/span_spec.h"
#include "sources/tracer.h"
#include "sources/tracer_priv.h"
#include "sums/spans.h"
#include "support/error.h"

static int add_link(struct span_probes *p, struct bpf_link *l)
{
	if (!l)
		return -errno;
	if (p->nr_links == SPAN_MAX_LINKS) {
		bpf_link__destroy(l);
		return -E2BIG;
	}
	p->links[p->nr_links++] = l;
	return 0;
}

/* a command as exec would find it: its path, or the first on $PATH */
static void find_exe(const char *cmd, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *dirs, *d, *save = NULL;

	snprintf(out, len, "%s", cmd);
	if (strchr(cmd, '/') || !path || !(dirs = strdup(path)))
		return;
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", *d ? d : ".", cmd);
		if (!access(out, X_OK))
			break;
		snprintf(out, len, "%s", cmd);
	}
	free(dirs);
}

static int attach_usdt(struct tracer *t, const char *bin)
{
	struct tdbpf_bpf *skel = t->skel;
	struct span_probes *p = &t->spans;
	int e;

	/* every process of the binary: BPF keeps the tracked ones */
	e = add_link(p, bpf_program__attach_usdt(skel->progs.tdbpf_span_enter,
						 -1, bin, "tdbpf", "span_enter",
						 NULL));
	if (!e)
		e = add_link(p, bpf_program__attach_usdt(
					skel->progs.tdbpf_span_exit, -1, bin,
					"tdbpf", "span_exit", NULL));
	return e;
}

static int attach_func(struct tracer *t, const char *bin, const char *func)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = func);
	struct tdbpf_bpf *skel = t->skel;
	struct span_probes *p = &t->spans;
	int e;

	if (p->nr_func == TDBPF_SPAN_UPROBES)
		return -E2BIG;
	p->func[p->nr_func] = strdup(func);
	if (!p->func[p->nr_func])
		return -ENOMEM;
	/* the cookie names the span: 1.. (0 is a USDT exit's "any") */
	o.bpf_cookie = (__u64)++p->nr_func;
	/*
	 * the return first: a call under way at the attach returns into no
	 * span of its id (unmatched) instead of leaving one open
	 */
	o.retprobe = true;
	e = add_link(p, bpf_program__attach_uprobe_opts(
				skel->progs.tdbpf_span_uexit, -1, bin, 0, &o));
	o.retprobe = false;
	if (!e)
		e = add_link(p, bpf_program__attach_uprobe_opts(
					skel->progs.tdbpf_span_uenter, -1, bin,
					0, &o));
	return e;
}

/* BINARY:FUNC,...: the binary is all before the last colon */
static int attach_funcs(struct tracer *t, const char *spec, char *err,
			size_t len)
{
	char *s = strdup(spec), *colon, *f, *save = NULL;
	int e = -ENOMEM;

	if (!s)
		goto out;
	colon = strrchr(s, ':');
	*colon = 0;
	e = 0;
	for (f = strtok_r(colon + 1, ",", &save); f && !e;
	     f = strtok_r(NULL, ",", &save)) {
		e = attach_func(t, s, f);
		if (e)
			error_set(err, len, "--span %s: cannot probe %s in %s: %s; check that the binary has that function (nm -D or nm)",
				 spec, f, s, strerror(-e));
	}
out:
	free(s);
	return e;
}

/* usdt:PATH: the probes of one binary or library, whoever runs it */
static int attach_usdt_at(struct tracer *t, const char *path, char *err,
			  size_t len)
{
	char bin[4096];
	int e;

	find_exe(path, bin, sizeof(bin));
	e = attach_usdt(t, bin);
	if (e)
		error_set(err, len, "--span usdt:%s: cannot attach to the tdbpf:span_enter and span_exit probes of %s: %s; build it with include/tdbpf_span.h's macros",
			 path, bin, strerror(-e));
	return e;
}

/*
 * The files of @f from *@done on whose notes have the tdbpf:span_enter
 * probe, attached (*@found of them so far); a file without one is none
 * of --span's business. On an error *@done is the file that failed.
 */
static int attach_usdt_new(struct tracer *t, const struct lib_files *f,
			   int *done, int *found)
{
	int e = 0;

	for (; *done < f->nr; (*done)++) {
		if (elf_has_usdt(f->path[*done], "tdbpf", "span_enter") != 1)
			continue;
		e = attach_usdt(t, f->path[*done]);
		if (e)
			return e;
		(*found)++;
		if (t->c.verbose)
			fprintf(stderr, "tdbpf: --span usdt: probes in %s\n",
				f->path[*done]);
	}
	return 0;
}

/*
 * --span usdt: the probes of the command and the libraries it will load,
 * or of every file each -p target maps (its binary, its libraries).
 */
static int attach_usdt_targets(struct tracer *t, const char *exe,
			       const pid_t *pids, int nr_pids, char *err,
			       size_t len)
{
	struct lib_files f = { .nr = 0 };
	int i, done = 0, found = 0, e = 0;
	char bin[4096], what[4096 + 32];

	if (!exe && !nr_pids) {
		error_set(err, len, "--span usdt: no binary to probe; give a command or -p PID");
		return -1;
	}
	if (exe) {
		find_exe(exe, bin, sizeof(bin));
		snprintf(what, sizeof(what), "%s", bin);
		e = lib_files_of_command(&f, bin);
		if (!e)
			e = attach_usdt_new(t, &f, &done, &found);
	}
	for (i = 0; !e && i < nr_pids; i++) {
		snprintf(what, sizeof(what), "process %d", (int)pids[i]);
		e = lib_files_of_pid(&f, pids[i]);
		if (!e)
			e = attach_usdt_new(t, &f, &done, &found);
	}
	if (e == -ENOEXEC && exe && !nr_pids)
		error_set(err, len, "--span usdt: %s is no ELF program (a script?); name the program it runs with --span usdt:PATH, or trace it running with -p",
			  bin);
	else if (e && done < f.nr)
		error_set(err, len, "--span usdt: cannot attach to the tdbpf:span_enter and span_exit probes of %s: %s",
			  f.path[done], strerror(-e));
	else if (e)
		error_set(err, len, "--span usdt: cannot read the files of %s: %s",
			  what, strerror(-e));
	else if (!found)
		error_set(err, len, "--span usdt: no tdbpf:span_enter probe in %s or the libraries it loads; build it with include/tdbpf_span.h's macros (a library opened later with dlopen: --span usdt:LIB)",
			  nr_pids > 1 ? "the targets" : what);
	lib_files_free(&f);
	return e || !found ? -1 : 0;
}

/*
 * --span gstreamer: libgstreamer's functions whose first argument is the
 * pad a buffer goes through (bpf/spans.bpf.c). Each return is attached
 * before its entry: a call under way at the attach then returns into
 * no span (counted unmatched) instead of leaving its span open.
 */
static const char *const gst_funcs[] = {
	"gst_pad_push", "gst_pad_push_list", "gst_pad_pull_range",
};

static int attach_gst_lib(struct tracer *t, const char *lib)
{
	struct tdbpf_bpf *skel = t->skel;
	struct span_probes *p = &t->spans;
	size_t i;
	int e = 0;

	for (i = 0; !e && i < sizeof(gst_funcs) / sizeof(gst_funcs[0]); i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = gst_funcs[i],
			    .retprobe = true);

		e = add_link(p, bpf_program__attach_uprobe_opts(
					skel->progs.tdbpf_span_gst_exit, -1,
					lib, 0, &o));
		o.retprobe = false;
		if (!e)
			e = add_link(p, bpf_program__attach_uprobe_opts(
						skel->progs.tdbpf_span_gst_enter,
						-1, lib, 0, &o));
	}
	return e;
}

/*
 * The libgstreamer that @pid maps, seen through its root (a container's
 * file is its own), attached unless in @attached already: 0; -ENOENT:
 * it maps none.
 */
static int attach_gst_pid(struct tracer *t, struct lib_files *attached,
			  pid_t pid, char *lib, size_t len)
{
	struct lib_files m = { .nr = 0 };
	int i, e = lib_files_of_pid(&m, pid);

	for (i = 0; !e && i < m.nr; i++)
		if (strstr(m.path[i], "/libgstreamer-1.0.so"))
			break;
	if (!e && i == m.nr)
		e = -ENOENT;
	if (!e) {
		snprintf(lib, len, "%s", m.path[i]);
		e = lib_files_add(attached, lib);
		e = e == 1 ? attach_gst_lib(t, lib) : e;
	}
	lib_files_free(&m);
	return e;
}

/*
 * Each -p target's libgstreamer, from its maps; without -p, the
 * command's, as libbpf finds a soname (the command is not running yet).
 * With both, the command only bounds the run (sleep 10): the targets'.
 */
static int attach_gst(struct tracer *t, const char *exe, const pid_t *pids,
		      int nr_pids, char *err, size_t len)
{
	char lib[4096 + 64] = "libgstreamer-1.0.so.0";
	struct lib_files l = { .nr = 0 };
	int i, e = 0;

	if (!exe && !nr_pids) {
		error_set(err, len, "--span gstreamer: no process to probe; give a command or -p PID");
		return -1;
	}
	if (exe && !nr_pids)
		e = attach_gst_lib(t, lib);
	for (i = 0; !e && i < nr_pids; i++)
		e = attach_gst_pid(t, &l, pids[i], lib, sizeof(lib));
	if (e == -ENOENT && nr_pids)
		error_set(err, len, "--span gstreamer: process %d maps no libgstreamer-1.0; give -p the PID of a GStreamer program",
			  (int)pids[i - 1]);
	else if (e)
		error_set(err, len, "--span gstreamer: cannot probe libgstreamer-1.0's pad functions in %s: %s; is the target a GStreamer program?",
			  lib, strerror(-e));
	lib_files_free(&l);
	return e ? -1 : 0;
}

int span_probes_attach(struct tracer *t, const char *const *specs, int nr,
		       const char *exe, const pid_t *pids, int nr_pids,
		       char *err, size_t len)
{
	int i, e = 0;

	for (i = 0; i < nr && !e; i++) {
		int links = t->spans.nr_links;

		if (span_spec_check(specs[i], err, len))
			return -1;
		if (!strcmp(specs[i], "usdt"))
			e = attach_usdt_targets(t, exe, pids, nr_pids, err,
						len);
		else if (!strcmp(specs[i], "gstreamer"))
			e = attach_gst(t, exe, pids, nr_pids, err, len);
		else if (!strncmp(specs[i], "usdt:", 5))
			e = attach_usdt_at(t, specs[i] + 5, err, len);
		else
			e = attach_funcs(t, specs[i], err, len);
		/* -v: what each source attached, for a span that never shows */
		if (!e && t->c.verbose)
			fprintf(stderr, "tdbpf: --span %s: %d probes attached\n",
				specs[i], t->spans.nr_links - links);
	}
	return e ? -1 : 0;
}

/* a span's name: its function's, or the USDT name BPF kept */
static void span_name(struct tracer *t, __u64 id, char *out)
{
	struct tdbpf_span_name_key k = { .id = id };
	const struct span_probes *p = &t->spans;

	if (id && id <= (__u64)p->nr_func) {
		snprintf(out, TDBPF_SPAN_NAME, "%s", p->func[id - 1]);
		return;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.span_names), &k,
				out))
		snprintf(out, TDBPF_SPAN_NAME, "span-%llx",
			 (unsigned long long)id);
	out[TDBPF_SPAN_NAME - 1] = 0;
}

/* One row read: its sums, scaled as the waker slots are, and its name */
static int span_row_in(struct tracer *t, struct span_table *out,
		       const struct tdbpf_span_key *k,
		       const struct tdbpf_span_sums *v)
{
	struct span_row *r = spans_get(out, k->tid, k->tgid, k->id);

	if (!r)
		return -ENOMEM;
	r->s = *v;
	/* the waits it ended, as the windows' waker slots are */
	if (t->skel->rodata->sampled) {
		r->s.woke *= TRACER_SAMPLE_SCALE;
		r->s.woke_ns *= TRACER_SAMPLE_SCALE;
	}
	span_name(t, k->id, r->name);
	return 0;
}

/* a key at a time: kernels without batch look-ups of hash maps (< 5.6) */
static int span_read_keys(struct tracer *t, int fd, struct span_table *out)
{
	struct tdbpf_span_key k, next;
	struct tdbpf_span_sums v;
	void *prev = NULL;
	int err;

	spans_reset(out);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &v))
			continue;
		err = span_row_in(t, out, &k, &v);
		if (err)
			return err;
	}
	return 0;
}

#define SPAN_BATCH	256

/*
 * The rows in batches of SPAN_BATCH a system call: the spans of a
 * running pipeline go on while they are read, and a read of a row a
 * call let the reader be preempted between an element's row and the
 * next one's (frames passed in between: entries of one pipeline's
 * elements more than a frame apart). Falls back to a key at a time.
 */
int span_probes_read(struct tracer *t, struct span_table *out)
{
	struct tdbpf_span_key *keys = NULL, batch;
	struct tdbpf_span_sums *vals = NULL;
	bool first = true, done = false;
	int fd, err = 0;
	__u32 i, n;

	spans_reset(out);
	if (!t->skel->rodata->track_spans)
		return 0;
	fd = bpf_map__fd(t->skel->maps.span_sums);
	keys = calloc(SPAN_BATCH, sizeof(*keys));
	vals = calloc(SPAN_BATCH, sizeof(*vals));
	if (!keys || !vals) {
		err = -ENOMEM;
		goto out;
	}
	while (!done && !err) {
		n = SPAN_BATCH;
		if (bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, keys,
					 vals, &n, NULL)) {
			/* ENOENT: the last batch, n rows in it */
			if (errno != ENOENT) {
				err = span_read_keys(t, fd, out);
				goto out;
			}
			done = true;
		}
		first = false;
		for (i = 0; i < n && !err; i++)
			err = span_row_in(t, out, &keys[i], &vals[i]);
	}
out:
	free(keys);
	free(vals);
	return err;
}

void span_probes_close(struct span_probes *p)
{
	int i;

	for (i = 0; i < p->nr_links; i++)
		bpf_link__destroy(p->links[i]);
	for (i = 0; i < p->nr_func; i++)
		free(p->func[i]);
	memset(p, 0, sizeof(*p));
}
