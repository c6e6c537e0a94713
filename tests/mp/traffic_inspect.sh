#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The inspection stages end to end: parse, flow, acl (with a rules file) and fwd, a mirror
# port, on two net_pcap ports plus a transmit-only mirror port.
#   in0.pcap (good frames + malformed ones) -> port 0 -> workers -> port 1 -> out1.pcap
#   in1.pcap (UDP only)                     -> port 1 -> workers -> port 0 -> out0.pcap
#   copies of what the mirror rule matched  ->                      port 2 -> mirror.pcap
# The expected captures come from tcpdump filters that say the same as the rules, so the
# engine's verdicts are checked against an independent matcher; so are the per-rule hits.
# Usage: traffic_inspect.sh SHAPE WORKERS   (pipeline 3: parse | flow | acl, fwd;
#                                         otherwise every worker runs parse, flow, acl, fwd)
. "$(dirname "$0")/lib.sh"

SHAPE=$1
WORKERS=$2
PACKETS=${MPE_TEST_PACKETS:-6000}
FLOWS=200
BAD=40 # malformed frames: 10 of each kind mpe-pcapgen makes
tel() { python3 "$CLIENT" "$PREFIX" "$1"; }

# Rules, highest priority first. mpe-pcapgen puts one end of each IPv4 flow in 10.0.0.0/9
# and the other in 10.128.0.0/9, IPv6 ends in fd00:0:0:1::/64 and fd00:0:0:2::/64.
cat > "$TMP/rules.txt" << 'EOF'
# allow everything towards 10.192.0.0/10, whatever the rules below say
@0.0.0.0/0 10.192.0.0/10 0 : 65535 0 : 65535 0/0 allow 60
@10.0.0.0/9 0.0.0.0/0 0 : 65535 0 : 65535 17/0xff drop 50

@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 32767 6/0xff mirror 40
@fd00:0:0:2::/64 ::/0 0 : 65535 30000 : 65535 0/0 drop 30
@fd00:0:0:1::/64 ::/0 0 : 65535 0 : 65535 17/0xff count 20
EOF
# the same, as pcap filters (one per rule: what that rule wins)
F0='ip and dst net 10.192.0.0/10'
F1='ip and udp and src net 10.0.0.0/9 and not dst net 10.192.0.0/10'
F2='ip and tcp and tcp dst portrange 0-32767 and not dst net 10.192.0.0/10'
F3='ip6 and src net fd00:0:0:2::/64 and dst portrange 30000-65535'
F4='ip6 and udp and src net fd00:0:0:1::/64'
DROPPED="($F1) or ($F3)"

cfg=$TMP/engine.ini
{
	echo "[engine]"
	echo "shape = $SHAPE"
	echo "io_lcore = 1"
	echo "backpressure = on"
	echo "rules = rules.txt"
	echo "mirror_port = 2"
	echo
	echo "[port 0]"
	echo "device = net_pcap0"
	echo "[port 1]"
	echo "device = net_pcap1"
	echo "[port 2]"
	echo "device = net_pcap2"
	echo "rx = off"
	for ((w = 0; w < WORKERS; w++)); do
		echo "[worker $w]"
		echo "lcore = $((w + 2))"
		if [ "$SHAPE" != pipeline ]; then
			echo "stages = parse, flow, acl, fwd"
		elif [ "$w" = 0 ]; then
			echo "stages = parse"
		elif [ "$w" = 1 ]; then
			echo "stages = flow"
		else
			echo "stages = acl, fwd"
		fi
	done
} > "$cfg"

"$PCAPGEN" -o "$TMP/good0.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 11 > /dev/null
"$PCAPGEN" -o "$TMP/in0.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 11 --malformed "$BAD" \
	> /dev/null
"$PCAPGEN" -o "$TMP/in1.pcap" -n $((PACKETS / 10)) -f 20 --udp 100 --seed 12 > /dev/null
n0=$(pcap_count "$TMP/in0.pcap")
n1=$(pcap_count "$TMP/in1.pcap")
total=$((n0 + n1))
good=$((total - BAD))

# expected: what no drop rule wins, and the mirror rule's packets
tcpdump -r "$TMP/good0.pcap" -w "$TMP/exp1.pcap" "not (($DROPPED))" 2> /dev/null
tcpdump -r "$TMP/in1.pcap" -w "$TMP/exp0.pcap" "not (($DROPPED))" 2> /dev/null
tcpdump -r "$TMP/good0.pcap" -w "$TMP/expm.pcap" "$F2" 2> /dev/null
count() { # FILTER: packets of both good inputs it matches
	echo $(($(tcpdump -nr "$TMP/good0.pcap" "$1" 2> /dev/null | wc -l) +
		$(tcpdump -nr "$TMP/in1.pcap" "$1" 2> /dev/null | wc -l)))
}
want=()
for f in "$F0" "$F1" "$F2" "$F3" "$F4"; do want+=("$(count "$f")"); done
want_default=$good
for h in "${want[@]}"; do want_default=$((want_default - h)); done
want_dropped=$(count "$DROPPED")
check "the rules hit every kind of packet in the captures (${want[*]}, default $want_default)" \
	cond '[ "${want[0]}" -gt 0 ] && [ "${want[1]}" -gt 0 ] && [ "${want[2]}" -gt 0 ] &&
	      [ "${want[3]}" -gt 0 ] && [ "${want[4]}" -gt 0 ] && [ "$want_default" -gt 0 ]'

check "--check accepts the configuration and its rules file" \
	"$PRIMARY" --check -c "$cfg"

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in0.pcap,tx_pcap=$TMP/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$TMP/in1.pcap,tx_pcap=$TMP/out1.pcap" \
	--vdev "net_pcap2,tx_pcap=$TMP/mirror.pcap" \
	-- -c "$cfg"
wait_for "$log" "running:" 60 || true

# every packet in, and every one out or dropped: then ask telemetry while the engine runs
settled=0
for ((i = 0; i < 600; i++)); do
	kill -0 "$PRIMARY_PID" 2> /dev/null || break # gone: no use asking for a minute
	s=$(tel /mpe/stats 2> /dev/null) || { sleep 0.1; continue; }
	if [ "$(echo "$s" | jq_py 'd["in"] == d["out"] + d["dropped"] == '"$total")" = True ]; then
		settled=1
		break
	fi
	sleep 0.1
done
check "all $total packets received and accounted for while the engine runs" [ "$settled" = 1 ]

acl=$(tel /mpe/acl)
got=$(echo "$acl" | jq_py '" ".join(str(d["rules"][str(i)]["hits"]) for i in range(5))')
check "/mpe/acl: per-rule hits match the pcap filters (${want[*]}): got $got" \
	[ "$got" = "${want[*]}" ]
got=$(echo "$acl" | jq_py 'd["default_hits"], d["default_action"], d["generation"], d["nb_rules"]')
check "/mpe/acl: default hits $want_default (allow), generation 1, 5 rules: got $got" \
	[ "$got" = "$want_default allow 1 5" ]
got=$(echo "$acl" | jq_py 'd["rules"]["2"]["action"], d["rules"]["2"]["line"], d["rules"]["2"]["priority"]')
check "/mpe/acl: rule 2 is the mirror rule of line 5, priority 40: got $got" \
	[ "$got" = "mirror 5 40" ]

# every flow lives in exactly one table: the sum over the workers is the number of flows
flow_workers=$(seq 0 $((WORKERS - 1)))
[ "$SHAPE" = pipeline ] && flow_workers=1
flows=0 lookups=0 hits=0
for w in $flow_workers; do
	f=$(tel "/mpe/flows,$w")
	flows=$((flows + $(echo "$f" | jq_py 'd["inserted"]')))
	lookups=$((lookups + $(echo "$f" | jq_py 'd["lookups"]')))
	hits=$((hits + $(echo "$f" | jq_py 'd["cache_hits"]')))
done
check "flow tables hold $((FLOWS + 20)) flows in all (no flow split between workers): $flows" \
	[ "$flows" = $((FLOWS + 20)) ]
# a flow's first packet cannot come from the cache; most of the others do
check "flow cache: $hits of $lookups lookups, at most all but each flow's first, over half" \
	[ "$hits" -le $((lookups - flows)) -a $((2 * hits)) -gt "$lookups" ]
w=$(echo $flow_workers | cut -d" " -f1)
top=$(tel "/mpe/flows,$w" | jq_py 'len(d["top"]), d["top"]["0"]["bytes_ab"] + d["top"]["0"]["bytes_ba"] >= d["top"]["1"]["bytes_ab"] + d["top"]["1"]["bytes_ba"], d["top"]["0"]["packets_ab"] > 0')
check "/mpe/flows,$w: ten top flows, largest first: $top" [ "$top" = "10 True True" ]
# the top flow's ends as the captures have them: tcpdump finds its packets from a to b
top=$(tel "/mpe/flows,$w")
flt=$(echo "$top" | jq_py '"src host %s and src port %s and dst host %s and dst port %s" % (
	*d["top"]["0"]["a"].replace("[", "").replace("]", "").rsplit(":", 1),
	*d["top"]["0"]["b"].replace("[", "").replace("]", "").rsplit(":", 1))')
ab=$(echo "$top" | jq_py 'd["top"]["0"]["packets_ab"]')
check "/mpe/flows,$w: the top flow's ends as in the captures ($flt): $ab packets a to b" \
	[ "$(count "$flt")" = "$ab" ]
bad=0
for ((w = 0; w < WORKERS; w++)); do
	bad=$((bad + $(tel "/mpe/workers,$w" | jq_py 'sum(d["malformed"].values())')))
done
check "/mpe/workers,W: the $BAD malformed frames, by reason, summed over the workers: $bad" \
	[ "$bad" = "$BAD" ]
check "/mpe/flows without a worker number is refused" \
	cond '! tel /mpe/flows,99 > /dev/null 2>&1 || [ "$(tel /mpe/flows,99)" = null ]'

rc=0
stop_primary || rc=$?
PRIMARY_PID=
check "primary stops cleanly ($MODEL build, $SHAPE, $WORKERS workers)" [ "$rc" = 0 ]

check "port 1 sent exactly the allowed packets of port 0's capture, per-flow order kept" \
	"$PCAPCMP" -q "$TMP/exp1.pcap" "$TMP/out1.pcap"
check "port 0 sent exactly the allowed packets of port 1's capture" \
	"$PCAPCMP" -q "$TMP/exp0.pcap" "$TMP/out0.pcap"
check "the mirror port got a copy of each packet the mirror rule matched" \
	"$PCAPCMP" -q "$TMP/expm.pcap" "$TMP/mirror.pcap"
line=$(grep "^total:" "$log" || true)
check "summary: in $total, dropped $((want_dropped + BAD)) by verdict, nothing unaccounted: $line" \
	cond '[[ "$line" == "total: in $total out $((good - want_dropped)) dropped $((want_dropped + BAD)) verdict $((want_dropped + BAD)) unaccounted 0" ]]'
reasons=$(grep -o "malformed:.*" "$log" | tr -d ',' | python3 -c '
import sys, collections
c = collections.Counter()
for line in sys.stdin:
    w = line.split()[1:]
    for k, v in zip(w[::2], w[1::2]):
        c[k] += int(v)
print(" ".join("%s=%d" % kv for kv in sorted(c.items())))')
check "summary: malformed frames by reason, 10 of each kind: $reasons" \
	cond '[ "$(echo "$reasons" | wc -w)" = 4 ] && ! echo "$reasons" | grep -qv "=10\b" &&
	      [ "$(echo "$reasons" | grep -o "=10" | wc -l)" = 4 ]'
line=$(grep "mirror (port 2)" "$log" || true)
check "summary: ${want[2]} mirror copies, none lost: $line" \
	cond '[[ "$line" == *"copies ${want[2]} not sent 0"* ]]'
check "every mbuf back in the pool" grep -q "every mbuf back in the pool" "$log"
assert_clean
finish
