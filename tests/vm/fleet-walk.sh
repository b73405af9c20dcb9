#!/bin/bash
# A manual check, not run by CI (nor by make vmtest): follow the README's
# "Across a fleet" and docs/fleet.md as written, on a fresh Debian 12
# machine whose PID 1 is systemd, and keep what every step printed.
#
#   tests/vm/fleet-walk.sh          (root: debootstrap, chroot, mkfs)
#
# The machine is a QEMU x86_64 guest (TCG, -smp 2, -m 3G, no network
# device) booting a Debian 12 root file system built with debootstrap
# from the mirror apt uses here, with Debian's stock kernel (6.1,
# linux-image-amd64) and its own initramfs, and prometheus, curl,
# graphviz and build/tdbpf_*.deb (make deb) installed at image build. A
# oneshot unit (fleet-walk.service) runs the walk after
# multi-user.target, prints each command and its output on ttyS0 and
# powers off. The console is kept in build/vm/fleet-walk.log; the walk's
# lines (walk: ...) are printed at the end.
#
# Time: the first run's debootstrap takes about 2 minutes (the root file
# system is cached in build/vm/fleet-rootfs; delete it to start over);
# every run then takes about 1 minute for the package and the image and
# 2.5 minutes for the guest (30 s to boot under TCG, 100 s of walk).
# FLEET_TIMEOUT (seconds, default 1200) bounds QEMU.
#
# What a single fresh machine forces, each also printed by the walk:
# the hosts' addresses (10.0.0.5, prometheus) become 127.0.0.1; the
# sample config's three targets become one; sudoedit becomes sed (no
# editor on a serial console); `tdbpf graph` runs as an unprivileged
# user, as the docs say it can.
set -u
cd "$(dirname "$0")/../.."
VM=build/vm
ROOTFS=$VM/fleet-rootfs
IMG=$VM/fleet.img
LOG=$VM/fleet-walk.log
TIMEOUT=${FLEET_TIMEOUT:-1200}
MIRROR=${FLEET_MIRROR:-http://deb.debian.org/debian}

die() { echo "fleet-walk: $*" >&2; exit 1; }
say() { echo "fleet-walk: $*"; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap, chroot, mkfs.ext4 -d keep file owners)"
for t in debootstrap mkfs.ext4 qemu-system-x86_64 timeout; do
	command -v $t >/dev/null || die "$t missing (apt-get install debootstrap e2fsprogs qemu-system-x86 coreutils)"
done

# ---- what the host builds ------------------------------------------------
deb=$(ls build/tdbpf_*_amd64.deb 2>/dev/null | tail -1)
if [ -z "$deb" ]; then
	make deb >/dev/null || die "make deb failed"
	deb=$(ls build/tdbpf_*_amd64.deb 2>/dev/null | tail -1)
	[ -n "$deb" ] || die "make deb left no build/tdbpf_*_amd64.deb"
fi
make build/tests/workloads/stagegraph >/dev/null ||
	die "make build/tests/workloads/stagegraph failed"

# ---- the root file system (cached) ---------------------------------------
if [ ! -e $ROOTFS/.debootstrap-done ]; then
	say "debootstrap bookworm from $MIRROR into $ROOTFS (minutes)"
	start=$(date +%s)
	rm -rf $ROOTFS.tmp
	debootstrap --variant=minbase \
		--include=systemd-sysv,udev,dbus,linux-image-amd64,initramfs-tools,prometheus,curl,graphviz,procps,kmod,iproute2,ca-certificates \
		bookworm $ROOTFS.tmp "$MIRROR" > $VM/fleet-debootstrap.log 2>&1 ||
		die "debootstrap failed (log: $VM/fleet-debootstrap.log)"
	touch $ROOTFS.tmp/.debootstrap-done
	rm -rf $ROOTFS
	mv $ROOTFS.tmp $ROOTFS
	say "debootstrap: $(( $(date +%s) - start )) s"
fi

# the package, as docs/fleet.md's first line says (apt install
# ./tdbpf_*.deb), with its dependencies from the mirror; sudo for the
# docs' sudo lines. Services do not start in the chroot (policy-rc.d).
umount_chroot() {
	for m in dev/pts dev proc sys; do
		mountpoint -q $ROOTFS/$m && umount $ROOTFS/$m
	done
	rm -f $ROOTFS/usr/sbin/policy-rc.d
}
trap umount_chroot EXIT
mount -t proc proc $ROOTFS/proc || die "mount proc in $ROOTFS failed"
mount -t sysfs sys $ROOTFS/sys || die "mount sysfs in $ROOTFS failed"
mount --bind /dev $ROOTFS/dev && mount --bind /dev/pts $ROOTFS/dev/pts ||
	die "bind-mount /dev in $ROOTFS failed"
printf '#!/bin/sh\nexit 101\n' > $ROOTFS/usr/sbin/policy-rc.d
chmod 755 $ROOTFS/usr/sbin/policy-rc.d
cp /etc/resolv.conf $ROOTFS/etc/resolv.conf 2>/dev/null
rm -f $ROOTFS/root/tdbpf_*.deb
cp "$deb" $ROOTFS/root/ || die "copying $deb into $ROOTFS failed"
say "chroot: apt-get install ./$(basename "$deb") sudo"
chroot $ROOTFS sh -c "cd /root && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --reinstall ./$(basename "$deb") sudo" \
	> $VM/fleet-apt.log 2>&1 || die "apt-get install in the chroot failed (log: $VM/fleet-apt.log)"
umount_chroot
trap - EXIT

# the machine: its disk, name, an unprivileged user, the workload
echo fleet-walk > $ROOTFS/etc/hostname
printf '127.0.0.1\tlocalhost\n127.0.1.1\tfleet-walk\n' > $ROOTFS/etc/hosts
echo '/dev/vda / ext4 defaults 0 1' > $ROOTFS/etc/fstab
chroot $ROOTFS sh -c 'id walker >/dev/null 2>&1 || useradd -m -s /bin/bash walker' ||
	die "useradd walker in the chroot failed"
cp build/tests/workloads/stagegraph $ROOTFS/usr/local/bin/ ||
	die "copying stagegraph into $ROOTFS failed"

# the walk: each command as the docs give it, its output, its exit status
cat > $ROOTFS/usr/local/sbin/fleet-walk <<'EOF'
#!/bin/bash
# runs once at boot (fleet-walk.service), then powers off
set -u
# a copy in the image too (debugfs -R 'cat /var/log/fleet-walk.out')
exec > >(tee /var/log/fleet-walk.out) 2>&1
t0=$(date +%s)
note() { echo "walk: # $*"; }
# run CMD as a shell line, as a user would type it
run() {
	echo "walk: \$ $1"
	bash -c "$1" > /tmp/out 2>&1
	rc=$?
	# awk ends a last line that head -c cut, or curl left open
	head -c ${2:-3000} /tmp/out | awk '{ print "walk:   " $0 }'
	[ $(stat -c %s /tmp/out) -gt ${2:-3000} ] && echo "walk:   [... $(stat -c %s /tmp/out) bytes]"
	echo "walk: [exit $rc, t=$(( $(date +%s) - t0 ))s]"
	return $rc
}
# a PromQL query through Prometheus' HTTP API (curl url-encodes it)
query() {
	run "curl -s -G http://127.0.0.1:9090/api/v1/query --data-urlencode 'query=$1'"
}
P=http://127.0.0.1:9090
note "fresh Debian 12 guest: $(uname -r), PID 1 is $(cat /proc/1/comm), $(nproc) CPUs, up $(cut -d' ' -f1 /proc/uptime) s"
note "docs/fleet.md 1: sudo apt install ./tdbpf_*.deb was run at image build (chroot apt-get install ./tdbpf_*.deb)"
run "dpkg -s tdbpf | grep -E '^(Status|Version|Depends):'"
run "systemctl is-enabled tdbpf; systemctl is-active tdbpf"
note "sudoedit /etc/default/tdbpf -> sed (adaptation: no editor on the serial console; TDBPF_LISTEN 10.0.0.5:9477 -> 127.0.0.1:9477)"
run "sed -i -e 's|^TDBPF_LISTEN=.*|TDBPF_LISTEN=127.0.0.1:9477|' -e 's|^TDBPF_OPTIONS=.*|TDBPF_OPTIONS=\"-a --wakeups --listen-max-series 2000\"|' /etc/default/tdbpf && grep -v '^#' /etc/default/tdbpf | grep ."
run "sudo systemctl enable --now tdbpf"
run "systemctl is-active tdbpf"
note "curl 10.0.0.5:9477 -> 127.0.0.1:9477 (adaptation), right after enable --now as in the docs"
run "curl -s http://127.0.0.1:9477/metrics | grep -c '^tdbpf_task_wait_seconds_total'"
if [ $? != 0 ]; then
	note "0 series or no answer: polling /metrics for up to 120 s"
	for i in $(seq 24); do
		sleep 5
		n=$(curl -s http://127.0.0.1:9477/metrics | grep -c '^tdbpf_task_wait_seconds_total')
		[ "$n" -gt 0 ] && break
	done
	run "curl -s http://127.0.0.1:9477/metrics | grep -c '^tdbpf_task_wait_seconds_total'"
fi
run "systemctl status tdbpf --no-pager -n 5" 2000
run "curl -s http://127.0.0.1:9477/metrics | grep -v '^#' | cut -d'{' -f1 | sort | uniq -c"

note "docs/fleet.md 2: merge /usr/share/doc/tdbpf/examples/prometheus-tdbpf.yml's scrape_configs entry into /etc/prometheus/prometheus.yml, one target 127.0.0.1:9477 (adaptation: one host; Debian's global scrape_interval is already 15s)"
run "ls /usr/share/doc/tdbpf/examples/"
run "systemctl is-active prometheus"
run "sed -n '/^  - job_name: tdbpf/,\$p' /usr/share/doc/tdbpf/examples/prometheus-tdbpf.yml | sed 's|targets: .*|targets: [\"127.0.0.1:9477\"]|' >> /etc/prometheus/prometheus.yml && grep -v '^ *#' /etc/prometheus/prometheus.yml | grep ."
run "promtool check config /etc/prometheus/prometheus.yml"
run "sudo systemctl reload prometheus"
run "systemctl is-active prometheus"

note "a stream graph to trace: stagegraph (tests/workloads) for 300 s"
run "(cd /tmp && setsid stagegraph -m threads -d 300 src:cpu=20 parse:cpu=40 enrich:cpu=300 sink:cpu=10 > /tmp/stagegraph.out 2>&1 &) ; sleep 2; pgrep -a stagegraph"
run "sudo tdbpf -v --wakeups -d 1 -a -o /dev/null" 4000
note "docs/fleet.md 3, without Prometheus: the same from files (one host) - also the wait for scrapes (15 s each)"
run "cd /tmp && sudo tdbpf --wakeups -a -d 60 -j -o \$(hostname).json; ls -l \$(hostname).json"
run "cd /tmp && tdbpf graph \$(hostname).json" 3000
note "scrapes so far"
query 'up'
query 'count by (job, host) (tdbpf_task_wait_seconds_total)'

note "docs/fleet.md 3: ask, as an unprivileged user (walker), http://prometheus:9090 -> $P (adaptation)"
run "cd /home/walker && runuser -u walker -- tdbpf graph --prometheus $P --range 5m --match 'job=\"tdbpf\"'" 4000
note "the same, the job's process alone (-a also traces the host's daemons)"
run "cd /home/walker && runuser -u walker -- tdbpf graph --prometheus $P --range 5m --match 'job=\"tdbpf\",comm=\"stagegraph\"'" 4000
run "cd /home/walker && runuser -u walker -- sh -c 'tdbpf graph --prometheus $P -j > fleet.json'"
run "cd /home/walker && ls -l fleet.json && head -c 1200 fleet.json"
run "cd /home/walker && runuser -u walker -- sh -c 'tdbpf graph --prometheus $P --graph fleet.dot && dot -Tsvg fleet.dot -o fleet.svg'" 1500
run "cd /home/walker && ls -l fleet.dot fleet.svg && grep -c -- '->' fleet.dot && head -25 fleet.dot" 2500

note "docs/fleet.md: PromQL, one question each"
query 'topk(3, sum by (host, comm, thread) (rate(tdbpf_task_on_cpu_seconds_total{job="tdbpf"}[5m])))'
query 'sum by (host, remote) (rate(tdbpf_task_wait_seconds_total{job="tdbpf",remote!=""}[5m]))'
query 'sum by (host, comm) (
  label_replace(
    sum by (remote) (rate(tdbpf_task_wait_seconds_total{job="tdbpf",remote!=""}[5m])),
    "local", "$1", "remote", "(.*)")
  * on (local) group_right
  max by (host, comm, local) (tdbpf_socket_flows{job="tdbpf",state="established"})
)
/ scalar(sum(rate(tdbpf_task_off_cpu_seconds_total{job="tdbpf"}[5m])))'
query 'topk(10, sum by (host, comm, thread, waker_comm, waker_thread) (rate(tdbpf_task_wait_seconds_total{job="tdbpf",remote=""}[5m])))'
note "series with a remote label, and the socket series, at all"
query 'count(tdbpf_task_wait_seconds_total{remote!=""})'
query 'count by (state) (tdbpf_socket_flows)'

run "pkill -x stagegraph; sleep 1; cat /tmp/stagegraph.out" 1500
run "sudo systemctl stop tdbpf; journalctl -u tdbpf --no-pager -o cat | tail -25" 4000
note "walk done in $(( $(date +%s) - t0 )) s"
echo "walk: END"
sleep 1
systemctl poweroff --no-block
EOF
chmod 755 $ROOTFS/usr/local/sbin/fleet-walk
cat > $ROOTFS/etc/systemd/system/fleet-walk.service <<'EOF'
[Unit]
Description=tdbpf fleet walk (tests/vm/fleet-walk.sh)
After=multi-user.target prometheus.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/fleet-walk
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/fleet-walk.service \
	$ROOTFS/etc/systemd/system/multi-user.target.wants/fleet-walk.service
# no login prompt on ttyS0: its getty hangs up the tty the walk writes to
ln -sf /dev/null $ROOTFS/etc/systemd/system/serial-getty@ttyS0.service
# a fresh machine: no tdbpf enabled before the walk enables it
rm -f $ROOTFS/etc/systemd/system/multi-user.target.wants/tdbpf.service

# ---- the disk image, from the root file system ---------------------------
kernel=$(ls $ROOTFS/boot/vmlinuz-* 2>/dev/null | tail -1)
initrd=$(ls $ROOTFS/boot/initrd.img-* 2>/dev/null | tail -1)
[ -n "$kernel" ] && [ -n "$initrd" ] || die "no kernel or initramfs in $ROOTFS/boot"
cp "$kernel" $VM/fleet-vmlinuz && cp "$initrd" $VM/fleet-initrd.img ||
	die "copying the kernel out of $ROOTFS failed"
size=$(( $(du -sm --exclude=./proc --exclude=./sys $ROOTFS | cut -f1) + 1536 ))
rm -f $IMG
say "mkfs.ext4 -d $ROOTFS $IMG (${size} MiB)"
mkfs.ext4 -q -F -L fleet -d $ROOTFS $IMG ${size}M || die "mkfs.ext4 -d failed"

# ---- boot and walk --------------------------------------------------------
say "booting $(basename "$kernel") (TCG, -smp 2, -m 3G; console: $LOG; at most $TIMEOUT s)"
start=$(date +%s)
timeout $TIMEOUT qemu-system-x86_64 -cpu max -smp 2 -m 3G -nographic -no-reboot \
	-nic none -drive file=$IMG,format=raw,if=virtio \
	-kernel $VM/fleet-vmlinuz -initrd $VM/fleet-initrd.img \
	-append "root=/dev/vda rw console=ttyS0 panic=-1" \
	< /dev/null > $LOG 2>&1
rc=$?
say "QEMU exited $rc after $(( $(date +%s) - start )) s"
tr -d '\r' < $LOG | grep -a '^walk: '
[ $rc = 124 ] && die "timed out after $TIMEOUT s (console: $LOG)"
tr -d '\r' < $LOG | grep -aq '^walk: END' || die "the walk did not finish (console: $LOG)"
say "console: $LOG"
