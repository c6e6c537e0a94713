#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The distributor keeps a flow on one worker when only one of its directions carries IPv6
# extension headers: port 0's capture holds the requests of CONNS IPv6 TCP connections behind
# a hop-by-hop header, port 1's the replies without one. With parse and flow on 2 workers the
# tables must hold CONNS flows in all: a connection split between the workers is counted in
# both.
. "$(dirname "$0")/lib.sh"

CONNS=32
tel() { python3 "$CLIENT" "$PREFIX" "$1"; }

python3 - "$TMP" "$CONNS" << 'EOF'
import struct
import sys

tmp, conns = sys.argv[1], int(sys.argv[2])


def pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)))
            f.write(fr)


def addr(host, conn):
    return bytes([0xFD, 0, 0, 0, 0, 0, 0, host]) + bytes(6) + struct.pack(">H", conn)


def frame(src, dst, sport, dport, hbh):
    tcp = struct.pack(">HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x10, 1024, 0, 0)
    # hop-by-hop header: next header TCP, 8 bytes, one PadN option
    ext = bytes([6, 0, 1, 4, 0, 0, 0, 0]) if hbh else b""
    ip = struct.pack(">IHBB", 6 << 28, len(ext) + len(tcp), 0 if hbh else 6, 64) + src + dst
    return bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]) + b"\x86\xdd" + ip + ext + tcp


req, rep = [], []
for c in range(conns):
    a, b = addr(1, c), addr(2, c)
    for _ in range(2):
        req.append(frame(a, b, 40000 + c, 443, True))
        rep.append(frame(b, a, 443, 40000 + c, False))
pcap(tmp + "/in0.pcap", req)
pcap(tmp + "/in1.pcap", rep)
EOF
total=$((4 * CONNS))

cfg=$TMP/engine.ini
{
	echo "[engine]"
	echo "shape = distributor"
	echo "io_lcore = 1"
	echo "backpressure = on"
	echo "[port 0]"
	echo "device = net_pcap0"
	echo "peer = 1"
	echo "[port 1]"
	echo "device = net_pcap1"
	echo "peer = 0"
	for w in 0 1; do
		echo "[worker $w]"
		echo "lcore = $((w + 2))"
		echo "stages = parse, flow, fwd"
	done
} > "$cfg"

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in0.pcap,tx_pcap=$TMP/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$TMP/in1.pcap,tx_pcap=$TMP/out1.pcap" \
	-- -c "$cfg"
wait_for "$log" "running:" 60 || true

settled=0
for ((i = 0; i < 600; i++)); do
	s=$(tel /mpe/stats 2> /dev/null) || { sleep 0.1; continue; }
	if [ "$(echo "$s" | jq_py 'd["in"] == d["out"] == '"$total")" = True ]; then
		settled=1
		break
	fi
	sleep 0.1
done
check "all $total packets forwarded ($MODEL build)" [ "$settled" = 1 ]

flows=0 busy=0
for w in 0 1; do
	n=$(tel "/mpe/flows,$w" | jq_py 'd["inserted"]')
	flows=$((flows + n))
	[ "$n" -gt 0 ] && busy=$((busy + 1))
done
check "flow tables hold $CONNS flows in all (no connection split between workers): $flows" \
	[ "$flows" = "$CONNS" ]
check "both workers hold flows ($busy)" [ "$busy" = 2 ]

check "the primary stops on SIGINT" stop_primary
check "no frame counted malformed" cond '! grep -q "malformed:" "$log"'
assert_clean
finish
