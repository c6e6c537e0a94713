#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A packet of death, retransmitted (docs/recorder.md). With -Dtest_stages=true, the fault stage
# crashes its worker (SIGSEGV) on a UDP datagram to port 4920 saying "mpe-fault segv". The
# capture: 1000 background UDP flows, one packet each in turn, and the same poison packet
# after every 600 of them, 4 times (as a retransmission would come).
# Usage: life_quarantine.sh [distributor|pipeline] [io2]
#   io2 (distributor): two I/O lcores, [io 1] polling the port the capture comes in on and
#   transmitting, [io 0] polling the other, empty one: the blocked packets are counted in
#   [io 1]'s row of hits, which the readers add up with the others.
#   distributor: 2 workers running fault,fwd; pipeline: parse in worker 0, fault,fwd in
#   worker 1. With quarantine_after = 2, checks:
#   - the worker dies twice and no more: then the poison flow is blocked, and its last two
#     packets are dropped where they are met, counted for the flow and as quarantine drops;
#   - quarantine.pcapng holds the poison packet twice, byte for byte as in the capture, with
#     every other packet the dead worker held; tshark reads a comment on every packet naming
#     worker, stage (fault), signal and time;
#   - the dead worker's recorder file (written at each death) holds the poison packet, marked
#     in hand at the death in stage fault; mpe-ctl record writes a live one tshark reads;
#   - /mpe/quarantine and mpe-ctl quarantine list the blocked flow; clear releases it;
#   - every packet the engine did not quarantine or block came out, each flow in order
#     (mpe-pcapcmp), and the books balance.
# Thread build: the first poison packet takes the engine down, and it says which worker and
# stage, and that the process build would have survived (SIGSEGV, exit by that signal).
. "$(dirname "$0")/lib.sh"

SHAPE=${1:-distributor}
IO2=${2:-}
K=2
POISON=4
GAP=600
FLOWS=1000
PACKETS=$((POISON * (GAP + 1) + GAP))

PYTHONPATH=$MPDIR python3 - "$TMP/in0.pcap" "$TMP/empty.pcap" "$TMP/poison.bin" "$GAP" "$POISON" "$FLOWS" <<'PY'
import sys
from frames import frame, pcap
out, empty, poison_out = sys.argv[1:4]
gap, poison, flows = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])

bad = frame([10, 9, 9, 9], 4444, 4920, b"mpe-fault segv")
frames, seq = [], 0
for k in range(poison + 1):
    for _ in range(gap):
        f = seq % flows
        frames.append(frame([10, 0, 2 + f // 250, f % 250], 1000 + f, 2000, b"bg %06d" % seq))
        seq += 1
    if k < poison:
        frames.append(bad)
pcap(out, frames)
pcap(empty, [])
open(poison_out, "wb").write(bad)
PY

cfg=$TMP/engine.ini
{
	# rings that hold the whole capture: what a dead worker's outage costs (its share
	# dropped as ring_full once its ring is full) is recovery's, not this test's subject
	printf '[engine]\nshape = %s\nbackpressure = on\nburst = 32\n' "$SHAPE"
	[ -n "$IO2" ] || printf 'io_lcore = 1\n'
	printf 'ring_size = 4096\n'
	printf 'restart_backoff_ms = 20\nrestart_max = 10\nquarantine_after = %s\n\n' "$K"
	printf '[port 0]\ndevice = net_pcap0\npeer = 1\n\n'
	if [ -n "$IO2" ]; then
		printf '[port 1]\ndevice = net_pcap1\npeer = 0\n\n'
		printf '[io 0]\nlcore = 1\nrx = 1\ntx = off\n\n[io 1]\nlcore = 6\nrx = 0\n\n'
	else
		printf '[port 1]\ndevice = net_pcap1\npeer = 0\nrx = off\n\n'
	fi
	if [ "$SHAPE" = pipeline ]; then
		printf '[worker 0]\nlcore = 2\nstages = parse\n\n[worker 1]\nlcore = 3\nstages = fault,fwd\n'
	else
		printf '[worker 0]\nlcore = 2\nstages = fault,fwd\n\n[worker 1]\nlcore = 3\nstages = fault,fwd\n'
	fi
} > "$cfg"
if ! "$PRIMARY" --check -c "$cfg" > "$TMP/check.out" 2>&1; then
	not_ok "the fault stage is built (-Dtest_stages=true): $(head -3 "$TMP/check.out")"
	finish
	exit $?
fi
ok "the fault stage is built (-Dtest_stages=true)"

[ -n "$IO2" ] && LCORES+=",6@$((6 % NCPU))"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in0.pcap,tx_pcap=$TMP/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/out1.pcap" \
	-- -c "$cfg"

if [ "$MODEL" = thread ]; then
	rc=0
	wait_exit "$PRIMARY_PID" 30 || rc=$?
	[ "$rc" != 124 ] && PRIMARY_PID=
	check "thread build: the poison packet takes the engine down by SIGSEGV (status $rc)" \
		[ "$rc" = $((128 + 11)) ]
	if grep -q "^mpe: SIGSEGV in worker [01] (lcore [23]), stage 0 (fault): the thread build stops here" "$log"; then
		ok "it says which worker and stage: $(grep -m1 '^mpe: SIGSEGV' "$log" | cut -c1-90)"
	else
		not_ok "no 'mpe: SIGSEGV in worker ...' message"; tail -5 "$log"
	fi
	finish
	exit $?
fi

check "the poison flow is blocked after $K deaths" \
	wait_for "$log" "quarantine: flow [0-9]* (udp [0-9.]*:4920 <-> [0-9.:]*) blocked" 60
# every packet of the capture taken in, and none left in the engine
stats() { python3 "$CLIENT" "$PREFIX" /mpe/stats > "$TMP/stats.json" 2>/dev/null || true; }
for ((i = 0; i < 300; i++)); do
	stats
	jtest "$TMP/stats.json" "v['in'] == $PACKETS and v['in'] == v['out'] + v['dropped']" \
		> /dev/null 2>&1 && break
	sleep 0.1
done
check "the engine took every packet of the capture and holds none" \
	jtest "$TMP/stats.json" "v['in'] == $PACKETS and v['in'] == v['out'] + v['dropped']"
check "the workers died $K times by SIGSEGV, no more" \
	[ "$(grep -c "killed by signal 11 (Segmentation fault)" "$log")" = "$K" ]
check "each death quarantined the burst in hand" \
	[ "$(grep -c "died by SIGSEGV in stage 0 (fault): the [0-9]* packets in its hands are quarantined" "$log")" = "$K" ]

python3 "$CLIENT" "$PREFIX" /mpe/quarantine > "$TMP/quar.json" || true
python3 "$CLIENT" "$PREFIX" /mpe/workers > "$TMP/workers.json" || true
check "/mpe/quarantine: one flow blocked, the poison's, $K deaths, $K quarantined, $((POISON - K)) dropped since" \
	jtest "$TMP/quar.json" "[b := [f for f in v['flows'].values() if f['state'] == 'blocked']] and v['blocked'] == 1 and len(b) == 1 and b[0]['flow'] == 'udp 10.0.1.1:4920 <-> 10.9.9.9:4444' and b[0]['deaths'] == $K and b[0]['quarantined'] == $K and b[0]['blocked_packets'] == $((POISON - K))"
quarantined=$(jget "$TMP/workers.json" "sum(v[w]['quarantined'] for w in v if w.isdigit())")
check "the stats count every quarantined and blocked packet as a quarantine drop" \
	jtest "$TMP/stats.json" "v['drops']['quarantine'] == ${quarantined:-0} + $((POISON - K))"
"$CTL" -p "$PREFIX" quarantine > "$TMP/ctl_quar.out" 2>&1 || true
check "mpe-ctl quarantine lists the blocked flow" grep -q "blocked .*SIGSEGV .*4920" "$TMP/ctl_quar.out"

rundir=/var/run/dpdk/$PREFIX
cp "$rundir/quarantine.pcapng" "$TMP/quarantine.pcapng" 2>/dev/null || true
mkdir -p "$TMP/records"
cp "$rundir"/mpe-record-w*.pcapng "$TMP/records/" 2>/dev/null || true
w=$(sed -n 's/.*worker \([01]\): died by SIGSEGV.*/\1/p' "$log" | head -1)
"$CTL" -p "$PREFIX" record "${w:-0}" "$TMP/live.pcapng" > "$TMP/ctl_record.out" 2>&1 || true
check "mpe-ctl record writes worker ${w:-?}'s recorder" grep -q "^$TMP/live.pcapng: [0-9]* packets" "$TMP/ctl_record.out"
check "mpe-ctl quarantine clear releases the flow" \
	cond '"$CTL" -p "$PREFIX" quarantine clear | grep -q "^released 1 blocked flows, forgot [0-9]* suspects"'
python3 "$CLIENT" "$PREFIX" /mpe/quarantine > "$TMP/quar2.json" || true
check "then no flow is blocked" jtest "$TMP/quar2.json" "v['blocked'] == 0"

rc=0
stop_primary 30 || rc=$?
check "the primary stops and exits 0" [ "$rc" = 0 ]
check_books

# quarantine.pcapng: tshark reads a comment on every packet; the poison is there K times
tshark -r "$TMP/quarantine.pcapng" -T fields -e frame.comment > "$TMP/qcomments" 2> "$TMP/tshark.err" || true
nq=$(wc -l < "$TMP/qcomments")
check "tshark reads quarantine.pcapng: $nq packets, as many as quarantined (${quarantined:-?})" \
	[ "$nq" = "${quarantined:-x}" ]
check "each has a comment: worker, stage 0 (fault), SIGSEGV, time" \
	cond '[ "$(grep -c "^worker [01], stage 0 (fault), SIGSEGV, 20[0-9-]*T[0-9:.]*Z$" "$TMP/qcomments")" = "$nq" ]'
# the files' packets, raw
PCAPNG_DEFS='
import struct
def packets(path):
    d, off, out = open(path, "rb").read(), 0, []
    while off + 12 <= len(d):
        t, n = struct.unpack_from("<II", d, off)
        if t == 6:
            cap = struct.unpack_from("<I", d, off + 20)[0]
            out.append(d[off + 28:off + 28 + cap])
        off += n
    return out
'
check "quarantine.pcapng holds the poison packet $K times, byte for byte" \
	python3 -c "$PCAPNG_DEFS
import sys
bad = open('$TMP/poison.bin', 'rb').read()
sys.exit(0 if packets('$TMP/quarantine.pcapng').count(bad) == $K else 1)"
# in_hand_recorded: some recorder file written at a death has a packet in hand in stage fault
in_hand_recorded() {
	local f
	for f in "$TMP"/records/*.pcapng; do
		[ -f "$f" ] || continue
		tshark -r "$f" -T fields -e frame.comment 2>/dev/null |
			grep -q "^worker [01], port 0: in hand when the worker died (SIGSEGV), in stage 0 (fault)$" &&
			return 0
	done
	return 1
}
check "the dead worker's recorder file holds the poison, in hand in stage 0 (fault)" in_hand_recorded
check "in it, that packet is the poison's bytes" \
	python3 -c "$PCAPNG_DEFS
import glob, sys
bad = open('$TMP/poison.bin', 'rb').read()
sys.exit(0 if any(bad in packets(f) for f in glob.glob('$TMP/records/*.pcapng')) else 1)"
check "tshark reads a comment on every packet of the live recorder file" \
	cond '[ "$(tshark -r "$TMP/live.pcapng" -T fields -e frame.comment | grep -c "^worker [01], port 0: ")" -gt 0 ] &&
	      ! tshark -r "$TMP/live.pcapng" -T fields -e frame.comment | grep -q "^$"'

# the output: the capture less what was quarantined and the blocked poison, each flow in order
python3 -c "$PCAPNG_DEFS
import struct
data = open('$TMP/in0.pcap', 'rb').read()
bad = open('$TMP/poison.bin', 'rb').read()
gone = packets('$TMP/quarantine.pcapng')
out, off = [data[:24]], 24
while off + 16 <= len(data):
    cap = struct.unpack_from('<I', data, off + 8)[0]
    fr = data[off + 16:off + 16 + cap]
    off += 16 + cap
    if fr == bad:
        continue
    if fr in gone:
        gone.remove(fr)
        continue
    out.append(data[off - 16 - cap:off])
open('$TMP/expected.pcap', 'wb').write(b''.join(out))
"
"$PCAPCMP" "$TMP/expected.pcap" "$TMP/out1.pcap" > "$TMP/cmp.out" 2>&1 && rc=0 || rc=$?
check "every other packet came out, each flow in order ($(tail -1 "$TMP/cmp.out"))" [ "$rc" = 0 ]
finish
