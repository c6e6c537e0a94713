#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Two I/O lcores ([io 0], [io 1], docs/scaling.md): mpe-ringio plays a NIC with two RX queues
# on net_ring, spreading flows over them by the symmetric hash; each I/O lcore polls one of
# them, and transmits on a TX queue of its own what came in through it: in the pipeline each
# I/O lcore's packets keep to a lane of their own through both stages (mpe_w0_w1,
# mpe_w0_w1_l1). With TX1, [io 1] only receives and the pipeline has one lane, to [io 0].
# Checks: the output holds exactly the input's packets, per-flow order kept; nothing
# dropped; each I/O lcore received some, and transmitted some where it transmits; every mbuf
# back.
# Usage: traffic_io2.sh SHAPE [TX1]   (distributor or pipeline; TX1: tx1 for one transmitter)
. "$(dirname "$0")/lib.sh"

SHAPE=${1:-distributor}
TX1=${2:-}
io1_tx=
[ "$TX1" = tx1 ] && io1_tx='tx = off'

PACKETS=${MPE_TEST_PACKETS:-20000}
if [ "$SHAPE" = pipeline ]; then
	workers='[worker 0]
lcore = 2
stages = parse,flow

[worker 1]
lcore = 3
stages = fwd'
else
	workers='[worker 0]
lcore = 2
stages = parse,flow,fwd

[worker 1]
lcore = 3
stages = parse,flow,fwd'
fi
cat > "$TMP/engine.ini" <<EOF2
[engine]
shape = $SHAPE
backpressure = on

[port 0]
device = net_ring0
peer = 1
rx_queues = 2

[port 1]
device = net_ring1
rx = off

[io 0]
lcore = 1

[io 1]
lcore = 4
$io1_tx

$workers
EOF2
"$PRIMARY" --check -c "$TMP/engine.ini" > "$TMP/check.out" 2>&1 || true
check "--check accepts two I/O lcores and says what each polls" \
	cond 'grep -q ": OK: shape" "$TMP/check.out" &&
	      grep -q "^I/O lcore 1 (\[io 0\]): receives from port 0 queue 0; transmits on TX queue 0" "$TMP/check.out" &&
	      grep -q "^I/O lcore 4 (\[io 1\]): receives from port 0 queue 1; \(transmits on TX queue 1\|what it receives leaves through \[io 0\]\)" "$TMP/check.out"'
[ "$SHAPE" = pipeline ] && [ -z "$TX1" ] &&
	check "--check says the pipeline has a lane to each I/O lcore" \
		grep -q "^pipeline lanes: 2, one to each I/O lcore that transmits" "$TMP/check.out"
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f 200 --bidir --seed 5 > /dev/null
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_ring0 --vdev net_ring1 -- -c "$TMP/engine.ini"
check "engine runs, $SHAPE, two I/O lcores ($MODEL build)" wait_for "$log" "running:" 60
if [ -n "$TX1" ]; then
	check "each I/O lcore polls a queue, [io 0] transmits" \
		cond 'grep -q "I/O loop 0 on lcore 1: 1 port queues, TX queue 0" "$log" &&
		      grep -q "I/O loop 1 on lcore 4: 1 port queues, receive only" "$log"'
else
	io2_own_queues
fi
rc=0
ringio --queues 2 --timeout 5000 --collect "$TMP/out.pcap" || rc=$?
check "mpe-ringio got back as many packets as it sent" [ "$rc" = 0 ]
check "the same packets came out, per-flow order kept" "$PCAPCMP" -q "$TMP/in.pcap" "$TMP/out.pcap"
rings=8
[ "$SHAPE" = pipeline ] && rings=6 # io -> w0 twice, w0 -> w1 on each lane, w1 -> io twice
[ "$SHAPE" = pipeline ] && [ -n "$TX1" ] && rings=4 # io -> w0 twice, w0 -> w1, w1 -> io
check "the start log says where the pool and the $rings rings went (one socket: none far)" \
	grep -q "placement: mbuf pool on socket 0, $rings rings and the flow tables on their consumers' sockets, 0 polling lcores" "$log"
if [ "$SHAPE" = pipeline ]; then
	"$CLIENT" "$PREFIX" /mpe/rings > "$TMP/rings.json"
	names='["mpe_io1_w0", "mpe_io_w0", "mpe_w0_w1", "mpe_w0_w1_l1", "mpe_w1_io", "mpe_w1_io1"]'
	[ -n "$TX1" ] && names='["mpe_io1_w0", "mpe_io_w0", "mpe_w0_w1", "mpe_w1_io"]'
	JTEST_DEFS="names = $names" check "/mpe/rings lists the pipeline's rings: $names" \
		jtest "$TMP/rings.json" 'sorted(v) == names'
fi
"$CTL" -p "$PREFIX" info > "$TMP/ctl_info.txt" 2>&1
check "mpe-ctl info lists both I/O lcores" grep -qE "^ *io_lcore +1, 4 *$" "$TMP/ctl_info.txt"
if [ "$SHAPE" = pipeline ] && [ -z "$TX1" ]; then
	"$CTL" -p "$PREFIX" rings > "$TMP/ctl_rings.txt" 2>&1
	check "mpe-ctl rings shows lane 1 between the stages" grep -qE "^ *mpe_w0_w1_l1 " "$TMP/ctl_rings.txt"
fi
"$CLIENT" "$PREFIX" /mpe/info > "$TMP/info.json"
check "/mpe/info lists both I/O lcores" jtest "$TMP/info.json" 'v["io_lcores"] == [1, 4] and v["io_lcore"] == 1'
"$CLIENT" "$PREFIX" /mpe/stats > "$TMP/stats.json"
JTEST_DEFS="N = $PACKETS" check "in = out = $PACKETS, nothing dropped" \
	jtest "$TMP/stats.json" 'v["in"] == N and v["out"] == N and v["dropped"] == 0'
kill -USR1 "$PRIMARY_PID"
for ((i = 0; i < 100; i++)); do grep -q "dump: written to" "$log" && break; sleep 0.05; done
dump=$(sed -n 's/.*dump: written to \(.*\)$/\1/p' "$log" | tail -1)
check "each I/O lcore received, and sent what came in through it where it transmits (dump: $(basename "${dump:-none}"))" \
	python3 - "${dump:-/nonexistent}" "${TX1:-both}" "$PACKETS" <<'PY'
import re, sys
text, tx, n = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3])
ios = [(int(a), int(b)) for a, b in
       re.findall(r"^io lcore \d+: .*, from the ports (\d+), to the ports (\d+)$", text, re.M)]
print("# from / to the ports, per I/O lcore:", ios)
ok = len(ios) == 2 and all(got > 0 for got, _ in ios) and sum(g for g, _ in ios) == n
ok = ok and sum(s for _, s in ios) == n
# each transmits what came in through it (in the pipeline: its lane), or [io 0] everything
ok = ok and (ios[1][1] == 0 if tx == "tx1" else all(s == got for got, s in ios))
sys.exit(0 if ok else 1)
PY
stop_counted "the summary"
check "every mbuf is back in the pool, once" grep -q "mempool: every mbuf back in the pool, once" "$log"
assert_clean
finish
