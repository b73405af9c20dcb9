#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/graph/run.sh: tdbpf's bottleneck verdict against causal truth
# -> a section of bench/results.md (make bench-graph)
#
# Its stream graphs are drawn at random at every run (bench/graph/draw.awk:
# shape, transport, per-record work, which stage is slow, by what and how
# much, what else runs), from a seed it prints; BENCH_GRAPH_SEED=S replays
# a run. What else runs: nothing; a process burning CPU 1 at the graph's
# priority (stagegraph -x, not traced); or an idle Prometheus scraping
# itself and an idle JVM whose timer pool wakes a worker pool every 2 ms,
# running through the config's truth and traced runs, with tdbpf tracing
# the whole host (-a, what the service runs) instead of the graph's
# processes: there a verdict is the first candidate that is a stage or a
# task of that runtime (other processes of the machine are not scored),
# and a runtime's task first is a miss ("runtime:COMM"). Truth is
# measured, never assumed: the graph runs as given, then with each stage
# sped up 2x in turn (its CPU work, lock hold and sleep per record halved),
# each beside a run as given (the gain is the median of the pairs'
# ratios); the true bottleneck is the stage whose speed-up raises
# throughput most (Coz's virtual speed-ups, done for real). A config has
# a clear truth when that gain is >= GAIN_MIN and the runner-up's gain is
# at most RUNNER_UP times it, and every one of its paired ratios is above
# every one of the runner-up's (of two stages alike, noise alone orders
# 3 pairs so 1 time in 20); the others are counted and listed, not
# scored. The one truth serves both of tdbpf's modes: the graph runs once
# more under `tdbpf --wakeups -j -p PIDS` (every wakeup, 2 s) and once
# under `tdbpf -j -p PIDS` (the default graph, from windows of wakeups,
# 4 s); a verdict is the first of its ranked candidates that is a stage.
# Accuracy per shape, transport, slowed-by and overall, with 95% Wilson
# intervals.
#
# Environment (defaults in brackets):
#   BENCH_GRAPH_SEED [random] the draw's seed, 0 to 2^31 - 1 (printed;
#                             replays a run)
#   BENCH_GRAPH_N [30]        configurations drawn
#   BENCH_GRAPH_ROUNDS [3]    runs of every variant, interleaved
#   BENCH_GRAPH_SECS [1.2]    throughput window of a run (after 0.3 s warm-up)
#   BENCH_GRAPH_NICE [-19]    the graphs' nice value: well above the
#                             machine's other work (builds, tests), whose
#                             load would otherwise swamp a 2x speed-up
#   BENCH_GRAPH_KEEP [yes]    no: print the tables, leave results.md and
#                             bench/graph/runs/ as they are
#
# Pooled: each kept run's lines stay in bench/graph/runs/SEED.tsv, marked
# with the tdbpf they scored (the git trees of user/, bpf/ and include/:
# what the verdict is made of). Runs of the same tdbpf pool (their seeds
# differ, so their graphs do): the accuracy table is given for this run
# and for the pool. A run of a tree with uncommitted changes there is
# kept apart: what it scored cannot be rebuilt. A miss's two reports are
# kept beside, bench/graph/runs/SEED.misses/NAME.MODE.json.gz.
#   OUT [build]               make's build directory
set -u
cd "$(dirname "$0")/../.." || exit 1

OUT=${OUT:-build}
# 31 bits: mawk's srand() takes every seed from 2^31 up as 2^31 - 1, so
# half of all 32-bit seeds drew one and the same set of graphs
SEED=${BENCH_GRAPH_SEED:-$(($(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % 2147483648))}
N=${BENCH_GRAPH_N:-30}
ROUNDS=${BENCH_GRAPH_ROUNDS:-3}
SECS=${BENCH_GRAPH_SECS:-1.2}
NICE=${BENCH_GRAPH_NICE:--19}
KEEP=${BENCH_GRAPH_KEEP:-yes}
BEGIN_MARK='<!-- bench-graph: begin -->'
END_MARK='<!-- bench-graph: end -->'
SECTION="9. The verdict against causal truth, on random graphs (make bench-graph)"
# the modes: every wakeup, and the default (windows of a tenth of the
# time, eight of them in 4 s)
MODES="wakeups sampled"
opts_of() { [ "$1" = wakeups ] && echo "--wakeups -d 2" || echo "-d 4"; }
secs_of() { [ "$1" = wakeups ] && echo 2 || echo 4; }
GAIN_MIN=0.10
RUNNER_UP=0.67
W=$OUT/tests/workloads/stagegraph
TDBPF=${TDBPF:-./tdbpf}
RESULTS=bench/results.md
DRAW=bench/graph/draw.awk
RUNS=bench/graph/runs
# the tdbpf this run scores: what the verdict is made of, as committed
CODE=$(git rev-parse HEAD:user HEAD:bpf HEAD:include 2>/dev/null | sha1sum | cut -c1-12)
JVM_SRC=tests/workloads/jvm/IdlePool.java
git diff --quiet HEAD -- user bpf include 2>/dev/null || CODE=dirty-$CODE

die() { echo "bench-graph: $*" >&2; exit 1; }
log() { echo "bench-graph: $*" >&2; }

[ "$(id -u)" = 0 ] || die "must run as root (sudo make bench-graph): it loads BPF programs"
command -v jq >/dev/null || die "'jq' not found; run 'make deps'"
[ -x "$TDBPF" ] || die "$TDBPF not built; run 'make bench-graph'"
[ -x "$W" ] || die "$W not built; run 'make bench-graph'"
if ! [[ $SEED =~ ^[0-9]{1,10}$ ]] || [ "$SEED" -ge 2147483648 ]; then
	die "BENCH_GRAPH_SEED is a number below 2147483648 (awk's srand takes 31 bits), not '$SEED'"
fi
if ! [[ $N =~ ^[0-9]+$ ]] || [ "$N" -lt 1 ]; then
	die "BENCH_GRAPH_N is a count of 1 or more, not '$N'"
fi

TMP=$(mktemp -d /tmp/tdbpf-bench-graph.XXXXXX) || die "no temporary directory"
RT_PIDS=
trap 'runtime_stop; rm -rf "$TMP"' EXIT

# The idle runtime of a config drawn with one: Prometheus scraping itself
# every 500 ms and the IdlePool JVM; their pids in RT_PIDS
runtime_start() {
	local port jpid line
	port=$((20000 + RANDOM % 20000))
	mkdir -p "$TMP/prom" || die "cannot make $TMP/prom"
	printf 'global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\nscrape_configs:\n  - job_name: self\n    static_configs:\n      - targets: [\x27127.0.0.1:%d\x27]\n' \
		"$port" >"$TMP/prom/prometheus.yml"
	prometheus --web.listen-address=127.0.0.1:$port --storage.tsdb.path="$TMP/prom/data" \
		--config.file="$TMP/prom/prometheus.yml" --log.level=warn >/dev/null 2>>"$TMP/err" &
	RT_PIDS=$!
	coproc JVM { exec java -cp "$TMP/jvm" IdlePool 3600 2>>"$TMP/err"; }
	read -r -t 60 line <&"${JVM[0]}" || die "the idle JVM did not start (see java -cp $TMP/jvm IdlePool)"
	jpid=${line#pid=}
	RT_PIDS="$RT_PIDS $jpid"
	# past the JVM's start and Prometheus's first scrapes
	sleep 3
	# a port some other program holds: Prometheus exits, and the config
	# would be scored as one beside a runtime that is not there
	kill -0 "${RT_PIDS%% *}" 2>/dev/null ||
		die "Prometheus did not start on 127.0.0.1:$port (the port taken?); run again"
}

runtime_stop() {
	local p
	for p in $RT_PIDS; do kill -9 "$p" 2>/dev/null; done
	for p in $RT_PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP/prom"
	RT_PIDS=
}

# throughput of one run: run OPTS STAGES [-S NAME:2]
run_tp() {
	local opts=$1 stages=$2 speed=${3:-}
	# shellcheck disable=SC2086
	nice -n "$NICE" "$W" $opts -w 0.3 -d "$SECS" $speed $stages 2>>"$TMP/err" |
		sed -n 's/^throughput=\([0-9.]*\).*/\1/p'
}

# One traced run in MODE: "name mode verdict share top" on stdout; the
# whole host (-a) when an idle runtime runs beside the graph
run_traced() {
	local name=$1 mode=$2 opts=$3 stages=$4 out=$TMP/$1.$2.trace pids
	local secs tied target
	secs=$(secs_of "$mode")
	# shellcheck disable=SC2086
	# long enough for tdbpf's start on a loaded machine (BPF load and
	# verification can take a second or two) and its window
	nice -n "$NICE" "$W" $opts -w 0.5 -d $((secs + 8)) $stages >"$out" 2>>"$TMP/err" &
	local wpid=$!
	for _ in $(seq 100); do
		grep -q '^ready' "$out" 2>/dev/null && break
		sleep 0.05
	done
	pids=$(sed -n 's/^stage=[^ ]* pid=\([0-9]*\) tid=[0-9]*$/\1/p' "$out" | sort -u | paste -sd,)
	target="-p $pids"
	[ -n "$RT_PIDS" ] && target=-a
	# at the graph's nice: a busy graph at -19 would starve tdbpf's start
	# shellcheck disable=SC2046,SC2086 # the mode's options, split on purpose
	nice -n "$NICE" "$TDBPF" $(opts_of "$mode") -j -o "$TMP/$name.$mode.json" $target 2>>"$TMP/err" >/dev/null
	wait "$wpid"
	sed -n 's/^stage=\([^ ]*\) pid=[0-9]* tid=\([0-9]*\)$/\2 \1/p' "$out" >"$TMP/$name.tids"
	# each candidate with its process: under -a, the runtime's tasks compete
	jq -r '(reduce .tasks[]? as $t ({}; .[$t.tid | tostring] = $t.pid)) as $pid |
		.graph.bottleneck[]? | "\(.tid)\t\(.comm)\t\(.share)\t\(.reason)\t\($pid[.tid | tostring] // -1)"' \
		"$TMP/$name.$mode.json" 2>/dev/null >"$TMP/$name.$mode.cands"
	tied=$(jq -r '.graph.tied // 0' "$TMP/$name.$mode.json" 2>/dev/null)
	# a report shorter than its window: tdbpf started after the graph
	# ended (BPF loading on a loaded machine), nothing to judge
	short=$(jq -r --argjson s "$secs" 'if .duration_ns < 0.8 * $s * 1e9 then 1 else 0 end' \
		"$TMP/$name.$mode.json" 2>/dev/null || echo 1)
	awk -F'\t' -v name="$name" -v mode="$mode" -v tied="${tied:-0}" -v short="${short:-1}" \
		-v rt="$RT_PIDS" '
		BEGIN { n = split(rt, a, " "); for (i = 1; i <= n; i++) isrt[a[i]] = 1 }
		NR == FNR { split($0, a, " "); st[a[1]] = a[2]; next }
		FNR == 1 { top = $2 " " int($3 * 100 + 0.5) "%" }
		!pick && ($1 in st) { pick = st[$1]; share = $3 }
		!pick && ($5 in isrt) { pick = "runtime:" $2; share = $3 }
		END {
			if (!pick) pick = "-"
			if (short) { pick = "untraced"; top = "report shorter than its window" }
			if (tied > 1) top = top " (a tie of " tied ")"
			printf "%s\t%s\t%s\t%s\t%s\n", name, mode, pick, share, top
		}' "$TMP/$name.tids" "$TMP/$name.$mode.cands"
}

T0=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
log "seed $SEED, $N configurations (replay: BENCH_GRAPH_SEED=$SEED BENCH_GRAPH_N=$N)"
awk -v seed="$SEED" -v n="$N" -f "$DRAW" >"$TMP/configs"
if cut -d'|' -f7 "$TMP/configs" | grep -qx runtime; then
	command -v prometheus >/dev/null && command -v javac >/dev/null ||
		die "the configs with an idle runtime need prometheus and javac; run 'make deps'"
	mkdir -p "$TMP/jvm" && javac -d "$TMP/jvm" "$JVM_SRC" 2>>"$TMP/err" ||
		die "javac $JVM_SRC failed (see the lines above)"
fi
: >"$TMP/truth"
: >"$TMP/verdict"
# stdin is the configs; the runtime's coprocess and the runs read none
exec 3<"$TMP/configs"
while IFS='|' read -r name _ _ _ _ _ env opts stages <&3; do
	names=$(for s in $stages; do echo "${s%%:*}"; done)
	log "$name: $stages ($env)"
	[ "$env" = runtime ] && runtime_start
	# each sped-up run beside a run as given: the pair's ratio holds
	# while the load of the machine's other users drifts
	for _ in $(seq "$ROUNDS"); do
		for n in $names; do
			b=$(run_tp "$opts" "$stages")
			echo "$name base $b" >>"$TMP/truth"
			echo "$name $n $(awk -v b="$b" -v s="$(run_tp "$opts" "$stages" "-S $n:2")" \
				'BEGIN { print (b > 0 ? s / b : 0) }')" >>"$TMP/truth"
		done
	done
	for m in $MODES; do
		run_traced "$name" "$m" "$opts" "$stages" >>"$TMP/verdict"
	done
	runtime_stop
done
exec 3<&-

# truth per config: the median of each stage's paired ratios (a run the
# machine's other work froze is one outlier, not a shifted mean), the
# gains, the winner; the mean throughput as given
awk -v gmin=$GAIN_MIN -v ru=$RUNNER_UP '
	function median(key,    n, a, i, j, t) {
		n = split(vals[key], a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	# the least and the most of a stage'"'"'s paired ratios
	function lo(key,    n, a, i, m) {
		n = split(vals[key], a, " "); m = a[1]
		for (i = 2; i <= n; i++) if (a[i] + 0 < m + 0) m = a[i]
		return m + 0
	}
	function hi(key,    n, a, i, m) {
		n = split(vals[key], a, " "); m = a[1]
		for (i = 2; i <= n; i++) if (a[i] + 0 > m + 0) m = a[i]
		return m + 0
	}
	{ sum[$1 " " $2] += $3; cnt[$1 " " $2]++; vals[$1 " " $2] = vals[$1 " " $2] " " $3
	  if (!($1 in seen)) { seen[$1] = 1; order[++nc] = $1 }
	  if ($2 != "base" && !(($1 " " $2) in isst)) { isst[$1 " " $2] = 1; stl[$1] = stl[$1] " " $2 } }
	END {
		for (i = 1; i <= nc; i++) {
			c = order[i]; base = sum[c " base"] / cnt[c " base"]
			n = split(stl[c], s, " "); b1 = ""; g1 = -9; b2 = "-"; g2 = 0
			for (k = 1; k <= n; k++) {
				g = median(c " " s[k]) - 1
				if (g > g1) { b2 = b1; g2 = g1; b1 = s[k]; g1 = g }
				else if (g > g2 || b2 == "-") { b2 = s[k]; g2 = g }
			}
			if (b2 == "") { b2 = "-"; g2 = 0 }
			clear = (g1 >= gmin && g2 <= ru * g1 &&
				 (b2 == "-" || lo(c " " b1) > hi(c " " b2))) ? "yes" : "no"
			printf "%s\t%.0f\t%s\t%.3f\t%s\t%.3f\t%s\n", c, base, b1, g1, b2, g2, clear
		}
	}' "$TMP/truth" >"$TMP/truth.tab"

# one line per config and mode:
# name shape transport slow by factor stages mode verdict top | base winner gain second gain2 clear | other CPU
awk -F'|' -v OFS='\t' '{ print $1, $2, $3, $4, $5, $6, $9; env[$1] = $7 }
	END { for (c in env) print c, env[c] >"'"$TMP/env.tab"'" }' "$TMP/configs" >"$TMP/configs.tab"
awk -F'\t' -v OFS='\t' '
	FILENAME == ARGV[1] { cf[$1] = $0; next }
	FILENAME == ARGV[2] { tt[$1] = $2 OFS $3 OFS $4 OFS $5 OFS $6 OFS $7; next }
	FILENAME == ARGV[3] { env[$1] = $2; next }
	($1 in cf) && ($1 in tt) { print cf[$1], $2, $3, $5, tt[$1], env[$1] }' \
	"$TMP/configs.tab" "$TMP/truth.tab" "$TMP/env.tab" "$TMP/verdict" >"$TMP/all"
# fields: 1 name 2 shape 3 transport 4 slow 5 by 6 factor 7 stages 8 mode
# 9 verdict 10 top 11 base 12 winner 13 gain 14 second 15 gain2 16 clear
# 17 other CPU (absent in runs kept before it was drawn: idle)

# accuracy with a 95% Wilson interval, by field F (0: all), one mode, of
# the lines in FILE (this run's, or the pool's)
accuracy() {
	awk -F'\t' -v f="$1" -v mode="$2" -v label="$3" '
		function wilson(a, n,    p, z, d, c, h) {
			if (!n) return "-"
			p = a / n; z = 1.96; d = 1 + z * z / n
			c = (p + z * z / (2 * n)) / d
			h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
			return sprintf("%.0f%% (%.0f-%.0f%%)", 100 * p, 100 * (c - h), 100 * (c + h))
		}
		$8 == mode { k = f ? $f : "all"; if (f == 17 && k == "") k = "idle"
			if (!(k in n)) order[++m] = k; n[k]++
			if ($16 == "yes" && $9 != "untraced") { c[k]++; if ($9 == $12) a[k]++ } }
		END { for (i = 1; i <= m; i++) { q = order[i]
			printf "| %s | %s | %s | %d | %d | %d | %s |\n", mode, label, q, n[q],
				c[q], a[q], wilson(a[q], c[q]) } }' "$4"
}

# the accuracy table of FILE
accuracy_table() {
	echo "| mode | by | kind | configs | clear truth | tdbpf right | accuracy (95% interval) |"
	echo "|---|---|---|---:|---:|---:|---|"
	for m in $MODES; do
		accuracy 0 "$m" all "$1"
		accuracy 2 "$m" shape "$1"
		accuracy 3 "$m" transport "$1"
		accuracy 5 "$m" "slowed by" "$1"
		accuracy 17 "$m" "other CPU" "$1"
	done
}

# this run's lines, then every kept run's of the same tdbpf, names
# prefixed by their seed: the pool
pool() {
	local f
	sed "s/^/$SEED:/" "$TMP/all" >"$TMP/pool"
	: >"$TMP/pool.seeds"
	case $CODE in dirty-*) return ;; esac
	for f in "$RUNS"/*.tsv; do
		[ -e "$f" ] || continue
		[ "$(basename "$f" .tsv)" = "$SEED" ] && continue
		head -n 1 "$f" | grep -q "^# code $CODE " || continue
		basename "$f" .tsv >>"$TMP/pool.seeds"
		grep -v '^#' "$f" | sed "s/^/$(basename "$f" .tsv):/" >>"$TMP/pool"
	done
}

table() {
	echo "| config | stages | slowed (drawn) | other CPU | throughput (rec/s) | truth: best 2x speed-up | runner-up | clear | --wakeups says | default says |"
	echo "|---|---|---|---|---:|---|---|---|---|---|"
	awk -F'\t' '
		$8 == "wakeups" { w[$1] = $9; wt[$1] = $10 } $8 == "sampled" { s[$1] = $9; st[$1] = $10 }
		!($1 in row) { row[$1] = $0; order[++k] = $1 }
		function mark(v, t, ok) { return ok == "yes" && v != t ? "**" v "**" : v }
		END { for (i = 1; i <= k; i++) { split(row[order[i]], r, "\t")
			printf "| %s | `%s` | %s by %s x%s | %s | %s | %s (+%.0f%%) | %s (+%.0f%%) | %s | %s | %s |\n",
				r[1], r[7], r[4], r[5], r[6], r[17], r[11], r[12], r[13] * 100, r[14], r[15] * 100,
				r[16], mark(w[r[1]], r[12], r[16]), mark(s[r[1]], r[12], r[16]) } }' "$TMP/all"
	echo
	echo "Accuracy: configurations with a clear truth whose verdict names it, with a 95% Wilson interval."
	echo
	accuracy_table "$TMP/all"
	echo
	if [ -s "$TMP/pool.seeds" ]; then
		echo "Pooled with the $(wc -l <"$TMP/pool.seeds") other kept runs of the same tdbpf (code $CODE; seeds $(paste -sd' ' "$TMP/pool.seeds"); bench/graph/runs/), $(awk -F'\t' '$8 == "wakeups"' "$TMP/pool" | wc -l) configurations in all:"
		echo
		accuracy_table "$TMP/pool"
	else
		echo "No other kept run of the same tdbpf (code $CODE) to pool with."
	fi
	echo
	echo "Misses (clear truth, another verdict), with tdbpf's first candidate:"
	echo
	awk -F'\t' '$16 == "yes" && $9 != $12 && $9 != "untraced" {
		printf "- %s, %s: truth %s (+%.0f%%), said %s; first candidate %s\n",
			$1, $8, $12, $13 * 100, $9, $10; m++ }
		END { if (!m) print "- none" }' "$TMP/all"
	echo
	echo "Traced too late (tdbpf's report shorter than its window, not scored): $(awk -F'\t' '$9 == "untraced" { printf "%s%s %s", n++ ? ", " : "", $1, $8 }' "$TMP/all")"
	echo
	echo "No clear truth (not scored): $(awk -F'\t' '$8 == "wakeups" && $16 != "yes"' "$TMP/all" | wc -l) of $N"
	echo
	awk -F'\t' '$8 == "wakeups" && $16 != "yes" {
		printf "- %s: %s +%.0f%%, %s +%.0f%%\n", $1, $12, $13 * 100, $14, $15 * 100 }' "$TMP/all"
}

section() {
	echo "$BEGIN_MARK"
	echo "## $SECTION"
	echo
	echo "Generated by bench/graph/run.sh at $(git describe --always --dirty 2>/dev/null) on $(date -u '+%Y-%m-%d %H:%M UTC'), in $(($(date +%s) - T0)) s; do not edit by hand."
	echo "Seed $SEED, $N configurations drawn by bench/graph/draw.awk (replay: \`BENCH_GRAPH_SEED=$SEED BENCH_GRAPH_N=$N make bench-graph\`)."
	echo "Each graph ran as given and with each stage sped up 2x in turn, each beside a run as given ($ROUNDS rounds, ${SECS} s windows, the median of the pairs' ratios);"
	echo "the truth is the stage whose speed-up raised throughput most, clear when it gained >= $(awk -v g=$GAIN_MIN 'BEGIN{print g*100}')%"
	echo "and the runner-up at most $(awk -v r=$RUNNER_UP 'BEGIN{print r*100}')% of that, with each of its paired ratios above each of the runner-up's (of two stages alike, noise alone orders 3 rounds so 1 time in 20). The same truth scores both modes: \`tdbpf --wakeups -d 2 -j -p PIDS\`"
	echo "and the default \`tdbpf -d 4 -j -p PIDS\` (the graph from the wakeups of 50 ms of every 500), each on a run of its own; a verdict is the first stage among the ranked candidates."
	echo "Other CPU: idle (nothing else runs), busy (a process burning CPU 1 at the graph's priority, untraced) or runtime (an idle Prometheus scraping itself every 500 ms and an idle JVM whose timer pool wakes a worker pool every 2 ms, beside the graph through its truth and traced runs; tdbpf traces the whole host, \`-a\` instead of \`-p PIDS\`, and a verdict is the first candidate that is a stage or the runtime's: \`runtime:COMM\` is a miss)."
	echo "The graphs run at nice $NICE; this 2-CPU machine is shared: load average at the start $LOAD0, at the end $(cut -d' ' -f1-3 /proc/loadavg)."
	echo
	table
	echo "$END_MARK"
}

pool
section >"$TMP/section.md"
cat "$TMP/section.md"
if [ "$KEEP" = yes ]; then
	# replace the section of an earlier run, else append it; the fixed
	# configurations' sampled section (8) is gone: both modes are here
	if grep -qF "$BEGIN_MARK" "$RESULTS" 2>/dev/null; then
		awk -v b="$BEGIN_MARK" -v e="$END_MARK" -v f="$TMP/section.md" '
			$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
			$0 == e { skip = 0; next }
			$0 == "<!-- bench-graph-sampled: begin -->" { skip = 1; next }
			$0 == "<!-- bench-graph-sampled: end -->" { skip = 0; next }
			!skip' "$RESULTS" >"$TMP/results.md"
	else
		{ cat "$RESULTS"; echo; cat "$TMP/section.md"; } >"$TMP/results.md"
	fi
	cp "$TMP/results.md" "$RESULTS" || die "cannot write $RESULTS"
	mkdir -p "$RUNS" || die "cannot make $RUNS"
	{
		echo "# code $CODE seed $SEED n $N at $(git describe --always --dirty 2>/dev/null) on $(date -u '+%Y-%m-%d %H:%M UTC')"
		cat "$TMP/all"
	} >"$RUNS/$SEED.tsv" || die "cannot write $RUNS/$SEED.tsv"
	# a miss's reports, for taking it apart from the edges later
	# (tdbpf graph -j FILE recomputes its verdict from them)
	# shellcheck disable=SC2013 # config names hold no blanks
	for r in $(awk -F'\t' '$16 == "yes" && $9 != "untraced" && $9 != $12 { print $1 "." $8 }' "$TMP/all"); do
		[ -f "$TMP/$r.json" ] || continue
		mkdir -p "$RUNS/$SEED.misses" &&
			gzip -9c "$TMP/$r.json" >"$RUNS/$SEED.misses/$r.json.gz" ||
			die "cannot write $RUNS/$SEED.misses/$r.json.gz"
	done
	log "done in $(($(date +%s) - T0)) s; section ${SECTION%%.*} of $RESULTS; seed $SEED"
fi
