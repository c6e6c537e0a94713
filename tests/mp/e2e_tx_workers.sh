#!/usr/bin/env bash
# tx = workers on net_ring: the I/O lcore receives and hands out, the workers transmit on
# queues of their own (no ring back to the I/O lcore). mpe-ringio plays the NIC: it feeds
# port 0's one queue and collects from every transmit queue of port 1.
# Usage: e2e_tx_workers.sh SHAPE WORKERS   (distributor: every worker transmits; pipeline:
#                                           the last one does)
. "$(dirname "$0")/lib.sh"

SHAPE=$1
WORKERS=$2
PACKETS=${MPE_TEST_PACKETS:-10000}
FLOWS=${MPE_TEST_FLOWS:-100}

cfg=$TMP/engine.ini
{
	printf '[engine]\nshape = %s\nio_lcore = 1\nbackpressure = on\ntx = workers\n\n' "$SHAPE"
	printf '[port 0]\ndevice = net_ring0\npeer = 1\n\n'
	printf '[port 1]\ndevice = net_ring1\nrx = off\n'
	for ((w = 0; w < WORKERS; w++)); do printf '\n[worker %d]\nlcore = %d\n' "$w" $((w + 2)); done
} > "$cfg"
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 13 > /dev/null

sed "s/net_ring1/net_pcap1/" "$cfg" > "$TMP/pcap.ini"
check "--check refuses tx = workers when a port sent to is one only the primary can drive" \
	cond '! "$PRIMARY" --check -c "$TMP/pcap.ini" 2> "$TMP/chk" &&
	      grep -q "tx: workers: port 1.s driver (.net_pcap1.) does not work in secondary" "$TMP/chk"'

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_ring0 --vdev net_ring1 -- -c "$cfg"
check "engine starts, $SHAPE of $WORKERS workers that transmit ($MODEL build)" \
	wait_for "$log" "running:" 30
check "no ring back to the I/O lcore" \
	cond '! grep -q "output rings" "$log" || grep -q "input and 0 output rings" "$log"'
ringio --queues 1 --out-queues "$WORKERS" --collect "$TMP/out.pcap" && rcio=0 || rcio=$?
check "mpe-ringio got back as many packets as it sent" [ "$rcio" = 0 ]
stop_counted "the engine"
check "the same packets came out, per-flow order kept" "$PCAPCMP" -q "$TMP/in.pcap" "$TMP/out.pcap"
if [ "$SHAPE" = distributor ] && [ "$WORKERS" -gt 1 ]; then
	busy=$(grep -cE "^  worker [0-9]+ .* rx [1-9][0-9]* tx [1-9]" "$log" || true)
	check "every worker received and transmitted ($busy of $WORKERS)" [ "$busy" = "$WORKERS" ]
fi
assert_clean
finish
