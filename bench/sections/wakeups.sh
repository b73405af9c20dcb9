# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/run.sh (functions only; its variables and TMP are
# set): section 6, wakeups: the sched_waking program's cost.
# shellcheck shell=bash

# ---------------------------------------------------------------- section 6
# The ping-pong's own CPU time per round trip (both threads' clocks), us:
# what a program run in their context adds, whatever else loads the
# machine (time spent waiting for a CPU is not in it, wall time is).
cpu_per_op() {
	awk -v l="$LOOPS" '/^tid=/ { sub(/.*cpu_ns=/, ""); s += $1 } END { if (s > 0) printf "%.4f", s / l / 1000; else print "nan" }' "$1"
}

# AMP copies of one program set attached to the pinned ping-pong at once:
# amp_floor, the empty switch and waking programs (bench/floor); amp_def,
# tdbpf -p on it (the default: the graph from windows of wakeups);
# amp_on, tdbpf --wakeups -p (every wakeup). A difference of CPU time between runs has a
# spread of a few hundred ns per round trip on this VM, more than one
# copy's cost: AMP copies make it AMP times larger than that spread. The
# ping-pong sleeps until all have attached (checked: a late one dies).
amp_run() {
	local v=$1 out=$TMP/wake.out sleep_ms t0 i
	local -a tr=()
	sleep_ms=$((1000 + AMP * 800))
	t0=$(now_ms)
	"$W/pipe_pingpong" -n "$LOOPS" -c 0 -s "$sleep_ms" >"$out" 2>&1 &
	PP=$!
	PIDS+=("$PP")
	wait_for "$out" '^pid=' 5 || die "pipe_pingpong did not start: $(cat "$out")"
	for ((i = 0; i < AMP; i++)); do
		if [ "$v" = amp_floor ]; then
			start_floor empty
			tr+=("$TR")
			start_floor wempty
		elif [ "$v" = amp_def ]; then
			start_tdbpf -o /dev/null -p "$PP"
		else
			start_tdbpf --wakeups -o /dev/null -p "$PP"
		fi
		tr+=("$TR")
	done
	[ $(($(now_ms) - t0)) -lt $((sleep_ms - 200)) ] ||
		die "$AMP copies of $v took over $((sleep_ms - 200)) ms to attach; lower BENCH_AMP"
	wait_pid "$PP" 300
	for i in "${tr[@]}"; do
		kill -INT "$i" 2>/dev/null
		wait_pid "$i" 10
	done
	{ echo "usecs $(usecs "$out")"; echo "cpu $(cpu_per_op "$out")"; } >"$TMP/wake.res"
}

# wake_progs PID: sid and wid, tdbpf --wakeups' switch and waking programs
wake_progs() {
	sid=$(tp_prog_id "$1" sched_switch) || die "no sched_switch link in tdbpf --wakeups"
	wid=$(tp_prog_id "$1" sched_waking) || die "no sched_waking link in tdbpf --wakeups"
}

# One run of a wakeup variant. pp_*: the pinned ping-pong's usecs/op with
# bpf_stats off; the rest: ns per run of the programs, with bpf_stats on.
# Writes "key value" lines to $TMP/wake.res.
wake_run() {
	local v=$1 out=$TMP/wake.out lp sid wid s0 s1 w0 w1 flag BEFORE AFTER
	: >"$TMP/wake.res"
	case $v in
	amp_floor | amp_def | amp_on)
		amp_run "$v"
		return ;;
	pp_none)
		start_pingpong "$out"
		wait_pid "$PP" 300
		{ echo "usecs $(usecs "$out")"; echo "cpu $(cpu_per_op "$out")"; } >"$TMP/wake.res"
		return ;;
	pp_off | pp_def | pp_on)
		case $v in
		pp_off) flag=--no-wakeups ;;
		pp_def) flag=-v ;;
		pp_on) flag=--wakeups ;;
		esac
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
		lp=$TR
		stats_around "$FLOOR_ID" pingpong_run "$out"
		w0=${BEFORE[0]} w1=${AFTER[0]}
		;;
	bpf_on)
		# without --wakeups the software model has no program on
		# either tracepoint: nothing to set beside this
		start_pingpong "$out"
		start_tdbpf --wakeups -o /dev/null -p "$PP,$SLEEPER"
		lp=$TR
		wake_progs "$lp"
		stats_around "$sid $wid" wait_pid "$PP" 300
		s0=${BEFORE[0]} w0=${BEFORE[1]} s1=${AFTER[0]} w1=${AFTER[1]}
		;;
	bpf_untracked)
		# the switch program too: with --wakeups an untracked switch
		# pushes its slice on the CPU's ring of holders
		start_tdbpf --wakeups -o /dev/null -p "$SLEEPER"
		lp=$TR
		wake_progs "$lp"
		stats_around "$sid $wid" pingpong_run "$out"
		s0=${BEFORE[0]} w0=${BEFORE[1]} s1=${AFTER[0]} w1=${AFTER[1]}
		;;
	esac
	kill -INT "$lp" 2>/dev/null
	wait_pid "$lp" 10
	{
		[ -n "${s0:-}" ] && echo "switch $(per_run "$s0" "$s1")"
		[ -n "${w0:-}" ] && echo "waking $(per_run "$w0" "$w1")"
	} >"$TMP/wake.res"
}

# One variant of section 6: floor_empty is section 2's (bpf_run), its
# switch's ns per run in $TMP/wake.res as wake_run writes them.
wake_variant() {
	if [ "$1" = floor_empty ]; then
		bpf_run floor_empty
		echo "switch $(cat "$TMP/bpf.res")" >"$TMP/wake.res"
	else
		wake_run "$1"
	fi
}

section_wakeups() {
	local pp=(pp_none pp_off pp_def pp_on amp_floor amp_def amp_on) bpf=(floor_empty floor_wempty bpf_on bpf_untracked)
	log "6/6 wakeups: $ROUNDS rounds, ${#pp[@]} ping-pong and ${#bpf[@]} BPF variants"
	pingpong_rounds s6 "$TMP/wake.res" wake_variant "switch waking" "" \
		"${pp[*]}" "${bpf[*]}"
}

# A row of section 6's first table, by its variant.
pp_variant() {
	case $1 in
	pp_none) echo "pipe_pingpong, untraced" ;;
	pp_off) echo "\`tdbpf --no-wakeups -p PID\`" ;;
	pp_def) echo "\`tdbpf -p PID\` (the default: wakeups of windows)" ;;
	pp_on) echo "\`tdbpf --wakeups -p PID\` (every wakeup)" ;;
	esac
}

# Section 6's tables (markdown) on stdout.
write_wakeups() {
	local v m mn mx e we t0 t1 tw tu p0 s f d
	echo "## 6. Wakeups: the wait-for graph's cost"
	echo
	echo "With --wakeups, tdbpf_waking runs on \`sched_waking\` for every wakeup"
	echo "on the machine; a wakee that is not traced costs one bit test. For a"
	echo "traced one that blocked, it charges the blocked interval to its waker;"
	echo "the switch program takes the clock once when a traced task blocks."
	echo "With --no-wakeups the software model runs no program at a switch or a"
	echo "wakeup. The default runs both (without the clock at a block) in"
	echo "windows, 50 ms of every 500, and none between. Pinned"
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
	wall_cpu_table s6 pp_variant pp_none pp_off pp_def pp_on
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
		echo "| $s | $(cells "$m" "$mn" "$mx" %.1f) | - |"
	done
	echo
	echo "The same cost on the ping-pong's own CPU time, without bpf_stats (whose"
	echo "two clock reads per run are in every row above): $AMP copies attached at"
	echo "once, each round's run paired with that round's untraced one, (copies -"
	echo "untraced) / $AMP per round trip; median and min-max over $ROUNDS rounds."
	echo "The floor: an empty program on sched_switch and one on sched_waking"
	echo "(bench/floor.bpf.c), what any design that runs a program at every"
	echo "switch and wakeup pays at least."
	echo
	echo "| one copy of | ns per round trip (median) | min-max | of the untraced round trip's CPU time |"
	echo "|---|---:|---:|---:|"
	p0=$(med <"$TMP/s6.pp_none.cpu")
	for v in amp_floor amp_def amp_on; do
		paste "$TMP/s6.pp_none.cpu" "$TMP/s6.$v.cpu" |
			awk -v k="$AMP" '$1 > 0 && $2 > 0 { printf "%.1f\n", ($2 - $1) * 1000 / k }' >"$TMP/s6.$v.copy"
		read -r m mn mx < <(stats3 <"$TMP/s6.$v.copy")
		case $v in
		amp_floor) s="floor: an empty sched_switch and an empty sched_waking program" ;;
		amp_def) s="\`tdbpf -p PID\` (the default: the graph from windows of wakeups)" ;;
		amp_on) s="\`tdbpf --wakeups -p PID\` (every wakeup)" ;;
		esac
		echo "| $s | $(cells "$m" "$mn" "$mx" %.0f) | $(awk -v m="$m" -v c="$p0" 'BEGIN { if (c > 0 && m == m + 0) printf "%.1f%%", m / (c * 10); else printf "n/a" }') |"
	done
	we=$(med <"$TMP/s6.floor_wempty.waking")
	tu=$(med <"$TMP/s6.bpf_untracked.waking")
	echo
	echo "| target | measured | limit | result |"
	echo "|---|---:|---:|---|"
	echo "| untracked wakeup <= 1.5x the empty sched_waking program | $(ratio "$tu" "$we" %.2fx) | 1.50x | $(pass "$(le "$(ratio "$tu" "$we" %.4f)" 1.5)") |"
	s=$(awk -v m="$(med <"$TMP/s6.amp_on.copy")" -v c="$p0" 'BEGIN { if (c > 0 && m == m + 0) printf "%.1f", m / (c * 10); else print "nan" }')
	f=$(awk -v m="$(med <"$TMP/s6.amp_floor.copy")" -v c="$p0" 'BEGIN { if (c > 0 && m == m + 0) printf "%.1f", m / (c * 10); else print "nan" }')
	d=$(awk -v m="$(med <"$TMP/s6.amp_def.copy")" -v c="$p0" 'BEGIN { if (c > 0 && m == m + 0) printf "%.1f", m / (c * 10); else print "nan" }')
	echo "| the default graph (windows of wakeups) per round trip on the ping-pong's CPU time (one of $AMP copies) over the untraced round trip's | $d% | 3% | $(pass "$(le "$d" 3)") |"
	echo "| --wakeups (every wakeup), the same | $s% | - | opt-in |"
	s=$(awk -v m="$(med <"$TMP/s6.amp_floor.copy")" -v c="$p0" 'BEGIN { if (c > 0 && m == m + 0) { r = c * 30 - m; if (m <= 0) printf "the aim'"'"'s %.0f ns a round trip to the work (the floor is within the spread of 0)", c * 30; else if (r > 0) printf "%.0f ns a round trip of the aim'"'"'s %.0f to the work", r, c * 30; else printf "none of the aim'"'"'s %.0f ns a round trip: out of reach of such a design", c * 30 } else print "n/a" }')
	echo "| the floor (empty programs), the same way: the least a program at every switch and wakeup costs | $f% | - | leaves $s |"
	sw=$(med <"$TMP/s6.bpf_on.switch"); wk=$(med <"$TMP/s6.bpf_on.waking")
	s=$(awk -v sw="$sw" -v wk="$wk" -v c="$p0" 'BEGIN { if (c > 0 && sw > 0 && wk > 0) printf "%.1f", (2 * sw + wk) / (c * 1000) * 100; else print "nan" }')
	echo "| the same from bpf_stats: 2 tracked switches + 1 tracked wakeup, over the untraced round trip (its clock reads included) | $s% | 3% | $(pass "$(le "$s" 3)") |"
}
