# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# What tests/pkg's scripts share, sourced after they set $suite: one line
# per check (ok, bad, check "what" command...) and, from finish, the
# summary "$suite: N passed, M failed" and the exit status.
: "${suite:?set by the script that sources this}"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { # check "what" command...
	what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; return 1; fi
}
finish() {
	echo "$suite: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}
