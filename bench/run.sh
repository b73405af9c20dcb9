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
#      ping-pong's slowdown with and without it
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
#   BENCH_DECODE_MS [300]     time per model in section 4
#   BENCH_SECTIONS ["pipe bpf scale decode listen wakeups"]  the sections to run; with
#                             fewer than all, the tables are printed and
#                             bench/results.md is left as it is
#   BENCH_LISTEN_THREADS [10000]  threads of the scrape measurement (section 5)
#   BENCH_LISTEN_SCRAPES [10]     scrapes per variant
#   BENCH_SOAK_THREADS [100000]   threads created and ended during the soak
#   BENCH_ONLY [all]          "listen": run section 5 alone and print its
#                             tables (bench/results.md is left as it is)
#   OUT [build]               build directory of make
#   BENCH_ONLY [all]          "wakeups": run section 6 alone and print its
#                             tables (bench/results.md is left as it is)
set -u
cd "$(dirname "$0")/.." || exit 1

OUT=${OUT:-build}
ROUNDS=${BENCH_ROUNDS:-7}
LOOPS=${BENCH_LOOPS:-200000}
SCALE_ROUNDS=${BENCH_SCALE_ROUNDS:-3}
THREADS=${BENCH_THREADS:-"100 1000 10000"}
MT_PERIOD=${BENCH_MT_PERIOD:-1000}
DECODE_MS=${BENCH_DECODE_MS:-300}
SECTIONS=${BENCH_SECTIONS:-"pipe bpf scale decode listen wakeups"}
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

# ---------------------------------------------------------------- helpers
# Build the floor programs and helpers into $BD.
build_helpers() {
	local vmlinux=$OUT/vmlinux.h arch objs o
	mkdir -p "$BD" || die "cannot create $BD"
	if [ ! -s "$vmlinux" ]; then
		vmlinux=$BD/vmlinux.h
		bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$vmlinux" ||
			die "bpftool btf dump failed"
	fi
	arch=$(uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
	clang -g -O2 -Wall -target bpf -D__TARGET_ARCH_"$arch" \
		-I"$(dirname "$vmlinux")" -c bench/floor.bpf.c -o "$BD/floor.bpf.o" ||
		die "cannot build bench/floor.bpf.c"
	bpftool gen skeleton "$BD/floor.bpf.o" name floor_bpf >"$BD/floor.skel.h" ||
		die "bpftool gen skeleton failed"
	gcc -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -I"$BD" bench/floor.c \
		-o "$BD/floor" -lbpf -lelf -lz || die "cannot build bench/floor.c"
	gcc -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE bench/runwatch.c \
		-o "$BD/runwatch" || die "cannot build bench/runwatch.c"
	objs=
	# the stage folders by name: an older build/ may still hold the
	# objects of files since moved
	for o in "$OUT"/user/sources/*.o "$OUT"/user/sums/*.o \
		"$OUT"/user/model/*.o "$OUT"/user/model/cpus/*.o \
		"$OUT"/user/analysis/*.o "$OUT"/user/outputs/*.o \
		"$OUT"/user/commands/*.o "$OUT"/user/support/*.o; do
		[ -f "$o" ] && [ "${o##*/}" != main.o ] && objs="$objs $o"
	done
	[ -n "$objs" ] || die "no objects in $OUT/user; run 'make tdbpf' first"
	# shellcheck disable=SC2086
	gcc -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -Iinclude -Iuser -I"$OUT" \
		bench/decode_bench.c $objs -o "$BD/decode_bench" \
		-lbpf -lelf -lz -ljson-c -lncurses -lcap -lm -lmicrohttpd -pthread ||
		die "cannot build bench/decode_bench.c"
}

# median min max of the numbers on stdin, one per line
stats3() {
	sort -g | awk '{ v[NR] = $1 }
		END {
			if (!NR) { print "nan nan nan"; exit }
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			print m, v[1], v[NR]
		}'
}
med() { stats3 | awk '{ print $1 }'; }
# a / b with printf format $3
ratio() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { if (b > 0 && a == a + 0) printf f, a / b; else printf "n/a" }'; }
fmt() { awk -v a="$1" -v f="$2" 'BEGIN { if (a == a + 0) printf f, a; else printf "n/a" }'; }

now_ms() { date +%s%3N; }

# wait_for FILE REGEX SECONDS: poll until FILE has a line matching REGEX
wait_for() {
	local end=$(($(now_ms) + $3 * 1000))
	while [ "$(now_ms)" -lt "$end" ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.02
	done
	return 1
}

# wait_pid PID SECONDS: wait for our background PID, INT/KILL it if late.
# No polling loop: on this 2-CPU VM a shell forking every 20 ms competes
# with what is measured (it doubled tdbpf's collect of 10,000 tasks). The
# time limit is a sleep waited on beside PID, killed with SIGKILL: a
# subshell signalled before it could reset the traps would run ours.
wait_pid() {
	local dog done st
	(exec sleep "$2") &
	dog=$!
	wait -n -p done "$1" "$dog"
	st=$?
	if [ "$done" = "$dog" ]; then
		log "pid $1 still running after $2 s; stopping it"
		kill -INT "$1" 2>/dev/null
		sleep 1
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		return
	fi
	kill -KILL "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	return "$st"
}

usecs() { awk '/usecs\/op/ { print $1; exit }' "$1"; }

# kv_get FILE KEY: the value of KEY in FILE's "key value" lines (our result
# files, a /metrics exposition, /proc/PID/status)
kv_get() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# start_pingpong FILE: pipe_pingpong pinned to CPU 0, waiting SLEEP_MS for a
# tracer; sets PP to its pid
start_pingpong() {
	"$W/pipe_pingpong" -n "$LOOPS" -c 0 -s "$SLEEP_MS" >"$1" 2>&1 &
	PP=$!
	PIDS+=("$PP")
	wait_for "$1" '^pid=' 5 || die "pipe_pingpong did not start: $(cat "$1")"
}

# start_tdbpf ARGS...: "tdbpf -v ARGS" in the background, its stderr in
# $TMP/tracer.err, until it says it has attached; sets TR to its pid
start_tdbpf() {
	"$TDBPF" -v "$@" 2>"$TMP/tracer.err" &
	TR=$!
	PIDS+=("$TR")
	wait_for "$TMP/tracer.err" 'tdbpf: attached' 10 ||
		die "tdbpf did not attach: $(cat "$TMP/tracer.err")"
}

# start_floor VARIANT: bench/floor's VARIANT program, attached; sets TR to
# the loader's pid and FLOOR_ID to the program's id
start_floor() {
	"$BD/floor" "$1" >"$TMP/floor.out" 2>&1 &
	TR=$!
	PIDS+=("$TR")
	wait_for "$TMP/floor.out" '^id=' 10 ||
		die "floor $1 did not attach: $(cat "$TMP/floor.out")"
	FLOOR_ID=$(sed -n 's/^id=//p' "$TMP/floor.out")
}

# start_manythreads N: manythreads with N threads waking every MT_PERIOD
# ms, once every thread has woken (so all are in a run); sets MT to its pid
start_manythreads() {
	"$W/manythreads" -n "$1" -d 3600 -p "$MT_PERIOD" >"$TMP/mt.out" 2>&1 &
	MT=$!
	PIDS+=("$MT")
	wait_for "$TMP/mt.out" '^ready' 120 ||
		die "manythreads -n $1 did not get ready: $(cat "$TMP/mt.out")"
	sleep "$(awk -v p="$MT_PERIOD" 'BEGIN { print p / 1000 + 0.2 }')"
}

# tp_prog_id PID TRACEPOINT: the prog id of the program process PID holds
# a link for on TRACEPOINT (from the link's fdinfo)
tp_prog_id() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		grep -q "^tp_name:[[:space:]]*$2\$" "$f" 2>/dev/null || continue
		awk '/^prog_id:/ { print $2 }' "$f"
		return 0
	done
	return 1
}

# "run_time_ns run_cnt" of a program, from bpftool's JSON
prog_stats() {
	bpftool prog show id "$1" -j 2>/dev/null |
		awk '{
			t = $0; c = $0
			sub(/.*"run_time_ns":/, "", t); sub(/[^0-9].*/, "", t)
			sub(/.*"run_cnt":/, "", c); sub(/[^0-9].*/, "", c)
			print (t == "" ? 0 : t), (c == "" ? 0 : c)
		}'
}

# ns per run between two "run_time_ns run_cnt" snapshots; also the count
per_run() {
	echo "$1 $2" | awk '{ dt = $3 - $1; dc = $4 - $2
		if (dc > 0) printf "%.1f %d\n", dt / dc, dc; else print "nan 0" }'
}

# Bytes in the memcg-accounted kmalloc slabs, where BPF task storage
# lives: their growth while tdbpf holds N tasks is what the tasks' sums
# cost (memlock of a task-storage map leaves the per-task parts out).
slab_cg_bytes() {
	awk '/^kmalloc-cg-/ { s += $2 * $4 } END { print s + 0 }' /proc/slabinfo
}

# The same once the storage of a previous run is gone: it is freed after
# an RCU grace period, so wait (up to 5 s) until two readings 0.2 s apart
# differ by less than 64 KiB.
slab_cg_settled() {
	local a b i
	a=$(slab_cg_bytes)
	for i in $(seq 25); do
		sleep 0.2
		b=$(slab_cg_bytes)
		[ $((a > b ? a - b : b - a)) -lt 65536 ] && break
		a=$b
	done
	echo "$b"
}

# Sum of memlock over a process's BPF maps; "total tasks_map" in bytes.
# Two processes in all: this runs while tdbpf traces, and a fork per
# descriptor took 0.6-2 s here, reaching into the collect being measured.
map_memlock() {
	local ids
	ids=$(bpftool map show -j 2>/dev/null |
		grep -o '"id":[0-9]*,"type":"[a-z_]*","name":"tasks"' |
		sed 's/"id":\([0-9]*\),.*/\1/' | tr '\n' ' ')
	awk -v ids=" $ids" 'FNR == 1 { m = 0 }
		/^memlock:/ { m = $2 }
		/^map_id:/ { t += m; if (index(ids, " " $2 " ")) k += m }
		END { print t + 0, k + 0 }' /proc/"$1"/fdinfo/* 2>/dev/null
}

# ---------------------------------------------------------------- section 1
# One run of a context-switch variant; prints usecs/op.
pipe_run() {
	local v=$1 out=$TMP/pipe.$1 tp
	: >"$out"
	case $v in
	launch_none)
		timeout 300 taskset -c 0 perf bench sched pipe -T -l "$LOOPS" >"$out" 2>&1 ;;
	launch_tdbpf)
		timeout 300 "$TDBPF" -o /dev/null -- \
			taskset -c 0 perf bench sched pipe -T -l "$LOOPS" >"$out" 2>&1 ;;
	launch_perf)
		timeout 300 perf stat -e "$EVENTS" -o /dev/null -- \
			taskset -c 0 perf bench sched pipe -T -l "$LOOPS" >"$out" 2>&1 ;;
	attach_none)
		start_pingpong "$out"
		wait_pid "$PP" 300 ;;
	attach_tdbpf | attach_perf)
		start_pingpong "$out"
		if [ "$v" = attach_tdbpf ]; then
			"$TDBPF" -o /dev/null -p "$PP" 2>"$TMP/tracer.err" &
		else
			perf stat --per-thread -e "$EVENTS" -p "$PP" -o /dev/null \
				2>"$TMP/tracer.err" &
		fi
		tp=$!
		PIDS+=("$tp")
		wait_pid "$PP" 300
		# both stop by themselves when the target exits
		wait_pid "$tp" 10
		;;
	esac
	usecs "$out" | grep . || { log "$v: no usecs/op: $(tail -3 "$out")"; echo nan; }
}

section_pipe() {
	local variants=(launch_none launch_tdbpf launch_perf attach_none attach_tdbpf attach_perf)
	local n=${#variants[@]} r i v
	log "1/5 context-switch cost: $ROUNDS rounds x ${#variants[@]} variants, $LOOPS round trips each"
	for ((r = 0; r < ROUNDS; r++)); do
		# rotate the starting variant so no variant always runs first
		for ((i = 0; i < n; i++)); do
			v=${variants[$(((i + r) % n))]}
			pipe_run "$v" >>"$TMP/s1.$v"
		done
		log "  round $((r + 1))/$ROUNDS: $(for v in "${variants[@]}"; do printf '%s=%s ' "$v" "$(tail -1 "$TMP/s1.$v")"; done)"
	done
}

# ---------------------------------------------------------------- section 2
# BPF run time per sched_switch run while the pinned pipe runs; writes
# "ns_per_run runs" to $TMP/bpf.res (not stdout: it must run in this shell so
# its background processes are ours to clean up).
bpf_run() {
	local v=$1 lp s0 s1 id out=$TMP/bpf.out
	case $v in
	floor_*)
		start_floor "${v#floor_}"
		lp=$TR id=$FLOOR_ID
		s0=$(prog_stats "$id")
		timeout 300 "$W/pipe_pingpong" -n "$LOOPS" -c 0 >"$out" 2>&1
		s1=$(prog_stats "$id")
		;;
	tdbpf_sw)
		# the software model: no program on sched_switch, so none to
		# measure (0 runs); a program there would be measured as below
		start_pingpong "$out"
		start_tdbpf -o /dev/null -p "$PP,$SLEEPER"
		lp=$TR
		if id=$(tp_prog_id "$lp" sched_switch); then
			s0=$(prog_stats "$id")
			wait_pid "$PP" 300
			s1=$(prog_stats "$id")
		else
			wait_pid "$PP" 300
			s0=none
		fi
		;;
	tdbpf_tracked)
		# pipe_pingpong and a sleeper are the targets: tdbpf stays
		# attached after the pipe ends, so the second snapshot is safe.
		# One counter (-e): the switch program runs and reads it.
		start_pingpong "$out"
		start_tdbpf -e cpu-clock -o /dev/null -p "$PP,$SLEEPER"
		lp=$TR
		id=$(tp_prog_id "$lp" sched_switch) || die "no sched_switch link in tdbpf -e"
		s0=$(prog_stats "$id")
		wait_pid "$PP" 300
		s1=$(prog_stats "$id")
		;;
	tdbpf_untracked)
		start_tdbpf -e cpu-clock -o /dev/null -p "$SLEEPER"
		lp=$TR
		id=$(tp_prog_id "$lp" sched_switch) || die "no sched_switch link in tdbpf -e"
		s0=$(prog_stats "$id")
		timeout 300 "$W/pipe_pingpong" -n "$LOOPS" -c 0 >"$out" 2>&1
		s1=$(prog_stats "$id")
		;;
	esac
	kill -INT "$lp" 2>/dev/null
	wait_pid "$lp" 10
	if [ "$s0" = none ]; then
		echo "0.0 0"
	else
		per_run "$s0" "$s1"
	fi >"$TMP/bpf.res"
}

section_bpf() {
	local variants=(floor_empty floor_read1 floor_read4 floor_read4grp floor_hashhit2 floor_tstore1 floor_tstore2 tdbpf_sw tdbpf_tracked tdbpf_untracked)
	local n=${#variants[@]} r i v res
	log "2/5 BPF cost per sched_switch run: $ROUNDS rounds x $n variants"
	sleep 1000 &
	SLEEPER=$!
	PIDS+=("$SLEEPER")
	sysctl -q kernel.bpf_stats_enabled=1 || die "cannot set kernel.bpf_stats_enabled"
	for ((r = 0; r < ROUNDS; r++)); do
		for ((i = 0; i < n; i++)); do
			v=${variants[$(((i + r) % n))]}
			bpf_run "$v"
			res=$(cat "$TMP/bpf.res")
			echo "${res% *}" >>"$TMP/s2.$v"
			echo "${res#* }" >>"$TMP/s2cnt.$v"
		done
		log "  round $((r + 1))/$ROUNDS: $(for v in "${variants[@]}"; do printf '%s=%sns ' "$v" "$(tail -1 "$TMP/s2.$v")"; done)"
	done
	sysctl -q kernel.bpf_stats_enabled="$STATS_OLD"
	kill "$SLEEPER" 2>/dev/null
	wait "$SLEEPER" 2>/dev/null
}

# ---------------------------------------------------------------- section 3
# tdbpf_scale MT_PID TAG EXTRA_ARGS...: one tdbpf -p run of 2 s, the results
# as "key value" lines in $TMP/scale.$TAG
tdbpf_scale() {
	local mt=$1 tag=$2 rw=$TMP/rw.out err=$TMP/tdbpf.err tp wp line slab0
	shift 2
	slab0=$(slab_cg_settled)
	"$BD/runwatch" "tdbpf: attached" -- "$TDBPF" -v "$@" -o /dev/null \
		-p "$mt" -d 2 >"$rw" 2>"$err" &
	wp=$!
	PIDS+=("$wp")
	wait_for "$rw" '^child=' 10 || die "runwatch did not start"
	tp=$(sed -n 's/^child=//p' "$rw")
	wait_for "$rw" '^marker_ms=' 30 || die "tdbpf did not attach: $(cat "$err")"
	# one wake-up period later every thread is in the task map
	sleep "$(awk -v p="$MT_PERIOD" 'BEGIN { print p / 1000 + 0.3 }')"
	map_memlock "$tp" >"$TMP/memlock"
	echo $(($(slab_cg_bytes) - slab0)) >"$TMP/slab"
	wait_pid "$wp" 60
	line=$(grep 'final report:' "$err")
	{
		echo "attach_ms $(sed -n 's/^marker_ms=//p' "$rw")"
		echo "rss_kb $(sed -n 's/^maxrss_kb=//p' "$rw")"
		echo "map_total $(awk '{ print $1 }' "$TMP/memlock")"
		echo "map_tasks $(awk '{ print $2 }' "$TMP/memlock")"
		echo "storage $(cat "$TMP/slab")"
		echo "collect_ms $(echo "$line" | sed -n 's/.*collect \([0-9.]*\) ms.*/\1/p')"
		echo "decode_ms $(echo "$line" | sed -n 's/.*decode and write \([0-9.]*\) ms.*/\1/p')"
		echo "tasks $(echo "$line" | sed -n 's/.*report: \([0-9]*\) tasks.*/\1/p')"
	} >"$TMP/scale.$tag"
	[ "$(sed -n 's/^status=//p' "$rw")" = 0 ] ||
		log "tdbpf exited $(sed -n 's/^status=//p' "$rw"): $(tail -2 "$err")"
}

# perf_scale MT_PID TAG EVENTS: perf stat --per-thread -p for 1 s
perf_scale() {
	local mt=$1 tag=$2 ev=$3 tp fds maxfds=0 t0 t1 st
	t0=$(now_ms)
	perf stat --per-thread -e "$ev" -p "$mt" -o "$TMP/perf.out" -- sleep 1 \
		>/dev/null 2>"$TMP/perf.err" &
	tp=$!
	PIDS+=("$tp")
	while kill -0 "$tp" 2>/dev/null; do
		fds=$(ls /proc/"$tp"/fd 2>/dev/null | wc -l)
		[ "$fds" -gt "$maxfds" ] && maxfds=$fds
		sleep 0.05
	done
	wait "$tp"
	st=$?
	t1=$(now_ms)
	{
		echo "perf_status $st"
		echo "perf_fds $maxfds"
		echo "perf_over_ms $((t1 - t0 - 1000))"
		echo "perf_threads $(grep -c 'cpu-clock' "$TMP/perf.out" 2>/dev/null)"
	} >"$TMP/scale.$tag"
	cp "$TMP/perf.err" "$TMP/perf.err.${tag%%.*}.${tag##*.}"
	[ "$st" = 0 ] || log "perf stat -e $ev exited $st: $(grep -v '^$' "$TMP/perf.err" | head -3 | tr '\n' ' ')"
	return "$st"
}

# wide_events: NR_WIDE syscall tracepoints in groups of 8, perf's syntax
# ({a,...},{...}): a record and a row as wide as the widest hardware
# model's (graniterapids programs 73 events), read as groups are. Empty
# where tracefs has too few.
wide_events() {
	local d=/sys/kernel/tracing/events/syscalls
	[ -d "$d" ] || d=/sys/kernel/debug/tracing/events/syscalls
	ls "$d" 2>/dev/null | grep '^sys_enter_' | head -"$NR_WIDE" |
		awk -v n="$NR_WIDE" '{ e[NR] = "syscalls:" $1 }
		END {
			if (NR < n) exit
			for (i = 1; i <= NR; i++) {
				if (i % 8 == 1)
					s = s (i > 1 ? "},{" : "{") e[i]
				else
					s = s "," e[i]
			}
			print s "}"
		}'
}

scale_one() {
	local n=$1 r=$2 mt
	start_manythreads "$n"
	mt=$MT

	tdbpf_scale "$mt" "$n.$r.tdbpf"
	tdbpf_scale "$mt" "$n.$r.json" -j
	# the largest run again with counters: what a hardware model collects
	if [ "$n" = "$(echo "$THREADS" | tr ' ' '\n' | sort -n | tail -1)" ] &&
		[ -n "$WIDE" ]; then
		tdbpf_scale "$mt" "$n.$r.wide" -j -e "$WIDE"
	fi
	# perf opens one event per thread per counter: 4 x N descriptors.
	# Where RLIMIT_NOFILE cannot hold them, also show one event.
	perf_scale "$mt" "$n.$r.perf" "$EVENTS" ||
		perf_scale "$mt" "$n.$r.perf1" cpu-clock

	kill -TERM "$mt" 2>/dev/null
	wait_pid "$mt" 60
}

section_scale() {
	local n r
	WIDE=$(wide_events)
	[ -n "$WIDE" ] ||
		log "fewer than $NR_WIDE syscall tracepoints in tracefs: no run with counters"
	log "3/5 scale: $THREADS threads, $SCALE_ROUNDS rounds each"
	for n in $THREADS; do
		for ((r = 0; r < SCALE_ROUNDS; r++)); do
			scale_one "$n" "$r"
			log "  $n threads, round $((r + 1)): $(cat "$TMP"/scale."$n"."$r".* | tr "\n" " ")"
		done
	done
}

# median of key K over the rounds of thread count N ("tdbpf" or "perf" file)
scale_med() {
	cat "$TMP"/scale."$1".*."$2" 2>/dev/null | awk -v k="$3" '$1 == k && $2 != "" { print $2 }' | med
}
scale_spread() {
	cat "$TMP"/scale."$1".*."$2" 2>/dev/null | awk -v k="$3" '$1 == k && $2 != "" { print $2 }' |
		stats3 | awk -v f="$4" '{ printf f "-" f, $2, $3 }'
}

# ---------------------------------------------------------------- section 5
# start_listen TAG ARGS...: tdbpf --listen on a port the kernel picks; sets
# LP (its pid) and LPORT
start_listen() {
	local tag=$1
	shift
	"$TDBPF" --listen 127.0.0.1:0 -o /dev/null "$@" 2>"$TMP/listen.$tag.err" &
	LP=$!
	PIDS+=("$LP")
	wait_for "$TMP/listen.$tag.err" 'serving http://' 30 ||
		die "tdbpf --listen did not start: $(cat "$TMP/listen.$tag.err")"
	LPORT=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$TMP/listen.$tag.err")
}

# kB of a /proc/PID/status field (VmRSS, VmHWM)
proc_kb() { kv_get /proc/"$1"/status "$2:" 2>/dev/null; }

# scrape PORT FILE: one GET /metrics into FILE; prints the wall ms
scrape() {
	curl -s -o "$2" -w '%{time_total}\n' "http://127.0.0.1:$1/metrics" |
		awk '{ printf "%.2f\n", $1 * 1000 }'
}

# one variant of the scrape measurement: results as "key value" lines
listen_scrape_run() {
	local mt=$1 tag=$2 i ms
	shift 2
	start_listen "$tag" -p "$mt" "$@"
	# one wake-up period: every thread has run and has sums
	sleep "$(awk -v p="$MT_PERIOD" 'BEGIN { print p / 1000 + 0.3 }')"
	: >"$TMP/ls.$tag.ms"
	: >"$TMP/ls.$tag.collect"
	for ((i = 0; i < LISTEN_SCRAPES; i++)); do
		ms=$(scrape "$LPORT" "$TMP/ls.body") || die "scrape failed"
		echo "$ms" >>"$TMP/ls.$tag.ms"
		awk '$1 == "tdbpf_last_collect_duration_seconds" { print $2 * 1000 }' \
			"$TMP/ls.body" >>"$TMP/ls.$tag.collect"
		sleep 0.2
	done
	{
		echo "hwm_kb $(proc_kb "$LP" VmHWM)"
		echo "bytes $(wc -c <"$TMP/ls.body")"
		echo "series $(kv_get "$TMP/ls.body" tdbpf_series)"
		echo "tasks $(kv_get "$TMP/ls.body" 'tdbpf_tasks{state="live"}')"
	} >"$TMP/ls.$tag.kv"
	kill -INT "$LP" 2>/dev/null
	wait_pid "$LP" 30
}

kv() { kv_get "$TMP/ls.$1.kv" "$2"; }

section_listen() {
	local mt i ms n=0 exits r
	log "5/5 --listen: a scrape of $LISTEN_THREADS tasks ($LISTEN_SCRAPES scrapes per variant), and a soak of $SOAK_THREADS threads"
	start_manythreads "$LISTEN_THREADS"
	mt=$MT
	listen_scrape_run "$mt" name
	listen_scrape_run "$mt" tid --listen-labels tid --listen-max-series $((LISTEN_THREADS + 100))
	kill -TERM "$mt" 2>/dev/null
	wait_pid "$mt" 60

	# soak: churn starts after 1 s; scrape every 100 ms until it is done
	"$W/churn" -n "$SOAK_THREADS" -c 64 -w 100 -s 1000 >"$TMP/churn.out" 2>&1 &
	mt=$!
	PIDS+=("$mt")
	wait_for "$TMP/churn.out" '^pid=' 10 || die "churn did not start"
	start_listen soak -p "$mt"
	scrape "$LPORT" "$TMP/soak.body" >/dev/null || die "scrape failed"
	echo "rss_first_kb $(proc_kb "$LP" VmRSS)" >"$TMP/soak.kv"
	while kill -0 "$mt" 2>/dev/null; do
		ms=$(scrape "$LPORT" "$TMP/soak.next") || break
		grep -q '^tdbpf_series ' "$TMP/soak.next" || break
		mv "$TMP/soak.next" "$TMP/soak.body"
		n=$((n + 1))
		# start: once the churn runs and a few thousand threads have
		# come and gone (tables and buffers at their working size)
		[ "$n" = 20 ] && echo "rss0_kb $(proc_kb "$LP" VmRSS)" >>"$TMP/soak.kv"
		[ $((n % 50)) = 0 ] && log "  soak: $n scrapes, RSS $(proc_kb "$LP" VmRSS) kB"
		r=$(proc_kb "$LP" VmRSS)
		# tdbpf ends with the churn: keep the last reading it gave
		[ -n "$r" ] && echo "rss1_kb $r" >"$TMP/soak.last"
		sleep 0.1
	done
	exits=$(awk '$1 ~ /^tdbpf_task_exited_threads_total/ { s += $2 } END { print s + 0 }' "$TMP/soak.body")
	{
		cat "$TMP/soak.last"
		echo "scrapes $n"
		echo "exits $exits"
		echo "threads $(sed -n 's/^threads=\([0-9]*\).*/\1/p' "$TMP/churn.out")"
	} >>"$TMP/soak.kv"
	wait_pid "$mt" 120
	wait_pid "$LP" 30
}

# section 5's tables (markdown)
listen_results() {
	local tag m mn mx c rss lim
	echo "## 5. --listen: a /metrics scrape, and a soak with thread churn"
	echo
	echo "\`manythreads -n $LISTEN_THREADS -p $MT_PERIOD\` traced by \`tdbpf --listen 127.0.0.1:0 -p PID\`;"
	echo "$LISTEN_SCRAPES scrapes 0.2 s apart with curl (wall time of the GET: collect, fold into"
	echo "series, write the exposition, send it). Collect: tdbpf_last_collect_duration_seconds"
	echo "(flush every CPU, iterator, exit queue), as the report's collect. Peak RSS: VmHWM"
	echo "of tdbpf after the scrapes. Default labels fold the threads into one series per"
	echo "name; \`--listen-labels tid\` makes a series per thread."
	echo
	echo "| labels | tasks | series | scrape ms (median, min-max) | collect ms | body KiB | peak RSS MiB |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	for tag in name tid; do
		read -r m mn mx < <(stats3 <"$TMP/ls.$tag.ms")
		c=$(med <"$TMP/ls.$tag.collect")
		echo "| $([ $tag = name ] && echo "default (comm, thread name)" || echo "tid (one per thread)") | $(kv $tag tasks) | $(kv $tag series) | $(fmt "$m" %.1f) ($(fmt "$mn" %.1f)-$(fmt "$mx" %.1f)) | $(fmt "$c" %.1f) | $(awk -v b="$(kv $tag bytes)" 'BEGIN { printf "%.0f", b / 1024 }') | $(kib_mib "$(kv $tag hwm_kb)") |"
	done
	echo
	echo "Soak: \`churn -n $SOAK_THREADS -c 64 -w 100\` (64 threads alive at once, each"
	echo "100 us of CPU) traced with \`--listen\`, a scrape every 0.1 s until it ends."
	echo "RSS (VmRSS) at the 20th scrape, once the churn runs (start), and at the"
	echo "last one (end); at the first scrape, before any churn, for reference."
	echo
	local r0 r1 gr grm sk=$TMP/soak.kv
	r0=$(kv_get "$sk" rss0_kb)
	r1=$(kv_get "$sk" rss1_kb)
	# growth in KiB and MiB, empty when either reading is missing
	gr=$(awk -v a="$r0" -v b="$r1" 'BEGIN { if (a != "" && b != "") print b - a }')
	grm=$(awk -v g="$gr" 'BEGIN { if (g != "") print g / 1024 }')
	echo "| threads created | exits counted in /metrics | scrapes | RSS first scrape MiB | RSS start MiB | RSS end MiB | growth MiB |"
	echo "|---:|---:|---:|---:|---:|---:|---:|"
	echo "| $(kv_get "$sk" threads) | $(kv_get "$sk" exits) | $(kv_get "$sk" scrapes) | $(kib_mib "$(kv_get "$sk" rss_first_kb)") | $(kib_mib "$r0") | $(kib_mib "$r1") | $(fmt "$grm" %+.1f) |"
	echo
	echo "| target | measured | limit | result |"
	echo "|---|---:|---:|---|"
	for tag in name tid; do
		m=$(med <"$TMP/ls.$tag.ms")
		rss=$(kv $tag hwm_kb)
		lim="$([ $tag = name ] && echo "default labels" || echo "tid labels")"
		echo "| scrape of $(kv $tag tasks) tasks, $lim | $(fmt "$m" "%.1f ms") | 50 ms | $(pass "$(le "$m" 50)") |"
		echo "| tdbpf peak RSS, $lim | $(kib_mib "$rss") MiB | 64 MiB | $(pass "$(le "$rss" 65536)") |"
	done
	# flat: within 1 MiB (allocator noise) over the whole soak
	echo "| RSS growth over the soak | $(fmt "$grm" "%+.1f MiB") | +1.0 MiB | $(pass "$(le "$gr" 1024)") |"
}

# ---------------------------------------------------------------- section 6
# The ping-pong's own CPU time per round trip (both threads' clocks), us:
# what a program run in their context adds, whatever else loads the
# machine (time spent waiting for a CPU is not in it, wall time is).
cpu_per_op() {
	awk -v l="$LOOPS" '/^tid=/ { sub(/.*cpu_ns=/, ""); s += $1 } END { if (s > 0) printf "%.4f", s / l / 1000; else print "nan" }' "$1"
}

# One run of a wakeup variant. pp_*: the pinned ping-pong's usecs/op with
# bpf_stats off; the rest: ns per run of the programs, with bpf_stats on.
# Writes "key value" lines to $TMP/wake.res.
wake_run() {
	local v=$1 out=$TMP/wake.out lp sid wid s0 s1 w0 w1 flag
	: >"$TMP/wake.res"
	case $v in
	pp_none)
		start_pingpong "$out"
		wait_pid "$PP" 300
		{ echo "usecs $(usecs "$out")"; echo "cpu $(cpu_per_op "$out")"; } >"$TMP/wake.res"
		return ;;
	pp_off | pp_on)
		[ "$v" = pp_on ] && flag=--wakeups || flag=-v
		start_pingpong "$out"
		"$TDBPF" "$flag" -o /dev/null -p "$PP" 2>"$TMP/tracer.err" &
		lp=$!
		PIDS+=("$lp")
		wait_pid "$PP" 300
		wait_pid "$lp" 10
		{ echo "usecs $(usecs "$out")"; echo "cpu $(cpu_per_op "$out")"; } >"$TMP/wake.res"
		return ;;
	floor_wempty)
		start_floor wempty
		lp=$TR wid=$FLOOR_ID
		w0=$(prog_stats "$wid")
		timeout 300 "$W/pipe_pingpong" -n "$LOOPS" -c 0 >"$out" 2>&1
		w1=$(prog_stats "$wid")
		;;
	bpf_on)
		# without --wakeups the software model has no program on
		# either tracepoint: nothing to set beside this
		start_pingpong "$out"
		start_tdbpf --wakeups -o /dev/null -p "$PP,$SLEEPER"
		lp=$TR
		sid=$(tp_prog_id "$lp" sched_switch) || die "no sched_switch link in tdbpf --wakeups"
		s0=$(prog_stats "$sid")
		wid=$(tp_prog_id "$lp" sched_waking) || die "no sched_waking link in tdbpf --wakeups"
		w0=$(prog_stats "$wid")
		wait_pid "$PP" 300
		s1=$(prog_stats "$sid")
		w1=$(prog_stats "$wid")
		;;
	bpf_untracked)
		# the switch program too: with --wakeups an untracked switch
		# pushes its slice on the CPU's ring of holders
		start_tdbpf --wakeups -o /dev/null -p "$SLEEPER"
		lp=$TR
		sid=$(tp_prog_id "$lp" sched_switch) || die "no sched_switch link in tdbpf --wakeups"
		s0=$(prog_stats "$sid")
		wid=$(tp_prog_id "$lp" sched_waking) || die "no sched_waking link in tdbpf --wakeups"
		w0=$(prog_stats "$wid")
		timeout 300 "$W/pipe_pingpong" -n "$LOOPS" -c 0 >"$out" 2>&1
		s1=$(prog_stats "$sid")
		w1=$(prog_stats "$wid")
		;;
	esac
	kill -INT "$lp" 2>/dev/null
	wait_pid "$lp" 10
	{
		[ -n "${s0:-}" ] && echo "switch $(per_run "$s0" "$s1")"
		[ -n "${w0:-}" ] && echo "waking $(per_run "$w0" "$w1")"
	} >"$TMP/wake.res"
}

section_wakeups() {
	local pp=(pp_none pp_off pp_on) bpf=(floor_empty floor_wempty bpf_on bpf_untracked)
	local r i v n k val
	log "6/6 wakeups: $ROUNDS rounds, ${#pp[@]} ping-pong and ${#bpf[@]} BPF variants"
	sleep 1000 &
	SLEEPER=$!
	PIDS+=("$SLEEPER")
	for ((r = 0; r < ROUNDS; r++)); do
		n=${#pp[@]}
		for ((i = 0; i < n; i++)); do
			v=${pp[$(((i + r) % n))]}
			wake_run "$v"
			kv_get "$TMP/wake.res" usecs >>"$TMP/s6.$v"
			kv_get "$TMP/wake.res" cpu >>"$TMP/s6.$v.cpu"
		done
		sysctl -q kernel.bpf_stats_enabled=1 || die "cannot set kernel.bpf_stats_enabled"
		n=${#bpf[@]}
		for ((i = 0; i < n; i++)); do
			v=${bpf[$(((i + r) % n))]}
			if [ "$v" = floor_empty ]; then
				bpf_run floor_empty
				echo "switch $(cat "$TMP/bpf.res")" >"$TMP/wake.res"
			else
				wake_run "$v"
			fi
			for k in switch waking; do
				val=$(kv_get "$TMP/wake.res" "$k")
				[ -n "$val" ] && echo "$val" >>"$TMP/s6.$v.$k"
			done
		done
		sysctl -q kernel.bpf_stats_enabled="$STATS_OLD"
		log "  round $((r + 1))/$ROUNDS: $(for v in "${pp[@]}"; do printf '%s=%sus ' "$v" "$(tail -1 "$TMP/s6.$v")"; done)"
	done
	kill "$SLEEPER" 2>/dev/null
	wait "$SLEEPER" 2>/dev/null
}

# Section 6's tables (markdown) on stdout.
write_wakeups() {
	local v m mn mx base e we t0 t1 tw tu p0 p1 p2 s
	echo "## 6. Wakeups: the wait-for graph's cost"
	echo
	echo "tdbpf_waking runs on \`sched_waking\` for every wakeup on the machine;"
	echo "a wakee that is not traced costs one bit test. For a traced one that"
	echo "blocked, it charges the blocked interval to its waker; the switch"
	echo "program takes the clock once when a traced task blocks. Without"
	echo "--wakeups the software model runs no program at a switch or a wakeup,"
	echo "so --wakeups adds both programs whole. Pinned"
	echo "ping-pong (\`pipe_pingpong -n $LOOPS -c 0\`): each round trip has two"
	echo "switches, one of them blocking, and one wakeup (the other side is still"
	echo "runnable when its reply comes). $ROUNDS rounds, median and min-max."
	echo
	echo "Wall time per round trip, and the two threads' own CPU time per round"
	echo "trip (their CPU clocks, which hold every program run in their context:"
	echo "the switch program for the task switching out, the waking program for"
	echo "the waker). CPU time does not count waiting for a CPU, so it holds on a"
	echo "loaded machine where wall time does not; the default is decided on it."
	echo
	echo "| variant | usecs/op (median) | min-max | slowdown | CPU us/op (median) | min-max | CPU slowdown |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	base=$(med <"$TMP/s6.pp_none")
	cbase=$(med <"$TMP/s6.pp_none.cpu")
	for v in pp_none pp_off pp_on; do
		read -r m mn mx < <(stats3 <"$TMP/s6.$v")
		read -r c cn cx < <(stats3 <"$TMP/s6.$v.cpu")
		case $v in
		pp_none) s="pipe_pingpong, untraced" ;;
		pp_off) s="\`tdbpf -p PID\` (no wakeups: the default)" ;;
		pp_on) s="\`tdbpf --wakeups -p PID\`" ;;
		esac
		echo "| $s | $(fmt "$m" %.3f) | $(fmt "$mn" %.3f)-$(fmt "$mx" %.3f) | $(ratio "$m" "$base" %.3fx) | $(fmt "$c" %.3f) | $(fmt "$cn" %.3f)-$(fmt "$cx" %.3f) | $(ratio "$c" "$cbase" %.3fx) |"
	done
	echo
	echo "| program (bpf_stats: run_time_ns / run_cnt) | ns/run (median) | min-max | runs per measurement (median) |"
	echo "|---|---:|---:|---:|"
	for v in floor_empty.switch floor_wempty.waking bpf_on.switch bpf_untracked.switch bpf_on.waking bpf_untracked.waking; do
		[ -s "$TMP/s6.$v" ] || continue
		read -r m mn mx < <(stats3 <"$TMP/s6.$v")
		case $v in
		floor_empty.switch) s="floor: empty program on sched_switch" ;;
		floor_wempty.waking) s="floor: empty program on sched_waking" ;;
		bpf_on.switch) s="tdbpf_switch, tracked, --wakeups (the clock at each block; the CPU's holders charged at each switch-in)" ;;
		bpf_untracked.switch) s="tdbpf_switch, untracked, --wakeups (the slice pushed on the CPU's ring)" ;;
		bpf_on.waking) s="tdbpf_waking, tracked wakee" ;;
		bpf_untracked.waking) s="tdbpf_waking, untracked wakee (early exit)" ;;
		esac
		echo "| $s | $(fmt "$m" %.1f) | $(fmt "$mn" %.1f)-$(fmt "$mx" %.1f) | - |"
	done
	we=$(med <"$TMP/s6.floor_wempty.waking")
	tu=$(med <"$TMP/s6.bpf_untracked.waking")
	p0=$(med <"$TMP/s6.pp_none.cpu"); p1=$(med <"$TMP/s6.pp_off.cpu"); p2=$(med <"$TMP/s6.pp_on.cpu")
	echo
	echo "| target | measured | limit | result |"
	echo "|---|---:|---:|---|"
	echo "| untracked wakeup <= 1.5x the empty sched_waking program | $(ratio "$tu" "$we" %.2fx) | 1.50x | $(pass "$(le "$(ratio "$tu" "$we" %.4f)" 1.5)") |"
	s=$(awk -v a="$p2" -v b="$p1" -v c="$p0" 'BEGIN { if (c > 0 && b > 0) printf "%.1f", (a - b) / c * 100; else print "nan" }')
	echo "| wakeups' addition to the ping-pong's CPU slowdown (on by default only if <= 3%) | $s% of untraced | 3% | $(pass "$(le "$s" 3)") |"
}

# ---------------------------------------------------------------- report
sum2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "") printf "%.1f (%.1f + %.1f)", a + b, a, b; else printf "n/a" }'; }
kib_mib() { awk -v a="$1" 'BEGIN { if (a != "") printf "%.1f", a / 1024; else printf "n/a" }'; }
pass() { if [ "$1" = 1 ]; then echo "**PASS**"; elif [ "$1" = 0 ]; then echo "**FAIL**"; else echo "n/a"; fi; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == a + 0 && b == b + 0 && a != "" && b != "") print (a <= b) ? 1 : 0; else print "x" }'; }

write_results() {
	local f=$TMP/results.md v m mn mx base s n
	local model pmu
	HW_PMU=0
	[ -d /sys/bus/event_source/devices/cpu ] || [ -d /sys/bus/event_source/devices/cpu_core ] && HW_PMU=1
	model=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
	if [ "$HW_PMU" = 1 ]; then
		pmu="hardware PMU present"
	else
		pmu="no hardware PMU: tdbpf runs its software model (cpu-clock, page-faults, context-switches, cpu-migrations, read from each task's own accounting: no counter)"
	fi
	{
	echo "# tdbpf benchmark results"
	echo
	echo "Generated by \`make bench\` (bench/run.sh); do not edit by hand."
	echo
	echo "- Machine: $model, $(nproc) CPUs; $pmu"
	echo "- Kernel: $(uname -r)"
	echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- tdbpf: $("$TDBPF" --version 2>&1 | head -1); perf: $(perf version 2>&1 | head -1); bpftool: $(bpftool version 2>&1 | head -1)"
	echo "- Settings: BENCH_ROUNDS=$ROUNDS BENCH_LOOPS=$LOOPS BENCH_SCALE_ROUNDS=$SCALE_ROUNDS BENCH_THREADS=\"$THREADS\" BENCH_MT_PERIOD=$MT_PERIOD"
	echo
	echo "## 1. Context-switch cost (pipe ping-pong pinned to CPU 0)"
	echo
	echo "Two threads pass a token over two pipes, both pinned to CPU 0, so each"
	echo "round trip is two context switches on that CPU. $ROUNDS rounds, variants"
	echo "alternating round-robin; usecs per round trip, median and min-max."
	echo "Launch: \`perf bench sched pipe -T -l $LOOPS\`; attach: \`pipe_pingpong -n $LOOPS -c 0 -s $SLEEP_MS\`"
	echo "with the tracer attached by pid during the initial sleep. perf stat counts"
	echo "the same four software events: \`-e $EVENTS\`."
	echo
	if [ "$HW_PMU" = 1 ]; then
		echo "Regime: hardware counters. tdbpf's per-CPU counters need no PMU"
		echo "reprogramming at a switch; perf stat's per-task events are switched"
		echo "out and in with every task."
	else
		echo "Regime: no PMU. tdbpf's software model runs nothing at a switch:"
		echo "its four columns are numbers the kernel keeps per task"
		echo "(se.sum_exec_runtime, min_flt + maj_flt, nvcsw + nivcsw,"
		echo "se.nr_migrations), read from the tasks when a report is made, with"
		echo "their scheduling times, and from a task when it exits and when it"
		echo "is freed (sched_process_exit, sched_process_free: once per task)."
		echo "perf stat's per-task software events cost a"
		echo "context sched-out/in per switch (for two threads inherited from one"
		echo "parent the kernel swaps the cloned contexts and syncs their counts"
		echo "instead). The advantage tdbpf is designed for with hardware counters"
		echo "(no PMU reprogramming) cannot show here."
	fi
	echo
	echo "| variant | usecs/op (median) | min-max | slowdown vs untraced |"
	echo "|---|---:|---:|---:|"
	for v in launch_none launch_tdbpf launch_perf attach_none attach_tdbpf attach_perf; do
		read -r m mn mx < <(stats3 <"$TMP/s1.$v")
		base=$(med <"$TMP/s1.${v%%_*}_none")
		case $v in
		launch_none) s="perf bench sched pipe -T, untraced" ;;
		launch_tdbpf) s="\`tdbpf -o /dev/null -- perf bench ...\`" ;;
		launch_perf) s="\`perf stat -e <4 sw events> -- perf bench ...\`" ;;
		attach_none) s="pipe_pingpong, untraced" ;;
		attach_tdbpf) s="\`tdbpf -p PID\`" ;;
		attach_perf) s="\`perf stat --per-thread -e <4 sw events> -p PID\`" ;;
		esac
		echo "| $s | $(fmt "$m" %.3f) | $(fmt "$mn" %.3f)-$(fmt "$mx" %.3f) | $(ratio "$m" "$base" %.2fx) |"
	done
	local b0 bt bp st sp
	b0=$(med <"$TMP/s1.launch_none"); bt=$(med <"$TMP/s1.launch_tdbpf")
	bp=$(med <"$TMP/s1.launch_perf")
	# slowdowns in %, and tdbpf's as a share of perf stat's
	st=$(awk -v a="$bt" -v b="$b0" 'BEGIN { if (b > 0 && a == a + 0) printf "%.1f", (a / b - 1) * 100; else print "n/a" }')
	sp=$(awk -v a="$bp" -v b="$b0" 'BEGIN { if (b > 0 && a == a + 0) printf "%.1f", (a / b - 1) * 100; else print "n/a" }')
	echo
	echo "| target | measured | limit | result |"
	echo "|---|---:|---:|---|"
	echo "| tdbpf's slowdown of the launched pipe load <= half of perf stat's (same events) | $st% vs $sp% ($(ratio "$st" "$sp" %.2fx)) | 0.50x | $(pass "$(awk -v a="$st" -v b="$sp" 'BEGIN { if (a == a + 0 && b == b + 0 && b > 0) print (a <= b / 2) ? 1 : 0; else print "x" }')") |"
	echo
	echo "## 2. BPF cost per sched_switch run (kernel.bpf_stats_enabled)"
	echo
	echo "run_time_ns / run_cnt of each program over one pinned pipe run"
	echo "(\`pipe_pingpong -n $LOOPS -c 0\`), as the kernel accounts it (the"
	echo "accounting's own clock reads are included in every row alike)."
	echo "Software model: tdbpf -p on the pipe process, as a user runs it: its"
	echo "columns are the tasks' own accounting, read at a report and when a"
	echo "task exits, so it attaches nothing to sched_switch (the row shows 0 when"
	echo "the run finds no sched_switch link in tdbpf; a program there would be"
	echo "measured). With counters: \`tdbpf -e cpu-clock\`, tracked (-p on the"
	echo "pipe process: prev and next tracked) and untracked (-p on an idle"
	echo "sleeping process while the pipe runs: every switch takes the early"
	echo "exit). Floor: bench/floor.bpf.c, an"
	echo "empty tp_btf/sched_switch program, the same plus one task-storage"
	echo "lookup (prev's entry: what a model with counters, or --wakeups, takes"
	echo "per tracked switch; the target's floor), and programs doing only K counter reads on"
	echo "the same 4 software events opened per CPU, as one group: what a model"
	echo "with counters (-e, hardware models) adds per switch."
	echo
	echo "With counters, tdbpf reads only a group's leader with"
	echo "bpf_perf_event_read_value: the members of a group run exactly when"
	echo "their leader runs, so their enabled and running times are the"
	echo "leader's, and a value-only bpf_perf_event_read does for them (each"
	echo "timed read takes the clock twice more)."
	echo
	echo "| program | ns/run (median) | min-max | runs per measurement (median) |"
	echo "|---|---:|---:|---:|"
	for v in floor_empty floor_tstore1 floor_read1 floor_read4 floor_read4grp floor_hashhit2 floor_tstore2 tdbpf_sw tdbpf_tracked tdbpf_untracked; do
		read -r m mn mx < <(stats3 <"$TMP/s2.$v")
		case $v in
		floor_empty) s="floor: empty program" ;;
		floor_read1) s="floor: 1 counter read" ;;
		floor_read4) s="floor: K=4 counter reads (bpf_perf_event_read_value)" ;;
		floor_read4grp) s="floor: the same 4 counters read as tdbpf reads a group (1 with times, 3 value-only)" ;;
		floor_hashhit2) s="reference: 2 hash lookups of a present pid" ;;
		floor_tstore1) s="floor: empty program + 1 task-storage lookup (prev's entry, as a switch with counters)" ;;
		floor_tstore2) s="reference: 2 task-storage lookups" ;;
		tdbpf_sw) s="tdbpf, software model: its program on sched_switch (none)" ;;
		tdbpf_tracked) s="tdbpf_switch with one counter (-e cpu-clock), tracked switches" ;;
		tdbpf_untracked) s="tdbpf_switch with one counter (-e cpu-clock), untracked (early exit)" ;;
		esac
		echo "| $s | $(fmt "$m" %.1f) | $(fmt "$mn" %.1f)-$(fmt "$mx" %.1f) | $(med <"$TMP/s2cnt.$v") |"
	done
	local e r1 r4 rg tt tu ts tw
	e=$(med <"$TMP/s2.floor_empty"); r1=$(med <"$TMP/s2.floor_read1")
	r4=$(med <"$TMP/s2.floor_read4"); tt=$(med <"$TMP/s2.tdbpf_tracked")
	rg=$(med <"$TMP/s2.floor_read4grp"); ts=$(med <"$TMP/s2.floor_tstore1")
	tu=$(med <"$TMP/s2.tdbpf_untracked"); tw=$(med <"$TMP/s2.tdbpf_sw")
	echo
	echo "The tracked measurement also counts the few switches of other tasks in"
	echo "the window (early exits): $(awk -v r="$(med <"$TMP/s2cnt.tdbpf_tracked")" -v l="$LOOPS" 'BEGIN { x = (r - 2 * l) / r * 100; if (x < 0) x = 0; printf "about %.1f%%", x }') of its runs beyond the"
	echo "2 x $LOOPS pipe switches, which lowers its average by at most that share."
	echo
	echo "The task-storage lookup costs about $(awk -v a="$ts" -v b="$e" 'BEGIN { printf "%.0f", a - b }') ns here (tstore1 - empty);"
	echo "With one counter, tdbpf's tracked switch takes $(awk -v a="$tt" -v b="$e" 'BEGIN { printf "%.0f", a - b }') ns beyond the empty"
	echo "program (tracked - empty): prev's entry, one counter read, the charge,"
	echo "and next's baseline. Each page a program touches"
	echo "that the scheduler has not costs a page walk on this VM (about 30 ns):"
	echo "the empty program touches none, the early exit one (the tracked ids)."
	echo "One timed counter read costs about $(awk -v a="$r1" -v b="$e" 'BEGIN { printf "%.0f", a - b }') ns"
	echo "(read1 - empty); four cost $(awk -v a="$r4" -v b="$e" 'BEGIN { printf "%.0f", a - b }') ns, and four read as tdbpf reads a"
	echo "group $(awk -v a="$rg" -v b="$e" 'BEGIN { printf "%.0f", a - b }') ns: what each switch would add with counters."
	echo
	echo "| target | measured | limit | result |"
	echo "|---|---:|---:|---|"
	echo "| software model: tracked switch <= 1.3x (empty program + task-storage lookup) | $(ratio "$tw" "$ts" %.2fx) ($(fmt "$tw" %.1f) ns) | 1.30x | $(pass "$(le "$(ratio "$tw" "$ts" %.4f)" 1.3)") |"
	echo "| untracked switch (with counters) <= 1.5x the empty program | $(ratio "$tu" "$e" %.2fx) | 1.50x | $(pass "$(le "$(ratio "$tu" "$e" %.4f)" 1.5)") |"
	echo
	echo "## 3. Scale: one process with many threads"
	echo
	echo "\`manythreads -n N -p $MT_PERIOD\` (each thread wakes every $MT_PERIOD ms)."
	echo "tdbpf: \`tdbpf -v [-j] -o /dev/null -p PID -d 2\`, once with the table"
	echo "(default output) and once with JSON (-j). Attach: process start until"
	echo "\"tdbpf: attached\" on stderr (open counters, load and verify, fill maps,"
	echo "attach, first flush). Report: the final report's collect (flush, exit queue,"
	echo "task iterator) + decode and write, as tdbpf -v prints them. RSS: peak RSS (wait4)."
	echo "Map memory: memlock of tdbpf's BPF maps (/proc/PID/fdinfo) once every thread"
	echo "has run, plus the live tasks' sums in task-local storage, which memlock"
	echo "does not show: measured as the growth of the kmalloc-cg slabs"
	echo "(/proc/slabinfo) from before tdbpf started. Medians of $SCALE_ROUNDS rounds (min-max)."
	echo
	echo "| threads | tasks reported | attach ms | report ms, table (collect + decode/write) | report ms, JSON | RSS MiB, table | RSS MiB, JSON | BPF maps MiB (memlock) | task storage MiB (slab growth) |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for n in $THREADS; do
		local at rc rd jc jd rss jrss mt
		at=$(scale_med "$n" tdbpf attach_ms)
		rc=$(scale_med "$n" tdbpf collect_ms); rd=$(scale_med "$n" tdbpf decode_ms)
		jc=$(scale_med "$n" json collect_ms); jd=$(scale_med "$n" json decode_ms)
		rss=$(scale_med "$n" tdbpf rss_kb); jrss=$(scale_med "$n" json rss_kb)
		mt=$(scale_med "$n" tdbpf map_total)
		echo "| $n | $(scale_med "$n" tdbpf tasks) | $(fmt "$at" %.0f) ($(scale_spread "$n" tdbpf attach_ms %.0f)) | $(sum2 "$rc" "$rd") | $(sum2 "$jc" "$jd") | $(kib_mib "$rss") | $(kib_mib "$jrss") | $(awk -v a="$mt" 'BEGIN { if (a != "") printf "%.1f", a / 1048576; else printf "n/a" }') | $(awk -v a="$(scale_med "$n" tdbpf storage)" 'BEGIN { if (a != "") printf "%.1f", a / 1048576; else printf "n/a" }') |"
	done
	n=$(echo "$THREADS" | tr ' ' '\n' | sort -n | tail -1)
	if ls "$TMP"/scale."$n".*.wide >/dev/null 2>&1; then
		local wa wc wd
		wa=$(scale_med "$n" wide attach_ms)
		wc=$(scale_med "$n" wide collect_ms); wd=$(scale_med "$n" wide decode_ms)
		echo
		echo "With counters: the $n-thread run again with \`-j -e\` and $NR_WIDE syscall"
		echo "tracepoints in groups of 8 (\`{syscalls:sys_enter_accept,...},{...}\`), so"
		echo "that each task's record, entry and row are as wide as the widest hardware"
		echo "model's (graniterapids: 73 events), read as groups are at every switch"
		echo "and flushed on every CPU at the collect. Its collect is the one section 4"
		echo "adds to a hardware model's report. Its attach includes touching the"
		echo "report table's memory for every thread of the target (20 MB here):"
		echo "a first touch costs tens of us a page on this VM."
		echo
		echo "| threads | counters | tasks reported | attach ms | collect ms | decode/write ms (no model: counters only) | RSS MiB |"
		echo "|---:|---:|---:|---:|---:|---:|---:|"
		echo "| $n | $NR_WIDE | $(scale_med "$n" wide tasks) | $(fmt "$wa" %.0f) ($(scale_spread "$n" wide attach_ms %.0f)) | $(fmt "$wc" %.1f) ($(scale_spread "$n" wide collect_ms %.1f)) | $(fmt "$wd" %.1f) | $(kib_mib "$(scale_med "$n" wide rss_kb)") |"
	fi
	echo
	echo "Same target under \`perf stat --per-thread -e <events> -p PID -- sleep 1\`:"
	echo "overhead = wall time - 1 s (open every per-thread event, read, close);"
	echo "fds = peak open descriptors. perf needs one descriptor per thread per"
	echo "event; RLIMIT_NOFILE here is $(ulimit -Sn) (hard $(ulimit -Hn)). Where the four events"
	echo "do not fit, the run fails and a one-event run (cpu-clock) is shown too."
	echo
	echo "| threads | events | result | threads reported | fds | overhead ms |"
	echo "|---:|---|---|---:|---:|---:|"
	for n in $THREADS; do
		for k in perf perf1; do
			ls "$TMP"/scale."$n".*."$k" >/dev/null 2>&1 || continue
			local st
			st=$(scale_med "$n" "$k" perf_status)
			if [ "$st" = 0 ]; then
				echo "| $n | $([ $k = perf ] && echo "4 (same as tdbpf)" || echo "1 (cpu-clock)") | ok | $(scale_med "$n" "$k" perf_threads) | $(scale_med "$n" "$k" perf_fds) | $(scale_med "$n" "$k" perf_over_ms) ($(scale_spread "$n" "$k" perf_over_ms %.0f)) |"
			else
				echo "| $n | $([ $k = perf ] && echo "4 (same as tdbpf)" || echo "1 (cpu-clock)") | failed (exit $st): $(grep -v '^$' "$TMP/perf.err.$n.$k" 2>/dev/null | head -2 | tr '\n' ' ' | sed 's/|/\\|/g;s/ *$//') | - | $(scale_med "$n" "$k" perf_fds) seen before it gave up | n/a |"
			fi
		done
	done
	n=$(echo "$THREADS" | tr ' ' '\n' | sort -n | tail -1)
	local rep jrep rss jrss
	at=$(scale_med "$n" tdbpf attach_ms)
	rep=$(awk -v a="$(scale_med "$n" tdbpf collect_ms)" -v b="$(scale_med "$n" tdbpf decode_ms)" 'BEGIN { if (a != "") print a + b }')
	jrep=$(awk -v a="$(scale_med "$n" json collect_ms)" -v b="$(scale_med "$n" json decode_ms)" 'BEGIN { if (a != "") print a + b }')
	rss=$(scale_med "$n" tdbpf rss_kb); jrss=$(scale_med "$n" json rss_kb)
	echo
	echo "| target ($n threads) | measured | limit | result |"
	echo "|---|---:|---:|---|"
	echo "| attach | $(fmt "$at" "%.0f ms") | 1000 ms | $(pass "$(le "$at" 1000)") |"
	echo "| one full report, table | $(fmt "$rep" "%.1f ms") | 50 ms | $(pass "$(le "$rep" 50)") |"
	echo "| one full report, JSON | $(fmt "$jrep" "%.1f ms") | 50 ms | $(pass "$(le "$jrep" 50)") |"
	echo "| tdbpf RSS, table | $(kib_mib "$rss") MiB | 64 MiB | $(pass "$(le "$rss" 65536)") |"
	echo "| tdbpf RSS, JSON | $(kib_mib "$jrss") MiB | 64 MiB | $(pass "$(le "$jrss" 65536)") |"
	echo
	echo "## 4. Decode throughput and whole reports per model"
	echo
	echo "bench/decode_bench.c links tdbpf's objects and decodes 1024 random counter"
	echo "vectors in a loop (SMT on, deepest level), best of 3 runs of $DECODE_MS/3 ms"
	echo "per model. Then one whole report of 10,000 random tasks per model,"
	echo "every counter multiplexed (running 50-100% of enabled, so no scaled"
	echo "count is whole): report_build (sort, then decode one task at a time)"
	echo "and the table or the JSON written to /dev/null, best of 9, taken in 3"
	echo "rounds over all models (this machine has slow spells of seconds, which"
	echo "could take all 9 runs of one model in a row). A model with a TMA tree"
	echo "decodes on a second thread while the writer formats (report_ahead.c);"
	echo "this machine has $(nproc) CPUs. Add the collect time of section 3 (with"
	echo "counters, for a hardware model) for what tdbpf -v prints."
	echo
	echo "| model | events | TMA nodes | level | ns per task | tasks decoded per second | report of 10,000 tasks, table | same, JSON |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		printf "| %s | %s | %s | %s | %.0f | %.2fM | %.1f ms | %.1f ms |\n", f["model"], f["events"], f["nodes"], f["level"], f["ns_per_task"], f["tasks_per_s"] / 1e6, f["table_ms"], f["json_ms"]
	}' "$TMP/decode.out"
	# the scale target per model: a JSON report of 10,000 tasks with the
	# collect of section 3's largest run: with counters for a hardware
	# model, read-free for the software model
	local jcol wcol n
	n=$(echo "$THREADS" | tr ' ' '\n' | sort -n | tail -1)
	jcol=$(scale_med "$n" json collect_ms)
	wcol=$(scale_med "$n" wide collect_ms)
	echo
	echo "| target: JSON report of 10,000 tasks + collect (section 3: $(fmt "$wcol" "%.1f ms") with $NR_WIDE counters, $(fmt "$jcol" "%.1f ms") read-free for software) | measured | limit | result |"
	echo "|---|---:|---:|---|"
	awk -v sc="$jcol" -v wc="$wcol" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		c = f["model"] == "software" ? sc : wc
		if (c == "" || c == "nan") { printf "| %s | n/a | 50 ms | n/a |\n", f["model"]; next }
		t = f["json_ms"] + c
		printf "| %s | %.1f ms | 50 ms | %s |\n", f["model"], t, t <= 50 ? "**PASS**" : "**FAIL**"
	}' "$TMP/decode.out"
	echo
	has listen && listen_results
	has wakeups && write_wakeups
	# make bench-graph's section, kept from the file as it was
	sed -n '/^<!-- bench-graph: begin -->$/,/^<!-- bench-graph: end -->$/p' \
		"$RESULTS" 2>/dev/null | sed '1s/^/\n/'
	} >"$f"
	cp "$f" "$RESULTS" || die "cannot write $RESULTS"
}

# ---------------------------------------------------------------- main
T0=$(now_ms)
if [ "$ONLY" = listen ]; then
	section_listen
	listen_results
	log "done in $((($(now_ms) - T0) / 1000)) s (section 5 only; $RESULTS unchanged)"
	exit 0
fi
build_helpers
if [ "$ONLY" = wakeups ]; then
	section_wakeups
	write_wakeups
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
touch "$TMP/decode.out"
if [ "$SECTIONS" != "pipe bpf scale decode listen wakeups" ]; then
	# a partial run: show it, keep the committed results
	RESULTS=$TMP/partial.md
fi
write_results
log "done in $((($(now_ms) - T0) / 1000)) s; results in $RESULTS"
cat "$RESULTS"
