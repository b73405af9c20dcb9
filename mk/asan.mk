# SPDX-License-Identifier: GPL-2.0
# Sanitizer build and fuzzing, included by the main Makefile:
#
#   make asan              ASan/UBSan build in build-asan/ (build-asan/tdbpf
#                          and the tests), then the unit tests and the
#                          error tests run on it
#   make asan-integration  every integration test against build-asan/tdbpf
#                          (root)
#   make fuzz-quick        libFuzzer targets, 30 s each (make test)
#   make fuzz              libFuzzer targets, 300 s each
#
# The sanitizer build reuses the main Makefile with OUT=build-asan: the
# flags go in through the environment, so the Makefile's own
# "CFLAGS += -Wall ... -D_GNU_SOURCE" still applies on top of them.

ifndef TDBPF_ASAN_MK
TDBPF_ASAN_MK := 1

ASAN_OUT    := build-asan
ASAN_CC     ?= clang
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	       -fno-omit-frame-pointer
# leaks are errors too; UBSan stops at the first report
ASAN_ENV    := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	       UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
ASAN_MAKE   = env CFLAGS='$(ASAN_CFLAGS)' $(MAKE) --no-print-directory \
	      -f Makefile -f mk/asan.mk OUT=$(ASAN_OUT) CC=$(ASAN_CC)
FUZZ_QUICK_SECS ?= 30
FUZZ_SECS       ?= 300

.PHONY: asan asan-build asan-integration fuzz fuzz-quick

# the sanitized tool itself (the main Makefile's "tdbpf" is ./tdbpf)
$(OUT)/tdbpf: $(USER_OBJ)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

asan-build:
	@$(ASAN_MAKE) $(ASAN_OUT)/tdbpf \
		$(patsubst $(OUT)/%,$(ASAN_OUT)/%,$(UNIT_BIN) $(INTEG_BIN) \
			$(WORK_BIN))

asan: asan-build
	@$(ASAN_ENV) ./tests/run.sh asan-unit \
		$(patsubst $(OUT)/%,$(ASAN_OUT)/%,$(UNIT_BIN))
	@$(ASAN_ENV) TDBPF_BIN=$(ASAN_OUT)/tdbpf ./tests/run.sh asan-errors \
		$(ASAN_OUT)/tests/integration/test_errors \
		$(ASAN_OUT)/tests/integration/test_errors_causes

asan-integration: asan-build
	@$(ASAN_ENV) TDBPF_BIN=$(ASAN_OUT)/tdbpf TDBPF_BUILD=$(ASAN_OUT) \
		./tests/run.sh asan-integration \
		$(patsubst $(OUT)/%,$(ASAN_OUT)/%,$(INTEG_BIN))

fuzz-quick:
	@./tests/fuzz/run.sh $(FUZZ_QUICK_SECS)

fuzz:
	@./tests/fuzz/run.sh $(FUZZ_SECS)

endif
