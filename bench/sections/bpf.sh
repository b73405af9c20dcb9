# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/run.sh (functions only; its variables and TMP are
# set): section 2, BPF cost per sched_switch run, beside the floor programs.
# shellcheck shell=bash

# ---------------------------------------------------------------- section 2
# BPF run time per sched_switch run while the pinned pipe runs; writes
# "ns_per_run runs" to $TMP/bpf.res (not stdout: it must run in this shell so
# its background processes are ours to clean up).
bpf_run() {
	local v=$1 lp s0 s1 id out=$TMP/bpf.out BEFORE AFTER
	case $v in
	floor_*)
		start_floor "${v#floor_}"
		lp=$TR
		stats_around "$FLOOR_ID" pingpong_run "$out"
		s0=${BEFORE[0]} s1=${AFTER[0]}
		;;
	tdbpf_sw)
		# the software model: no program on sched_switch, so none to
		# measure (0 runs); a program there would be measured as below
		start_pingpong "$out"
		start_tdbpf -o /dev/null -p "$PP,$SLEEPER"
		lp=$TR
		if id=$(tp_prog_id "$lp" sched_switch); then
			stats_around "$id" wait_pid "$PP" 300
			s0=${BEFORE[0]} s1=${AFTER[0]}
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
		stats_around "$id" wait_pid "$PP" 300
		s0=${BEFORE[0]} s1=${AFTER[0]}
		;;
	tdbpf_untracked)
		start_tdbpf -e cpu-clock -o /dev/null -p "$SLEEPER"
		lp=$TR
		id=$(tp_prog_id "$lp" sched_switch) || die "no sched_switch link in tdbpf -e"
		stats_around "$id" pingpong_run "$out"
		s0=${BEFORE[0]} s1=${AFTER[0]}
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
