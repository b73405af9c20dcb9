#!/bin/sh
# Build the libFuzzer targets into build/fuzz/ and run each for SECONDS.
# Usage: tests/fuzz/run.sh SECONDS      (from the repository root)
# Fails when a target crashes, leaks or trips ASan/UBSan; the reproducer
# is left in build/fuzz/artifacts/.
set -eu

secs=${1:-30}
out=${FUZZ_OUT:-build/fuzz}
clang=${CLANG:-clang}
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE -Wall -Wextra
	-Iinclude -Iuser"

if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}' |
	$clang -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then
	echo "fuzz: $clang cannot build libFuzzer targets; install clang and libclang-rt-dev (make deps): skipping"
	exit 0
fi

mkdir -p "$out/artifacts"
# only the pure parts: no libbpf (json-c for the replay reader, which
# parses with it). Compiler chatter goes to a log, shown when the build
# fails.
if ! { $clang $flags -DTDBPF_PARSE_ONLY tests/fuzz/fuzz_options.c \
	user/commands/options.c user/commands/subcommands.c \
	user/support/error.c \
	user/exporter/listen_opts.c user/sources/span_spec.c \
	-o "$out/fuzz_options" &&
	$clang $flags tests/fuzz/fuzz_decode.c user/sources/decode_input.c \
	user/support/error.c \
	user/model/model.c user/model/tma.c user/model/plan.c user/model/cpus/*.c \
	-o "$out/fuzz_decode" -lm &&
	$clang $flags tests/fuzz/fuzz_evsel.c user/model/evsel.c \
	user/model/evsel_terms.c user/support/error.c user/support/readfile.c \
	-o "$out/fuzz_evsel" &&
	$clang $flags tests/fuzz/fuzz_replay.c user/sources/replay.c user/sources/replay_spans.c \
	user/analysis/report.c user/analysis/report_ahead.c user/analysis/graph.c \
	user/analysis/graph_flow.c user/analysis/graph_reason.c \
	user/analysis/sched_verdict.c \
	user/analysis/scale.c \
	user/outputs/report_table.c user/outputs/report_csv.c \
	user/outputs/report_json.c user/support/json.c user/support/outbuf.c \
	user/support/hash.c user/support/error.c user/support/array.c \
	user/sums/tasks.c user/sums/task_waits.c user/sums/waits.c \
	user/sums/flows.c user/sums/names.c user/sums/cgroups.c user/sums/spans.c \
	user/sums/snapshot.c \
	user/model/model.c user/model/tma.c user/model/plan.c user/model/cpus/*.c \
	-o "$out/fuzz_replay" -ljson-c -lm -pthread; } \
	>"$out/build.log" 2>&1; then
	cat "$out/build.log"
	echo "fuzz: building the targets failed"
	exit 1
fi

rc=0
for t in decode options evsel replay; do
	# the fuzzer adds what it finds to the corpus: work on a copy
	rm -rf "$out/corpus-$t"
	mkdir -p "$out/corpus-$t"
	cp tests/fuzz/corpus/$t/* "$out/corpus-$t/"
	log="$out/fuzz_$t.log"
	if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$out/fuzz_$t" -max_total_time="$secs" -detect_leaks=1 \
		-max_len=4096 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/artifacts/$t-" \
		"$out/corpus-$t" >"$log" 2>&1; then
		echo "fuzz_$t: ok, $(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log") runs in ${secs}s"
	else
		echo "fuzz_$t: FAILED (log $log):"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -n 20
		rc=1
	fi
done
exit $rc
