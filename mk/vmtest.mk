# SPDX-License-Identifier: GPL-2.0
# make vmtest, included by the main Makefile: Debian's stock kernels under
# QEMU (tests/vm/run.sh says which guests and what each checks). Needs
# scripts/deps.sh vm (QEMU, busybox-static, the arm64 cross toolchain
# and libraries) and the Debian archive for the kernels.

ifndef TDBPF_VMTEST_MK
TDBPF_VMTEST_MK := 1

.PHONY: vmtest

# the arm64 guest's workloads: static, no libraries in the initramfs
$(OUT)/vmtest/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $< -o $@ -lpthread -lm

vmtest: deps-vm
	@$(MAKE) --no-print-directory tdbpf static $(INTEG_BIN) $(WORK_BIN) \
		$(DEMO_BIN)
	@$(MAKE) --no-print-directory ARCH=arm64 static \
		build/arm64/vmtest/spinners
	@time -p ./tests/vm/run.sh $(VMTEST_GUESTS)

endif
