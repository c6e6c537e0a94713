#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The rss shape end to end on net_ring: each worker polls its own queue of every port.
# mpe-ringio plays the NIC: it spreads a capture over port 0's queues by the symmetric flow
# hash and collects what the workers send out of port 1 (rx = off: only transmitted to).
# Usage: traffic_rss_ring.sh WORKERS [inspect]
#   inspect: the workers run parse, flow, acl (count TCP), fwd: each flow lives in one
#            worker's table only, and every packet is classified once
. "$(dirname "$0")/lib.sh"

WORKERS=$1
VARIANT=${2:-}
PACKETS=${MPE_TEST_PACKETS:-10000}
FLOWS=${MPE_TEST_FLOWS:-100}

cfg=$TMP/engine.ini
{
	printf '[engine]\nshape = rss\nbackpressure = on\n\n'
	if [ "$VARIANT" = inspect ]; then printf 'rules = %s\n\n' "$TMP/count.rules"; fi
	printf '[port 0]\ndevice = net_ring0\npeer = 1\n\n'
	printf '[port 1]\ndevice = net_ring1\nrx = off\n'
	for ((w = 0; w < WORKERS; w++)); do
		printf '\n[worker %d]\nlcore = %d\n' "$w" $((w + 2))
		if [ "$VARIANT" = inspect ]; then printf 'stages = parse, flow, acl, fwd\n'; fi
	done
} > "$cfg"
printf '%s\n' "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff count 10" \
	"@::/0 ::/0 0 : 65535 0 : 65535 6/0xff count 10" > "$TMP/count.rules"
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 11 > /dev/null

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_ring0 --vdev net_ring1 -- -c "$cfg"
check "engine starts with $WORKERS workers polling net_ring queues ($MODEL build)" \
	wait_for "$log" "running:" 30
ringio --queues "$WORKERS" --collect "$TMP/out.pcap" && rcio=0 || rcio=$?
check "mpe-ringio got back as many packets as it sent" [ "$rcio" = 0 ]
stop_counted "workers"
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
if [ "$VARIANT" = inspect ]; then
	flows=$(sed -n 's/^  worker [0-9]* flows: active [0-9]* created \([0-9]*\) .*/\1/p' "$log" |
		awk '{s += $1} END {print s + 0}')
	check "each of the $FLOWS flows lives in one worker's table only (created $flows in all)" \
		[ "$flows" = "$FLOWS" ]
	tcp=$(tcpdump -nr "$TMP/in.pcap" tcp 2> /dev/null | wc -l)
	hits=$(grep "hits: default" "$log" || true)
	check "every packet classified once: $((PACKETS - tcp)) by default, $tcp TCP by the count rules: $hits" \
		cond '[[ "$hits" == *"default (allow) $((PACKETS - tcp))"* ]] &&
		      [ $(echo "$hits" | grep -o "count) [0-9]*" | awk "{s += \$2} END {print s}") = "$tcp" ]'
fi
assert_clean
finish
