# SPDX-License-Identifier: GPL-2.0
# bench/run.sh section 8: the cost of span boundaries (--span), sourced by run.sh after lib.sh. The operators workload on one
# worker, untraced (bare), under empty uprobe programs on its operators
# (floor: the traps alone, bench/floor.bpf.c), traced without spans
# (none), with USDT spans and with uprobe spans: with empty operators
# (-H 0 -L 0 -F 0) the difference per boundary (two an entry) is what a
# boundary costs (floor over bare, the others over none); with 10 us
# operators, the slowdown of a workload entering spans tens of thousands
# of times a second.

SPAN_TASKS=${BENCH_SPAN_TASKS:-200000}

kv_elapsed() { awk -F= '$1 == "elapsed_ns" { print $2 }'; }

SPAN_VARIANTS="bare floor none usdt uprobe"
SPAN_FUNCS=op_parse,op_enrich,op_emit

# span_run VARIANT US: the workload's elapsed_ns, operators of US us
span_run() {
	local wl=$W/operators span='' fl
	local args=(-w 1 -n "$SPAN_TASKS" -H "$2" -L "$2" -F 0)
	case $1 in
	bare)
		"$wl" "${args[@]}" | kv_elapsed
		return ;;
	floor)
		"$BD/floor" uempty "$wl" "$SPAN_FUNCS" >"$TMP/floor.out" 2>&1 &
		fl=$!
		PIDS+=("$fl")
		wait_for "$TMP/floor.out" '^id=' 10 ||
			die "floor uempty did not attach: $(cat "$TMP/floor.out")"
		"$wl" "${args[@]}" | kv_elapsed
		kill -TERM "$fl"
		wait "$fl" 2>/dev/null
		return ;;
	usdt) span="--span usdt" ;;
	uprobe) span="--span $wl:$SPAN_FUNCS" ;;
	esac
	# shellcheck disable=SC2086 # $span is two words or none
	"$TDBPF" -o /dev/null $span -- "$wl" "${args[@]}" 2>/dev/null |
		kv_elapsed
}

section_spans() {
	local us v
	[ -x "$W/operators" ] || die "$W/operators not built; run 'make $W/operators'"
	log "spans: $ROUNDS rounds of $SPAN_TASKS operator tasks"
	for _ in $(seq "$ROUNDS"); do
		for us in 0 10; do
			for v in $SPAN_VARIANTS; do
				span_run "$v" "$us" >>"$TMP/span_${v}_$us"
			done
		done
	done
}

# the medians; the cost a boundary, or the slowdown: the floor's over the
# bare run, the spans' over the run traced without them
write_spans() {
	local base v m us
	echo "| spans ($SPAN_TASKS tasks, 1 worker) | operator | run ms (median) | entries/s | us per boundary | slowdown |"
	echo "|---|---|---|---|---|---|"
	for us in 0 10; do
		for v in $SPAN_VARIANTS; do
			case $v in
			bare | floor) base=$(med <"$TMP/span_bare_$us") ;;
			*) base=$(med <"$TMP/span_none_$us") ;;
			esac
			m=$(med <"$TMP/span_${v}_$us")
			awk -v v="$v" -v us="$us" -v m="$m" -v n="$base" \
			    -v t="$SPAN_TASKS" 'BEGIN {
				printf "| %s | %d us | %.0f | %.0f | %.2f | %.1f%% |\n",
				       v, us, m / 1e6, t / (m / 1e9),
				       (m - n) / (2 * t) / 1e3,
				       100 * (m - n) / n }'
		done
	done
}

# section 8 of bench/results.md: how it was measured, then the table
spans_results() {
	echo "## 8. Spans: what an operator boundary costs (--span)"
	echo
	echo "The operators workload on one worker (\`operators -w 1 -n $SPAN_TASKS"
	echo "-H US -L US -F 0\`: each task is one operator, parse, enrich or emit in"
	echo "turn, so one entry and two boundaries), run bare, under empty uprobe programs on its three"
	echo "operator functions (floor: the traps alone, \`floor uempty\`,"
	echo "bench/floor.bpf.c), traced without spans (none: \`tdbpf -o /dev/null"
	echo "-- ...\`), with USDT spans (\`--span usdt\`) and with uprobe spans"
	echo "(\`--span BINARY:op_parse,op_enrich,op_emit\`). $ROUNDS rounds, variants"
	echo "alternating; run time is the workload's own elapsed_ns, median. Empty"
	echo "operators (0 us) give the cost of a boundary: the floor's over the"
	echo "bare run, the spans' over the run traced without them; 10 us"
	echo "operators give the slowdown of a workload entering spans tens of"
	echo "thousands of times a second."
	echo
	write_spans
	echo
}
