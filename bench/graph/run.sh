#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/graph/run.sh: tdbpf's bottleneck verdict against causal truth
# -> a section of bench/results.md (make bench-graph)
#
# For each stream graph below (tests/workloads/stagegraph), the truth is
# measured, never assumed: the graph runs as given, then with each stage
# sped up 2x in turn (its CPU work, lock hold and sleep per record halved),
# each beside a run as given (the gain is the median of the pairs' ratios);
# the true bottleneck is the stage whose speed-up raises throughput most (Coz's virtual speed-ups, done for real). A
# config has a clear winner when that gain is >= GAIN_MIN and the
# runner-up's gain is at most RUNNER_UP times it; others are reported as
# having none and not scored. Then the graph runs once more under
# `tdbpf -j -p PIDS` (the default graph, from windows of wakeups, 4 s) or
# `tdbpf --wakeups -j -p PIDS` (every wakeup, 2 s); tdbpf's verdict is
# the first of its ranked candidates that is a stage of the graph.
#
# Environment (defaults in brackets):
#   BENCH_GRAPH_ROUNDS [3]    runs of every variant, interleaved
#   BENCH_GRAPH_SECS [1.2]    throughput window of a run (after 0.3 s warm-up)
#   BENCH_GRAPH_WAKEUPS [all] all: --wakeups; sampled: tdbpf's default,
#                             scored in a section of its own
#   BENCH_GRAPH_ONLY [all]    a kind (chain, fan-out, ...): run those alone,
#                             print the tables, leave results.md as it is
#   BENCH_GRAPH_NICE [-19]    the graphs' nice value: well above the
#                             machine's other work (builds, tests), whose
#                             load would otherwise swamp a 2x speed-up
#   OUT [build]               make's build directory
set -u
cd "$(dirname "$0")/../.." || exit 1

OUT=${OUT:-build}
ROUNDS=${BENCH_GRAPH_ROUNDS:-3}
SECS=${BENCH_GRAPH_SECS:-1.2}
ONLY=${BENCH_GRAPH_ONLY:-all}
NICE=${BENCH_GRAPH_NICE:--19}
BEGIN_MARK='<!-- bench-graph: begin -->'
END_MARK='<!-- bench-graph: end -->'
SECTION="7. The verdict against causal truth (make bench-graph)"
WAKEUPS=${BENCH_GRAPH_WAKEUPS:-all}
# sampled (the default): the windows hold a tenth of the time, eight of them in 4 s
case $WAKEUPS in
sampled)
	TRACE_OPTS="-d 4" TRACE_SECS=4
	# a section of its own: the one of every wakeup stays
	BEGIN_MARK='<!-- bench-graph-sampled: begin -->'
	END_MARK='<!-- bench-graph-sampled: end -->'
	SECTION="8. The sampled graph's verdict against causal truth (BENCH_GRAPH_WAKEUPS=sampled make bench-graph)" ;;
all) TRACE_OPTS="--wakeups -d 2" TRACE_SECS=2 ;;
*) echo "bench-graph: BENCH_GRAPH_WAKEUPS is sampled or all, not '$WAKEUPS'" >&2; exit 1 ;;
esac
GAIN_MIN=0.10
RUNNER_UP=0.67
W=$OUT/tests/workloads/stagegraph
TDBPF=${TDBPF:-./tdbpf}
RESULTS=bench/results.md

die() { echo "bench-graph: $*" >&2; exit 1; }
log() { echo "bench-graph: $*" >&2; }

[ "$(id -u)" = 0 ] || die "must run as root (sudo make bench-graph): it loads BPF programs and makes a cgroup"
command -v jq >/dev/null || die "'jq' not found; run 'make deps'"
[ -x "$TDBPF" ] || die "$TDBPF not built; run 'make bench-graph'"
[ -x "$W" ] || die "$W not built; run 'make bench-graph'"

TMP=$(mktemp -d /tmp/tdbpf-bench-graph.XXXXXX) || die "no temporary directory"
CG=
cleanup() {
	[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# A cgroup whose CPU limit is 20% of one CPU: under v1's cpu controller
# (these machines) or v2's, whichever mounts it. Prints "DIR LIMIT".
make_cgroup() {
	local v1 v2 d
	v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ { print $2; exit }' /proc/mounts)
	if [ -n "$v1" ]; then
		d=$v1/tdbpf-bench-graph-$$
		mkdir "$d" && echo 100000 >"$d/cpu.cfs_period_us" &&
			echo 20000 >"$d/cpu.cfs_quota_us" || return 1
		echo "$d v1:cpu.cfs_quota_us=20000/cpu.cfs_period_us=100000"
		return 0
	fi
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$v2" ] && grep -qw cpu "$v2/cgroup.controllers" || return 1
	grep -qw cpu "$v2/cgroup.subtree_control" ||
		echo +cpu >"$v2/cgroup.subtree_control" || return 1
	d=$v2/tdbpf-bench-graph-$$
	mkdir "$d" && echo "20000 100000" >"$d/cpu.max" || return 1
	echo "$d v2:cpu.max=20000/100000"
}

# kind|name|stagegraph options|stages (@CG@: the limited cgroup)
CONFIGS='chain|chain-cpu|-m threads|src:cpu=20 parse:cpu=40 enrich:cpu=300 agg:cpu=60 sink:cpu=10
chain|chain-sleep|-m threads|src:cpu=20 parse:cpu=40 enrich:cpu=40 agg:sleep=400 sink:cpu=10
chain|chain-source|-m threads|src:cpu=300 parse:cpu=40 enrich:cpu=40 sink:cpu=10
fan-out|fanout-cpu|-m threads|src:cpu=20 a:cpu=60,from=src b:cpu=600,from=src sa:from=a sb:from=b
fan-out|fanout-sleep|-m threads|src:cpu=20 a:sleep=800,from=src b:cpu=60,from=src sa:from=a sb:from=b
fan-in|fanin-cpu|-m threads|s1:cpu=40 s2:cpu=300,from= j:cpu=20,from=s1+s2 sink:cpu=10
fan-in|fanin-sleep|-m threads|s1:sleep=400 s2:cpu=40,from= j:cpu=20,from=s1+s2 sink:cpu=10
unix|unix-cpu|-m unix|src:cpu=20 a:cpu=40 b:cpu=300 sink:cpu=10
unix|unix-sleep|-m unix|src:cpu=20 a:sleep=400 b:cpu=40 sink:cpu=10
tcp|tcp-cpu|-m tcp|src:cpu=20 a:cpu=40 b:cpu=300 sink:cpu=10
tcp|tcp-sleep|-m tcp|src:cpu=20 a:sleep=400 b:cpu=40 sink:cpu=10
udp|udp-cpu|-m udp|src:cpu=20 a:cpu=300 b:cpu=40 sink:cpu=10
noisy|noisy-pinned|-m threads -x 2@1|src:cpu=20,pin=0 a:cpu=40,pin=0 b:cpu=100,pin=1 c:cpu=40,pin=0 sink:pin=0
lock|lock-shared|-m threads|src:cpu=20 a:cpu=30,lock=300 b:cpu=30 c:cpu=30,lock=100 sink
cgroup|cgroup-limit|-m unix|src:cpu=20 a:cpu=40 b:cpu=100,cg=@CG@ c:cpu=40 sink
oversub|three-busy|-m threads|src:cpu=20 parse:cpu=150 enrich:cpu=400 agg:cpu=250 sink:cpu=10
oversub|enrich-agg|-m threads|src:cpu=20 parse:cpu=60 enrich:cpu=350 agg:cpu=250 out:cpu=20'

# throughput of one run: run OPTS STAGES [-S NAME:2]
run_tp() {
	local opts=$1 stages=$2 speed=${3:-}
	# shellcheck disable=SC2086
	nice -n "$NICE" "$W" $opts -w 0.3 -d "$SECS" $speed $stages 2>>"$TMP/err" |
		sed -n 's/^throughput=\([0-9.]*\).*/\1/p'
}

# One traced run: the verdict's lines into $TMP/verdict
run_traced() {
	local name=$1 opts=$2 stages=$3 out=$TMP/$1.trace pids tids
	# shellcheck disable=SC2086
	# long enough for tdbpf's start on a loaded machine (BPF load and
	# verification can take a second or two) and its window
	nice -n "$NICE" "$W" $opts -w 0.5 -d $((TRACE_SECS + 3)) $stages >"$out" 2>>"$TMP/err" &
	local wpid=$!
	for _ in $(seq 100); do
		grep -q '^ready' "$out" 2>/dev/null && break
		sleep 0.05
	done
	pids=$(sed -n 's/^stage=[^ ]* pid=\([0-9]*\) tid=[0-9]*$/\1/p' "$out" | sort -u | paste -sd,)
	# at the graph's nice: a busy graph at -19 would starve tdbpf's start
	# shellcheck disable=SC2086
	nice -n "$NICE" "$TDBPF" $TRACE_OPTS -j -o "$TMP/$name.json" -p "$pids" 2>>"$TMP/err" >/dev/null
	wait "$wpid"
	# stage tids -> names; the first ranked candidate that is a stage
	sed -n 's/^stage=\([^ ]*\) pid=[0-9]* tid=\([0-9]*\)$/\2 \1/p' "$out" >"$TMP/$name.tids"
	jq -r '.graph.bottleneck[]? | "\(.tid)\t\(.comm)\t\(.share)\t\(.reason)"' \
		"$TMP/$name.json" 2>/dev/null >"$TMP/$name.cands"
	tied=$(jq -r '.graph.tied // 0' "$TMP/$name.json" 2>/dev/null)
	awk -F'\t' -v name="$name" -v tied="${tied:-0}" '
		NR == FNR { split($0, a, " "); st[a[1]] = a[2]; next }
		FNR == 1 { top = $2 " (" $4 ")" }
		!pick && ($1 in st) { pick = st[$1]; why = $4; share = $3 }
		END {
			if (!pick) pick = "-"
			if (tied > 1) top = top " [a tie of " tied "]"
			printf "%s\t%s\t%s\t%s\n", name, pick, share, top
		}' "$TMP/$name.tids" "$TMP/$name.cands"
}

T0=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
CGINFO=
if echo "$CONFIGS" | grep -q '@CG@' && [[ $ONLY == all || $ONLY == cgroup ]]; then
	CGINFO=$(make_cgroup) || log "no cgroup with a cpu controller: the cgroup config is skipped"
	CG=${CGINFO%% *}
fi
: >"$TMP/truth"
: >"$TMP/verdict"
while IFS='|' read -r kind name opts stages; do
	[ "$ONLY" = all ] || [ "$ONLY" = "$kind" ] || continue
	if [[ $stages == *@CG@* ]]; then
		[ -n "$CG" ] || continue
		stages=${stages//@CG@/$CG}
	fi
	names=$(for s in $stages; do echo "${s%%:*}"; done)
	log "$name: $(echo $names | wc -w) stages x $ROUNDS rounds"
	# each sped-up run beside a run as given: the pair's ratio holds
	# while the load of the machine's other users drifts
	for r in $(seq "$ROUNDS"); do
		for n in $names; do
			b=$(run_tp "$opts" "$stages")
			echo "$name base $b" >>"$TMP/truth"
			echo "$name $n $(awk -v b="$b" -v s="$(run_tp "$opts" "$stages" "-S $n:2")" \
				'BEGIN { print (b > 0 ? s / b : 0) }')" >>"$TMP/truth"
		done
	done
	printf '%s\t%s\t' "$kind" "$opts" >>"$TMP/verdict"
	run_traced "$name" "$opts" "$stages" >>"$TMP/verdict"
done <<<"$CONFIGS"

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
	{ sum[$1 " " $2] += $3; cnt[$1 " " $2]++; vals[$1 " " $2] = vals[$1 " " $2] " " $3
	  if (!($1 in seen)) { seen[$1] = 1; order[++nc] = $1 }
	  if ($2 != "base" && !(($1 " " $2) in isst)) { isst[$1 " " $2] = 1; stl[$1] = stl[$1] " " $2 } }
	END {
		for (i = 1; i <= nc; i++) {
			c = order[i]; base = sum[c " base"] / cnt[c " base"]
			n = split(stl[c], s, " "); b1 = ""; g1 = -9; b2 = ""; g2 = -9
			for (k = 1; k <= n; k++) {
				g = median(c " " s[k]) - 1
				if (g > g1) { b2 = b1; g2 = g1; b1 = s[k]; g1 = g }
				else if (g > g2) { b2 = s[k]; g2 = g }
			}
			clear = (g1 >= gmin && g2 <= ru * g1) ? "yes" : "no"
			printf "%s\t%.0f\t%s\t%.3f\t%s\t%.3f\t%s\n", c, base, b1, g1, b2, g2, clear
		}
	}' "$TMP/truth" >"$TMP/truth.tab"

# join: kind opts name verdict share top | base winner gain second gain2 clear
join -t "$(printf '\t')" -1 3 -2 1 \
	<(sort -t "$(printf '\t')" -k3,3 "$TMP/verdict") \
	<(sort -t "$(printf '\t')" -k1,1 "$TMP/truth.tab") >"$TMP/all"

table() {
	echo "| kind | config | stagegraph | throughput (rec/s) | truth: best 2x speed-up | runner-up | clear | tdbpf's verdict | agrees |"
	echo "|---|---|---|---:|---|---|---|---|---|"
	awk -F'\t' '{
		agree = $12 != "yes" ? "n/a" : ($4 == $8 ? "yes" : "**no**")
		printf "| %s | %s | `%s` | %s | %s (+%.0f%%) | %s (+%.0f%%) | %s | %s | %s |\n",
			$2, $1, $3, $7, $8, $9 * 100, $10, $11 * 100, $12, $4, agree
	}' "$TMP/all"
	echo
	echo "| kind | configs | with a clear winner | tdbpf agrees | agreement |"
	echo "|---|---:|---:|---:|---:|"
	awk -F'\t' '{ n[$2]++; if ($12 == "yes") { c[$2]++; if ($4 == $8) a[$2]++ }
		if (!($2 in seen)) { seen[$2] = 1; order[++k] = $2 } }
		END { for (i = 1; i <= k; i++) { q = order[i]
			printf "| %s | %d | %d | %d | %s |\n", q, n[q], c[q], a[q],
				c[q] ? sprintf("%.0f%%", 100 * a[q] / c[q]) : "-"
			tn += n[q]; tc += c[q]; ta += a[q] }
		printf "| all | %d | %d | %d | %s |\n", tn, tc, ta,
			tc ? sprintf("%.0f%%", 100 * ta / tc) : "-" }' "$TMP/all"
	echo
	echo "Misses (clear winner, other verdict), with tdbpf's first candidate and its reason:"
	echo
	awk -F'\t' '$12 == "yes" && $4 != $8 {
		printf "- %s (%s): truth %s (+%.0f%%), tdbpf %s; first candidate: %s\n",
			$1, $2, $8, $9 * 100, $4, $6; m++ }
		END { if (!m) print "- none" }' "$TMP/all"
	echo
	echo "No clear winner (not scored):"
	echo
	awk -F'\t' '$12 != "yes" {
		printf "- %s (%s): %s +%.0f%%, %s +%.0f%%\n", $1, $2, $8, $9 * 100, $10, $11 * 100; m++ }
		END { if (!m) print "- none" }' "$TMP/all"
}

section() {
	echo "$BEGIN_MARK"
	echo "## $SECTION"
	echo
	echo "Generated by bench/graph/run.sh at $(git describe --always --dirty 2>/dev/null) on $(date -u '+%Y-%m-%d %H:%M UTC'), in $(($(date +%s) - T0)) s; do not edit by hand."
	echo "Each graph ran as given and with each stage sped up 2x in turn, each beside a run as given ($ROUNDS rounds, ${SECS} s windows, the median of the pairs' ratios);"
	echo "the truth is the stage whose speed-up raised throughput most, clear when it gained >= $(awk -v g=$GAIN_MIN 'BEGIN{print g*100}')%"
	echo "and the runner-up at most $(awk -v r=$RUNNER_UP 'BEGIN{print r*100}')% of that. tdbpf's verdict: the first stage among"
	echo "the ranked candidates of \`tdbpf $TRACE_OPTS -j -p PIDS\` on the graph as given$([ "$WAKEUPS" = sampled ] && echo " (the default: the graph from the wakeups of 50 ms of every 500)")."
	echo "The graphs run at nice $NICE, so that the machine's other work (this 2-CPU machine is shared) disturbs them less;"
	echo "load average at the start: $LOAD0, at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
	[ -n "$CGINFO" ] && echo "The cgroup config's limit: ${CGINFO#* }."
	echo
	table
	echo "$END_MARK"
}

section >"$TMP/section.md"
cat "$TMP/section.md"
if [ "$ONLY" = all ]; then
	# replace the section of an earlier run, else append it
	if grep -qF "$BEGIN_MARK" "$RESULTS" 2>/dev/null; then
		awk -v b="$BEGIN_MARK" -v e="$END_MARK" -v f="$TMP/section.md" '
			$0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
			$0 == e { skip = 0; next }
			!skip' "$RESULTS" >"$TMP/results.md"
	else
		{ cat "$RESULTS"; echo; cat "$TMP/section.md"; } >"$TMP/results.md"
	fi
	cp "$TMP/results.md" "$RESULTS" || die "cannot write $RESULTS"
	log "done in $(($(date +%s) - T0)) s; section ${SECTION%%.*} of $RESULTS"
fi
