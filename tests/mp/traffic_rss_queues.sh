#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Shape rss with the workers on queues of their choice ([worker N] queue): on net_null, whose
# RSS redirection table the engine can set and read back, workers on queues 3 and 6 of ports
# with 7 queues. The table read back must send nothing to the five queues no worker polls,
# and the workers must receive and send on their own queues only (net_null makes packets on
# whichever queue is polled: the table's effect itself needs a device that hashes).
# Then the same on net_ring, which has no RSS table: the engine says that what lands on a
# queue no worker polls is never received.
. "$(dirname "$0")/lib.sh"

cfg=$TMP/engine.ini
cat > "$cfg" <<'INI'
[engine]
shape = rss
mbufs = 32767
stats_period_ms = 0

[port 0]
device = net_null0
peer = 1

[port 1]
device = net_null1
peer = 0

[worker 0]
lcore = 2
queue = 3

[worker 1]
lcore = 3
queue = 6
INI
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
check "engine starts with workers on queues 3 and 6 of net_null ($MODEL build)" \
	wait_for "$log" "running:" 30
for p in 0 1; do
	check "port $p: the RSS table read back sends its 128 entries to queues 3 and 6 only" \
		grep -q "port $p (net_null$p): RSS redirection table of 128 entries over the polled queues (queue:entries 3:64 6:64)" "$log"
	check "port $p: 7 rx and 7 tx queues" \
		grep -q "port $p (net_null$p): ethdev [0-9]*, driver net_null, 7 rx / 7 tx queues" "$log"
done
sleep 1
python3 "$CLIENT" "$PREFIX" /ethdev/stats,0 > "$TMP/st0" 2> "$TMP/st0.err" || true
rx=$(jget "$TMP/st0" "' '.join(str(x) for x in v['q_ipackets'][:7])")
tx=$(jget "$TMP/st0" "' '.join(str(x) for x in v['q_opackets'][:7])")
only36() { # "a b c d e f g": d and g above 0, the others 0
	[[ "$1" =~ ^0\ 0\ 0\ [1-9][0-9]*\ 0\ 0\ [1-9][0-9]*$ ]]
}
check "port 0 received on queues 3 and 6 only (per queue: $rx)" only36 "$rx"
check "port 0 transmitted on queues 3 and 6 only (per queue: $tx)" only36 "$tx"
rc=0; stop_primary 30 || rc=$?
check "primary stops on SIGINT and exits 0" [ "$rc" = 0 ]
busy=$(grep -cE "^  worker [01] .* rx [1-9]" "$log" || true)
check "both workers received packets ($busy of 2)" [ "$busy" = 2 ]
assert_clean

# net_ring: no RSS table; queue 1 of 2 has no worker
cat > "$cfg" <<'INI'
[engine]
shape = rss

[port 0]
device = net_ring0
rx_queues = 2

[worker 0]
lcore = 2
INI
start_primary "$log" --lcores "$LCORES" --vdev net_ring0 -- -c "$cfg"
check "engine starts with queue 1 of net_ring0 unpolled ($MODEL build)" \
	wait_for "$log" "running:" 30
check "it says what lands on the unpolled queue is never received" \
	grep -q "port 0 (net_ring0): 1 of its 2 RX queues have no worker: what the driver puts there is never received" "$log"
rc=0; stop_primary 30 || rc=$?
check "primary stops on SIGINT and exits 0" [ "$rc" = 0 ]
assert_clean
finish
