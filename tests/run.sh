#!/bin/sh
# Run cmocka test binaries one after another and print one closing line.
# Usage: tests/run.sh LABEL BIN...
# Each runs in a session of its own, and what it leaves running when it
# ends (a workload a failed assertion did not stop) is named and killed:
# a straggler that still holds the caller's output writes into whatever
# comes after it, a later run's log at its own old offset.
label=$1
shift
pass=0 fail=0 skip=0 failed=""
for t in "$@"; do
	log=$(mktemp)
	# no job control here: a background job leads no group, so setsid
	# makes it a session (its pid the group's id) without forking
	setsid "$t" >"$log" 2>&1 </dev/null &
	pid=$!
	wait "$pid"
	rc=$?
	cat "$log"
	left=$(pgrep -g "$pid" 2>/dev/null | tr '\n' ' ')
	if [ -n "$left" ]; then
		echo "run.sh: $(basename "$t") left processes behind ($left): killed"
		kill -KILL "-$pid" 2>/dev/null
	fi
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
