#!/bin/sh
# Install what tdbpf needs to build, test and demo, with apt, only when
# something is missing (idempotent). Runs as root; no sudo needed.
# Usage: scripts/deps.sh [package]
set -e
pkgs="make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev \
pkg-config libcmocka-dev libjson-c-dev libcap-dev libclang-rt-14-dev libmicrohttpd-dev \
libcurl4-openssl-dev \
linux-perf procps libncurses-dev tmux scdoc bash-completion prometheus curl jq \
graphviz gstreamer1.0-tools gstreamer1.0-plugins-base \
gstreamer1.0-plugins-good openjdk-17-jdk-headless"
# "package": also what make deb and make test-package use
[ "${1:-}" = package ] &&
	pkgs="$pkgs build-essential debhelper dpkg-dev lintian man-db \
libmicrohttpd-dev libcurl4-openssl-dev"
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
