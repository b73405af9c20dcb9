# SPDX-License-Identifier: GPL-2.0
# The static tdbpf, included by the main Makefile:
#
#   make static     build/static/tdbpf (build/<arch>/static/tdbpf when
#                   cross-building: mk/cross.mk)
#
# One file to copy onto a host with no libraries at all, the BPF object
# inside it (the skeleton embeds it). Debian ships static libraries of
# libbpf, libelf, zlib, libcap, json-c and ncurses, but libmicrohttpd.a
# needs GnuTLS, whose p11-kit and libunistring have no static library in
# Debian: the static binary leaves --listen out (user/exporter/http_none.c
# says so in one line when asked for it).

ifndef TDBPF_STATIC_MK
TDBPF_STATIC_MK := 1

STATIC_OBJ  := $(filter-out $(OUT)/user/exporter/http.o,$(USER_OBJ)) \
	       $(OUT)/user/exporter/http_none.o
# Debian's ncurses keeps the terminfo part in libtinfo
STATIC_LIBS := -lbpf -lelf -lz -lcap -ljson-c -lncurses -ltinfo -lm \
	       -pthread

static: $(OUT)/static/tdbpf

$(OUT)/static/tdbpf: $(STATIC_OBJ)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $^ -o $@ $(STATIC_LIBS)

endif
