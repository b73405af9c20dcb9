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
