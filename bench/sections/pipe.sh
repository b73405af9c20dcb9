# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/run.sh (functions only; its variables and TMP are
# set): section 1, context-switch cost: the pinned pipe ping-pong untraced,
# under tdbpf and under perf stat.
# shellcheck shell=bash

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
