# SPDX-License-Identifier: GPL-2.0
# A cross build, included by the main Makefile when ARCH differs from the
# host's: make ARCH=arm64 gives build/arm64/static/tdbpf.
#
# A cross-built tdbpf is meant to be copied onto another machine, so it
# is the static one (mk/static.mk). Debian's cross compiler
# (gcc-aarch64-linux-gnu) finds the target's libraries installed through
# multiarch (libbpf-dev:arm64 ...: scripts/deps.sh vm). bpftool needs the
# target kernel's BTF for vmlinux.h: /sys/kernel/btf is this machine's,
# so it is taken from Debian's stock kernel for that architecture
# (scripts/kernel.sh), whose structures CO-RE relocates onto any other.

CROSS_arm64 := aarch64-linux-gnu-
CROSS_x86   := x86_64-linux-gnu-
KERNEL_arm64 := linux-image-arm64:arm64
KERNEL_x86  := linux-image-amd64:amd64

ifeq ($(CROSS_$(ARCH)),)
$(error ARCH=$(ARCH): no cross build for it; use ARCH=arm64 or ARCH=x86)
endif

CROSS_COMPILE ?= $(CROSS_$(ARCH))
CC          := $(CROSS_COMPILE)gcc
OUT         := build/$(ARCH)
VMLINUX_BTF := $(OUT)/vmlinux.btf

all: static

# the stock kernel's package (cached in build/vm/) and its BTF
$(VMLINUX_BTF):
	@mkdir -p $(@D)
	./scripts/kernel.sh btf $(KERNEL_$(ARCH)) build/vm $@
