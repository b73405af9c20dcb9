# SPDX-License-Identifier: GPL-2.0
# bench/run.sh section 8 (BENCH_ONLY=spans): the cost of a span boundary
# (--span), sourced by run.sh after lib.sh. The operators workload with
# empty operators (-H 0 -L 0 -F 0) on one worker: its wall time traced
# without spans, with USDT spans and with uprobe spans; the difference
# per boundary (two an entry) is what a traced boundary costs.

SPAN_TASKS=${BENCH_SPAN_TASKS:-200000}

# span_run VARIANT: the workload's elapsed_ns under that variant
span_run() {
	local wl=$W/operators span=
	case $1 in
	usdt) span="--span usdt" ;;
	uprobe) span="--span $wl:op_parse,op_enrich,op_emit" ;;
	esac
	# shellcheck disable=SC2086 # $span is two words or none
	"$TDBPF" -o /dev/null $span -- "$wl" -w 1 -n "$SPAN_TASKS" -H 0 -L 0 \
		-F 0 2>/dev/null | kv_elapsed
}

kv_elapsed() { awk -F= '$1 == "elapsed_ns" { print $2 }'; }

section_spans() {
	local v
	[ -x "$W/operators" ] || die "$W/operators not built; run 'make $W/operators'"
	log "spans: $ROUNDS rounds of $SPAN_TASKS operator tasks"
	for _ in $(seq "$ROUNDS"); do
		for v in none usdt uprobe; do
			span_run "$v" >>"$TMP/span_$v"
		done
	done
}

# the medians, and the cost a boundary over the run without spans
write_spans() {
	local none v m
	none=$(med <"$TMP/span_none")
	echo "| spans ($SPAN_TASKS empty operators, 1 worker) | run ms (median) | us per boundary |"
	echo "|---|---|---|"
	for v in none usdt uprobe; do
		m=$(med <"$TMP/span_$v")
		echo "| $v | $(fmt "$(awk -v m="$m" 'BEGIN { print m / 1e6 }')" %.0f) | $(awk -v m="$m" -v n="$none" -v t="$SPAN_TASKS" 'BEGIN { printf "%.2f", (m - n) / (2 * t) / 1e3 }') |"
	done
}
