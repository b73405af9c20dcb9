#!/bin/sh
# make test-fleet: the graph across hosts on real hosts made of network
# namespaces, as root.
#
# Three hosts (hA, hB, hC) and a monitoring one (mon), each a network
# namespace with one veth to a bridge in a fifth (lan), addresses
# 10.77.0.0/24 that exist only inside them. A stream graph gen (hA) ->
# relay (hB) -> sink (hC) over TCP (tests/workloads/netstage); one tdbpf
# per host (ip netns exec) tracing that host's stage, serving /metrics
# on its own address and port and writing its JSON report; a real
# Prometheus in mon scraping the three.
#
# Checked: each host's sockets[] holds its half of each flow, the other
# host's half mirroring it (addresses and ports as each side sees them);
# Prometheus has all three hosts; then, per scenario (relay CPU-bound;
# sink sleeping per record; hC's tdbpf stopped), tdbpf graph FILES and
# tdbpf graph --prometheus name the right host and stage, or the
# unresolved endpoint. The verdict checks need waits resolved across a
# socket (graph.edges[].endpoint): on a kernel where the socket hooks
# cannot attach (tdbpf falls back), they are reported as skipped, never
# passed.
# Run from the repository root. One line per check and a summary.
set -u
cd "$(dirname "$0")/../.."

pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }
finish() {
	echo "test-fleet: $pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit $?
}

[ "$(id -u)" = 0 ] || { echo "test-fleet makes network namespaces: run it as root"; exit 1; }
for t in ip prometheus jq curl; do
	command -v "$t" >/dev/null || { bad "$t not found; run make deps"; finish; }
done
bin=$(pwd)/tdbpf
stage=$(pwd)/build/tests/workloads/netstage
[ -x "$bin" ] && [ -x "$stage" ] || { bad "build first: make tdbpf build/tests/workloads/netstage"; finish; }

sfx=$$
lan=tdbpf-lan-$sfx mon=tdbpf-mon-$sfx
hA=tdbpf-hA-$sfx hB=tdbpf-hB-$sfx hC=tdbpf-hC-$sfx
tmp=$(mktemp -d /tmp/tdbpf-fleet.XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	for n in $hA $hB $hC $mon $lan; do ip netns del "$n" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the hosts ---------------------------------------------------------

ip netns add "$lan" || { bad "ip netns add"; finish; }
ip -n "$lan" link add br0 type bridge
ip -n "$lan" link set br0 up
i=0
for n in $hA $hB $hC $mon; do
	i=$((i + 1))
	[ "$n" = "$mon" ] && i=9
	ip netns add "$n"
	ip link add "tf$i-$sfx" type veth peer name "tb$i-$sfx"
	ip link set "tf$i-$sfx" netns "$n" name eth0
	ip link set "tb$i-$sfx" netns "$lan"
	ip -n "$lan" link set "tb$i-$sfx" master br0 up
	ip -n "$n" addr add "10.77.0.$i/24" dev eth0
	ip -n "$n" link set eth0 up
	ip -n "$n" link set lo up
done
if [ "$(ip -n "$hC" -4 -o addr show dev eth0 | awk '{print $4}')" = 10.77.0.3/24 ] &&
	ip -n "$lan" link show master br0 | grep -c "tb.-$sfx" | grep -qx 4; then
	ok "three hosts and mon joined by veth to a bridge (10.77.0.0/24, inside namespaces only)"
else
	bad "the namespaces' veths and bridge are not as set up"
	finish
fi

# ---- one run: the stages, a tdbpf per host -----------------------------

# start NAME NETNS ARGS...: a stage in NETNS, its pid in $last
start() {
	name=$1 ns=$2
	shift 2
	ip netns exec "$ns" "$stage" "$@" "$name" >"$tmp/$name.out" 2>&1 &
	last=$!
	pids="$pids $last"
	stages="$stages $last"
}

# wait_line FILE WORD: FILE has a line WORD (5 s at most)
wait_line() {
	for _ in $(seq 50); do
		grep -q "^$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

pid_in() { sed -n 's/^pid=//p' "$tmp/$1.out" | head -n 1; }

# each host's tracer listens on its own port, the same in every run
portA=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
portB=$((portA + 1)) portC=$((portA + 2))

{
	echo "global: {scrape_interval: 1s, scrape_timeout: 1s}"
	echo "scrape_configs:"
	echo "  - job_name: tdbpf"
	echo "    static_configs:"
	echo "      - {targets: ['10.77.0.1:$portA'], labels: {host: hA}}"
	echo "      - {targets: ['10.77.0.2:$portB'], labels: {host: hB}}"
	echo "      - {targets: ['10.77.0.3:$portC'], labels: {host: hC}}"
} >"$tmp/prometheus.yml"
ip netns exec "$mon" prometheus --config.file="$tmp/prometheus.yml" \
	--storage.tsdb.path="$tmp/data" --web.listen-address=127.0.0.1:9090 \
	--log.level=warn >"$tmp/prometheus.log" 2>&1 &
pids="$pids $!"
# ready before the first run: its 4 s window must hold scrapes of it
ready=0
for _ in $(seq 60); do
	ip netns exec "$mon" curl -sf http://127.0.0.1:9090/-/ready >/dev/null 2>&1 &&
		{ ready=1; break; }
	sleep 0.5
done
[ "$ready" = 1 ] || { cat "$tmp/prometheus.log"; bad "Prometheus in mon did not become ready"; finish; }

# graph_prom TAG: tdbpf graph --prometheus from mon, JSON in TAG-prom.json
graph_prom() {
	ip netns exec "$mon" "$bin" graph -j --prometheus http://127.0.0.1:9090 \
		--range 4s >"$tmp/$1-prom.json" 2>"$tmp/$1-prom.err"
}

# run TAG RELAY_ARGS SINK_ARGS [HOSTS [GEN_ARGS]]: the graph, each host
# in HOSTS (default "A B C") traced 7 s; Prometheus asked at 6 s
run() {
	tag=$1 relay=$2 sink=$3 traced=${4:-A B C} gen=${5:-} stages=""
	rm -f "$tmp"/*.out
	# shellcheck disable=SC2086
	start sink "$hC" -i 7002 -d 14 $sink
	# shellcheck disable=SC2086
	start relay "$hB" -i 7001 -o 10.77.0.3:7002 -d 14 $relay
	# shellcheck disable=SC2086
	start gen "$hA" -o 10.77.0.2:7001 -d 14 $gen
	if ! wait_line "$tmp/gen.out" ready || ! wait_line "$tmp/relay.out" ready; then
		bad "$tag: the stages did not connect"
		cat "$tmp"/*.out
		return 1
	fi
	sleep 0.5
	tr=""
	for host in $traced; do
		case $host in A) st=gen h=1 ;; B) st=relay h=2 ;; C) st=sink h=3 ;; esac
		eval "ns=\$h$host port=\$port$host"
		ip netns exec "$ns" "$bin" --wakeups --listen "10.77.0.$h:$port" \
			-p "$(pid_in "$st")" -d 7 -j -o "$tmp/$tag-$host.json" \
			2>"$tmp/$tag-$host.err" &
		tr="$tr $!"
		pids="$pids $!"
	done
	sleep 6
	graph_prom "$tag"
	# shellcheck disable=SC2086
	wait $tr 2>/dev/null
	# this run's stages go, so the next may listen on their ports
	# shellcheck disable=SC2086
	kill $stages 2>/dev/null
	# shellcheck disable=SC2086
	wait $stages 2>/dev/null
	return 0
}

# first_candidate FILE: "name|reason" of graph.bottleneck[0]
first_candidate() {
	jq -r '.graph.bottleneck[0] | "\(.comm)|\(.reason)"' "$1" 2>/dev/null ||
		echo "none|none"
}

resolved=0
# verdict TAG WANT REASON FILES...: tdbpf graph FILES and --prometheus
verdict() {
	tag=$1 want=$2 why=$3
	shift 3
	"$bin" graph -j "$@" >"$tmp/$tag-files.json" 2>"$tmp/$tag-files.err"
	for src in files prom; do
		got=$(first_candidate "$tmp/$tag-$src.json")
		if [ "$resolved" = 0 ]; then
			skipped "$tag: $src: no wait was resolved to an endpoint (socket hooks missing here: tdbpf -v says); got ${got%%|*}"
		elif [ "${got%%|*}" = "$want" ] && case ${got#*|} in "$why"*) true ;; *) false ;; esac; then
			ok "$tag: tdbpf graph ($src) names $want: ${got#*|}"
		else
			bad "$tag: tdbpf graph ($src) names '${got%%|*}' (${got#*|}), not $want ($why...)"
			cat "$tmp/$tag-$src.err"
			# what it read: the edges, largest first
			jq -r '.graph.edges | sort_by(-.wait_ns) | .[:12][] |
				"  \(.wakee_comm) <- \(.waker_comm): \(.wakeups) wakeups, \(.wait_ns / 1e6 | floor) ms"' \
				"$tmp/$tag-$src.json" 2>/dev/null
		fi
	done
}

# ---- 1: relay CPU-bound ------------------------------------------------

run busy "-c 400" "" || finish
# the flow halves: gen's socket and relay's accepted one mirror each other
gen_local=$(jq -r '.sockets[] | select(.comm == "gen" and .remote == "10.77.0.2:7001") | .local' "$tmp/busy-A.json")
relay_remote=$(jq -r '.sockets[] | select(.comm == "relay" and .local == "10.77.0.2:7001" and .state == "established") | .remote' "$tmp/busy-B.json")
halves=no
case $gen_local in 10.77.0.1:[0-9]*)
	[ "$gen_local" = "$relay_remote" ] && halves="ok $gen_local" ;;
esac
if [ "${halves%% *}" = ok ]; then
	ok "hA's sockets[] has gen -> 10.77.0.2:7001 from ${halves#* }, hB's the same flow reversed"
else
	bad "the flow halves of gen -> relay do not mirror each other in hA's and hB's reports"
fi
if grep -q '"endpoint"' "$tmp"/busy-*.json; then
	resolved=1
fi
hosts=$(sed -n 's/^tdbpf: \([0-9]*\) hosts.*/\1/p' "$tmp/busy-prom.err")
if [ "$hosts" = 3 ]; then
	ok "tdbpf graph --prometheus reads 3 hosts from Prometheus in mon"
else
	bad "tdbpf graph --prometheus: $(cat "$tmp/busy-prom.err")"
fi
verdict busy hB/relay/relay "runs" --host hA="$tmp/busy-A.json" \
	--host hB="$tmp/busy-B.json" --host hC="$tmp/busy-C.json"

# ---- 2: the bottleneck moves host: sink sleeps per record --------------
# gen starts 2 s late: relay's first wait, as tracing begins, is a read
# ended by gen; its later ones, writes ended by hC. Two endpoints, two
# edges (one merged edge once took the first one's name: gen's).

run sleeps "" "-s 2000" "A B C" "-p 2" || finish
verdict sleeps hC/sink/sink "waits on timers" --host hA="$tmp/sleeps-A.json" \
	--host hB="$tmp/sleeps-B.json" --host hC="$tmp/sleeps-C.json"

# ---- 3: hC's tdbpf stopped: relay's waits lead to an unresolved address

run nohc "" "-s 2000" "A B" || finish
verdict nohc "unresolved 10.77.0.3:7002" "unresolved endpoint" \
	--host hA="$tmp/nohc-A.json" --host hB="$tmp/nohc-B.json"

finish
