#!/bin/sh
# make test-service: the service files the package ships, against real
# systemd and Prometheus tools, as root (the tracer loads BPF).
#
#  - systemd-analyze verify accepts debian/tdbpf.service (with ExecStart
#    pointed at the built ./tdbpf: verify wants the binary to exist);
#  - the tracer accepts the options of debian/tdbpf.default exactly as
#    the unit passes them, and serves /metrics;
#  - promtool accepts docs/examples/prometheus-tdbpf.yml as shipped, and
#    a real Prometheus running it (targets pointed at that tracer, a
#    1 s scrape) scrapes tdbpf's series, with the `host` label the
#    relabelling promises.
# Run from the repository root. Prints one line per check and a summary.
set -u
cd "$(dirname "$0")/../.."

suite=test-service
. tests/pkg/checks.sh

tmp=$(mktemp -d /tmp/tdbpf-svc.XXXXXX)
tpid= ppid=
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null && wait "$tpid" 2>/dev/null
	[ -n "$ppid" ] && kill "$ppid" 2>/dev/null && wait "$ppid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for tool in systemd-analyze promtool prometheus curl; do
	command -v "$tool" >/dev/null ||
		{ bad "$tool not found; run make deps"; finish; }
done
[ -x ./tdbpf ] || { bad "./tdbpf not built; run make"; finish; }

# ---- the unit ---------------------------------------------------------

sed "s|/usr/sbin/tdbpf|$(pwd)/tdbpf|" debian/tdbpf.service >"$tmp/tdbpf.service"
if systemd-analyze verify --man=no "$tmp/tdbpf.service" >"$tmp/verify" 2>&1 &&
	! grep -q . "$tmp/verify"; then
	ok "systemd-analyze verify accepts debian/tdbpf.service"
else
	cat "$tmp/verify"
	bad "systemd-analyze verify debian/tdbpf.service"
fi
if grep -q '^EnvironmentFile=-/etc/default/tdbpf$' debian/tdbpf.service &&
	grep -q -- '--no-enable --no-start' debian/rules; then
	ok "the unit reads /etc/default/tdbpf and ships disabled"
else
	bad "the unit must read /etc/default/tdbpf and ship disabled"
fi

# ---- the environment file, as the unit passes it ----------------------

# systemd strips the quotes and splits the unbraced $TDBPF_OPTIONS into
# words; sh does the same for these plain values
# shellcheck disable=SC1091
. ./debian/tdbpf.default
case $TDBPF_LISTEN in
127.0.0.1:*) ok "TDBPF_LISTEN defaults to loopback" ;;
*) bad "TDBPF_LISTEN defaults to '$TDBPF_LISTEN', not loopback" ;;
esac
# shellcheck disable=SC2086
./tdbpf --listen 127.0.0.1:0 $TDBPF_OPTIONS >"$tmp/tdbpf.out" 2>"$tmp/tdbpf.err" &
tpid=$!
port=
for _ in $(seq 50); do
	port=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$tmp/tdbpf.err")
	[ -n "$port" ] && break
	sleep 0.2
done
if [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/metrics" | grep -q '^tdbpf_task_on_cpu_seconds_total{'; then
	ok "tdbpf runs with the default TDBPF_OPTIONS and serves /metrics"
else
	cat "$tmp/tdbpf.err"
	bad "tdbpf with the default TDBPF_OPTIONS serves no /metrics"
	finish
fi

# ---- the sample scrape config -----------------------------------------

if promtool check config docs/examples/prometheus-tdbpf.yml >"$tmp/check" 2>&1; then
	ok "promtool check config accepts docs/examples/prometheus-tdbpf.yml"
else
	cat "$tmp/check"
	bad "promtool check config docs/examples/prometheus-tdbpf.yml"
fi
# the shipped config, its targets replaced by the tracer above
sed -e "s|targets: \[.*\]|targets: [\"127.0.0.1:$port\"]|" \
	-e 's|scrape_interval: 15s|scrape_interval: 1s|' \
	docs/examples/prometheus-tdbpf.yml >"$tmp/prometheus.yml"
grep -q "127.0.0.1:$port" "$tmp/prometheus.yml" ||
	{ bad "the sample config has no targets line to point at the tracer"; finish; }
for _ in 1 2 3 4 5; do
	pport=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
	prometheus --config.file="$tmp/prometheus.yml" \
		--storage.tsdb.path="$tmp/data" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn \
		>"$tmp/prom.log" 2>&1 &
	ppid=$!
	sleep 1
	kill -0 "$ppid" 2>/dev/null && break
	ppid=
done
[ -n "$ppid" ] || { cat "$tmp/prom.log"; bad "prometheus did not start"; finish; }
q='count(tdbpf_task_on_cpu_seconds_total{job="tdbpf",host="127.0.0.1"})'
got=
for _ in $(seq 30); do
	got=$(curl -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode "query=$q" |
		sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
	[ -n "$got" ] && [ "$got" -gt 0 ] && break
	sleep 1
done
if [ -n "$got" ] && [ "$got" -gt 0 ]; then
	ok "Prometheus with the sample config scrapes $got tdbpf series labelled host=\"127.0.0.1\""
else
	cat "$tmp/prom.log"
	bad "Prometheus with the sample config has no tdbpf series with a host label"
fi
finish
