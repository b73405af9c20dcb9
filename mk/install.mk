# SPDX-License-Identifier: GPL-2.0
# Version, installation and packaging, included by the main Makefile:
#
#   make man            the manual page, build/tdbpf.8 (scdoc)
#   make install        PREFIX (default /usr/local) and DESTDIR
#   make uninstall      removes exactly what install put there
#   make deb            build/tdbpf_<version>_<arch>.deb (dpkg-buildpackage
#                       in a copy of the tree under build/deb/)
#   make test-package   root: builds the package, lintian, installs it,
#                       uses it, removes it, compares the file lists
#
# The version is TDBPF_VERSION when given (debian/rules gives the
# package's version), else what scripts/version.sh says (git describe).

ifndef TDBPF_INSTALL_MK
TDBPF_INSTALL_MK := 1

ifeq ($(origin TDBPF_VERSION),undefined)
TDBPF_VERSION := $(shell ./scripts/version.sh)
endif

# rewritten only when the version changes, so only version.o rebuilds
$(OUT)/tdbpf_version.h: FORCE
	@mkdir -p $(@D)
	@printf '#define TDBPF_VERSION "%s"\n' '$(TDBPF_VERSION)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(OUT)/user/version.o: $(OUT)/tdbpf_version.h

# ---- manual page ---------------------------------------------------------

MAN_SRC := doc/tdbpf.8.scd
MAN     := $(OUT)/tdbpf.8

.PHONY: man
man: $(MAN)

$(MAN): $(MAN_SRC)
	@mkdir -p $(@D)
	scdoc < $< > $@.tmp
	mv $@.tmp $@

.PHONY: FORCE
FORCE:

endif
