#!/bin/sh
# make check-layers: every #include "dir/x.h" in user/ must go down the
# data flow, never up or sideways:
#
#   commands  -> outputs, exporter, sources, analysis, sums, model, support
#   outputs   -> analysis, sums, model, support
#   exporter  -> analysis, sums, model, support
#   analysis  -> sums, model, support
#   sources   -> sums, model, support
#   sums      -> model, support
#   model     -> support
#   support   -> (nothing of user/)
#
# A folder may include its own headers. sources (what reads the kernel or
# a file) and analysis/outputs/exporter (what judges, prints and serves)
# never see each other: a report is the same whether it came from a live
# run or a recording. The report sinks (outputs) and /metrics' series and
# server (exporter) are two consumers of the same stages, apart. Only
# sources sees the BPF skeleton. A header without a
# folder must be one of include/ (shared with the BPF side) or generated
# in build/; a user/ header is always named with its folder. No header
# includes itself through others (an include cycle).
# Prints one line per violation and fails; silent when all is well.
# Usage: scripts/check-layers.sh      (from the repository root)
set -eu
cd "$(dirname "$0")/.."

# shellcheck disable=SC2046 # file names under user/ hold no blanks
awk "$(cat scripts/cycles.awk)"'
BEGIN {
	allow["commands"] = " commands outputs exporter sources analysis sums model support "
	allow["outputs"] = " outputs analysis sums model support "
	allow["exporter"] = " exporter analysis sums model support "
	allow["analysis"] = " analysis sums model support "
	allow["sources"] = " sources sums model support "
	allow["sums"] = " sums model support "
	allow["model"] = " model support "
	allow["support"] = " support "
	rule["commands"] = "commands may include every folder"
	rule["outputs"] = "outputs may include outputs, analysis, sums, model, support"
	rule["exporter"] = "exporter may include exporter, analysis, sums, model, support"
	rule["analysis"] = "analysis may include analysis, sums, model, support"
	rule["sources"] = "sources may include sources, sums, model, support"
	rule["sums"] = "sums may include sums, model, support"
	rule["model"] = "model may include model, support"
	rule["support"] = "support may include support only"
	# generated into build/ by the Makefile: the folder that may use it
	gen["tdbpf.skel.h"] = "sources"
	gen["tdbpf_version.h"] = "commands"
	bad = 0
}
FNR == 1 {
	split(FILENAME, p, "/")
	layer = p[2]
	if (!(layer in allow) || p[3] == "" || FILENAME !~ /^user\/[a-z]+\//) {
		printf "%s: not in a stage folder; move it under user/{%s}/\n",
		       FILENAME, "commands,outputs,exporter,sources,analysis,sums,model,support"
		bad = 1
		layer = ""
	}
}
/^[ \t]*#[ \t]*include[ \t]*"/ {
	if (layer == "")
		next
	inc = $0
	sub(/^[^"]*"/, "", inc)
	sub(/".*$/, "", inc)
	if (inc !~ /\//) {
		if (inc in gen) {
			if (gen[inc] != layer) {
				printf "%s:%d: includes \"%s\": only %s may include it\n",
				       FILENAME, FNR, inc, gen[inc]
				bad = 1
			}
		} else if (system("test -f include/" inc) != 0) {
			printf "%s:%d: includes \"%s\": name the folder of a user/ header (\"dir/%s\")\n",
			       FILENAME, FNR, inc, inc
			bad = 1
		}
		next
	}
	split(inc, q, "/")
	# what each header includes, for the cycle check at the end
	if (FILENAME ~ /\.h$/)
		succ[substr(FILENAME, 6)] = succ[substr(FILENAME, 6)] " " inc
	if (!(q[1] in allow)) {
		printf "%s:%d: includes \"%s\": %s is no stage folder\n",
		       FILENAME, FNR, inc, q[1]
		bad = 1
	} else if (index(allow[layer], " " q[1] " ") == 0) {
		printf "%s:%d: includes \"%s\": %s goes up the data flow (%s)\n",
		       FILENAME, FNR, inc, layer " -> " q[1], rule[layer]
		bad = 1
	}
}
# headers that include each other, through others or not: the guards
# hide it, and which one is read first then decides what compiles
function cycle_found(path, from, to) {
	printf "user/%s: an include cycle: %s\n", to, path
}
END {
	if (find_cycles())
		bad = 1
	exit bad
}
' $(find user -name '*.[ch]' | LC_ALL=C sort)
