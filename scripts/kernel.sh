#!/bin/sh
# Debian's stock kernels, for the cross build and make vmtest.
#
#   scripts/kernel.sh fetch <meta-package> <cache-dir>
#       prints the directory the kernel package is unpacked in
#   scripts/kernel.sh btf <meta-package> <cache-dir> <out>
#       writes the kernel's BTF (raw, as in /sys/kernel/btf/vmlinux)
#
# The version is pinned through the meta package: linux-image-arm64:arm64
# depends on exactly one linux-image-6.1.0-NN-arm64, which apt-get
# download fetches once into <cache-dir> (a new NN: a new download).
set -e
cmd=$1 meta=$2 cache=$3
die() { echo "tdbpf: kernel.sh: $*" >&2; exit 1; }
[ -n "$cache" ] || die "usage: kernel.sh fetch|btf <meta-package> <cache-dir> [out]"

fetch() {
	arch=${meta#*:}
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*\).*/\1/p' | head -1)
	[ -n "$pkg" ] || die "$meta: not in apt's lists; for another architecture run dpkg --add-architecture ${arch} && apt-get update (scripts/deps.sh vm does)"
	dir=$cache/$pkg
	if [ ! -d "$dir/boot" ]; then
		mkdir -p "$cache"
		# apt's _apt user cannot write into a root-owned build/
		(cd "$cache" && apt-get download -q "$pkg:$arch" >/dev/null 2>&1) ||
			die "apt-get download $pkg:$arch failed"
		deb=$(ls "$cache/${pkg}"_*_"$arch".deb | tail -1)
		rm -rf "$dir.tmp"
		dpkg-deb -x "$deb" "$dir.tmp"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

# The BTF blob sits in an arm64 Image as it does in memory (.BTF is part
# of the loaded kernel): its header (magic 0xeb9f, version 1, 24 bytes)
# gives the lengths of its type and string sections, which follow it.
btf() {
	out=$2
	img=$(ls "$1"/boot/vmlinuz-* | head -1)
	case $(od -An -c -N 2 "$img" | tr -d ' ') in
	MZ) ;;	# an arm64 Image (EFI stub): uncompressed
	*) die "$img: not an uncompressed arm64 Image; take the BTF from that machine's /sys/kernel/btf/vmlinux" ;;
	esac
	off=$(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' "$img" |
		head -1 | cut -d: -f1)
	[ -n "$off" ] || die "$img: no BTF in it (CONFIG_DEBUG_INFO_BTF off)"
	# type_off type_len str_off str_len
	set -- $(od -An -tu4 -j $((off + 8)) -N 16 "$img")
	tail -c +$((off + 1)) "$img" | head -c $((24 + $3 + $4)) > "$out.tmp"
	mv "$out.tmp" "$out"
}

case $cmd in
fetch) fetch ;;
btf) btf "$(fetch)" "$4" ;;
*) die "unknown command $cmd (fetch, btf)" ;;
esac
