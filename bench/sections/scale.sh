# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/run.sh (functions only; its variables and TMP are
# set): section 3, scale: 100..10000 threads under tdbpf and perf stat.
# shellcheck shell=bash

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
