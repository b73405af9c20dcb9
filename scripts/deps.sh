#!/bin/sh
# Install what tdbpf needs to build, test and demo, with apt, only when
# something is missing (idempotent). Runs as root; no sudo needed.
# Usage: scripts/deps.sh [package|vm]
set -e
pkgs="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
pkg-config libcmocka-dev libjson-c-dev libcap-dev libclang-rt-14-dev libmicrohttpd-dev \
libcurl4-openssl-dev systemtap-sdt-dev \
linux-perf procps libncurses-dev tmux scdoc bash-completion prometheus curl jq \
graphviz gstreamer1.0-tools gstreamer1.0-plugins-base \
gstreamer1.0-plugins-good libgstreamer1.0-dev openjdk-17-jdk-headless podman runc"
# podman: test_containers' runtime; runc beside crun, which refuses a
# cgroup v1 host with a cgroup2 hierarchy mounted too (hybrid)
# "package": also what make deb and make test-package use
[ "${1:-}" = package ] &&
	pkgs="$pkgs build-essential debhelper dpkg-dev lintian man-db \
libmicrohttpd-dev libcurl4-openssl-dev"
# "vm": make static, make ARCH=arm64 (its libraries through multiarch)
# and make vmtest (QEMU, busybox for the guests' initramfs)
if [ "${1:-}" = vm ]; then
	pkgs="$pkgs qemu-system-arm qemu-system-x86 busybox-static cpio \
gcc-aarch64-linux-gnu libc6-dev-arm64-cross libbpf-dev:arm64 \
libelf-dev:arm64 zlib1g-dev:arm64 libcap-dev:arm64 libjson-c-dev:arm64 \
libncurses-dev:arm64 libcurl4-openssl-dev:arm64"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[ "$(id -u)" = 0 ] || {
			echo "tdbpf: the arm64 architecture is not added to dpkg; run as root (sudo make deps-vm)" >&2
			exit 1
		}
		dpkg --add-architecture arm64
		apt-get update -qq >/dev/null
	fi
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "tdbpf: missing packages:$missing; run as root (sudo make deps) to install them" >&2
	exit 1
fi
echo "tdbpf: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
