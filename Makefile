# SPDX-License-Identifier: GPL-2.0
# tdbpf: per-task TopDown attribution at sched_switch.
#
#   make          build ./tdbpf
#   make deps     install missing build dependencies (apt, idempotent)
#   make demo     deps, build, trace the bundled stream-graph demo
#   make test     deps, build, unit + reference + integration tests
#   make test-open  the open cases: requirements not met yet (they fail)
#   make check-layers  fail on an #include that goes up the data flow, a
#                 cycle of includes between user/'s headers or of calls
#                 between its files, or a function in user/ or bpf/
#                 longer than 100 lines
#   make bench    overhead and scale benchmarks -> bench/results.md
#   make bench-graph  the verdict against measured truth on random graphs
#                 (BENCH_GRAPH_SEED=, BENCH_GRAPH_N=) -> bench/results.md
#   make asan     ASan/UBSan build in build-asan/, unit and error tests on it
#   make fuzz     libFuzzer targets for 300 s each (make test: 30 s each)
#   make static   one static binary, build/static/tdbpf (no --listen)
#   make ARCH=arm64  cross build: build/arm64/static/tdbpf (mk/cross.mk)
#   make vmtest   Debian's stock kernels under QEMU: arm64 with an emulated
#                 PMU, x86-64 6.1 and 6.1-rt (tests/vm/run.sh)

CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
OUT     ?= build
CFLAGS  ?= -O2 -g
CFLAGS  += -Wall -Wextra -std=gnu11 -D_GNU_SOURCE
# CI builds with every warning an error (CI=true, as CI services set it);
# a developer's newer compiler with new warnings still builds locally
ifeq ($(CI),true)
WERROR  := -Werror
endif
CFLAGS  += $(WERROR)
# each object's header dependencies, written by the compiler as it
# builds (a removed header is no error: -MP)
DEPFLAGS = -MMD -MP
CPPFLAGS += -Iinclude -Iuser -I$(OUT)
# json-c: tdbpf report parses recordings; ncurses: tdbpf top's screen;
# libmicrohttpd: --listen's /metrics. tdbpf graph --prometheus loads
# libcurl (dlopen, in libc since glibc 2.34; headers from
# libcurl4-openssl-dev) only when it asks Prometheus (prom_query.c)
LDLIBS  += -lbpf -lelf -lz -lcap -ljson-c -lncurses -lm -lmicrohttpd -pthread
HOST_ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
ARCH    ?= $(HOST_ARCH)
# the kernel BTF that vmlinux.h is generated from (a cross build's is
# taken from Debian's kernel for that architecture: mk/static.mk)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
ifneq ($(ARCH),$(HOST_ARCH))
include mk/cross.mk
endif

# the BPF side, one file a job, linked into one object and one skeleton
# (bpf/shared.bpf.c says why): a new program file is one more line here
BPF_SRC  := bpf/shared.bpf.c
BPF_SRC  += bpf/switch.bpf.c
BPF_SRC  += bpf/wakeups.bpf.c
BPF_SRC  += bpf/lifecycle.bpf.c
BPF_SRC  += bpf/sockets.bpf.c
BPF_SRC  += bpf/jvm.bpf.c
BPF_SRC  += bpf/spans.bpf.c
BPF_OBJ  := $(patsubst bpf/%.c,$(OUT)/bpf/%.o,$(BPF_SRC))
SKEL     := $(OUT)/tdbpf.skel.h
# user/: one folder per stage (scripts/check-layers.sh says which may
# include which)
# http_none.c: the static binary's http.c (mk/static.mk)
USER_SRC := $(filter-out user/exporter/http_none.c,\
	    $(wildcard user/*/*.c user/model/cpus/*.c))
USER_OBJ := $(patsubst %.c,$(OUT)/%.o,$(USER_SRC))
LIB_OBJ  := $(filter-out $(OUT)/user/commands/main.o,$(USER_OBJ))
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst %.c,$(OUT)/%,$(UNIT_SRC))
# open cases: a requirement the code does not meet yet, run by make
# test-open, out of make test until it does (docs say which); none now
OPEN_SRC  :=
OPEN_BIN  := $(patsubst %.c,$(OUT)/%,$(OPEN_SRC))
INTEG_SRC := $(filter-out $(OPEN_SRC),$(wildcard tests/integration/test_*.c))
INTEG_BIN := $(patsubst %.c,$(OUT)/%,$(INTEG_SRC))
WORK_SRC := $(wildcard tests/workloads/*.c)
WORK_BIN := $(patsubst %.c,$(OUT)/%,$(WORK_SRC))
WORK_BIN += $(OUT)/tests/workloads/liboperators.so
DEMO_BIN := $(OUT)/demo/streamgraph

.PHONY: all deps deps-vm demo test test-open unit integration bench bench-graph asan \
	fuzz clean format check-layers static

# a cross build (mk/static.mk) makes only the static binary
ifeq ($(ARCH),$(HOST_ARCH))
all: tdbpf
endif

deps:
	@./scripts/deps.sh

# make static, make ARCH=arm64, make vmtest
deps-vm:
	@./scripts/deps.sh vm

$(OUT)/vmlinux.h: | $(VMLINUX_BTF)
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp
	mv $@.tmp $@

# --span gstreamer's struct offsets, from GStreamer's headers
# (libgstreamer1.0-dev): a build machine's program (HOSTCC), headers only
HOSTCC ?= gcc
GST_CFLAGS = $(shell pkg-config --cflags gstreamer-1.0 2>/dev/null)
$(OUT)/gst_offsets.h: scripts/gst_offsets.c
	@mkdir -p $(@D)
	@pkg-config --exists gstreamer-1.0 || { echo "tdbpf: no GStreamer headers (gstreamer-1.0.pc); install libgstreamer1.0-dev (make deps)" >&2; exit 1; }
	$(HOSTCC) $(GST_CFLAGS) -Wall -Wextra $(WERROR) $< -o $(OUT)/gst_offsets
	$(OUT)/gst_offsets > $@.tmp
	mv $@.tmp $@
$(OUT)/bpf/spans.bpf.o: $(OUT)/gst_offsets.h

# libbpf's usdt.bpf.h includes <linux/errno.h>, whose <asm/errno.h> is
# in the multiarch directory: the build machine's (every architecture's
# is asm-generic's, so a cross build needs no other)
BPF_ASM_INC := $(shell gcc -print-multiarch 2>/dev/null)
$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c $(OUT)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) -g -O2 -Wall $(WERROR) -target bpf -D__TARGET_ARCH_$(ARCH) \
		$(DEPFLAGS) -Iinclude -I$(OUT) \
		$(if $(BPF_ASM_INC),-idirafter /usr/include/$(BPF_ASM_INC)) \
		-c $< -o $@

# static linking: every extern map and variable resolved against its one
# definition, the programs' sections as they were in one object
$(OUT)/tdbpf.linked.o: $(BPF_OBJ)
	$(BPFTOOL) gen object $@ $^

$(SKEL): $(OUT)/tdbpf.linked.o
	$(BPFTOOL) gen skeleton $< name tdbpf_bpf > $@.tmp
	mv $@.tmp $@

$(OUT)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# only the tracer includes the skeleton (tracer_priv.h): the files that
# do, found, so that a new one cannot race the skeleton under make -j
SKEL_USERS := $(patsubst %.c,$(OUT)/%.o,$(shell grep -l \
	-e tracer_priv.h -e tdbpf.skel.h user/sources/*.c))
$(SKEL_USERS): $(SKEL)

tdbpf: $(USER_OBJ)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# the tests' shared helpers, compiled once (tests/lib/): every test
# links them
TEST_LIB := $(OUT)/tests/lib/libtdbpftest.a
TEST_CPPFLAGS := -Itests/lib
$(TEST_LIB): $(patsubst %.c,$(OUT)/%.o,$(wildcard tests/lib/*.c))
	$(AR) rcs $@ $^

# and the unit tests' own (tests/unit/lib/: rows, plans and reports built
# by hand), which link the stages' objects
UNIT_LIB := $(OUT)/tests/unit/lib/libunittest.a
UNIT_CPPFLAGS := $(TEST_CPPFLAGS) -Itests/unit/lib
$(patsubst %.c,$(OUT)/%.o,$(wildcard tests/unit/lib/*.c)): \
	CPPFLAGS += $(UNIT_CPPFLAGS)
$(UNIT_LIB): $(patsubst %.c,$(OUT)/%.o,$(wildcard tests/unit/lib/*.c))
	$(AR) rcs $@ $^

$(OUT)/tests/unit/%: tests/unit/%.c $(UNIT_LIB) $(LIB_OBJ) $(TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CPPFLAGS) $(CFLAGS) $(DEPFLAGS) \
		$(filter %.c %.o %.a,$^) -o $@ $(LDLIBS) -ljson-c -lcmocka

# the reference tests (one binary per vendor) share tests/unit/reference/
# (a static pattern rule: the objects must be made before the link)
REF_OBJ := $(patsubst %.c,$(OUT)/%.o,$(wildcard tests/unit/reference/*.c))
REF_BIN := $(filter $(OUT)/tests/unit/test_reference_%,$(UNIT_BIN))
$(REF_BIN): $(OUT)/tests/unit/%: tests/unit/%.c $(REF_OBJ) $(UNIT_LIB) \
				  $(LIB_OBJ) $(TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(UNIT_CPPFLAGS) $(CFLAGS) $(DEPFLAGS) \
		$(filter %.c %.o %.a,$^) -o $@ $(LDLIBS) -ljson-c -lcmocka

$(OUT)/tests/integration/%: tests/integration/%.c $(TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(CFLAGS) $(DEPFLAGS) \
		$(filter %.c %.a,$^) -o $@ -ljson-c -lcmocka -lpthread -lm

# it also runs the report writer itself, for models this machine cannot trace
$(OUT)/tests/integration/test_json_doc: tests/integration/test_json_doc.c \
					$(LIB_OBJ) $(TEST_LIB)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TEST_CPPFLAGS) $(CFLAGS) $(DEPFLAGS) \
		$(filter %.c %.o %.a,$^) -o $@ $(LDLIBS) -ljson-c -lcmocka -lpthread

# workload.h: the workloads' shared helpers (-MMD: edits rebuild them)
$(OUT)/tests/workloads/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $< -o $@ -lpthread -lm

# the operators engine as a library, and a program that runs it from
# there (test_spans: --span usdt finds the probes of a target's libraries)
$(OUT)/tests/workloads/liboperators.so: tests/workloads/operators.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) -DOPERATORS_LIB -fPIC -shared $< -o $@ \
		-lpthread -lm

$(OUT)/tests/workloads/operators_so: tests/workloads/operators_so.c \
				     $(OUT)/tests/workloads/liboperators.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(DEPFLAGS) $< -o $@ -L$(@D) -loperators \
		-Wl,-rpath,'$$ORIGIN'

# a container's workload: static, for an image that holds nothing but
# its binaries (test_containers builds one with podman import)
$(OUT)/tests/workloads/static/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(DEPFLAGS) $< -o $@ -lpthread -lm

# not in the sanitizer build (mk/asan.mk): ASan does not link statically,
# and the image is of the binary users copy, not a sanitized one
ifneq ($(OUT),build-asan)
$(OUT)/tests/integration/test_containers: $(OUT)/static/tdbpf \
	$(OUT)/tests/workloads/static/stagegraph
endif

$(DEMO_BIN): demo/streamgraph.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< -o $@ -lpthread -lm

# the demo twice: as built (join is the bottleneck), then with the
# bottleneck moved to a stage that waits on slow I/O (-s filter:io),
# its wait-for graph written as DOT (and SVG when Graphviz is there)
demo: deps
	@$(MAKE) --no-print-directory tdbpf $(DEMO_BIN)
	./tdbpf -d 5 -- $(DEMO_BIN) 6
	./tdbpf --per-name --graph $(OUT)/demo.dot -d 6 -- $(DEMO_BIN) -m 16 -s filter:io 6
	@! command -v dot >/dev/null || { dot -Tsvg $(OUT)/demo.dot -o $(OUT)/demo.svg && echo "graph: $(OUT)/demo.svg"; }

unit: tdbpf $(UNIT_BIN)
	@./tests/run.sh unit $(UNIT_BIN)

integration: tdbpf $(INTEG_BIN) $(WORK_BIN) $(DEMO_BIN)
	@./tests/run.sh integration $(INTEG_BIN)

test-open: tdbpf $(OPEN_BIN) $(WORK_BIN)
	@./tests/run.sh open $(OPEN_BIN)

# fuzzing and the sanitizer build first, so that the last line is the
# summary of all tests
test: deps check-layers
	@$(MAKE) --no-print-directory fuzz-quick asan
	@$(MAKE) --no-print-directory tdbpf $(UNIT_BIN) $(INTEG_BIN) $(WORK_BIN) $(DEMO_BIN)
	@./tests/pkg/test_service.sh
	@./tests/netns/test_fleet_netns.sh
	@./tests/run.sh all $(UNIT_BIN) $(INTEG_BIN)

bench: deps
	@$(MAKE) --no-print-directory tdbpf $(WORK_BIN)
	OUT=$(OUT) ./bench/run.sh

# the bottleneck verdict on stream graphs against the measured truth
bench-graph: deps
	@$(MAKE) --no-print-directory tdbpf $(OUT)/tests/workloads/stagegraph
	OUT=$(OUT) ./bench/graph/run.sh

# an #include that goes up the data flow (the rules are the script's),
# files of a folder that call each other, a function longer than a screen
check-layers:
	@./scripts/check-layers.sh
	@./scripts/check-cycles.sh
	@./scripts/check-functions.sh

clean:
	rm -rf $(OUT) build-asan tdbpf

format:
	clang-format -i $(wildcard bpf/*.[ch] include/*.h user/*/*.[ch] \
		user/model/cpus/*.c)

include mk/asan.mk
include mk/static.mk
include mk/vmtest.mk
include mk/install.mk

# the dependency files of whatever was built before (none on a clean tree;
# build/vm/ holds unpacked Debian packages, whose *.d are directories)
-include $(shell find $(OUT) -path $(OUT)/vm -prune -o -name '*.d' -type f -print 2>/dev/null)
