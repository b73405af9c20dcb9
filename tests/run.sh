#!/bin/sh
# Run cmocka test binaries one after another and print one closing line.
# Usage: tests/run.sh LABEL BIN...
# Each runs in a session of its own, and what it leaves running when it
# ends (a workload a failed assertion did not stop) is named and killed:
# a straggler that still holds the caller's output writes into whatever
# comes after it, a later run's log at its own old offset.
label=$1
shift

# A failed binary's failed tests again, each with what it printed (the
# last 40 lines), or the log's tail if it crashed: repeated at the end,
# where a CI excerpt that keeps only the last page of a long run still
# shows why
failures() {
	awk -v bin="$1" '
		/^\[ RUN      \] / { n = 0; name = $4; next }
		/^\[  FAILED  \] [a-z_0-9]+$/ && $4 == name && !(name in done) {
			done[name] = 1
			print "--- " bin ": " name
			for (i = (n > 40 ? n - 40 : 0); i < n; i++)
				print buf[i % 40]
			seen = 1
			next
		}
		{ buf[n % 40] = $0; n++ }
		END {
			if (seen)
				exit
			print "--- " bin ": no test failed; it ended so:"
			for (i = (n > 20 ? n - 20 : 0); i < n; i++)
				print buf[i % 40]
		}' "$2"
}
pass=0 fail=0 skip=0 failed=""
again=$(mktemp)
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
		failures "$(basename "$t")" "$log" >>"$again"
	fi
	rm -f "$log"
done
if [ -n "$failed" ]; then
	echo "=== $label: what the failed tests printed, again"
	cat "$again"
	echo "failed binaries:$failed"
fi
rm -f "$again"
echo "$label: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
