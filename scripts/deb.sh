#!/bin/sh
# make deb: build the Debian package in a copy of the tree, so that the
# checkout stays clean and dpkg-buildpackage writes nothing outside
# OUT/deb/ (it puts its results in the parent of the tree it builds).
# Usage: scripts/deb.sh [OUT]     (from the repository root)
# Leaves OUT/tdbpf_<version>_<arch>.deb (and the -dbgsym package).
set -eu
out=${1:-build}
cd "$(dirname "$0")/.."

for tool in dpkg-buildpackage dpkg-parsechangelog dh; do
	if ! command -v "$tool" >/dev/null; then
		echo "tdbpf: make deb needs $tool; run as root: scripts/deps.sh package" >&2
		exit 1
	fi
done
# debian/control's Build-Depends must name the -dev package of every
# library tdbpf links (a new -lfoo in the Makefile builds here, where the
# package happens to be installed, and fails on a fresh machine), and not
# only for a build profile (<!nocheck>: the tests' libraries)
bdeps=$(sed -n '/^Build-Depends:/,/^[A-Z][A-Za-z-]*:/{/^Build-Depends:/p;/^ /p}' debian/control |
	sed 's/^Build-Depends://' | tr ',' '\n' | grep -v '<' | sed 's/^ *//;s/[ (].*//')
for l in $(make -s --no-print-directory print-ldlibs); do
	case $l in -l*) ;; *) continue ;; esac
	so=$(ls /usr/lib/*/lib${l#-l}.so /usr/lib/lib${l#-l}.so 2>/dev/null | head -n 1)
	pkg=$(dpkg -S "$so" 2>/dev/null | head -n 1 | sed 's/[:,].*//')
	if [ -z "$pkg" ]; then
		echo "tdbpf: make deb: no installed package provides lib${l#-l}.so (for $l); run scripts/deps.sh" >&2
		exit 1
	fi
	case $pkg in libc6-dev) continue ;; esac	# build-essential
	if ! printf '%s\n' "$bdeps" | grep -qx "$pkg"; then
		echo "tdbpf: debian/control: Build-Depends lacks $pkg, or has it only for a build profile (the Makefile links $l into tdbpf); add it" >&2
		exit 1
	fi
done

version=$(dpkg-parsechangelog -S Version)
upstream=${version%-*}
upstream=${upstream#*:}
dir=$out/deb
src=$dir/tdbpf-$upstream
rm -rf "$dir"
mkdir -p "$src"

# the files git knows (tracked, and new ones not ignored), as they are in
# the working tree; outside git, the tree without build output
top=$(git rev-parse --show-toplevel 2>/dev/null || true)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ]; then
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar -c --null -T - -f - | tar -x -C "$src" -f -
else
	tar -c --exclude=./build --exclude='./build-*' --exclude=./tdbpf \
		--exclude=./.git -f - . | tar -x -C "$src" -f -
fi

(cd "$src" && dpkg-buildpackage -b -us -uc)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
cp "$dir"/*.deb "$out"/
echo "tdbpf: built $out/tdbpf_${version#*:}_$arch.deb"
