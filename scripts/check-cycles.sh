#!/bin/sh
# make check-layers: no cycle of calls between the files of user/. A
# file x.c (with its x.h) is a module; it depends on each module whose
# functions it names outside comments and strings. check-layers.sh keeps
# the folders in one direction; this keeps the files of one folder so,
# so that each can be read knowing only those below it.
# Prints one line per cycle, "a -> b -> a", and fails; silent when all
# is well.
# Usage: scripts/check-cycles.sh      (from the repository root)
set -eu
cd "$(dirname "$0")/.."

files=$(find user -name '*.[ch]' | LC_ALL=C sort)
# shellcheck disable=SC2086 # file names under user/ hold no blanks
awk "$(cat scripts/cycles.awk)"'
function module(f) { sub(/\.[ch]$/, "", f); sub(/^user\//, "", f); return f }
FNR == 1 { mod = module(FILENAME); sig = ""; incomment = 0 }
# what is left of a line once its strings and comments are gone
function code(s,    i, j) {
	gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
	gsub(/\047([^\047\\]|\\.)*\047/, "0", s)
	if (incomment) {
		j = index(s, "*/")
		if (!j)
			return ""
		s = substr(s, j + 2)
		incomment = 0
	}
	while ((i = index(s, "/*"))) {
		j = index(substr(s, i + 2), "*/")
		if (!j) {
			s = substr(s, 1, i - 1)
			incomment = 1
			break
		}
		s = substr(s, 1, i - 1) " " substr(s, i + 2 + j + 1)
	}
	sub(/\/\/.*/, "", s)
	return s
}
# pass 1: the functions each .c file defines for others (not static)
pass == 1 && FILENAME ~ /\.c$/ {
	line = code($0)
	if (line ~ /^\{/ && sig != "" && sig !~ /^static/ &&
	    match(sig, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(sig, RSTART, RLENGTH)
		sub(/[ \t]*\($/, "", name)
		def[name] = mod
	}
	if (line ~ /^[A-Za-z_]/)
		sig = (sig == "" || sig ~ /[;}][ \t]*$/) ? line : sig " " line
	else if (line ~ /^[ \t]/ && sig != "")
		sig = sig " " line
	if (line ~ /;[ \t]*$/ || line ~ /^\}/ || line ~ /^#/ || line ~ /^\{/)
		sig = ""
	next
}
# pass 2: the modules whose functions each file names
pass == 2 {
	line = code($0)
	if (line ~ /^[ \t]*#[ \t]*include/)
		next
	n = split(line, w, /[^A-Za-z0-9_]+/)
	for (i = 1; i <= n; i++)
		if ((w[i] in def) && def[w[i]] != mod && !((mod, def[w[i]]) in dep)) {
			dep[mod, def[w[i]]] = w[i]
			succ[mod] = succ[mod] " " def[w[i]]
		}
}
function cycle_found(path, from, to) {
	printf "%s (%s calls %s())\n", path, from, dep[from, to]
}
END {
	exit find_cycles()
}
' pass=1 $files pass=2 $files
