#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The engine on a real wire: two net_af_packet ports bound to veth ends in the root namespace;
# their peers live in a network namespace of the test, where tcpreplay sends a capture and
# tcpdump records what comes out of the other side.
#
#   netns: tcpreplay -> vA1 ==veth== vA0 -> port 0 -> engine -> port 1 -> vB0 ==veth== vB1 -> tcpdump
#
# Usage: traffic_afpacket.sh SHAPE WORKERS [QPAIRS [IO]]   (QPAIRS > 1: af_packet queues, the
# I/O lcore polls them all; the kernel's fanout spreads flows over them. IO 2: two I/O lcores,
# the queues dealt out between them, each transmitting on a queue of its own, in a pipeline
# at the end of a lane of its own)
. "$(dirname "$0")/lib.sh"

SHAPE=$1
WORKERS=$2
QPAIRS=${3:-1}
IO=${4:-1}
PACKETS=${MPE_TEST_PACKETS:-10000}
FLOWS=${MPE_TEST_FLOWS:-100}
NS=$PREFIX
ID=$(($$ % 100000))
A0=m${ID}a0 A1=m${ID}a1 B0=m${ID}b0 B1=m${ID}b1
TCPDUMP_PID=

for tool in ip tcpreplay tcpdump; do
	command -v "$tool" > /dev/null || { not_ok "$tool is not installed"; finish; }
done

test_cleanup() {
	[ -n "$TCPDUMP_PID" ] && kill -9 "$TCPDUMP_PID" 2> /dev/null
	ip netns del "$NS" 2> /dev/null
	ip link del "$A0" 2> /dev/null
	ip link del "$B0" 2> /dev/null
	return 0
}

ip netns add "$NS"
ip link add "$A0" type veth peer name "$A1" netns "$NS"
ip link add "$B0" type veth peer name "$B1" netns "$NS"
# no IPv6 and no addresses: the kernel sends nothing of its own on these links
for i in "$A0" "$B0"; do
	sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1"
	ip link set "$i" up
done
for i in "$A1" "$B1"; do
	ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$i.disable_ipv6=1"
	ip netns exec "$NS" ip link set "$i" up
done

cfg=$TMP/engine.ini
{
	if [ "$IO" = 2 ]; then
		printf '[engine]\nshape = %s\nbackpressure = on\n\n' "$SHAPE"
		printf '[io 0]\nlcore = 1\n\n[io 1]\nlcore = 4\n\n'
	else
		printf '[engine]\nshape = %s\nio_lcore = 1\nbackpressure = on\n\n' "$SHAPE"
	fi
	printf '[port 0]\ndevice = net_af_packet0\npeer = 1\nrx_queues = %d\n\n' "$QPAIRS"
	printf '[port 1]\ndevice = net_af_packet1\npeer = 0\nrx_queues = %d\n' "$QPAIRS"
	for ((w = 0; w < WORKERS; w++)); do
		stage=fwd
		if [ "$SHAPE" = pipeline ] && [ "$w" -lt $((WORKERS - 1)) ]; then stage=flowhash; fi
		printf '\n[worker %d]\nlcore = %d\nstages = %s\n' "$w" $((w + 2)) "$stage"
	done
} > "$cfg"
# frames up to 1400 bytes, so that a VLAN tag still fits the veth MTU
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f "$FLOWS" --sizes 64,128,512,1024,1400 --bidir \
	--vlan 100 --seed 21 > /dev/null

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_af_packet0,iface=$A0,qpairs=$QPAIRS" \
	--vdev "net_af_packet1,iface=$B0,qpairs=$QPAIRS" -- -c "$cfg"
check "engine runs on af_packet ports ($MODEL build, $SHAPE, $WORKERS workers, $QPAIRS queues)" \
	wait_for "$log" "running:" 30

ip netns exec "$NS" tcpdump -Q in -i "$B1" -U -w "$TMP/out.pcap" 2> "$TMP/tcpdump.log" &
TCPDUMP_PID=$!
for ((i = 0; i < 100; i++)); do
	grep -q "listening on" "$TMP/tcpdump.log" && break
	sleep 0.05
done
# a paced replay: the test checks forwarding, not how fast a veth can go on a busy machine
ip netns exec "$NS" tcpreplay -q -i "$A1" --pps 5000 "$TMP/in.pcap" > "$TMP/tcpreplay.log" 2>&1
check "tcpreplay sent the capture" grep -q "Failed packets: *0" "$TMP/tcpreplay.log"

# wait until tcpdump has seen as many packets as were sent, or nothing more arrives
last=-1
for ((i = 0; i < 100; i++)); do
	n=$(pcap_count "$TMP/out.pcap" 2> /dev/null || true)
	n=${n:-0}
	[ "$n" -ge "$PACKETS" ] && break
	[ "$n" = "$last" ] && [ "$i" -gt 20 ] && break
	last=$n
	sleep 0.1
done
kill -INT "$TCPDUMP_PID"
wait "$TCPDUMP_PID" 2> /dev/null || true
TCPDUMP_PID=
dump=$TMP/dump.txt
# the dump lives in the runtime directory, which goes with the engine
[ "$IO" = 2 ] && cp "$(sig_dump)" "$dump"
stop_counted "engine"
if "$PCAPCMP" "$TMP/in.pcap" "$TMP/out.pcap" > "$TMP/cmp" 2>&1; then
	ok "the packets that came out of the wire are the ones sent, per-flow order kept"
else
	not_ok "output differs"; cat "$TMP/cmp"
fi
if [ "$QPAIRS" -gt 1 ]; then
	spread=$(sed -n 's/.*port 0 (net_af_packet0): packets per rx queue: *//p' "$log")
	busy=0
	for q in $spread; do [ "$q" -gt 0 ] && busy=$((busy + 1)); done
	check "the kernel spread the flows over all $QPAIRS af_packet queues ($spread)" \
		[ "$busy" = "$QPAIRS" ]
fi
if [ "$IO" = 2 ]; then
	check "each I/O lcore polled a queue of each port" \
		cond 'grep -q "I/O loop 0 on lcore 1: 2 port queues" "$log" &&
		      grep -q "I/O loop 1 on lcore 4: 2 port queues" "$log"'
	# the pipeline too: each I/O lcore at the end of a lane of its own
	check "each I/O lcore sent to the ports what it received from them (the dump's io lines)" \
		python3 - "$dump" <<'PY'
import re, sys
ios = re.findall(r"^io lcore \d+: .*, from the ports (\d+), to the ports (\d+)$",
                 open(sys.argv[1]).read(), re.M)
print("# from / to the ports, per I/O lcore:", ios)
sys.exit(0 if len(ios) == 2 and all(int(a) > 0 and a == b for a, b in ios) else 1)
PY
fi
if [ "$SHAPE" = distributor ] && [ "$WORKERS" -gt 1 ]; then
	busy=$(grep -cE "^  worker [0-9]+ .* rx [1-9]" "$log" || true)
	check "the distributor fed all $WORKERS workers" [ "$busy" = "$WORKERS" ]
fi
assert_clean
finish
