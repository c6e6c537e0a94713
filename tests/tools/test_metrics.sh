#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mpe-ctl's metrics as Prometheus' own tools read them (docs/operations.md#metrics), from the
# telemetry stand-in (tel_fake.py contract: every /mpe/ command, fixed values):
#   - `metrics`: Prometheus' classic text, which promtool checks clean (every counter typed,
#     with its help), and which Debian's prometheus-node-exporter, reading it from its textfile
#     directory, serves with every mpe counter typed counter and its help kept;
#   - `metrics --openmetrics`: OpenMetrics, ending with # EOF, as the client library's strict
#     parser reads it; promtool 2.42's check, which reads the classic format only, finds
#     nothing but the counters' samples it cannot map to their families;
#   - `exporter --listen`: answers each Accept header with its format and content type, and
#     says mpe_up 0 (and nothing else) while the engine does not answer, 1 once it does again.
# Usage: test_metrics.sh PATH/TO/mpe-ctl PATH/TO/tel_fake.py
set -uo pipefail

if [[ $# -ne 2 || ! -x $1 || ! -f $2 ]]; then
	echo "usage: $0 PATH/TO/mpe-ctl PATH/TO/tel_fake.py" >&2
	exit 2
fi
CTL=$1
FAKE=$2
PY=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
PIDS=()
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2> /dev/null
		wait "$pid" 2> /dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
need() { # a tool the test cannot do without: its absence fails the test, it is no skip
	command -v "$1" > /dev/null && return 0
	not_ok "$1 is not installed (Debian package $2; tools/setup-host.sh installs it)"
	return 1
}

PREFIX=fakemetrics$$
RD=$work/run
mkdir -p "$RD"
start_fake() {
	"$PY" "$FAKE" contract "$RD" "$PREFIX" &
	FAKE_PID=$!
	PIDS+=("$FAKE_PID")
	for _ in $(seq 100); do
		[ -S "$RD/dpdk/$PREFIX/dpdk_telemetry.v2" ] && return 0
		sleep 0.05
	done
	return 1
}
ctl() { RUNTIME_DIRECTORY=$RD "$CTL" -p "$PREFIX" "$@"; }
check "the telemetry stand-in runs" start_fake

# --- the classic text --------------------------------------------------------------------------
rc=0
ctl metrics > "$work/mpe.prom" 2> "$work/err" || rc=$?
check "metrics: exit 0 ($rc)" [ "$rc" = 0 ]
# every counter of the stand-in's replies, as the classic text names them
COUNTERS="mpe_in_packets_total mpe_out_packets_total mpe_dropped_packets_total
mpe_port_rx_packets_total mpe_worker_rx_packets_total mpe_worker_dropped_packets_total
mpe_worker_restarts_total mpe_stage_packets_total mpe_acl_rule_hits_total
mpe_flows_cache_hits_total mpe_worker_malformed_frames_total mpe_io_wait_seconds_total
mpe_io_moved_packets_total mpe_io_busy_seconds_total"
typed() { # FILE: each of COUNTERS has "# TYPE NAME counter" and a HELP line, and samples
	local c
	for c in $COUNTERS; do
		grep -qx "# TYPE $c counter" "$1" && grep -q "^# HELP $c ." "$1" &&
			grep -q "^$c[{ ]" "$1" || { echo "#   $c: untyped, without help or samples"; return 1; }
	done
}
check "metrics: every counter typed counter, with its help" typed "$work/mpe.prom"
check "metrics: no OpenMetrics-only lines (# EOF, # UNIT)" \
	eval '! grep -q "^# \(EOF\|UNIT\)" "$work/mpe.prom"'
if need promtool prometheus; then
	rc=0
	promtool check metrics < "$work/mpe.prom" > "$work/promtool.out" 2>&1 || rc=$?
	check "promtool check metrics: clean (exit $rc, $(wc -l < "$work/promtool.out") remarks)" \
		eval '[ "$rc" = 0 ] && [ ! -s "$work/promtool.out" ]'
	sed 's/^/#   /' "$work/promtool.out" | head -5
fi

# --- OpenMetrics -------------------------------------------------------------------------------
rc=0
ctl metrics --openmetrics > "$work/mpe.om" 2> "$work/err" || rc=$?
check "metrics --openmetrics: exit 0 ($rc), parsed by the strict OpenMetrics parser, counters" \
	"$PY" - "$work/mpe.om" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
fam = {f.name: f for f in text_string_to_metric_families(text)}
ok = (text.endswith("# EOF\n") and fam["mpe_in_packets"].type == "counter" and
      fam["mpe_in_packets"].unit == "packets" and fam["mpe_in_packets"].documentation and
      fam["mpe_acl_rule_hits"].type == "counter")
sys.exit(0 if ok else 1)
EOF
# promtool reads the classic format only: in OpenMetrics a counter family is named without
# _total, so promtool takes its samples for families of their own, without help. That must
# be all it finds: every remark a sample of a counter family that has its help.
if need promtool prometheus; then
	rc=0
	promtool check metrics < "$work/mpe.om" > "$work/promtool.om" 2>&1 || rc=$?
	check "promtool check metrics on OpenMetrics: only what its classic parser cannot map (exit $rc, $(wc -l < "$work/promtool.om") remarks)" \
		"$PY" - "$work/mpe.om" "$work/promtool.om" <<'EOF'
import re, sys
text, remarks = open(sys.argv[1]).read(), open(sys.argv[2]).read().splitlines()
helped = (set(re.findall(r"^# HELP (\S+) \S", text, re.M)) &
          set(re.findall(r"^# TYPE (\S+) counter$", text, re.M)))
bad = [r for r in remarks if not (r.endswith(" no help text") and
       re.sub(r"_(total|created)$", "", r.split()[0]) in helped)]
for r in bad[:5]:
    print("#   %s" % r)
sys.exit(0 if not bad else 1)
EOF
fi

# --- node exporter's textfile collector --------------------------------------------------------
free_port() { "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
scrape() { # URL OUT [ACCEPT]: the body into OUT, "STATUS CONTENT-TYPE" on stdout
	"$PY" - "$@" <<'EOF'
import sys, urllib.request
req = urllib.request.Request(sys.argv[1])
if len(sys.argv) > 3:
    req.add_header("Accept", sys.argv[3])
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        open(sys.argv[2], "wb").write(r.read())
        print(r.status, r.headers.get("Content-Type"))
except Exception as e:
    print("error", e)
EOF
}
wait_http() { # URL: answers within 10 s
	for _ in $(seq 200); do
		[ "$(scrape "$1" /dev/null | cut -d' ' -f1)" = 200 ] && return 0
		sleep 0.05
	done
	return 1
}
if need prometheus-node-exporter prometheus-node-exporter; then
	mkdir -p "$work/textfile"
	cp "$work/mpe.prom" "$work/textfile/mpe.prom"
	port=$(free_port)
	prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$work/textfile" > "$work/node.log" 2>&1 &
	PIDS+=($!)
	if wait_http "http://127.0.0.1:$port/metrics"; then
		scrape "http://127.0.0.1:$port/metrics" "$work/node.out" > /dev/null
		check "node exporter: read the file without error" \
			grep -qx 'node_textfile_scrape_error 0' "$work/node.out"
		check "node exporter: serves every mpe counter typed counter, with its help" \
			typed "$work/node.out"
		check "node exporter: our help text, as written" \
			grep -qx "# HELP mpe_in_packets_total Packets that entered the engine." \
			"$work/node.out"
	else
		not_ok "node exporter: does not answer on 127.0.0.1:$port"
		sed 's/^/#   /' "$work/node.log" | tail -5
	fi
fi

# --- the exporter ------------------------------------------------------------------------------
RUNTIME_DIRECTORY=$RD "$CTL" -p "$PREFIX" exporter --listen 127.0.0.1:0 \
	> "$work/exporter.out" 2> "$work/exporter.err" &
PIDS+=($!)
url=
for _ in $(seq 200); do
	url=$(sed -n 's/.* on \(http:.*\/metrics\)$/\1/p' "$work/exporter.err")
	[ -n "$url" ] && break
	sleep 0.05
done
check "exporter: says where it listens ($url)" [ -n "$url" ]
got=$(scrape "$url" "$work/x.prom")
check "exporter: no Accept header: the classic text ($got)" \
	eval '[[ $got == "200 text/plain; version=0.0.4"* ]] && typed "$work/x.prom" &&
	grep -qx "mpe_up 1.0" "$work/x.prom"'
got=$(scrape "$url" "$work/x.om" "application/openmetrics-text; version=1.0.0,text/plain;q=0.5")
check "exporter: Accept OpenMetrics: OpenMetrics ($got)" \
	eval '[[ $got == "200 application/openmetrics-text"* ]] && [ "$(tail -1 "$work/x.om")" = "# EOF" ]'
kill "$FAKE_PID"
wait "$FAKE_PID" 2> /dev/null
got=$(scrape "$url" "$work/down.prom")
check "exporter: the engine gone: mpe_up 0 and nothing else ($got)" \
	eval '[[ $got == "200 "* ]] && grep -qx "mpe_up 0.0" "$work/down.prom" &&
	[ "$(grep -vc "^#" "$work/down.prom")" = 1 ]'
check "exporter: says why on stderr" grep -q "^mpe-ctl exporter: .*dpdk_telemetry.v2: " \
	"$work/exporter.err"
start_fake > /dev/null
got=$(scrape "$url" "$work/back.prom")
check "exporter: the engine back: mpe_up 1 and the counters ($got)" \
	eval 'grep -qx "mpe_up 1.0" "$work/back.prom" && typed "$work/back.prom"'

finish
