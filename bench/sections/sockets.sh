# SPDX-License-Identifier: GPL-2.0
# bench/run.sh section 7: the socket hooks of --wakeups on a pinned TCP
# ping-pong (sourced by run.sh, after lib.sh).

# The socket hooks (section 7): their tracepoints, in the order tabled
SOCK_TPS="sk_data_ready sock_send_length sock_recv_length tcp_sendmsg_locked softirq_entry softirq_exit"

# start_tcp_pingpong FILE: pipe_pingpong -t (one TCP connection on
# loopback) pinned to CPU 0; sets PP
start_tcp_pingpong() {
	"$W/pipe_pingpong" -t -n "$LOOPS" -c 0 -s "$SLEEP_MS" >"$1" 2>&1 &
	PP=$!
	PIDS+=("$PP")
	wait_for "$1" '^pid=' 5 || die "pipe_pingpong -t did not start: $(cat "$1")"
}

# One run of a socket variant into $TMP/sock.res ("key value" lines).
# tp_*: the TCP ping-pong's usecs/op and CPU us/op untraced, traced, with
# --wakeups; hooks_*: ns per run of each socket hook with bpf_stats on,
# the ping-pong traced (its sockets tracked) or a sleeper traced
# (untracked: the early exits); floor_sempty: an empty program on
# sock_send_length.
sock_run() {
	local v=$1 out=$TMP/sock.out lp tp id a BEFORE AFTER
	declare -A st0
	: >"$TMP/sock.res"
	case $v in
	tp_none)
		start_tcp_pingpong "$out"
		wait_pid "$PP" 300 ;;
	tp_off | tp_def | tp_on)
		start_tcp_pingpong "$out"
		case $v in
		tp_off) "$TDBPF" --no-wakeups -o /dev/null -p "$PP" 2>"$TMP/tracer.err" & ;;
		tp_def) "$TDBPF" -o /dev/null -p "$PP" 2>"$TMP/tracer.err" & ;;
		tp_on) "$TDBPF" --wakeups -o /dev/null -p "$PP" 2>"$TMP/tracer.err" & ;;
		esac
		lp=$!
		PIDS+=("$lp")
		wait_pid "$PP" 300
		wait_pid "$lp" 10 ;;
	floor_sempty)
		start_floor sempty
		lp=$TR
		stats_around "$FLOOR_ID" pingpong_run "$out" -t
		echo "sock_send_length $(per_run "${BEFORE[0]}" "${AFTER[0]}")" >"$TMP/sock.res"
		kill -INT "$lp" 2>/dev/null
		wait_pid "$lp" 10
		return ;;
	hooks_tracked | hooks_untracked)
		if [ "$v" = hooks_tracked ]; then
			# the sleeper too: tdbpf stays when the ping-pong ends
			start_tcp_pingpong "$out"
			start_tdbpf --wakeups -o /dev/null -p "$PP,$SLEEPER"
		else
			start_tdbpf --wakeups -o /dev/null -p "$SLEEPER"
		fi
		lp=$TR
		for tp in $SOCK_TPS; do
			id=$(tp_prog_id "$lp" "$tp") || continue
			st0[$tp]="$id $(prog_stats "$id")"
		done
		if [ "$v" = hooks_tracked ]; then
			wait_pid "$PP" 300
		else
			pingpong_run "$out" -t
		fi
		for tp in $SOCK_TPS; do
			[ -n "${st0[$tp]:-}" ] || continue
			read -r id a < <(echo "${st0[$tp]}" | awk '{ print $1, $2 " " $3 }')
			echo "$tp $(per_run "$a" "$(prog_stats "$id")")"
		done >"$TMP/sock.res"
		kill -INT "$lp" 2>/dev/null
		wait_pid "$lp" 10
		return ;;
	esac
	{ echo "usecs $(usecs "$out")"; echo "cpu $(cpu_per_op "$out")"; } >"$TMP/sock.res"
}

section_sockets() {
	local pp=(tp_none tp_off tp_def tp_on) bpf=(floor_sempty hooks_tracked hooks_untracked)
	log "7/7 sockets: $ROUNDS rounds, ${#pp[@]} TCP ping-pong and ${#bpf[@]} BPF variants"
	# a hook that never ran gives nan: not a measurement
	pingpong_rounds s7 "$TMP/sock.res" sock_run "$SOCK_TPS" nan \
		"${pp[*]}" "${bpf[*]}"
	guest_hooks
}

# The function hooks, which this kernel's tracepoints make unneeded (and
# which its builds may refuse), timed where they run: make vmtest's x86
# guest (Debian 12's 6.1, no socket tracepoints) under QEMU, one boot,
# tests/vm/checks-hookcost. Into $TMP/s7.guest: "KIND PROGRAM ns/run
# runs"; $TMP/s7.guest.why says why not, when not.
guest_hooks() {
	: >"$TMP/s7.guest"
	rm -f "$TMP/s7.guest.why"
	if ! command -v qemu-system-x86_64 >/dev/null; then
		echo "no qemu-system-x86_64 (make deps-vm)" >"$TMP/s7.guest.why"
		return
	fi
	if [ ! -x "$OUT/static/tdbpf" ] || [ ! -x "$W/pipe_pingpong" ]; then
		echo "no static build (make static)" >"$TMP/s7.guest.why"
		return
	fi
	log "7/7 sockets: the function hooks in make vmtest's 6.1 guest (QEMU TCG, about a minute)"
	VMTEST_CHECKS=tests/vm/checks-hookcost VM_TESTS=test_kernels \
		./tests/vm/run.sh x86 >"$TMP/s7.guest.log" 2>&1
	awk '$2 == "hookcost" && $6 > 0 { printf "%s %s %.1f %d\n", $3, $4, $5 / $6, $6 }' \
		"$TMP/s7.guest.log" >"$TMP/s7.guest"
	[ -s "$TMP/s7.guest" ] ||
		echo "the guest gave no figures (its console: build/vm/x86.log)" >"$TMP/s7.guest.why"
}

# hook_of PROGRAM: the socket hook a program of the guest serves, or ""
hook_of() {
	case $1 in
	tdbpf_data_ready*) echo sk_data_ready ;;
	tdbpf_sock_send* | tdbpf_sock_sent*) echo sock_send_length ;;
	tdbpf_sock_recv*) echo sock_recv_length ;;
	tdbpf_tcp_send*) echo tcp_sendmsg_locked ;;
	tdbpf_softirq_entry) echo softirq_entry ;;
	tdbpf_softirq_exit) echo softirq_exit ;;
	esac
}

# ns per hook (its programs' sum: a kprobe and its kretprobe) of KIND
guest_ns() {
	local kind=$1 hook=$2 k p ns n sum=""
	while read -r k p ns n; do
		[ "$k" = "$kind" ] && [ "$(hook_of "$p")" = "$hook" ] || continue
		sum=$(awk -v a="${sum:-0}" -v b="$ns" 'BEGIN { printf "%.1f", a + b }')
	done <"$TMP/s7.guest"
	echo "${sum:--}"
}

# Section 7's second table: the tracepoints here beside the guest's paths
write_guest_hooks() {
	local tp m
	echo "The function hooks (before Linux 6.3; docs/graph.md, where the"
	echo "tracepoints are missing) cost per run beside the tracepoints. The first"
	echo "column is this machine's ($(uname -r), native: the tracked medians above;"
	echo "$(fn_hooks_here)); the others are one run in make vmtest's x86 guest"
	echo "(Debian 12's 6.1 under QEMU TCG, emulated instructions), a pinned TCP ping-pong"
	echo "traced with --wakeups, from kernel.bpf_stats_enabled there. The guest's"
	echo "figures compare its two paths with each other and with its own"
	echo "tracepoints (softirq_entry, softirq_exit), never with the first column."
	echo
	if [ -e "$TMP/s7.guest.why" ]; then
		echo "Guest not run: $(cat "$TMP/s7.guest.why")."
		return
	fi
	echo "| hook | tracepoint, here: ns/run | guest fentry/fexit: ns/run | guest kprobe (+ kretprobe): ns/run |"
	echo "|---|---:|---:|---:|"
	for tp in $SOCK_TPS; do
		m=-
		[ -s "$TMP/s7.hooks_tracked.$tp" ] && m=$(fmt "$(med <"$TMP/s7.hooks_tracked.$tp")" %.1f)
		echo "| $tp | $m | $(guest_ns fentry "$tp") | $(guest_ns kprobe "$tp") |"
	done
}

# A row of section 7's first table, by its variant.
sock_variant() {
	case $1 in
	tp_none) echo "TCP ping-pong, untraced" ;;
	tp_off) echo "\`tdbpf --no-wakeups -p PID\` (no graph)" ;;
	tp_def) echo "\`tdbpf -p PID\` (the default: the graph from windows of wakeups)" ;;
	tp_on) echo "\`tdbpf --wakeups -p PID\` (every wakeup, socket hooks on)" ;;
	esac
}

# Section 7's tables (markdown) on stdout.
write_sockets() {
	local v m mn mx c cn cx tp fl tu p0 p1 p2 p3
	echo "## 7. Sockets: resolving a socket's wake to the task at its other end"
	echo
	echo "With --wakeups, tracepoint programs mark which socket a wake is for"
	echo "(sk_data_ready), keep each flow's last writer and reader"
	echo "(sock_send_length, sock_recv_length), note a TCP send that may wait"
	echo "for space (tcp_sendmsg_locked) and which softirq runs (softirq_entry,"
	echo "softirq_exit); they run for every socket on the machine. Pinned TCP"
	echo "ping-pong on loopback (\`pipe_pingpong -t -n $LOOPS -c 0\`, TCP_NODELAY):"
	echo "each round trip is two sends, two softirq deliveries, two wakeups and"
	echo "two receives. $ROUNDS rounds, median and min-max."
	echo
	wall_cpu_table s7 sock_variant tp_none tp_off tp_def tp_on
	echo
	echo "| program (bpf_stats: run_time_ns / run_cnt) | sockets tracked: ns/run (median) | min-max | untracked: ns/run (median) | min-max |"
	echo "|---|---:|---:|---:|---:|"
	read -r m mn mx < <(stats3 <"$TMP/s7.floor_sempty.sock_send_length")
	echo "| floor: empty program on sock_send_length | - | - | $(cells "$m" "$mn" "$mx" %.1f) |"
	for tp in $SOCK_TPS; do
		[ -s "$TMP/s7.hooks_tracked.$tp" ] || [ -s "$TMP/s7.hooks_untracked.$tp" ] || continue
		read -r m mn mx < <(stats3 <"$TMP/s7.hooks_tracked.$tp" 2>/dev/null)
		read -r c cn cx < <(stats3 <"$TMP/s7.hooks_untracked.$tp" 2>/dev/null)
		echo "| $tp | $(cells "$m" "$mn" "$mx" %.1f) | $(cells "$c" "$cn" "$cx" %.1f) |"
	done
	fl=$(med <"$TMP/s7.floor_sempty.sock_send_length")
	tu=$(med <"$TMP/s7.hooks_untracked.sock_send_length")
	p0=$(med <"$TMP/s7.tp_none.cpu"); p1=$(med <"$TMP/s7.tp_off.cpu"); p2=$(med <"$TMP/s7.tp_on.cpu")
	p3=$(med <"$TMP/s7.tp_def.cpu")
	echo
	echo "| target | measured | limit | result |"
	echo "|---|---:|---:|---|"
	echo "| untracked send <= 1.5x the empty sock_send_length program | $(ratio "$tu" "$fl" %.2fx) | 1.50x | $(pass "$(le "$(ratio "$tu" "$fl" %.4f)" 1.5)") |"
	echo "| the default graph's addition to the TCP ping-pong's CPU time (over --no-wakeups) | $(addition_row "$p0" "$p1" "$p3" 3) |"
	echo "| --wakeups' addition, the same (every wakeup: opt-in) | $(addition_row "$p0" "$p1" "$p2" 3) |"
	echo
	write_guest_hooks
}

# why this kernel cannot run the function hooks, for the table's note
fn_hooks_here() {
	local k=no f=refused
	[ -e /sys/bus/event_source/devices/kprobe/type ] ||
		[ -e /sys/kernel/tracing/kprobe_events ] && k=yes
	TDBPF_SOCK_HOOKS=fentry "$TDBPF" -v --wakeups -a -d 0.1 -o /dev/null 2>&1 |
		grep -q 'socket hook sk_data_ready: fentry' && f=taken
	if [ $k = no ] && [ $f = refused ]; then
		echo "this kernel cannot time them (no kprobes, fentry refused)"
	else
		echo "here kprobes: $k, fentry: $f"
	fi
}
