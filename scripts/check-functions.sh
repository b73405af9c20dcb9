#!/bin/sh
# make check-layers: no function in user/ or bpf/ longer than a screen.
# A function's length is the lines of its body, between the "{" and the
# "}" that open and close it at the start of a line (kernel style).
# Prints FILE:FUNCTION:LINES for each one over the limit and fails;
# silent when all is well.
# Usage: scripts/check-functions.sh [MAX]   (from the repository root;
# MAX defaults to 100)
set -eu
cd "$(dirname "$0")/.."

# shellcheck disable=SC2046 # file names under user/ and bpf/ hold no blanks
awk -v max="${1:-100}" '
FNR == 1 { sig = ""; start = 0 }
# the declaration before a body: what came since the last top-level end
start == 0 && /^\{[ \t]*$/ {
	start = FNR
	name = sig
	# BPF_PROG(name, ...) and its kin: the program is the first argument
	if (match(name, /BPF_[A-Z_]*PROBE[A-Z0-9_]*\([ \t]*[A-Za-z_][A-Za-z0-9_]*|BPF_PROG[A-Z0-9_]*\([ \t]*[A-Za-z_][A-Za-z0-9_]*/)) {
		name = substr(name, RSTART, RLENGTH)
		sub(/^[^(]*\([ \t]*/, "", name)
	} else if (match(name, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(name, RSTART, RLENGTH)
		sub(/[ \t]*\($/, "", name)
	}
	next
}
start > 0 && /^\}/ {
	if (FNR - start - 1 > max) {
		printf "%s:%s:%d\n", FILENAME, name, FNR - start - 1
		bad = 1
	}
	start = 0
	sig = ""
	next
}
start == 0 {
	# a declaration starts at the left margin; SEC("...") and comments
	# above it are not its name
	if (/^[A-Za-z_]/ && !/^SEC\(/)
		sig = (sig ~ /[;}][ \t]*$/ || sig == "") ? $0 : sig " " $0
	else if (/^[ \t]/ && sig != "")
		sig = sig " " $0
	if (/;[ \t]*$/ || /^\}/ || /^#/)
		sig = ""
}
END { exit bad }
' $(find user bpf -name '*.[ch]' | LC_ALL=C sort)
