# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/run.sh (functions only; its variables and TMP are
# set): helpers every section uses: building the floor programs and
# decode_bench, statistics, starting workloads and tracers, reading BPF
# program stats and memory.
# shellcheck shell=bash

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
		"$OUT"/user/commands/*.o "$OUT"/user/exporter/*.o \
		"$OUT"/user/support/*.o; do
		# main.o: decode_bench has its own main; http_none.o: the
		# static binary's http.c (make static, make vmtest)
		case ${o##*/} in main.o | http_none.o) continue ;; esac
		[ -f "$o" ] && objs="$objs $o"
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
# cells MEDIAN MIN MAX FMT: a table's "median | min-max" cells
cells() { echo "$(fmt "$1" "$4") | $(fmt "$2" "$4")-$(fmt "$3" "$4")"; }

# The rows of a table of medians: "VARIANT|NAME" lines on stdin, each
# variant's samples in $TMP/$1.VARIANT, printed with format $2; a row's
# last cell is what the function $3 VARIANT MEDIAN prints.
median_rows() {
	local v s m mn mx
	while IFS='|' read -r v s; do
		read -r m mn mx < <(stats3 <"$TMP/$1.$v")
		echo "| $s | $(cells "$m" "$mn" "$mx" "$2") | $("$3" "$v" "$m") |"
	done
}

# The table of wall and CPU time per op of variants $3... (the first is
# the base), from $TMP/$1.VARIANT and $TMP/$1.VARIANT.cpu; a row is named
# by the function $2 VARIANT.
wall_cpu_table() {
	local prefix=$1 label=$2 v m mn mx c cn cx base cbase
	shift 2
	echo "| variant | usecs/op (median) | min-max | slowdown | CPU us/op (median) | min-max | CPU slowdown |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
	base=$(med <"$TMP/$prefix.$1")
	cbase=$(med <"$TMP/$prefix.$1.cpu")
	for v in "$@"; do
		read -r m mn mx < <(stats3 <"$TMP/$prefix.$v")
		read -r c cn cx < <(stats3 <"$TMP/$prefix.$v.cpu")
		echo "| $("$label" "$v") | $(cells "$m" "$mn" "$mx" %.3f) | $(ratio "$m" "$base" %.3fx) | $(cells "$c" "$cn" "$cx" %.3f) | $(ratio "$c" "$cbase" %.3fx) |"
	done
}

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

# stats_around "ID ..." CMD ARGS...: each program's prog_stats before and
# after CMD, in BEFORE[] and AFTER[] in the ids' order
stats_around() {
	local ids=$1 id
	shift
	BEFORE=() AFTER=()
	for id in $ids; do BEFORE+=("$(prog_stats "$id")"); done
	"$@"
	for id in $ids; do AFTER+=("$(prog_stats "$id")"); done
}

# pingpong_run OUT [ARGS]: the pinned pipe ping-pong, in the foreground
pingpong_run() {
	local out=$1
	shift
	timeout 300 "$W/pipe_pingpong" "$@" -n "$LOOPS" -c 0 >"$out" 2>&1
}

# ns per run between two "run_time_ns run_cnt" snapshots; also the count
per_run() {
	echo "$1 $2" | awk '{ dt = $3 - $1; dc = $4 - $2
		if (dc > 0) printf "%.1f %d\n", dt / dc, dc; else print "nan 0" }'
}

# pingpong_rounds TAG RES RUN KEYS SKIP PP BPF: the rounds of sections 6
# and 7, a sleeper running throughout (a target that outlives the
# ping-pong). Each round runs the ping-pong variants PP (words), each
# run's "usecs" and "cpu" appended to $TMP/TAG.V and $TMP/TAG.V.cpu, then
# with bpf_stats on the BPF variants BPF, each of the KEYS (words)
# appended to $TMP/TAG.V.KEY unless empty or SKIP; each list starts one
# further on each round. RUN V runs variant V and writes RES ("key value"
# lines).
pingpong_rounds() {
	local tag=$1 res=$2 run=$3 keys=$4 skip=$5
	local pp bpf r i v n k val
	read -r -a pp <<<"$6"
	read -r -a bpf <<<"$7"
	sleep 1000 &
	SLEEPER=$!
	PIDS+=("$SLEEPER")
	for ((r = 0; r < ROUNDS; r++)); do
		n=${#pp[@]}
		for ((i = 0; i < n; i++)); do
			v=${pp[$(((i + r) % n))]}
			"$run" "$v"
			kv_get "$res" usecs >>"$TMP/$tag.$v"
			kv_get "$res" cpu >>"$TMP/$tag.$v.cpu"
		done
		sysctl -q kernel.bpf_stats_enabled=1 || die "cannot set kernel.bpf_stats_enabled"
		n=${#bpf[@]}
		for ((i = 0; i < n; i++)); do
			v=${bpf[$(((i + r) % n))]}
			"$run" "$v"
			for k in $keys; do
				val=$(kv_get "$res" "$k")
				[ -n "$val" ] && [ "$val" != "$skip" ] && echo "$val" >>"$TMP/$tag.$v.$k"
			done
		done
		sysctl -q kernel.bpf_stats_enabled="$STATS_OLD"
		log "  round $((r + 1))/$ROUNDS: $(for v in "${pp[@]}"; do printf '%s=%sus ' "$v" "$(tail -1 "$TMP/$tag.$v")"; done)"
	done
	kill "$SLEEPER" 2>/dev/null
	wait "$SLEEPER" 2>/dev/null
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
