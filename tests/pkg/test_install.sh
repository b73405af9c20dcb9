#!/bin/sh
# make install / make uninstall as a new user meets them: in a fresh
# clone of this repository (its HEAD: commit what you want tested) with
# nothing built, `make install DESTDIR=... PREFIX=/usr` must build
# whatever install puts down (the binary, the manual page) and put
# exactly those files there; `make uninstall` must remove each again;
# without PREFIX they go under /usr/local. Needs no root (DESTDIR); the
# build dependencies must be there (scripts/deps.sh). make test-package
# runs it; alone: tests/pkg/test_install.sh.
# Prints one line per check and a summary.
set -u
cd "$(dirname "$0")/../.."

suite=test-install
. tests/pkg/checks.sh

tmp=$(mktemp -d /tmp/tdbpf-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

src=$tmp/src
dest=$tmp/dest
if ! git clone -q --no-hardlinks . "$src" >"$tmp/clone.log" 2>&1; then
	cat "$tmp/clone.log"
	bad "git clone of this repository"
	finish
fi
check "the fresh clone has nothing built" \
	sh -c "! [ -e '$src/build' ] && ! [ -e '$src/tdbpf' ]"

# the build runs inside install: nothing is made beforehand
if make -C "$src" --no-print-directory -j2 install DESTDIR="$dest" \
	PREFIX=/usr >"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR PREFIX=/usr in the fresh clone"
else
	tail -n 30 "$tmp/install.log"
	bad "make install DESTDIR PREFIX=/usr in the fresh clone (log above)"
	finish
fi
(cd "$dest" && find . ! -type d | sort) >"$tmp/files"
printf '%s\n' ./usr/sbin/tdbpf ./usr/share/bash-completion/completions/tdbpf \
	./usr/share/man/man8/tdbpf.8 >"$tmp/want"
check "it puts exactly sbin/tdbpf, man8/tdbpf.8 and the completion" \
	cmp -s "$tmp/files" "$tmp/want" || diff "$tmp/want" "$tmp/files"
check "the installed binary runs (--version)" \
	sh -c "'$dest/usr/sbin/tdbpf' --version | head -n 1 | grep -q '^tdbpf [0-9]'"
check "the installed manual page is the clone's, rendered (scdoc)" \
	sh -c "grep -q '^\.TH' '$dest/usr/share/man/man8/tdbpf.8' &&
		cmp -s '$dest/usr/share/man/man8/tdbpf.8' '$src/build/tdbpf.8'"
check "the completion is the clone's" \
	cmp -s "$dest/usr/share/bash-completion/completions/tdbpf" \
	"$src/completion/tdbpf"

make -C "$src" --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr \
	>"$tmp/uninstall.log" 2>&1 || cat "$tmp/uninstall.log"
check "make uninstall removes every file install put there" \
	test -z "$(find "$dest" ! -type d)"

# the default PREFIX; install has nothing left to build now
make -C "$src" --no-print-directory install DESTDIR="$dest/local" \
	>"$tmp/local.log" 2>&1 || cat "$tmp/local.log"
check "PREFIX defaults to /usr/local" \
	test -x "$dest/local/usr/local/sbin/tdbpf" -a \
	-f "$dest/local/usr/local/share/man/man8/tdbpf.8"
make -C "$src" --no-print-directory uninstall DESTDIR="$dest/local" \
	>/dev/null 2>&1
check "make uninstall removes them from /usr/local too" \
	test -z "$(find "$dest/local" ! -type d)"
finish
