#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tx = workers on net_ring: the I/O lcore receives and hands out, the workers transmit on
# queues of their own (no ring back to the I/O lcore). mpe-ringio plays the NIC: it feeds
# port 0's one queue and collects from every transmit queue of port 1.
# Usage: traffic_tx_workers.sh SHAPE WORKERS [two]  (distributor: every worker transmits;
#                                                pipeline: the last one does)
#   two: ports 0 and 2 both receive (two mpe-ringio), sending to ports 1 and 3, so that a
#        worker's burst holds packets for both: each must leave on its own input's peer
. "$(dirname "$0")/lib.sh"

SHAPE=$1
WORKERS=$2
VARIANT=${3:-}
PACKETS=${MPE_TEST_PACKETS:-10000}
FLOWS=${MPE_TEST_FLOWS:-100}

cfg=$TMP/engine.ini
{
	printf '[engine]\nshape = %s\nio_lcore = 1\nbackpressure = on\ntx = workers\n\n' "$SHAPE"
	printf '[port 0]\ndevice = net_ring0\npeer = 1\n\n'
	printf '[port 1]\ndevice = net_ring1\nrx = off\n'
	if [ "$VARIANT" = two ]; then
		printf '\n[port 2]\ndevice = net_ring2\npeer = 3\n\n'
		printf '[port 3]\ndevice = net_ring3\nrx = off\n'
	fi
	for ((w = 0; w < WORKERS; w++)); do printf '\n[worker %d]\nlcore = %d\n' "$w" $((w + 2)); done
} > "$cfg"
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 13 > /dev/null

sed "s/net_ring1/net_pcap1/" "$cfg" > "$TMP/pcap.ini"
check "--check refuses tx = workers when a port sent to is one only the primary can drive" \
	cond '! "$PRIMARY" --check -c "$TMP/pcap.ini" 2> "$TMP/chk" &&
	      grep -q "tx: workers: port 1.s driver (.net_pcap1.) does not work in secondary" "$TMP/chk"'

log=$TMP/primary.log
vdevs=(--vdev net_ring0 --vdev net_ring1)
[ "$VARIANT" = two ] && vdevs+=(--vdev net_ring2 --vdev net_ring3)
start_primary "$log" --lcores "$LCORES" "${vdevs[@]}" -- -c "$cfg"
check "engine starts, $SHAPE of $WORKERS workers that transmit ($MODEL build)" \
	wait_for "$log" "running:" 30
check "no ring back to the I/O lcore" \
	cond '! grep -q "output rings" "$log" || grep -q "input and 0 output rings" "$log"'
if [ "$VARIANT" = two ]; then
	# a second capture into port 2, out of port 3, by a second mpe-ringio at the same time
	"$PCAPGEN" -o "$TMP/in2.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 14 > /dev/null
	"$RINGIO" --proc-type=secondary --file-prefix "$PREFIX" --lcores "4@$((4 % NCPU))" \
		--no-pci -- --in-port net_ring2 --out-port net_ring3 --inject "$TMP/in2.pcap" \
		--queues 1 --out-queues "$WORKERS" --collect "$TMP/out3.pcap" \
		> "$TMP/ringio2.log" 2>&1 &
	ringio2=$!
fi
ringio --queues 1 --out-queues "$WORKERS" --collect "$TMP/out.pcap" && rcio=0 || rcio=$?
check "mpe-ringio got back as many packets as it sent" [ "$rcio" = 0 ]
if [ "$VARIANT" = two ]; then
	wait "$ringio2" && rcio=0 || rcio=$?
	check "the second mpe-ringio (port 2 to port 3) got back as many as it sent" [ "$rcio" = 0 ]
	PACKETS=$((PACKETS * 2))
fi
d=$(sig_dump)
check "idle, every worker's hand marks its input ring's consumer tail" marks_at_tails "${d:-/none}"
stop_counted "the engine"
check "the same packets came out, per-flow order kept" "$PCAPCMP" -q "$TMP/in.pcap" "$TMP/out.pcap"
if [ "$VARIANT" = two ]; then
	check "port 2's packets came out of port 3, per-flow order kept" \
		"$PCAPCMP" -q "$TMP/in2.pcap" "$TMP/out3.pcap"
fi
if [ "$SHAPE" = distributor ] && [ "$WORKERS" -gt 1 ]; then
	busy=$(grep -cE "^  worker [0-9]+ .* rx [1-9][0-9]* tx [1-9]" "$log" || true)
	check "every worker received and transmitted ($busy of $WORKERS)" [ "$busy" = "$WORKERS" ]
fi
assert_clean
finish
