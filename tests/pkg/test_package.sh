#!/bin/sh
# make test-package: the Debian package, end to end, as root.
#
# Installs what it needs (scripts/deps.sh package), checks make install /
# uninstall under DESTDIR in a fresh clone (tests/pkg/test_install.sh),
# builds the package with make deb, runs lintian (errors fail), then twice, once with apt and once with dpkg: installs
# the package into this machine, uses the installed tdbpf (--version,
# man -w, the manual page, bash completion, list, a short trace of a
# workload whose CPU time the shell itself reports), removes the package
# and compares the file lists of the system before and after.
# Run from the repository root. Prints one line per check and a summary.
set -u
cd "$(dirname "$0")/../.."

suite=test-package
. tests/pkg/checks.sh

if [ "$(id -u)" != 0 ]; then
	echo "test-package installs a package into this machine: run it as root (sudo make test-package)"
	exit 1
fi
# The before/after file lists mean something only without the package.
# Removed but not purged (apt remove), only its conffile is left: when
# that is as the package shipped it, purging it loses nothing.
st=$(dpkg-query -W -f='${db:Status-Status}' tdbpf 2>/dev/null)
if [ "$st" = config-files ]; then
	if dpkg-query -W -f='${Conffiles}\n' tdbpf |
		awk 'NF >= 2 { print $2 "  " $1 }' | md5sum -c --status 2>/dev/null; then
		echo "tdbpf: a removed tdbpf left its unchanged /etc/default/tdbpf: purging it first"
		dpkg --purge tdbpf >/dev/null || exit 1
		st=not-installed
	else
		echo "tdbpf: a removed tdbpf left a changed /etc/default/tdbpf; keep a copy, then apt purge tdbpf"
		exit 1
	fi
fi
if [ -n "$st" ] && [ "$st" != not-installed ]; then
	echo "tdbpf: the tdbpf package is installed here (status '$st'); remove it first (apt purge tdbpf) so that the before/after file lists mean something"
	exit 1
fi

tmp=$(mktemp -d /tmp/tdbpf-pkg.XXXXXX)
installed_by_us=0
cleanup() {
	# never leave the package behind, whatever failed
	if [ "$installed_by_us" = 1 ] &&
		dpkg-query -W -f='${db:Status-Status}' tdbpf 2>/dev/null | grep -qv '^not-installed$'; then
		dpkg --purge tdbpf >/dev/null 2>&1
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

./scripts/deps.sh package || { bad "installing the dependencies"; finish; }
make --no-print-directory tdbpf man build/tests/integration/test_completion \
	>"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; bad "build"; finish; }

# ---- make install / uninstall under DESTDIR, in a fresh clone -----------

# a fresh clone, not this tree: here the manual page is built already,
# which once hid an install that could not build it
if ./tests/pkg/test_install.sh >"$tmp/install-test.log" 2>&1; then
	ok "make install / uninstall in a fresh clone ($(tail -n 1 "$tmp/install-test.log"))"
else
	cat "$tmp/install-test.log"
	bad "make install / uninstall in a fresh clone (log above)"
fi

# ---- build and lint --------------------------------------------------------

version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb=build/tdbpf_${version}_$arch.deb
rm -f "$deb"
git status --porcelain >"$tmp/git-before" 2>/dev/null
if make --no-print-directory deb >"$tmp/deb.log" 2>&1; then
	ok "make deb"
else
	tail -n 40 "$tmp/deb.log"
	bad "make deb (log above)"
	finish
fi
check "make deb made $deb" test -f "$deb"
git status --porcelain >"$tmp/git-after" 2>/dev/null
check "make deb leaves the checkout as it was (git status)" \
	cmp -s "$tmp/git-before" "$tmp/git-after"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# each library the binary links must come from a package Depends names
dpkg-deb -x "$deb" "$tmp/x"
needed=$(objdump -p "$tmp/x/usr/sbin/tdbpf" | awk '$1 == "NEEDED" { print $2 }')
check "the binary links shared libraries ($(echo $needed))" test -n "$needed"
for lib in $needed; do
	# the file the loader maps, so that another architecture's copy of
	# the library (libc6-i386's /lib32/libm.so.6) is not taken for it
	path=$(ldd "$tmp/x/usr/sbin/tdbpf" 2>/dev/null |
		awk -v l="$lib" '$1 == l { print $3 }')
	pkg=$( { [ -n "$path" ] && dpkg -S "$path" 2>/dev/null; } |
		head -n 1 | sed 's/[:,].*//')
	[ -n "$pkg" ] ||
		pkg=$(dpkg -S "*/$lib" 2>/dev/null | head -n 1 | sed 's/[:,].*//')
	check "Depends names $lib's package ${pkg:-(none found)}" \
		sh -c "[ -n '$pkg' ] && echo '$depends' | grep -q '\(^\|, \)$pkg\( \|,\|\$\)'"
done
for lib in libbpf libelf zlib1g; do
	# libelf comes through libbpf1, which depends on it
	check "Depends reaches $lib" sh -c \
		"echo '$depends' | grep -q '$lib' || apt-cache depends libbpf1 2>/dev/null | grep -q '$lib'"
done
dpkg-deb -c "$deb" | awk '{print $6}' >"$tmp/contents"
for f in ./usr/sbin/tdbpf ./usr/share/man/man8/tdbpf.8.gz \
	./usr/share/bash-completion/completions/tdbpf \
	./usr/share/doc/tdbpf/copyright ./lib/systemd/system/tdbpf.service \
	./etc/default/tdbpf ./usr/share/doc/tdbpf/examples/prometheus-tdbpf.yml; do
	check "package holds $f" sh -c "grep -qx '$f' '$tmp/contents' ||
		grep -qx '$(echo "$f" | sed 's|^\./lib/|./usr/lib/|')' '$tmp/contents'"
done

changes=build/deb/tdbpf_${version}_$arch.changes
lintian --display-info --fail-on error "$changes" >"$tmp/lintian" 2>&1
lrc=$?
echo "lintian $(lintian --version | sed 's/^Lintian v//'):"
sed 's/^/  /' "$tmp/lintian"
check "lintian: no errors" test "$lrc" -eq 0

# ---- install, use, remove: with apt, then with dpkg ------------------------

# The system's files, outside what changes by itself (logs, caches, the
# other users of this machine's /tmp and /work). Only paths: what a
# package leaves behind is a path.
snapshot() {
	find /usr /etc /opt /var/lib/dpkg/info /var/lib/dpkg/alternatives \
		/var/cache/man -xdev 2>/dev/null | sort
}

# Paths in $1 or $2 but not both that no other package explains (another
# user of this machine may install packages meanwhile).
unexplained() {
	comm -3 "$1" "$2" | sed 's/^\t//' | while read -r p; do
		owner=$(dpkg -S "$p" 2>/dev/null | sed 's/:.*//' | head -n 1)
		[ -n "$owner" ] && [ "$owner" != tdbpf ] && continue
		# the man-db index is rewritten by the trigger, not ours
		case $p in /var/cache/man/*) continue ;; esac
		echo "$p"
	done
}

use_installed() { # $1: how it was installed
	how=$1
	bin=$(command -v tdbpf)
	check "$how: tdbpf is /usr/sbin/tdbpf on PATH" test "$bin" = /usr/sbin/tdbpf

	tdbpf --version >"$tmp/version" 2>&1
	sed 's/^/  /' "$tmp/version"
	check "$how: tdbpf --version says the package version $version" \
		test "$(head -n 1 "$tmp/version")" = "tdbpf $version"
	check "$how: --version names libbpf" grep -q '^libbpf [0-9]' "$tmp/version"
	check "$how: --version probed the BPF features, none missing" \
		sh -c "grep -q '^BPF features (probed now)' '$tmp/version' &&
			! grep -q 'NO:\|unknown' '$tmp/version'"

	# the service ships disabled (debian/rules): installed, not enabled
	check "$how: tdbpf.service installed, not enabled" sh -c \
		"{ [ -f /lib/systemd/system/tdbpf.service ] || [ -f /usr/lib/systemd/system/tdbpf.service ]; } &&
			[ ! -e /etc/systemd/system/multi-user.target.wants/tdbpf.service ]"
	check "$how: /etc/default/tdbpf installed" test -f /etc/default/tdbpf

	check "$how: man -w tdbpf finds the installed page" \
		test "$(man -w tdbpf 2>/dev/null)" = /usr/share/man/man8/tdbpf.8.gz
	MANWIDTH=100 man tdbpf 2>/dev/null | col -b >"$tmp/man.txt"
	check "$how: man tdbpf renders the options" \
		sh -c "grep -q -- '--max-tasks' '$tmp/man.txt' && grep -q 'EXIT STATUS' '$tmp/man.txt'"

	check "$how: bash-completion loads the installed completion on demand" \
		sh -c "bash -c '. /usr/share/bash-completion/bash_completion;
			_completion_loader tdbpf; complete -p tdbpf' 2>/dev/null |
			grep -q '_tdbpf tdbpf'"
	if TDBPF_BIN=/usr/sbin/tdbpf \
		TDBPF_COMPLETION=/usr/share/bash-completion/completions/tdbpf \
		./build/tests/integration/test_completion >"$tmp/compl" 2>&1; then
		ok "$how: the completion tests pass on the installed files ($(grep -c '^\[       OK' "$tmp/compl") tests)"
	else
		cat "$tmp/compl"
		bad "$how: completion tests on the installed files"
	fi

	if tdbpf list >"$tmp/list" 2>&1 && grep -q '^model ' "$tmp/list"; then
		ok "$how: tdbpf list: $(head -n 1 "$tmp/list")"
	else
		cat "$tmp/list"
		bad "$how: tdbpf list"
	fi

	# A shell that counts and then reports its own CPU time (times): the
	# installed tdbpf must charge it that time, within 5% and 20 ms.
	tdbpf -j -o "$tmp/trace.json" -- sh -c \
		'i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done; times' \
		>"$tmp/times" 2>"$tmp/trace.err"
	trc=$?
	cat "$tmp/trace.err"
	check "$how: tdbpf -- COMMAND exits 0" test "$trc" -eq 0
	own_ms=$(head -n 1 "$tmp/times" | awk '{
		n = split($0, f, " ");
		t = 0;
		for (i = 1; i <= n; i++) {
			split(f[i], ms, "m");
			sub("s", "", ms[2]);
			t += ms[1] * 60000 + ms[2] * 1000;
		}
		printf "%d", t }')
	traced_ms=$(awk '/"comm": "sh"/ { sh = 1 }
		sh && /"on_cpu_ns"/ { gsub(/[^0-9]/, ""); printf "%d", $0 / 1000000; exit }' \
		"$tmp/trace.json")
	echo "  the shell's own CPU time ${own_ms:-?} ms, tdbpf's on-CPU ${traced_ms:-?} ms"
	check "$how: the trace charged the shell its own CPU time" \
		awk -v a="${own_ms:-0}" -v b="${traced_ms:--1}" \
		'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 100 && d <= a * 0.05 + 20) }'
	# every key of the report is in the manual page
	missing=""
	for k in $(grep -o '^ *"[a-z_]*":' "$tmp/trace.json" | tr -d ' ":' | sort -u); do
		grep -qw -- "$k" "$tmp/man.txt" || missing="$missing $k"
	done
	check "$how: every JSON key of the trace is in the manual page${missing:+ (missing:$missing)}" \
		test -z "$missing"
}

round() { # $1: apt or dpkg
	how=$1
	snapshot >"$tmp/before"
	installed_by_us=1
	case $how in
	apt)
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
			install -y -q "./$deb" >"$tmp/install.log" 2>&1 ;;
	dpkg)
		dpkg -i "$deb" >"$tmp/install.log" 2>&1 ;;
	esac
	irc=$?
	if [ $irc -eq 0 ]; then
		ok "$how: installs $deb"
		use_installed "$how"
	else
		cat "$tmp/install.log"
		bad "$how: installing $deb"
	fi
	case $how in
	apt)
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
			remove -y -q tdbpf >"$tmp/remove.log" 2>&1 ;;
	dpkg)
		dpkg -r tdbpf >"$tmp/remove.log" 2>&1 ;;
	esac
	rrc=$?
	[ $rrc -eq 0 ] || cat "$tmp/remove.log"
	check "$how: removes the package" test $rrc -eq 0
	# removed, its conffile (/etc/default/tdbpf, the service's options)
	# kept as policy wants; purged, nothing at all
	st=$(dpkg-query -W -f='${db:Status-Status}' tdbpf 2>/dev/null)
	check "$how: removed, dpkg keeps only the conffile (status '${st:-unknown}')" \
		test "$st" = config-files
	check "$how: removed, /etc/default/tdbpf is kept" test -f /etc/default/tdbpf
	dpkg --purge tdbpf >>"$tmp/remove.log" 2>&1
	st=$(dpkg-query -W -f='${db:Status-Status}' tdbpf 2>/dev/null)
	check "$how: purged, dpkg keeps nothing of it (status '${st:-unknown}')" \
		test -z "$st" -o "$st" = not-installed
	check "$how: /usr/sbin/tdbpf is gone" test ! -e /usr/sbin/tdbpf
	snapshot >"$tmp/after"
	unexplained "$tmp/before" "$tmp/after" >"$tmp/diff"
	echo "  $(wc -l <"$tmp/before") paths before, $(wc -l <"$tmp/after") after"
	[ -s "$tmp/diff" ] && sed 's/^/  differs: /' "$tmp/diff"
	check "$how: the file list after removal is the one before" test ! -s "$tmp/diff"
}

round apt
round dpkg
finish
