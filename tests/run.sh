#!/bin/sh
# Run cmocka test binaries one after another and print one closing line.
# Usage: tests/run.sh LABEL BIN...
label=$1
shift
pass=0 fail=0 skip=0 failed=""
for t in "$@"; do
	log=$(mktemp)
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	pass=$((pass + ${p:-0}))
	skip=$((skip + ${s:-0}))
	if [ "$rc" -ne 0 ]; then
		# a crash or exit without a cmocka summary still counts as one failure
		fail=$((fail + ${f:-1}))
		failed="$failed $(basename "$t")"
	fi
	rm -f "$log"
done
[ -n "$failed" ] && echo "failed binaries:$failed"
echo "$label: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
