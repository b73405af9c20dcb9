# SPDX-License-Identifier: GPL-2.0
# Version, installation and packaging, included by the main Makefile:
#
#   make man            the manual page, build/tdbpf.8 (scdoc)
#   make install        PREFIX (default /usr/local) and DESTDIR
#   make uninstall      removes exactly what install put there
#   make deb            build/tdbpf_<version>_<arch>.deb (dpkg-buildpackage
#                       in a copy of the tree under build/deb/)
#   make test-package   root: builds the package, lintian, installs it,
#                       uses it, removes it, compares the file lists;
#                       first make test-install
#   make test-install   make install / uninstall (DESTDIR) in a fresh
#                       clone of HEAD with nothing built
#   make test-service   root: the unit, its environment file and the
#                       sample scrape config against systemd-analyze,
#                       promtool and a real Prometheus
#   make test-fleet     root: tdbpf graph over three network namespaces
#
# The version is TDBPF_VERSION when given (debian/rules gives the
# package's version), else what scripts/version.sh says (git describe).

ifndef TDBPF_INSTALL_MK
TDBPF_INSTALL_MK := 1

ifeq ($(origin TDBPF_VERSION),undefined)
TDBPF_VERSION := $(shell ./scripts/version.sh)
endif

# written only when the version changes, so only version.o rebuilds (and
# sudo make install after make writes nothing into build/)
$(OUT)/tdbpf_version.h: FORCE
	@mkdir -p $(@D)
	@v='#define TDBPF_VERSION "$(TDBPF_VERSION)"'; \
		[ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@

$(OUT)/user/commands/version.o: $(OUT)/tdbpf_version.h

# ---- manual page ---------------------------------------------------------
# Before install: make expands a rule's prerequisites as it reads the
# rule, so $(MAN) must be defined by then or it is no prerequisite at all.

MAN_SRC := docs/tdbpf.8.scd
MAN     := $(OUT)/tdbpf.8

.PHONY: man
man: $(MAN)

$(MAN): $(MAN_SRC)
	@mkdir -p $(@D)
	scdoc < $< > $@.tmp
	mv $@.tmp $@

# ---- install ---------------------------------------------------------

PREFIX      ?= /usr/local
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL     ?= install

# every file install puts down, and nothing else (uninstall removes these)
INSTALLED := $(DESTDIR)$(SBINDIR)/tdbpf $(DESTDIR)$(MANDIR)/man8/tdbpf.8 \
	     $(DESTDIR)$(BASHCOMPDIR)/tdbpf

.PHONY: install uninstall
# not stripped: dh_strip (or the user) decides, and keeps the debug info
install: tdbpf $(MAN)
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 0755 tdbpf $(DESTDIR)$(SBINDIR)/tdbpf
	$(INSTALL) -m 0644 $(MAN) $(DESTDIR)$(MANDIR)/man8/tdbpf.8
	$(INSTALL) -m 0644 completion/tdbpf $(DESTDIR)$(BASHCOMPDIR)/tdbpf

# the directories stay: they may be shared (/usr/local/sbin)
uninstall:
	rm -f $(INSTALLED)

# hardening flags from dpkg-buildflags (relro, bindnow) reach the link
tdbpf: LDLIBS += $(LDFLAGS)

# ---- Debian package ----------------------------------------------------

.PHONY: deb test-package test-install test-service test-fleet print-ldlibs
# for scripts/deb.sh: the libraries the link uses
print-ldlibs:
	@echo $(LDLIBS)

deb:
	@./scripts/deps.sh package
	./scripts/deb.sh $(OUT)

# root: installs the package into this machine and removes it again
test-package:
	@./tests/pkg/test_package.sh

test-install:
	@./tests/pkg/test_install.sh

test-service: tdbpf
	@./tests/pkg/test_service.sh

# root: three hosts made of network namespaces, a stream graph across
# them, a tdbpf per host, a real Prometheus, tdbpf graph (docs/fleet.md)
test-fleet: tdbpf $(OUT)/tests/workloads/netstage
	@./tests/netns/test_fleet_netns.sh

.PHONY: FORCE
FORCE:

endif
