#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Packets of death, for real: the test-only fault stage (-Dtest_stages=true) crashes the worker
# that gets a trigger, a UDP datagram to port 4920 whose payload is "mpe-fault WORD".
# Process build: a distributor of 1 worker running fault, then fwd.
#   - a capture without triggers (but with near misses: other payloads to port 4920, the
#     trigger's payload to another port and over TCP, an unknown word) goes through
#     untouched: in = out, the output capture is the input one, the unknown word is logged,
#     no worker dies;
#   - a capture with the 5 triggers, 100 background packets apart (bursts of 16): the worker
#     dies by SIGSEGV, SIGABRT, SIGFPE, SIGILL and SIGBUS in that order, each named by the
#     primary (its sandbox on: abort and raise signal the worker itself, which the seccomp
#     filter allows), and is respawned after each; the books balance.
# Thread build: the worker is a thread of the primary, and a segv trigger takes the whole
# engine down: the primary dies by SIGSEGV.
. "$(dirname "$0")/lib.sh"

GAP=100 # background packets before each trigger, and after the last
BURST=16
FAULTS=(segv abort fpe ill bus)
# what the primary says for each (strsignal)
SIGNALS=("11 (Segmentation fault)" "6 (Aborted)" "8 (Floating point exception)"
	"4 (Illegal instruction)" "7 (Bus error)")
[ "$MODEL" = thread ] && FAULTS=(segv)

# the captures: background UDP flows with "bg SEQ" payloads; clean.pcap adds near misses,
# faults.pcap one trigger per word of FAULTS after each GAP
PYTHONPATH=$MPDIR python3 - "$TMP" "$GAP" "${FAULTS[@]}" <<'EOF2'
import sys
from frames import frame, pcap
tmp, gap, faults = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

seq = 0
def background(frames):
    global seq
    for _ in range(gap):
        frames.append(frame(1 + seq % 64, 1000 + seq % 64, 2000, b"bg %06d" % seq))
        seq += 1

clean = []
for miss in [frame(100, 3000, 4920, b"bg to the fault port"),
             frame(101, 3001, 4920, b"mpe-faultsegv"),
             frame(102, 3002, 4919, b"mpe-fault segv"),
             frame(103, 3003, 4920, b"mpe-fault segv", proto=6),
             frame(104, 3004, 4920, b"mpe-fault nosuch")]:
    background(clean)
    clean.append(miss)
background(clean)
pcap(tmp + "/clean.pcap", clean)

seq, faulty = 0, []
for k, what in enumerate(faults):
    background(faulty)
    faulty.append(frame(110 + k, 3100 + k, 4920, b"mpe-fault " + what.encode()))
background(faulty)
pcap(tmp + "/faults.pcap", faulty)
pcap(tmp + "/empty.pcap", [])
EOF2
CLEAN=$(( 5 * (GAP + 1) + GAP ))

cat > "$TMP/engine.ini" <<EOF
[engine]
shape = distributor
io_lcore = 1
burst = $BURST
restart_backoff_ms = 20

[port 0]
device = net_pcap0
peer = 1

[port 1]
device = net_pcap1
peer = 0
rx = off

[worker 0]
lcore = 2
stages = fault,fwd
EOF

if ! "$PRIMARY" --check -c "$TMP/engine.ini" > "$TMP/check.out" 2>&1; then
	not_ok "the fault stage is built (-Dtest_stages=true): $(head -3 "$TMP/check.out")"
	finish
	exit $?
fi
ok "the fault stage is built (-Dtest_stages=true)"

# run CAPTURE LOG [MPE-ARGS...]: the engine on CAPTURE, output into $TMP/out1.pcap
run() {
	log=$2
	start_primary "$log" --lcores "$LCORES" \
		--vdev "net_pcap0,rx_pcap=$TMP/$1,tx_pcap=$TMP/out0.pcap" \
		--vdev "net_pcap1,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/out1.pcap" \
		-- -c "$TMP/engine.ini" "${@:3}"
}

if [ "$MODEL" = thread ]; then
	run faults.pcap "$TMP/primary.log"
	rc=0
	wait_exit "$PRIMARY_PID" 30 || rc=$?
	[ "$rc" != 124 ] && PRIMARY_PID=
	what="the primary dies by SIGSEGV (status $rc)"
	check "thread build: a segv trigger takes the whole engine down: $what" \
		[ "$rc" = $((128 + 11)) ]
	finish
	exit $?
fi

# no trigger: every packet goes through the stage untouched
run clean.pcap "$TMP/clean.log" --idle-exit 1000
rc=0
wait_exit "$PRIMARY_PID" 60 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
check "no trigger: the primary exits 0 once the capture is replayed" [ "$rc" = 0 ]
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
check "no trigger: in = out = $CLEAN ($in in, $out out, $dropped dropped)" \
	cond '[ "${in:-x}" = "$CLEAN" ] && [ "${out:-x}" = "$CLEAN" ] && [ "$dropped" = 0 ]'
check "no trigger: the output capture is the input one, byte for byte" \
	"$PCAPCMP" "$TMP/clean.pcap" "$TMP/out1.pcap"
check "an unknown word is logged and its packet passes" \
	grep -q "worker 0: fault: unknown fault 'nosuch': packet passed" "$log"
check "no trigger: no worker died" cond '! grep -q "killed by" "$log"'

# the five triggers
run faults.pcap "$TMP/primary.log"
check "the worker's sandbox is on" \
	wait_for_count "worker 0: sandbox: seccomp,landlock[0-9]*,caps,nnp" 1 20
check "the worker died ${#FAULTS[@]} times" wait_for_count "killed by signal" ${#FAULTS[@]} 30
check "the worker was respawned after each" wait_for_count "respawning in" ${#FAULTS[@]} 10
check "the worker runs again" wait_for_count "running on lcore" $(( ${#FAULTS[@]} + 1 )) 10
for ((k = 0; k < ${#FAULTS[@]}; k++)); do
	check "${FAULTS[$k]}: the primary says killed by signal ${SIGNALS[$k]}" \
		cond '[ "$(grep -o "killed by [a-z ]*signal [0-9]* ([A-Za-z ]*)" "$log" |
			sed -n "$((k + 1))p")" = "killed by signal ${SIGNALS[$k]}" ]'
done
check "no death by the sandbox (SIGSYS)" cond '! grep -q "SIGSYS\|killed by signal 31" "$log"'
check "the worker said nothing as it crashed" cond '! grep -q "fault:" "$log"'
rc=0
stop_primary 30 || rc=$?
check "the primary stops" [ "$rc" != 124 ]
check_books
finish
