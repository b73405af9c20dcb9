// SPDX-License-Identifier: GPL-2.0
/*
 * floor: load one of bench/floor.bpf.c's programs on sched_switch, with the
 * software model's four counters opened per CPU the way tdbpf opens them
 * (one group, cpu-clock leading, pid=-1, cpu=N) for the variants that read
 * them (read*), print the program id and wait for SIGINT/SIGTERM. The
 * others open none: each counter is charged at every switch of its CPU,
 * which the CPU time of a workload under several copies would count.
 *
 * usage: floor empty|read1|read4|read4grp|hashhit2|tstore1|tstore2|wempty
 *        floor uempty BINARY FUNC[,FUNC...]  (empty programs at each
 *        function's entry and return: the floor of --span's uprobes)
 * stdout: "id=<prog id>" once attached.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

#define NR_EV	4

static const __u64 sw_config[NR_EV] = {
	PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
	PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int open_counters(int ncpu, int map_fd)
{
	struct perf_event_attr attr;
	int cpu, i;

	for (cpu = 0; cpu < ncpu; cpu++) {
		int lead = -1;

		for (i = 0; i < NR_EV; i++) {
			__u32 key = (__u32)(i * ncpu + cpu);
			int fd;

			memset(&attr, 0, sizeof(attr));
			attr.size = sizeof(attr);
			attr.type = PERF_TYPE_SOFTWARE;
			attr.config = sw_config[i];
			attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					   PERF_FORMAT_TOTAL_TIME_RUNNING;
			fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu,
					  lead, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				/* an offline CPU: its slots stay empty */
				if (errno == ENODEV && i == 0)
					break;
				fprintf(stderr, "floor: perf_event_open cpu %d "
					"event %d: %s\n", cpu, i,
					strerror(errno));
				return -1;
			}
			if (lead < 0)
				lead = fd;
			if (bpf_map_update_elem(map_fd, &key, &fd, BPF_ANY)) {
				fprintf(stderr, "floor: map update: %s\n",
					strerror(errno));
				return -1;
			}
		}
	}
	return 0;
}

/*
 * uempty: the empty entry and return programs on each function of @funcs
 * in @bin, their links kept in @links (up to @max). 0 or -1.
 */
static int attach_uempty(struct floor_bpf *skel, const char *bin,
			 char *funcs, struct bpf_link **links, int max)
{
	char *f, *save = NULL;
	int n = 0;

	for (f = strtok_r(funcs, ",", &save); f && n + 2 <= max;
	     f = strtok_r(NULL, ",", &save)) {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = f);

		links[n] = bpf_program__attach_uprobe_opts(
			skel->progs.floor_uempty, -1, bin, 0, &o);
		o.retprobe = true;
		links[n + 1] = bpf_program__attach_uprobe_opts(
			skel->progs.floor_urempty, -1, bin, 0, &o);
		if (!links[n] || !links[n + 1]) {
			fprintf(stderr, "floor: cannot probe %s in %s: %s\n",
				f, bin, strerror(errno));
			return -1;
		}
		n += 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_program *prog = NULL, *p;
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct bpf_link *link;
	struct floor_bpf *skel;
	char want[32];
	int ncpu;

	struct bpf_link *ulinks[32] = { NULL };
	bool uempty = argc == 4 && !strcmp(argv[1], "uempty");
	int i;

	if ((argc != 2 && !uempty) || strlen(argv[1]) > 20) {
		fprintf(stderr,
			"usage: floor empty|read1|read4|read4grp|hashhit2|tstore1|tstore2|wempty\n"
			"       floor uempty BINARY FUNC[,FUNC...]\n");
		return 2;
	}
	snprintf(want, sizeof(want), "floor_%s", argv[1]);
	ncpu = libbpf_num_possible_cpus();
	skel = floor_bpf__open();
	if (!skel || ncpu <= 0) {
		fprintf(stderr, "floor: cannot open the BPF object\n");
		return 1;
	}
	skel->rodata->nr_cpus = (__u32)ncpu;
	bpf_map__set_max_entries(skel->maps.counters, (__u32)(NR_EV * ncpu));
	bpf_object__for_each_program(p, skel->obj) {
		if (!strcmp(bpf_program__name(p), want))
			prog = p;
		else if (!uempty || strcmp(bpf_program__name(p),
					    "floor_urempty"))
			bpf_program__set_autoload(p, false);
	}
	if (!prog) {
		fprintf(stderr, "floor: no program %s\n", want);
		return 2;
	}
	if (floor_bpf__load(skel)) {
		fprintf(stderr, "floor: cannot load the BPF object\n");
		return 1;
	}
	if (!strncmp(argv[1], "read", 4) &&
	    open_counters(ncpu, bpf_map__fd(skel->maps.counters)))
		return 1;
	if (uempty && attach_uempty(skel, argv[2], argv[3], ulinks, 32))
		return 1;
	link = uempty ? ulinks[0] : bpf_program__attach(prog);
	if (!link) {
		fprintf(stderr, "floor: cannot attach %s: %s\n", want,
			strerror(errno));
		return 1;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)) {
		fprintf(stderr, "floor: prog info: %s\n", strerror(errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("id=%u\n", info.id);
	fflush(stdout);
	while (!stop)
		pause();
	if (!uempty)
		bpf_link__destroy(link);
	for (i = 0; i < 32; i++)
		bpf_link__destroy(ulinks[i]);
	floor_bpf__destroy(skel);
	return 0;
}
