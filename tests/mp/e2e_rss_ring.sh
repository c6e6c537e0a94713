#!/usr/bin/env bash
# The rss shape end to end on net_ring: each worker polls its own queue of every port.
# mpe-ringio plays the NIC: it spreads a capture over port 0's queues by the symmetric flow
# hash and collects what the workers send out of port 1 (rx = off: only transmitted to).
# Usage: e2e_rss_ring.sh WORKERS
. "$(dirname "$0")/lib.sh"

WORKERS=$1
PACKETS=${MPE_TEST_PACKETS:-10000}
FLOWS=${MPE_TEST_FLOWS:-100}

cfg=$TMP/engine.ini
{
	printf '[engine]\nshape = rss\nbackpressure = on\n\n'
	printf '[port 0]\ndevice = net_ring0\npeer = 1\n\n'
	printf '[port 1]\ndevice = net_ring1\nrx = off\n'
	for ((w = 0; w < WORKERS; w++)); do printf '\n[worker %d]\nlcore = %d\n' "$w" $((w + 2)); done
} > "$cfg"
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 11 > /dev/null

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_ring0 --vdev net_ring1 -- -c "$cfg"
check "engine starts with $WORKERS workers polling net_ring queues ($MODEL build)" \
	wait_for "$log" "running:" 30
# the injector is one more DPDK process: an lcore id of its own (5), never a worker's
"$RINGIO" --proc-type=secondary --file-prefix "$PREFIX" --lcores "5@$((5 % NCPU))" --no-pci \
	-- --in-port net_ring0 --out-port net_ring1 --queues "$WORKERS" \
	--inject "$TMP/in.pcap" --collect "$TMP/out.pcap" > "$TMP/ringio.log" 2>&1 && rcio=0 || rcio=$?
check "mpe-ringio got back as many packets as it sent" [ "$rcio" = 0 ]
rc=0
stop_primary 30 || rc=$?
check "primary stops on SIGINT and exits 0" [ "$rc" = 0 ]

in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
check "workers counted every packet in and out ($in in, $out out, $dropped dropped)" \
	cond '[ "${in:-x}" = "$PACKETS" ] && [ "${out:-x}" = "$PACKETS" ] && [ "$dropped" = 0 ]'
if "$PCAPCMP" "$TMP/in.pcap" "$TMP/out.pcap" > "$TMP/cmp" 2>&1; then
	ok "the same packets came out, per-flow order kept"
else
	not_ok "output differs"; cat "$TMP/cmp" "$TMP/ringio.log"
fi
if [ "$WORKERS" -gt 1 ]; then
	busy=$(grep -cE "^  worker [0-9]+ .* rx [1-9]" "$log" || true)
	check "every worker polled packets from its own queue ($busy of $WORKERS)" \
		[ "$busy" = "$WORKERS" ]
fi
assert_clean
finish
