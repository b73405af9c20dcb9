#!/bin/sh
# Print tdbpf's version for the build (make runs it unless TDBPF_VERSION is
# given; debian/rules gives the package's version).
#
# In a git checkout of this tree: git describe against tags vX.Y.Z, without
# the v (0.2.0, 0.2.0-3-g1a2b3c4, with -dirty for local changes). Before
# the first tag: the upstream version of debian/changelog's top entry plus
# the commit, 0.1.0-g1a2b3c4[-dirty]. Elsewhere (a tarball): that upstream
# version alone.
cd "$(dirname "$0")/.." || exit 1
base=$(sed -n '1s/^[^(]*(\([^)]*\)-[^-)]*).*/\1/p' debian/changelog 2>/dev/null)
base=${base#*:}
[ -n "$base" ] || base=0.0.0
# only our own checkout: a tarball unpacked inside some other repository
# must not take that repository's commit
top=$(git rev-parse --show-toplevel 2>/dev/null)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ] &&
	d=$(git describe --tags --always --dirty --match 'v[0-9]*' 2>/dev/null); then
	case $d in
	v[0-9]*) echo "${d#v}" ;;
	*) echo "$base-g$d" ;;
	esac
else
	echo "$base"
fi
