#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A worker binary built with another shared-layout version attaches to a running engine and
# must refuse to run ("shared layout differs"); the engine must not notice.
#   1. net_null ports, pipeline of 2 workers: the engine keeps forwarding and stops with 0
#   2. net_pcap ports: the refused process must neither take the engine's ports down (DPDK
#      facts: a secondary's rte_eal_cleanup() stops shared net_pcap ports; link state read
#      through the primary's telemetry socket) nor touch the captures the engine writes
# The refused worker is given a worker id that exists and that worker's lcore, so that only
# the layout check can refuse it.
. "$(dirname "$0")/lib.sh"

BADLAYOUT=$BUILD/tests/mp/mpe-secondary-badlayout

# cond 'SHELL CONDITION': several tests joined by && as one command for check


# telemetry CMD FIELD: one field of the primary's telemetry reply (DPDK's v2 socket)
telemetry() {
	python3 - "/var/run/dpdk/$PREFIX/dpdk_telemetry.v2" "$1" "$2" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.recv(65536)
s.send(sys.argv[2].encode())
reply = json.loads(s.recv(1 << 20).decode())
print(reply[sys.argv[2].split(",")[0]][sys.argv[3]])
EOF
}

# bad_worker LOG: mpe-secondary-badlayout as worker 0, on worker 0's lcore (2)
bad_worker() {
	local rc=0
	timeout -k 2 15 "$BADLAYOUT" --proc-type=secondary --file-prefix "$PREFIX" \
		--lcores "2@$((2 % NCPU))" --no-pci -- --worker 0 > "$1" 2>&1 || rc=$?
	return "$rc"
}

# wait_size FILE BYTES: the file has grown to BYTES within 10 s
wait_size() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# worker_pids LOG: pids the primary spawned (process build)
worker_pids() {
	sed -n 's/.*worker [0-9]*: spawned pid \([0-9]*\).*/\1/p' "$1" | tr '\n' ' '
}

# --- 1. net_null, pipeline
cfg=$TMP/null.ini
printf '[engine]\nshape = pipeline\nio_lcore = 1\n\n[port 0]\ndevice = net_null0\n\n' > "$cfg"
printf '[port 1]\ndevice = net_null1\n\n[worker 0]\nlcore = 2\nstages = flowhash\n\n' >> "$cfg"
printf '[worker 1]\nlcore = 3\nstages = fwd\n' >> "$cfg"
log=$TMP/primary.log
: > "$log" # start_primary truncates it in the background: no stale "running:"
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
check "engine runs (net_null, pipeline, 2 workers, $MODEL build)" wait_for "$log" "running:" 20
pids=$(worker_pids "$log")

rc=0
bad_worker "$TMP/bad.log" || rc=$?
check "mpe-secondary-badlayout exits non-zero (status $rc)" cond '[ "$rc" != 0 ] && [ "$rc" != 124 ]'
if grep -q "shared layout differs" "$TMP/bad.log"; then
	ok "it says the shared layout differs"
else
	not_ok "no 'shared layout differs' in its output"; cat "$TMP/bad.log"
fi
check "the refusal names both layout versions" \
	grep -qE "primary has version [1-9][0-9]*, .*expects version 0" "$TMP/bad.log"
sleep 0.3
check "the primary is still running" kill -0 "$PRIMARY_PID"
alive=0
for p in $pids; do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
if [ "$MODEL" = process ]; then
	check "both worker processes still run ($alive of 2: $pids)" [ "$alive" = 2 ]
fi
check "the primary logged no worker failure" cond '! grep -q "worker [0-9].*\(failed\|killed\|did not\)" "$log"'
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0" [ "$rc" = 0 ]
check "both workers left their loop cleanly" \
	[ "$(grep -cE '^  worker [0-9] \(lcore [0-9], exited\)' "$log" || true)" = 2 ]
out=$(total out "$log")
check "packets went through (out $out), nothing unaccounted" \
	cond '[ "${out:-0}" -gt 0 ] && [ "$(total unaccounted "$log")" = 0 ]'
assert_clean "net_null engine: nothing left behind"

# --- 2. net_pcap: the refusal must not stop the primary's ports
if ! command -v python3 > /dev/null; then
	echo "# skip net_pcap link checks: no python3 for the telemetry client"
	finish
	exit $?
fi
"$PCAPGEN" -o "$TMP/in0.pcap" -n 1000 -f 20 --seed 5 > /dev/null
"$PCAPGEN" -o "$TMP/in1.pcap" -n 100 -f 5 --seed 6 > /dev/null
cfg=$TMP/pcap.ini
printf '[engine]\nshape = distributor\nio_lcore = 1\nbackpressure = on\n\n' > "$cfg"
printf '[port 0]\ndevice = net_pcap0\n\n[port 1]\ndevice = net_pcap1\n\n' >> "$cfg"
printf '[worker 0]\nlcore = 2\n\n[worker 1]\nlcore = 3\n' >> "$cfg"
log=$TMP/primary.log
# Relative capture paths, as an operator types them: net_pcap keeps at most 63 characters
# of its arguments for secondary processes, so with long paths a secondary fails to probe
# the ports and the hazard below would go unseen.
cd "$TMP"
: > "$log"
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=in0.pcap,tx_pcap=out0.pcap" \
	--vdev "net_pcap1,rx_pcap=in1.pcap,tx_pcap=out1.pcap" -- -c "$cfg"
check "engine runs (net_pcap, distributor)" wait_for "$log" "running:" 20
# the engine copies in0.pcap to out1.pcap (and in1 to out0): same records, same size
want0=$(stat -c %s in1.pcap); want1=$(stat -c %s in0.pcap)
check "both captures fully written before the refusal (out0 $want0, out1 $want1 bytes)" \
	cond 'wait_size out0.pcap "$want0" && wait_size out1.pcap "$want1"'
l0=$(telemetry /ethdev/link_status,0 status 2>&1 || true)
l1=$(telemetry /ethdev/link_status,1 status 2>&1 || true)
check "telemetry: both net_pcap links up before ($l0, $l1)" cond '[ "$l0" = UP ] && [ "$l1" = UP ]'
rc=0
bad_worker "$TMP/bad2.log" || rc=$?
check "mpe-secondary-badlayout refused on the net_pcap engine (status $rc)" \
	cond '[ "$rc" != 0 ] && grep -q "shared layout differs" "$TMP/bad2.log"'
l0=$(telemetry /ethdev/link_status,0 status 2>&1 || true)
l1=$(telemetry /ethdev/link_status,1 status 2>&1 || true)
check "telemetry: both net_pcap links still up after the refusal ($l0, $l1)" \
	cond '[ "$l0" = UP ] && [ "$l1" = UP ]'
size0=$(stat -c %s out0.pcap); size1=$(stat -c %s out1.pcap)
check "the refused process left the engine's captures alone (out0 $want0 -> $size0, out1 $want1 -> $size1 bytes)" \
	cond '[ "$size0" = "$want0" ] && [ "$size1" = "$want1" ]'
rc=0
stop_primary 30 || rc=$?
check "the net_pcap engine stops with exit 0" [ "$rc" = 0 ]
if "$PCAPCMP" "$TMP/in0.pcap" "$TMP/out1.pcap" > "$TMP/cmp1" 2>&1 &&
	"$PCAPCMP" "$TMP/in1.pcap" "$TMP/out0.pcap" > "$TMP/cmp0" 2>&1; then
	ok "every packet came out of the peer port, per-flow order kept"
else
	not_ok "output differs"; head -4 "$TMP/cmp1" "$TMP/cmp0"
fi
assert_clean "net_pcap engine: nothing left behind"
finish
