#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packet capture with DPDK's own dpdk-dumpcap: the primary serves rte_pdump requests, so a
# capture of a running engine holds exactly the packets it received and transmitted.
# The engine runs a pipeline on net_ring ports fed by mpe-ringio (not net_pcap: a secondary
# that probes net_pcap ports truncates the engine's tx captures). dpdk-dumpcap takes no EAL
# options but --file-prefix: it would scan the PCI bus, so SYSFS_PCI_DEVICES points it at an
# empty directory (this host's NIC is never probed); it runs as lcore 0, which the engine keeps
# free of datapath work.
#   - one dumpcap on each port: N received on port 0 and N transmitted on port 1, the very
#     packets that were sent, matching the engine's counters. DPDK captures a transmitted
#     packet each time it is offered to rte_eth_tx_burst: when the ring behind port 1 is full
#     the I/O lcore offers the rest again, and the capture repeats those. Port 1's capture is
#     therefore read without the repeats (a packet equal to one of the 256 before it: the
#     packets sent are all different), which are counted;
#   - the engine forwards on after dumpcap has left.
# Usage: ops_pdump.sh [io2]   (io2: two I/O lcores, each polling one of port 0's two queues
# and transmitting on a queue of its own at the end of a lane of its own through two stages:
# a port's capture holds both queues' packets)
. "$(dirname "$0")/lib.sh"

IO=${1:-}

DUMPCAP=${MPE_DUMPCAP:-/usr/bin/dpdk-dumpcap}
SPLIT=$(cd "$(dirname "$0")" && pwd)/pcapng_split.py
PACKETS=${MPE_TEST_PACKETS:-2000}

if [ ! -x "$DUMPCAP" ]; then
	echo "not ok - $DUMPCAP not found: install Debian's dpdk package (tools/setup-host.sh)"
	exit 1
fi

cfg=$TMP/engine.ini
cat > "$cfg" <<EOF
[engine]
shape = pipeline
backpressure = on

[port 0]
device = net_ring0
peer = 1

[port 1]
device = net_ring1
rx = off
EOF
QUEUES=1
if [ "$IO" = io2 ]; then
	QUEUES=2
	sed -i 's/^peer = 1$/&\nrx_queues = 2/' "$cfg"
	printf '\n[io 0]\nlcore = 1\n\n[io 1]\nlcore = 4\n\n[worker 0]\nlcore = 2\nstages = parse\n' >> "$cfg"
	printf '\n[worker 1]\nlcore = 3\nstages = fwd\n' >> "$cfg"
else
	sed -i 's/^backpressure = on$/io_lcore = 1\n&/' "$cfg"
	printf '\n[worker 0]\nlcore = 2\nstages = fwd\n' >> "$cfg"
fi
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f 50 --bidir --seed 5 > /dev/null
mkdir -p "$TMP/nopci" "$TMP/split"

# unrepeat IN OUT: IN (classic pcap) without the packets equal to one of the 256 before
# them, into OUT; prints how many were left out
unrepeat() {
	python3 - "$1" "$2" <<'PY'
import collections, struct, sys
data = open(sys.argv[1], "rb").read()
out, recent, seen, off, repeats = [data[:24]], collections.deque(), set(), 24, 0
while off + 16 <= len(data):
    caplen = struct.unpack_from("<I", data, off + 8)[0]
    rec, pkt = data[off:off + 16 + caplen], data[off + 16:off + 16 + caplen]
    off += 16 + caplen
    if pkt in seen:
        repeats += 1
        continue
    out.append(rec)
    recent.append(pkt)
    seen.add(pkt)
    if len(recent) > 256:
        seen.discard(recent.popleft())
open(sys.argv[2], "wb").write(b"".join(out))
print(repeats)
PY
}

# inject: mpe-ringio sends in.pcap into port 0 and collects port 1 into FILE; its status
inject() {
	ringio --queues "$QUEUES" --collect "$1"
}

log=$TMP/primary.log
# -m: memory reserved at start-up, so that dpdk-dumpcap's pool needs no new hugepages, whose
# mapping the primary must then sync with every secondary, short-lived dumpcaps included
# (without it: 5 failures in 22 runs, see docs/operations.md, "Capturing packets")
start_primary "$log" --lcores "$LCORES" -m 512 --vdev net_ring0 --vdev net_ring1 -- -c "$cfg"
if ! wait_for "$log" "running:" 30; then
	not_ok "engine runs on net_ring ports ($MODEL build${IO:+, two I/O lcores})"
	finish
	exit 1
fi
ok "engine runs on net_ring ports ($MODEL build${IO:+, two I/O lcores})"
[ "$IO" = io2 ] && io2_own_queues

# captured N: the last "Packets captured" count dpdk-dumpcap N wrote (it rewrites the
# figure in place with backspaces)
captured() {
	tr '\r\b' '\n ' < "$TMP/dumpcap$1.err" | awk '/Packets captured:/ { n = $NF } END { print n + 0 }'
}

# One dpdk-dumpcap per port: 22.11's dumpcap captures only the last -i it is given. Port 0's
# stops by itself (-c) once it has as many packets as the port will see; port 1's capture
# holds the repeats too, as many as the ring was found full: it is stopped (SIGINT) once
# every packet is back and its count stays still.
DUMPCAP_PIDS=()
for port in 0 1; do
	count=(-c "$PACKETS")
	[ "$port" = 1 ] && count=()
	SYSFS_PCI_DEVICES=$TMP/nopci "$DUMPCAP" --file-prefix="$PREFIX" -i "net_ring$port" \
		"${count[@]}" -w "$TMP/cap$port.pcapng" > "$TMP/dumpcap$port.out" \
		2> "$TMP/dumpcap$port.err" &
	DUMPCAP_PIDS+=($!)
	EXTRA_PIDS+=" $!"
	# "Packets captured:" comes once the primary has installed the capture on the port
	if wait_for "$TMP/dumpcap$port.err" "Packets captured" 30; then
		ok "dpdk-dumpcap attached to port $port"
	else
		not_ok "dpdk-dumpcap attached to port $port"
		tr '\r' '\n' < "$TMP/dumpcap$port.err" | tail -5 | sed 's/^/#   /'
	fi
done

rc=0; inject "$TMP/out.pcap" || rc=$?
check "mpe-ringio sent $PACKETS packets and got them back (status $rc)" [ "$rc" = 0 ]
still=0
for ((i = 0; i < 150 && still < 5; i++)); do
	c=$(captured 1)
	[ "$c" -ge "$PACKETS" ] && [ "$c" = "${last:-}" ] && still=$((still + 1)) || still=0
	last=$c
	sleep 0.2
done
check "port 1: dpdk-dumpcap's count reached $PACKETS and stayed ($last)" [ "$still" = 5 ]
kill -INT "${DUMPCAP_PIDS[1]}" 2> /dev/null
for port in 0 1; do
	pid=${DUMPCAP_PIDS[$port]}
	rc=0; wait_exit "$pid" 30 || rc=$?
	check "port $port: dpdk-dumpcap stopped, status 0 (status $rc)" [ "$rc" = 0 ]
	[ "$rc" = 124 ] && kill -INT "$pid" 2> /dev/null && wait_exit "$pid" 10
	want=vdev-net_ring$port
	n=$(python3 "$SPLIT" "$TMP/cap$port.pcapng" "$TMP/split" 2>&1 |
		awk -v hw="$want" '$2 == hw { print $3 }')
	f=$(ls "$TMP"/split/*_"$port".pcap 2> /dev/null | head -1)
	if [ "$port" = 1 ] && [ -n "$f" ]; then
		repeats=$(unrepeat "$f" "$TMP/tx-once.pcap")
		f=$TMP/tx-once.pcap
		n=$((${n:-0} - ${repeats:-0}))
	fi
	check "port $port: the capture holds $PACKETS packets (${n:-none}${repeats:+, and $repeats repeats of packets offered again})" \
		[ "${n:-x}" = "$PACKETS" ]
	if [ -n "$f" ] && "$PCAPCMP" "$TMP/in.pcap" "$f" > "$TMP/cmp$port" 2>&1; then
		ok "port $port: the captured packets are the ones sent, per-flow order kept"
	else
		not_ok "port $port: the captured packets differ from those sent"
		head -5 "$TMP/cmp$port" 2> /dev/null | sed 's/^/#   /'
	fi
	if command -v tcpdump > /dev/null; then
		t=$(tcpdump -r "$TMP/cap$port.pcapng" 2> /dev/null | wc -l)
		check "port $port: tcpdump reads the pcapng capture: $t packets" \
			[ "$t" = $((PACKETS + ${repeats:-0})) ]
	fi
	repeats=
done

rc=0; inject "$TMP/out2.pcap" || rc=$?
check "the engine forwards on after dpdk-dumpcap left (status $rc)" [ "$rc" = 0 ]
rc=0; stop_primary 30 || rc=$?
check "primary stops on SIGINT and exits 0 (status $rc)" [ "$rc" = 0 ]
in=$(total in "$log"); out=$(total out "$log")
check "the engine counted $((2 * PACKETS)) in and out ($in in, $out out)" \
	cond '[ "${in:-x}" = $((2 * PACKETS)) ] && [ "${out:-x}" = $((2 * PACKETS)) ]'
assert_clean
finish
