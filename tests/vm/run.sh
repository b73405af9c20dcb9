#!/bin/sh
# make vmtest: boot Debian's stock kernels under QEMU (TCG) with an
# initramfs holding busybox, the static tdbpf, the test workloads and a
# runner (tests/vm/init), and read the checks' results from the serial
# console. Usage: tests/vm/run.sh [GUEST...]  (default: all of them)
#
#   arm64-icount  -smp 1 -icount shift=0: exact instructions, the PMU
#   arm64-smp2    -smp 2 -icount shift=0: migrations, the software events
#   x86           Debian 12's amd64 kernel (6.1): integration tests
#   x86-rt        its PREEMPT_RT flavour
#
# The arm64 guests run under -icount shift=0: their clocks follow the
# instructions they execute (1 ns each), not the host's scheduling of
# QEMU. The x86 guests do not (booting under it took over 5 minutes):
# on a host loaded by others their time tolerances can fail.
#
# Kernels come from apt (scripts/kernel.sh: pinned through the meta
# package, cached in build/vm/). Each guest has a timeout; its console is
# kept in build/vm/GUEST.log. Exit 1 when a check fails or a guest gives
# no result line. VMTEST_CHECKS=FILE runs FILE instead of the guest's
# checks, VMTEST_APPEND adds to the kernel's command line (a developer's
# experiments).
set -u
cd "$(dirname "$0")/../.."
VM=build/vm
# the x86 guests ran 623 s on an idle host (eight socket cases, each with
# a 60 s warm-up for the emulated attach): room for a busier one
TIMEOUT=${VMTEST_TIMEOUT:-1500}
# the integration tests the x86 guests run (software model, graph)
VM_TESTS=${VM_TESTS:-test_counts,test_graph,test_exit,test_selftest,test_replay,test_kernels}
guests=${*:-"arm64-icount arm64-smp2 x86 x86-rt"}
mkdir -p $VM

die() { echo "vmtest: $*" >&2; exit 1; }

# the shared libraries of dynamic binaries, copied at their own paths
copy_libs() {
	root=$1
	shift
	for lib in $(ldd "$@" 2>/dev/null | awk '/=>/ { print $3 } /^\t\/lib/ { print $1 }' | sort -u); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# initramfs for @arch (arm64 | x86) at $VM/initrd-@guest.cpio.gz
initramfs() {
	arch=$1 root=$VM/root-$2
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/vm/build/tests/workloads" \
		"$root/vm/build/tests/integration" "$root/vm/build/demo"
	if [ "$arch" = arm64 ]; then
		deb=$(ls $VM/busybox-static_*_arm64.deb 2>/dev/null | tail -1)
		if [ -z "$deb" ]; then
			(cd $VM && apt-get download -q busybox-static:arm64 >/dev/null 2>&1) ||
				die "apt-get download busybox-static:arm64 failed"
			deb=$(ls $VM/busybox-static_*_arm64.deb | tail -1)
		fi
		rm -rf $VM/bb-arm64 && dpkg-deb -x "$deb" $VM/bb-arm64
		cp $VM/bb-arm64/bin/busybox "$root/bin/"
		cp build/arm64/static/tdbpf "$root/vm/"
		cp build/arm64/vmtest/spinners "$root/vm/"
		cp ${VMTEST_CHECKS:-tests/vm/checks-arm64} "$root/vm/checks"
	else
		cp /bin/busybox "$root/bin/"
		cp build/static/tdbpf "$root/vm/"
		# the workloads, not their static/ builds for container images
		find build/tests/workloads -maxdepth 1 -type f \
			-exec cp {} "$root/vm/build/tests/workloads/" \;
		cp build/demo/streamgraph "$root/vm/build/demo/"
		for t in $(echo $VM_TESTS | tr , " "); do
			cp build/tests/integration/$t "$root/vm/build/tests/integration/"
		done
		# the socket checks: their cases of test_sockets, ip for its
		# network namespaces, veth (a module in Debian's kernel)
		cp build/tests/integration/test_sockets \
			"$root/vm/build/tests/integration/"
		mkdir -p "$root/sbin" && cp /usr/sbin/ip "$root/sbin/"
		# bpftool: the programs' run times for make bench's hook costs
		cp /usr/sbin/bpftool "$root/sbin/"
		find "$kdir/lib/modules" -name veth.ko -exec cp {} "$root/vm/" \;
		copy_libs "$root" build/tests/integration/* \
			build/tests/workloads/* build/demo/streamgraph /usr/sbin/ip \
			/usr/sbin/bpftool
		# pthread_exit() unwinds with libgcc_s, which glibc dlopens
		copy_libs "$root" /lib/x86_64-linux-gnu/libgcc_s.so.1
		cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 \
			"$root/lib/x86_64-linux-gnu/"
		cp ${VMTEST_CHECKS:-tests/vm/checks-x86} "$root/vm/checks"
	fi
	cp tests/vm/init "$root/init"
	(cd "$root" && find . | cpio -o -H newc 2>/dev/null) | gzip -1 \
		> $VM/initrd-$2.cpio.gz
	rm -rf "$root"
}

# A guest past its timeout: where its vCPUs are, asked of QEMU's
# monitor three times a second apart (a CPU stuck in a loop shows the
# same place). An RT kernel's console printing is a thread, so a wedged
# guest may print nothing itself. Addresses only (nokaslr): Debian's
# System.map is a stub (docs/troubleshooting.md: naming them).
stuck() {
	for i in 1 2 3; do
		timeout 5 sh -c "echo 'info registers -a' > $VM/$1.mon.in"
		sleep 1
	done
	sleep 1
	awk '{ sub(/\r$/, "") }
	/^CPU#/ { cpu = substr($1, 5) }
	match($0, /(RIP|PC)=[0-9a-f]+/) {
		pc = substr($0, RSTART, RLENGTH)
		sub(/^[A-Z]+=/, "", pc)
		printf "stuck: cpu %s at %s%s\n", cpu, pc,
			pc ~ /^ffff/ ? "" : " (user space)"
	}' $VM/$1.mon.txt
}

# boot @guest; prints its checks; 0 when all passed
boot() {
	g=$1 log=$VM/$1.log
	case $g in
	arm64-*)
		kdir=$(./scripts/kernel.sh fetch linux-image-arm64:arm64 $VM) || return 1
		set -- qemu-system-aarch64 -M virt -cpu max -m 1G
		con=ttyAMA0 arch=arm64
		;;
	# 2G: test_replay's ulimit -v 1000000 case needs its memory to be
	# refused by malloc, not taken by the OOM killer of a 1G guest.
	# thread=single: under multi-threaded TCG (QEMU 7.2) a vCPU could
	# keep running an int3 that the kernel had already patched back
	# (a static key of a tracepoint tdbpf attached or detached, e.g. in
	# delayed_put_task_struct): the int3 handler finds no int3 in memory
	# and returns to the same address, forever, a soft lockup of that
	# CPU (the monitor showed the vCPU there, memory holding a nop).
	# The arm64 guests run single-threaded already (-icount).
	x86)
		kdir=$(./scripts/kernel.sh fetch linux-image-amd64:amd64 $VM) || return 1
		set -- qemu-system-x86_64 -accel tcg,thread=single -cpu max \
			-m 2G -smp 2
		con=ttyS0 arch=x86
		;;
	x86-rt)
		kdir=$(./scripts/kernel.sh fetch linux-image-rt-amd64:amd64 $VM) || return 1
		set -- qemu-system-x86_64 -accel tcg,thread=single -cpu max \
			-m 2G -smp 2
		con=ttyS0 arch=x86
		;;
	*) die "unknown guest $g (arm64-icount, arm64-smp2, x86, x86-rt)" ;;
	esac
	env="VM_SMP=2 VM_ICOUNT=0"
	case $g in
	arm64-icount) set -- "$@" -smp 1 -icount shift=0; env="VM_SMP=1 VM_ICOUNT=1" ;;
	# -icount also for 2 vCPUs: the guest's clocks then follow its
	# instructions, not the host's scheduling of QEMU's threads (on a
	# loaded host a descheduled vCPU put 50% more time in a task's
	# accounting than in its cpu-clock); INST_RETIRED is one count for
	# both vCPUs there, so that guest checks the software model only
	arm64-smp2) set -- "$@" -smp 2 -icount shift=0; env="VM_SMP=2 VM_ICOUNT=1" ;;
	esac
	initramfs $arch $g
	start=$(date +%s)
	echo "vmtest: $g: booting $(basename $kdir) ($*)"
	# quiet, but loglevel=5: a soft lockup's or an RCU stall's report
	# prints its stacks at the default level (4), which loglevel=3 hid;
	# and the backtraces of every CPU, not only the stuck one's
	# nokaslr: a stuck vCPU's address is found in System.map (stuck())
	rm -f $VM/$g.mon.in $VM/$g.mon.out
	mkfifo $VM/$g.mon.in $VM/$g.mon.out
	"$@" -nographic -no-reboot -monitor pipe:$VM/$g.mon \
		-kernel $kdir/boot/vmlinuz-* -initrd $VM/initrd-$g.cpio.gz \
		-append "console=$con panic=-1 quiet loglevel=5 softlockup_all_cpu_backtrace=1 nokaslr ${VMTEST_APPEND:-} $env VM_TESTS=$VM_TESTS" \
		< /dev/null > $log 2>&1 &
	qpid=$!
	# the monitor's output read all along: a full pipe would stop QEMU
	cat $VM/$g.mon.out > $VM/$g.mon.txt &
	mpid=$!
	n=0
	while kill -0 $qpid 2>/dev/null && [ $n -lt $TIMEOUT ]; do
		sleep 1
		n=$((n + 1))
	done
	if kill -0 $qpid 2>/dev/null; then
		stuck $g > $VM/$g.stuck
		kill $qpid
		wait $qpid
		rc=124
	else
		wait $qpid
		rc=$?
	fi
	kill $mpid 2>/dev/null
	rm -f $VM/$g.mon.in $VM/$g.mon.out
	tr -d '\r' < $log | grep -E '^vmtest: ' | sed "s/^vmtest: /  $g: /"
	echo "vmtest: $g: $(( $(date +%s) - start )) s"
	[ $rc -eq 124 ] && { echo "vmtest: $g: timed out after $TIMEOUT s (console: $log)"; sed "s/^/  $g: /" $VM/$g.stuck; return 1; }
	res=$(tr -d '\r' < $log | sed -n 's/^vmtest: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -1)
	[ -n "$res" ] || { echo "vmtest: $g: no result line (console: $log)"; return 1; }
	[ "${res#* }" = 0 ]
}

# a failed check's lines again, last: CI logs keep only their tail
failures() {
	tr -d '\r' < $VM/$1.log | awk -v g="$1" '
		/^vmtest: FAIL / { n = 0; on = 1 }
		/^vmtest: (PASS|NOT RUN|[0-9]+ passed)/ { on = 0 }
		on && /^vmtest: / && n++ < 24 { sub(/^vmtest: /, ""); print "  " g ": " $0 }'
}

failed=""
for g in $guests; do
	boot $g || failed="$failed $g"
done
if [ -n "$failed" ]; then
	for g in $failed; do
		failures $g
	done
	echo "vmtest: failed:$failed"
	exit 1
fi
echo "vmtest: all guests passed"
