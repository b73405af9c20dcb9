// SPDX-License-Identifier: GPL-2.0
/* tdbpf --help: the usage, the synopses from the command table. */
#include <stdio.h>
#include "commands/cmd.h"
#include "commands/options.h"
#include "commands/subcommands.h"
#include "exporter/listen_opts.h"
#include "tdbpf.h"

void print_usage(FILE *f)
{
	const char *lead = "usage:";
	int i;

	for (i = 0; i < CMD_NR; i++) {
		if (!subcommands[i].synopsis)
			continue;
		fprintf(f, "%-6s tdbpf %s\n", lead, subcommands[i].synopsis);
		lead = "";
	}
	fputs("\n"
	      "Per-task TopDown and scheduling breakdown, attributed at sched_switch.\n"
	      "\n"
	      "  -p, --pid PID[,PID]    trace every thread of these processes\n"
	      "  -t, --tid TID[,TID]    trace these threads only\n"
	      "  -a, --all-cpus         trace every task on the machine\n"
	      "  -G, --cgroup PATH      trace the tasks of this cgroup and those below\n"
	      "                         it (/docker/ID, as /proc/PID/cgroup names it)\n"
	      "  -e, --event EVENT[,EVENT...]  also count these, in perf's syntax\n"
	      "                         (cpu-clock, sched:sched_switch, rNNNN,\n"
	      "                         pmu/term=val/, {a,b}); alone, without\n"
	      "                         --model, only these\n"
	      "  -- COMMAND [ARGS]      launch COMMAND (as the sudo user) and trace it\n"
	      "                         and the processes it forks, as perf stat\n"
	      "  -i, --no-children      trace COMMAND alone, not what it forks\n"
	      "      --no-inherit       the same, as perf spells it\n"
	      "      --children         with -p: also follow what the targets fork\n"
	      "  -d, --duration SECS    stop after SECS seconds (at most 365 days)\n"
	      "  -r, --repeat N         run COMMAND N times: the means per name and\n"
	      "                         their spread (+- %), as perf stat -r\n"
	      "  -I, --interval MS      print a report every MS milliseconds (at most\n"
	      "                         a day)\n"
	      "  -x, --field-separator SEP  CSV output, perf stat -x style\n"
	      "  -j, --json             JSON output (one object per line with -I)\n"
	      "  -o, --output FILE      write the report to FILE\n"
	      "  -q, --quiet            no notes (the software model's fallback)\n"
	      "  -F, --columns LIST     the table's columns: cpu,runq,sw,migr,tma,ipc,\n"
	      "                         events,waits,container or all (default: fit\n"
	      "                         120 columns)\n"
	      "      --per-name         one row per operator: instance numbers folded\n"
	      "      --span usdt[:PATH]|gstreamer|BINARY:FUNC[,FUNC...]  operators inside\n"
	      "                         threads: rows per tdbpf USDT span, GStreamer\n"
	      "                         element or function (docs/spans.md)\n",
	      f);
	/* the keys from their table; the first is the default */
	fprintf(f, "      --sort KEY         %s (default)", sort_names[0]);
	for (i = 1; i < SORT_NR; i++)
		fprintf(f, ", %s", sort_names[i]);
	fputs("\n"
	      "      --top N            show the N first rows\n"
	      "      --model M          CPU model instead of detection (tdbpf list)\n"
	      "      --smt on|off       SMT state instead of detection\n"
	      "  -l, --level N          TMA level 1-3 (default: deepest of the model)\n",
	      f);
	fprintf(f, "      --max-tasks N      tasks held at once (default %d)\n",
		TDBPF_MAX_TASKS_DEFAULT);
	fprintf(f, "      --sock-max N       socket flows followed for the graph (default %d)\n",
		TDBPF_SOCK_MAX_DEFAULT);
	fprintf(f, "      --listen [ADDR:]PORT  serve Prometheus /metrics (ADDR default 127.0.0.1)\n"
		   "      --listen-labels L  pid, tid or pid,tid labels on the series (default none)\n"
		   "      --listen-max-series N  label sets before the rest go to 'other' (default %d)\n",
		LISTEN_DEFAULT_MAX_SERIES);
	fputs("      --graph FILE.dot   write the wait-for graph (Graphviz DOT)\n"
	      "      --wakeups          trace every wakeup for the wait-for graph (by\n"
	      "                         default those of 50 ms of every 500, scaled)\n"
	      "      --sampled-wakeups  the default: the wakeups of those windows\n"
	      "      --no-wakeups       no wait-for graph: the scheduling sums alone\n"
	      "      --record FILE      also write every report, every row, as JSON\n"
	      "                         for tdbpf report FILE\n"
	      "      --from N, --to N   report: intervals N.. and ..N of an -I recording\n"
	      "      --host NAME=FILE   graph: FILE is host NAME's report\n"
	      "      --prometheus URL   graph: the hosts' series from this Prometheus\n"
	      "      --range DUR        graph: the window, a PromQL duration (default 5m)\n"
	      "      --match SEL        graph: label matchers of the series, job=\"tdbpf\"\n"
	      "  -v, --verbose          say what is being set up\n"
	      "  -h, --help             this text\n"
	      "  -V, --version          version\n"
	      "\n"
	      "Stops on Ctrl-C, SIGTERM (any terminating signal), -d expiry or when\n"
	      "every target exited, and always prints what it gathered.\n",
	      f);
}

int cmd_help(const struct options *o, FILE *out)
{
	const struct subcommand *s = &subcommands[o->help_for];

	/* a subcommand's own: its synopsis, what it does, where the rest is */
	if (o->help_for != CMD_TRACE && s->summary) {
		fprintf(out, "usage: tdbpf %s\n\n%s.\n\n", s->synopsis,
			s->summary);
		fprintf(out, "Its options are those of tdbpf --help; man tdbpf, section COMMANDS, says\nwhich it takes.\n");
		return 0;
	}
	print_usage(out);
	return 0;
}
