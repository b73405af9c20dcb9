#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/switch_window.sh: where a short slice's on-CPU time starts and ends
# against the counter window tdbpf charges counters for, on this machine:
# bench/switch_window beside a pipe ping-pong (tests/workloads), pinned to
# CPU 0 and free on all CPUs. The figures in docs/accuracy.md ("Counters
# against on-CPU time") come from it. Root, from the repository root,
# after make (it builds the workload and the tool into $OUT).
#
# Environment: LOOPS [100000] round trips per run, OUT [build].
set -eu
cd "$(dirname "$0")/.."
OUT=${OUT:-build}
LOOPS=${LOOPS:-100000}
BD=$OUT/bench
W=$OUT/tests/workloads/pipe_pingpong

make --no-print-directory "$OUT/vmlinux.h" "$W" >/dev/null
mkdir -p "$BD"
arch=$(uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
clang -g -O2 -Wall -target bpf -D__TARGET_ARCH_"$arch" -I"$OUT" -Ibench \
	-c bench/switch_window.bpf.c -o "$BD/switch_window.bpf.o"
bpftool gen skeleton "$BD/switch_window.bpf.o" name switch_window_bpf \
	>"$BD/switch_window.skel.h"
gcc -O2 -g -Wall -Wextra -std=gnu11 -D_GNU_SOURCE -I"$BD" -Ibench \
	bench/switch_window.c -o "$BD/switch_window" -lbpf -lelf -lz

tmp=$(mktemp -d /tmp/switch_window.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, kernel $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for how in pinned free; do
	set -- -n "$LOOPS" -s 2000
	[ $how = pinned ] && set -- "$@" -c 0
	"$W" "$@" >"$tmp/w.out" &
	wl=$!
	# the workload prints its pid and waits 2 s: attach meanwhile
	while ! grep -q '^pid=' "$tmp/w.out"; do sleep 0.05; done
	"$BD/switch_window" "$wl" >"$tmp/s.out" &
	sw=$!
	while ! grep -q '^attached' "$tmp/s.out" 2>/dev/null; do sleep 0.05; done
	wait "$wl"
	wait "$sw"
	echo "== pipe_pingpong -n $LOOPS, $how: $(grep 'usecs/op' "$tmp/w.out" | tr -s ' ')"
	sed '/^attached$/d' "$tmp/s.out"
done
