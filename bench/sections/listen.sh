# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/run.sh (functions only; its variables and TMP are
# set): section 5, --listen: a scrape of 10,000 tasks, and the soak.
# shellcheck shell=bash

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
	echo "name; \`--listen-labels tid\` makes a series per thread. The graph is on, as"
	echo "by default (windows of wakeups): its wait and hold series are in the body."
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
