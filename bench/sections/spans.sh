# SPDX-License-Identifier: GPL-2.0
# bench/run.sh section 8 (BENCH_ONLY=spans): the cost of span boundaries
# (--span), sourced by run.sh after lib.sh. The operators workload on one
# worker, traced without spans, with USDT spans and with uprobe spans:
# with empty operators (-H 0 -L 0 -F 0) the difference per boundary (two
# an entry) is what a traced boundary costs; with 10 us operators, the
# slowdown of a workload entering spans tens of thousands of times a
# second.

SPAN_TASKS=${BENCH_SPAN_TASKS:-200000}

kv_elapsed() { awk -F= '$1 == "elapsed_ns" { print $2 }'; }

# span_run VARIANT US: the workload's elapsed_ns, operators of US us
span_run() {
	local wl=$W/operators span=
	case $1 in
	usdt) span="--span usdt" ;;
	uprobe) span="--span $wl:op_parse,op_enrich,op_emit" ;;
	esac
	# shellcheck disable=SC2086 # $span is two words or none
	"$TDBPF" -o /dev/null $span -- "$wl" -w 1 -n "$SPAN_TASKS" -H "$2" \
		-L "$2" -F 0 2>/dev/null | kv_elapsed
}

section_spans() {
	local us v
	[ -x "$W/operators" ] || die "$W/operators not built; run 'make $W/operators'"
	log "spans: $ROUNDS rounds of $SPAN_TASKS operator tasks"
	for _ in $(seq "$ROUNDS"); do
		for us in 0 10; do
			for v in none usdt uprobe; do
				span_run "$v" "$us" >>"$TMP/span_${v}_$us"
			done
		done
	done
}

# the medians; the cost a boundary, or the slowdown, over no spans
write_spans() {
	local none v m us
	echo "| spans ($SPAN_TASKS tasks, 1 worker) | operator | run ms (median) | entries/s | us per boundary | slowdown |"
	echo "|---|---|---|---|---|---|"
	for us in 0 10; do
		none=$(med <"$TMP/span_none_$us")
		for v in none usdt uprobe; do
			m=$(med <"$TMP/span_${v}_$us")
			awk -v v="$v" -v us="$us" -v m="$m" -v n="$none" \
			    -v t="$SPAN_TASKS" 'BEGIN {
				printf "| %s | %d us | %.0f | %.0f | %.2f | %.1f%% |\n",
				       v, us, m / 1e6, t / (m / 1e9),
				       (m - n) / (2 * t) / 1e3,
				       100 * (m - n) / n }'
		done
	done
}
