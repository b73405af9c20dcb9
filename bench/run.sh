#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh: tdbpf's overhead and scale benchmarks -> bench/results.md
#
#   1. context-switch cost: a pinned pipe ping-pong untraced, under tdbpf and
#      under perf stat counting the same software events (launch and attach)
#   2. BPF cost per sched_switch run (kernel.bpf_stats_enabled): the
#      software model's (none: no program there), and with one counter,
#      tracked and untracked switches, beside the floor: an empty program
#      and K counter reads (bench/floor.bpf.c)
#   3. scale: 100..10000 threads: attach time, RSS, map memory, report time;
#      perf stat --per-thread on the same target
#   4. decode throughput per model, and a whole report of 10,000 tasks per
#      model, table and JSON (bench/decode_bench.c)
#   5. --listen: a /metrics scrape of 10,000 tasks (time, RSS), and a soak:
#      many scrapes while thousands of threads come and go (RSS start/end)
#   6. wakeups (the wait-for graph): the sched_waking program per run,
#      tracked and untracked wakees, beside an empty one; the pinned pipe
#      ping-pong's slowdown with none (--no-wakeups), the default (the
#      wakeups of windows) and every wakeup (--wakeups); its CPU time
#      under BENCH_AMP copies of the default, of --wakeups, and of an
#      empty program on each tracepoint (the floor), at once, paired
#      with an untraced run
#   7. sockets (--wakeups' socket hooks): the programs per run on a pinned
#      TCP ping-pong, its sockets tracked and untracked, beside an empty
#      program on sock_send_length; the ping-pong's slowdown with and
#      without --wakeups; and the function hooks (fentry/fexit, kprobes)
#      per run in make vmtest's 6.1 guest, one boot under QEMU TCG
#      (skipped, said, without QEMU or make static)
#   8. spans (--span): the cost of an operator boundary, USDT and uprobe,
#      beside empty uprobe programs on the same functions, and the
#      slowdown of a workload entering spans tens of thousands of times
#      a second
#
# Variants alternate round-robin within each round; tables give the median
# and the min-max spread. Run as root from the repository root (make bench).
#
# Environment (defaults in brackets):
#   BENCH_ROUNDS [7]          rounds of sections 1 and 2
#   BENCH_LOOPS [200000]      pipe round trips per run (2 switches each)
#   BENCH_SCALE_ROUNDS [3]    rounds per thread count in section 3
#   BENCH_THREADS ["100 1000 10000"]
#   BENCH_MT_PERIOD [1000]    ms between wake-ups of each manythreads thread
#   BENCH_AMP [8]             copies attached at once in section 6's
#                             CPU-time measure
#   BENCH_DECODE_MS [300]     time per model in section 4
#   BENCH_SECTIONS ["pipe bpf scale decode listen wakeups sockets spans"]
#                             the sections to run; with
#                             fewer than all, the tables are printed and
#                             bench/results.md is left as it is
#   BENCH_LISTEN_THREADS [10000]  threads of the scrape measurement (section 5)
#   BENCH_LISTEN_SCRAPES [10]     scrapes per variant
#   BENCH_SOAK_THREADS [100000]   threads created and ended during the soak
#   BENCH_ONLY [all]          "listen", "wakeups", "sockets" or "spans":
#                             run section 5, 6, 7 or 8 alone and print its
#                             tables (bench/results.md is left as it is)
#   BENCH_SPAN_TASKS [200000] operator tasks per run of section 8
#   OUT [build]               build directory of make
set -u
cd "$(dirname "$0")/.." || exit 1

OUT=${OUT:-build}
ROUNDS=${BENCH_ROUNDS:-7}
LOOPS=${BENCH_LOOPS:-200000}
SCALE_ROUNDS=${BENCH_SCALE_ROUNDS:-3}
THREADS=${BENCH_THREADS:-"100 1000 10000"}
MT_PERIOD=${BENCH_MT_PERIOD:-1000}
AMP=${BENCH_AMP:-8}
DECODE_MS=${BENCH_DECODE_MS:-300}
ALL_SECTIONS="pipe bpf scale decode listen wakeups sockets spans"
SECTIONS=${BENCH_SECTIONS:-$ALL_SECTIONS}
LISTEN_THREADS=${BENCH_LISTEN_THREADS:-10000}
LISTEN_SCRAPES=${BENCH_LISTEN_SCRAPES:-10}
SOAK_THREADS=${BENCH_SOAK_THREADS:-100000}
ONLY=${BENCH_ONLY:-all}
TDBPF=${TDBPF:-./tdbpf}
W=$OUT/tests/workloads
BD=$OUT/bench
EVENTS=cpu-clock,page-faults,context-switches,cpu-migrations
NR_WIDE=72		# counters of section 3's wide run: TDBPF_MAX_EVENTS
WIDE=			# its -e list (wide_events)
SLEEP_MS=1000		# pipe_pingpong -s: time for a tracer to attach
RESULTS=bench/results.md

die() { echo "bench: $*" >&2; exit 1; }
log() { echo "bench: $*" >&2; }

# ---------------------------------------------------------------- checks
[ "$(id -u)" = 0 ] || die "must run as root (sudo make bench): it loads BPF programs, opens per-CPU perf events and sets kernel.bpf_stats_enabled"
for c in perf bpftool clang gcc taskset sysctl awk curl; do
	command -v "$c" >/dev/null || die "'$c' not found; run 'make deps' (Debian: linux-perf, bpftool, clang, gcc, util-linux, procps, curl)"
done
[ -x "$TDBPF" ] || die "$TDBPF not built; run 'make tdbpf' (or 'make bench')"
for w in pipe_pingpong manythreads churn; do
	[ -x "$W/$w" ] || die "$W/$w not built; run 'make $W/$w' (or 'make bench')"
done
perf bench sched pipe -T -l 10 >/dev/null 2>&1 ||
	die "'perf bench sched pipe -T' does not run; check the linux-perf package"
[ -r /sys/kernel/btf/vmlinux ] || die "no /sys/kernel/btf/vmlinux: the kernel lacks BTF"

TMP=$(mktemp -d /tmp/tdbpf-bench.XXXXXX) || die "mktemp failed"
PIDS=()
STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo 0)

# Every background process we start is in PIDS; end them (and what they
# started) by pid, restore bpf_stats_enabled, remove the scratch directory.
cleanup() {
	local p
	trap - EXIT INT TERM
	for p in "${PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null || continue
		pkill -TERM -P "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
	done
	# manythreads joins thousands of threads: give them a few seconds
	for _ in $(seq 30); do
		for p in "${PIDS[@]}"; do
			kill -0 "$p" 2>/dev/null && break
		done
		kill -0 "${p:-}" 2>/dev/null || break
		sleep 0.1
	done
	for p in "${PIDS[@]}"; do
		kill -0 "$p" 2>/dev/null || continue
		pkill -KILL -P "$p" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	sysctl -q kernel.bpf_stats_enabled="$STATS_OLD" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'log interrupted; exit 130' INT TERM
# ---------------------------------------------------------------- parts
# Functions only, in files by section; run.sh runs them below.
. bench/lib.sh
. bench/sections/pipe.sh
. bench/sections/bpf.sh
. bench/sections/scale.sh
. bench/sections/listen.sh
. bench/sections/wakeups.sh
. bench/sections/sockets.sh
. bench/sections/spans.sh
. bench/results.sh

# ---------------------------------------------------------------- main
T0=$(now_ms)
if [ "$ONLY" = listen ]; then
	section_listen
	listen_results
	log "done in $((($(now_ms) - T0) / 1000)) s (section 5 only; $RESULTS unchanged)"
	exit 0
fi
build_helpers
if [ "$ONLY" = spans ]; then
	section_spans
	write_spans
	exit 0
fi
if [ "$ONLY" = wakeups ]; then
	section_wakeups
	write_wakeups
	exit 0
fi
if [ "$ONLY" = sockets ]; then
	section_sockets
	write_sockets
	exit 0
fi
has() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
has pipe && section_pipe
has bpf && section_bpf
has scale && section_scale
if has decode; then
	log "4/4 decode throughput"
	"$BD/decode_bench" "$DECODE_MS" >"$TMP/decode.out" || die "decode_bench failed"
fi
has listen && section_listen
has wakeups && section_wakeups
has sockets && section_sockets
has spans && section_spans
touch "$TMP/decode.out"
if [ "$SECTIONS" != "$ALL_SECTIONS" ]; then
	# a partial run: show it, keep the committed results
	RESULTS=$TMP/partial.md
fi
write_results
log "done in $((($(now_ms) - T0) / 1000)) s; results in $RESULTS"
cat "$RESULTS"
