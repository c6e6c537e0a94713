#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A pool per port (pools = port, docs/configuration.md#numa-placement): two net_pcap ports
# replay captures of different sizes in a loop (infinite_rx: the driver keeps its capture in
# mbufs of the pool its queue receives into), forwarding to each other through two workers.
# Checks: the start log names the two pools; /mpe/info says 2; a debug dump shows each port's
# capture held in its own pool (port 0's 3000 in mpe_mbufs, port 1's 500 in mpe_mbufs_1: a pool
# nobody received into would hold none);
# in the process build workers are killed while both pools' mbufs pass through their hands;
# the workers drop UDP, returning mbufs of both pools themselves; at stop each pool has every
# mbuf back, once, and the engine exits 0.
. "$(dirname "$0")/lib.sh"

N0=3000
N1=500
"$PCAPGEN" -o "$TMP/in0.pcap" -n "$N0" -f 300 --seed 21 > /dev/null
"$PCAPGEN" -o "$TMP/in1.pcap" -n "$N1" -f 50 --vlan 10 --seed 22 > /dev/null
# the workers drop UDP: they return mbufs of both pools, runs of each in one burst
printf '%s\n' "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 17/0xff drop 10" > "$TMP/drop.rules"
cfg=$TMP/engine.ini
cat > "$cfg" <<EOF
[engine]
shape = distributor
io_lcore = 1
pools = port
rules = $TMP/drop.rules
restart_max = 100
restart_window_ms = 1000

[port 0]
device = net_pcap0
peer = 1

[port 1]
device = net_pcap1
peer = 0

[worker 0]
lcore = 2
stages = parse, flow, acl, fwd

[worker 1]
lcore = 3
stages = parse, flow, acl, fwd
EOF
"$PRIMARY" --check -c "$cfg" > "$TMP/check.out" 2>&1 || true
check "--check names the pools and the port each serves" grep -qx "mbuf pools: 2 (pools = port), each on its port's socket: mpe_mbufs for port 0, mpe_mbufs_1 for port 1" "$TMP/check.out"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in0.pcap,infinite_rx=1,tx_pcap=/dev/null" \
	--vdev "net_pcap1,rx_pcap=$TMP/in1.pcap,infinite_rx=1,tx_pcap=/dev/null" \
	-- -c "$cfg"
if ! wait_for "$log" "running:" 60; then
	not_ok "engine runs with a pool per port ($MODEL build)"
	finish
	exit 1
fi
ok "engine runs with a pool per port ($MODEL build)"
check "the start log names a pool for each port" \
	grep -qE "placement: 2 mbuf pools: mpe_mbufs on socket [0-9]+ for port 0, mpe_mbufs_1 on socket [0-9]+ for port 1," "$log"
"$CLIENT" "$PREFIX" /mpe/info > "$TMP/info.json" 2> /dev/null || true
check "/mpe/info: 2 pools" jtest "$TMP/info.json" 'v["pools"] == 2'

# each port's capture is held in its own pool: in_use of each pool at least its port's
dump=$("$CLIENT" "$PREFIX" /mpe/dump 2> /dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin).get("path", ""))' 2> /dev/null || true)
in_use() { sed -n "s/^mempool $1: size [0-9]*, in_use \([0-9]*\),.*/\1/p" "$dump" 2> /dev/null; }
u0=$(in_use mpe_mbufs); u1=$(in_use mpe_mbufs_1)
check "a dump: port 0's $N0 frames in mpe_mbufs ($u0 in use), port 1's $N1 in mpe_mbufs_1 ($u1)" \
	cond '[ "${u0:-0}" -ge "$N0" ] && [ "${u1:-0}" -ge "$N1" ]'

if [ "$MODEL" = process ]; then
	for k in 1 2 3 4 5 6; do
		sleep 0.3
		kill -KILL "$(worker_pid $((k % 2)))" 2> /dev/null || true
		wait_for_count "back after" "$k" 20 || true
	done
	back=$(grep -c "back after" "$log" || true)
	check "six workers killed with both pools' mbufs in hand, each back ($back)" [ "$back" = 6 ]
fi
sleep 0.5
"$CLIENT" "$PREFIX" /mpe/stats > "$TMP/stats.json" 2> /dev/null || true
check "both ports received and transmitted, the workers dropped UDP" jtest "$TMP/stats.json" \
	'all(v["ports"][p]["rx"] > 0 and v["ports"][p]["tx"] > 0 for p in ("0", "1"))
	and v["drops"]["verdict"] > 0'
rc=0
stop_primary 30 || rc=$?
check "the engine exits 0" [ "$rc" = 0 ]
check "every mbuf back in its pool, once, in each" cond \
	'grep -q "mempool mpe_mbufs: every mbuf back in the pool, once" "$log" &&
	 grep -q "mempool mpe_mbufs_1: every mbuf back in the pool, once" "$log"'
assert_clean
finish
