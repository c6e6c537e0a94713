#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Forwarding end to end on two net_pcap ports, both directions:
#   in0.pcap -> port 0 -> workers -> port 1 -> out1.pcap
#   in1.pcap -> port 1 -> workers -> port 0 -> out0.pcap
# Usage: traffic_forward.sh SHAPE WORKERS [lossless|lossy|mac|malformed|chained|io2]
#   lossless: backpressure on; every packet must come out, per-flow order kept
#   lossy:    tiny rings, no backpressure; what does not come out is counted as dropped
#   mac:      lossless, and port 1 rewrites the destination MAC
#   malformed: lossless, port 0's capture also holds malformed frames, which the parse stage
#             (pipeline of 3: worker 0) must drop and count by reason
#   chained:  lossless, port 0's capture holds frames of 3000 and 9000 bytes, which net_pcap
#             receives as chains of 2048-byte mbufs: the parse stage (pipeline of 3) must take
#             them as well formed
#   io2:      lossless, two I/O lcores ([io 0], [io 1]), a port each; each transmits on a TX
#             queue of its own (net_pcap: a tx_pcap each, merged afterwards), in the pipeline
#             at the end of a lane of its own
. "$(dirname "$0")/lib.sh"

SHAPE=$1
WORKERS=$2
VARIANT=${3:-lossless}
PACKETS=${MPE_TEST_PACKETS:-10000}
FLOWS=${MPE_TEST_FLOWS:-100}
DST_MAC=02:11:22:33:44:55

cfg=$TMP/engine.ini
{
	echo "[engine]"
	echo "shape = $SHAPE"
	[ "$VARIANT" = io2 ] || echo "io_lcore = 1"
	if [ "$VARIANT" = lossy ]; then
		echo "backpressure = off"
		echo "ring_size = 64"
		echo "burst = 64"
	else
		echo "backpressure = on"
	fi
	echo
	echo "[port 0]"
	echo "device = net_pcap0"
	echo "peer = 1"
	echo
	echo "[port 1]"
	echo "device = net_pcap1"
	echo "peer = 0"
	[ "$VARIANT" = mac ] && echo "dst_mac = $DST_MAC"
	for ((w = 0; w < WORKERS; w++)); do
		echo
		echo "[worker $w]"
		echo "lcore = $((w + 2))"
		# a pipeline's last worker forwards; before it: parse first, then flowhash
		if [ "$SHAPE" != pipeline ] || [ "$w" = $((WORKERS - 1)) ]; then
			echo "stages = fwd"
		elif [ "$w" = 0 ] && [ "$WORKERS" -gt 2 ]; then
			echo "stages = parse"
		else
			echo "stages = flowhash"
		fi
	done
	[ "$VARIANT" = io2 ] && printf '\n[io 0]\nlcore = 1\n\n[io 1]\nlcore = 5\n'
} > "$cfg"

BAD=40 # malformed frames: 10 of each kind mpe-pcapgen makes
sizes=()
[ "$VARIANT" = chained ] && sizes=(--sizes 64,1500,3000,9000)
"$PCAPGEN" -o "$TMP/in0.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 7 "${sizes[@]}" > /dev/null
if [ "$VARIANT" = malformed ]; then
	mv "$TMP/in0.pcap" "$TMP/in0-good.pcap"
	"$PCAPGEN" -o "$TMP/in0.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 7 --malformed "$BAD" \
		> /dev/null
fi
"$PCAPGEN" -o "$TMP/in1.pcap" -n $((PACKETS / 10)) -f $((FLOWS / 10 + 1)) --vlan 10 --seed 8 \
	> /dev/null
n0=$(pcap_count "$TMP/in0.pcap")
n1=$(pcap_count "$TMP/in1.pcap")

log=$TMP/primary.log
# a TX queue for each I/O lcore that transmits: a capture each
txq=1
[ "$VARIANT" = io2 ] && txq=2
tx0=() tx1=()
for ((q = 0; q < txq; q++)); do tx0+=("tx_pcap=$TMP/out0q$q.pcap"); tx1+=("tx_pcap=$TMP/out1q$q.pcap"); done
start_primary "$log" --lcores "$LCORES" \
	--vdev "$(IFS=,; echo "net_pcap0,rx_pcap=$TMP/in0.pcap,${tx0[*]}")" \
	--vdev "$(IFS=,; echo "net_pcap1,rx_pcap=$TMP/in1.pcap,${tx1[*]}")" \
	-- -c "$cfg" --idle-exit 1000
rc=0
wait_exit "$PRIMARY_PID" 120 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
for p in 0 1; do
	if [ "$txq" = 1 ]; then
		mv "$TMP/out${p}q0.pcap" "$TMP/out$p.pcap"
	else
		mergecap -a -F pcap -w "$TMP/out$p.pcap" "$TMP/out${p}q"*.pcap
	fi
done
if [ "$VARIANT" = io2 ]; then
	check "each I/O lcore polled a port" \
		cond 'grep -q "I/O loop 0 on lcore 1: 1 port queues" "$log" &&
		      grep -q "I/O loop 1 on lcore 5: 1 port queues" "$log"'
fi
check "primary exits 0 after the captures are replayed ($MODEL build, $SHAPE, $WORKERS workers, $VARIANT)" \
	[ "$rc" = 0 ]
grep -q "mpe summary ($MODEL build, shape $SHAPE, $WORKERS workers)" "$log" \
	&& ok "summary names the build, shape and workers" || not_ok "summary header"

in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
unacc=$(total unaccounted "$log")
check "engine counted every packet in ($in = $n0 + $n1)" [ "${in:-x}" = $((n0 + n1)) ]
check "in = out + dropped ($in = $out + $dropped), nothing unaccounted" \
	cond '[ "${unacc:-x}" = 0 ] && [ -n "$out" ] && [ $((out + dropped)) = "$in" ]'
o0=$(pcap_count "$TMP/out0.pcap"); o1=$(pcap_count "$TMP/out1.pcap")
check "the captures hold what the engine says it sent ($o0 + $o1 = $out)" \
	[ $((o0 + o1)) = "${out:-x}" ]

case $VARIANT in
malformed)
	check "the $BAD malformed frames, and nothing else, were dropped by the parse stage" \
		cond '[ "$dropped" = "$BAD" ] && grep -q "^total:.* verdict $BAD " "$log"'
	check "each counted under its reason" \
		grep -q "^    malformed: short_ipv4 10 ipv4_ihl 10 ipv4_total_len 10 tcp_doff 10$" "$log"
	if "$PCAPCMP" "$TMP/in0-good.pcap" "$TMP/out1.pcap" > "$TMP/cmp1" 2>&1; then
		ok "port 0 -> port 1: exactly the good packets, per-flow order kept"
	else
		not_ok "port 0 -> port 1 differs"; cat "$TMP/cmp1"
	fi
	;;
lossless|mac|chained|io2)
	check "nothing dropped" [ "$dropped" = 0 ]
	if [ "$VARIANT" = chained ]; then
		check "no frame counted malformed" cond '! grep -q "malformed:" "$log"'
		# a pipeline: worker 0 (parse) has every frame of both ports in its hands
		check "the parse stage saw every frame" \
			grep -qE "^  worker 0 .* rx $((n0 + n1)) " "$log"
	fi
	cmpargs=()
	[ "$VARIANT" = mac ] && cmpargs=(--expect-dst-mac "$DST_MAC")
	if "$PCAPCMP" "${cmpargs[@]}" "$TMP/in0.pcap" "$TMP/out1.pcap" > "$TMP/cmp1" 2>&1; then
		ok "port 0 -> port 1: the same packets, per-flow order kept"
	else
		not_ok "port 0 -> port 1 differs"; cat "$TMP/cmp1"
	fi
	if "$PCAPCMP" "$TMP/in1.pcap" "$TMP/out0.pcap" > "$TMP/cmp0" 2>&1; then
		ok "port 1 -> port 0: the same packets, per-flow order kept"
	else
		not_ok "port 1 -> port 0 differs"; cat "$TMP/cmp0"
	fi
	;;
lossy)
	# with 64-slot rings and no backpressure some packets must be dropped, each counted
	ring_full=$(sed -n 's/^total:.* ring_full \([0-9]*\).*/\1/p' "$log")
	check "drops happened and are all counted as ring_full ($dropped = ${ring_full:-0})" \
		cond '[ "$dropped" -gt 0 ] && [ "${ring_full:-0}" = "$dropped" ]'
	# what did come out is a per-flow-ordered subset: no extra, no reordered packets
	"$PCAPCMP" "$TMP/in0.pcap" "$TMP/out1.pcap" > "$TMP/cmp1" 2>&1 || true
	if grep -q "extra=0 reordered=0" "$TMP/cmp1"; then
		ok "what came out was sent in, in per-flow order"
	else
		not_ok "what came out is not an ordered subset of what went in"; cat "$TMP/cmp1"
	fi
	;;
esac

if [ "$WORKERS" -gt 1 ] && [ "$SHAPE" = distributor ]; then
	busy=$(grep -cE "^  worker [0-9]+ .* rx [1-9]" "$log" || true)
	check "the distributor fed all $WORKERS workers ($busy did work)" [ "$busy" = "$WORKERS" ]
fi
assert_clean
finish
