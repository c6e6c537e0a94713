#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Workers that cannot hurt the host (docs/sandbox.md). Process build, with -Dtest_stages=true:
# a distributor of 2 workers running the hostile stage, then fwd, on a capture of 64 background
# flows into which 6 trigger packets are woven, 100 packets apart (bursts of 16: a worker never
# holds two triggers at once). Each trigger makes the
# worker that gets it try one thing an attacker who owns it would: read /etc/passwd, create a
# file in /tmp, connect to 127.0.0.1 (where a listener of this test counts connections),
# execve /bin/sh, ptrace the primary, raise its capabilities. Checks:
#   - each worker says what its sandbox applied, and /mpe/workers and mpe-ctl show it;
#   - the file opens are blocked (Landlock: Permission denied) and the worker goes on;
#   - the other four kill the worker by SIGSYS: the primary names the call (socket, execve,
#     ptrace, capset), counts it (sandbox_kills) and respawns the worker;
#   - nothing was created, nothing connected, nothing said NOT BLOCKED;
#   - the background flows kept flowing: every stretch between triggers reached the output,
#     all but what the dying workers held (a burst at most on each side of a trigger), and
#     the books balance.
# Then the same engine with sandbox = off: the workers say "off" and the hostile stage makes
# no attempt. Thread build: no worker process, nothing to lock: --check says so.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	cfg=$TMP/thread.ini
	printf '[engine]\n[port 0]\ndevice = net_null0\n[port 1]\ndevice = net_null1\n[worker 0]\nlcore = 2\n' \
		> "$cfg"
	check "thread build: --check says the sandbox does not apply" \
		cond '"$PRIMARY" --check -c "$cfg" | grep -q "^sandbox: not applicable in the thread build"'
	finish
	exit $?
fi

# listener PORTFILE COUNTFILE: a TCP listener on 127.0.0.1 (a free port, written to PORTFILE)
# that writes how many connections it accepted to COUNTFILE after each one
python3 - "$TMP/port" "$TMP/accepted" <<'EOF' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[2], "w").write("0\n")
open(sys.argv[1], "w").write("%d\n" % s.getsockname()[1])
n = 0
while True:
    c, _ = s.accept()
    n += 1
    open(sys.argv[2], "w").write("%d\n" % n)
    c.close()
EOF
LISTENER=$!
EXTRA_PIDS+=" $LISTENER"
for ((i = 0; i < 100; i++)); do [ -s "$TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$TMP/port")

ATTEMPTS=("read" "create" "connect $PORT" "exec" "ptrace" "capset")
GAP=100 # background packets before each trigger, and after the last
BURST=16
# the capture: background UDP flows with "bg SEQ" payloads, triggers to port 4919
PYTHONPATH=$MPDIR python3 - "$TMP/in0.pcap" "$TMP/empty.pcap" "$GAP" "${ATTEMPTS[@]}" <<'EOF'
import sys
from frames import frame, pcap
out, empty, gap, attempts = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]

frames, seq = [], 0
for k, what in enumerate(attempts + [None]):
    for _ in range(gap):
        frames.append(frame(1 + seq % 64, 1000 + seq % 64, 2000, b"bg %06d" % seq))
        seq += 1
    if what is not None:
        frames.append(frame(100 + k, 3000 + k, 4919, b"mpe-hostile " + what.encode()))
pcap(out, frames)
pcap(empty, [])
EOF
PACKETS=$(( ${#ATTEMPTS[@]} * (GAP + 1) + GAP ))

# engine SANDBOX: the configuration, with sandbox = SANDBOX
engine() {
	cat <<EOF
[engine]
shape = distributor
io_lcore = 1
sandbox = $1
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
stages = hostile,fwd

[worker 1]
lcore = 3
stages = hostile,fwd
EOF
}
engine on > "$TMP/on.ini"
engine off > "$TMP/off.ini"

if ! "$PRIMARY" --check -c "$TMP/on.ini" > "$TMP/check.out" 2>&1; then
	not_ok "the hostile stage is built (-Dtest_stages=true): $(head -3 "$TMP/check.out")"
	finish
	exit $?
fi
ok "the hostile stage is built (-Dtest_stages=true)"

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in0.pcap,tx_pcap=$TMP/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/out1.pcap" \
	-- -c "$TMP/on.ini"
check "both workers say what their sandbox applied" \
	wait_for_count "worker [01]: sandbox: seccomp,landlock[0-9]*,caps,nnp[a-z,]*, [0-9]* system calls allowed" 2 20
check "all ${#ATTEMPTS[@]} attempts made" wait_for_count "hostile: trying" ${#ATTEMPTS[@]} 30
# (a respawned worker may die of its next trigger before the primary sees it back: count the
# respawns, not the "back after" lines)
check "the 4 workers killed were respawned" wait_for_count "respawning in" 4 10
check "both workers run again" wait_for_count "running on lcore" 6 10

for what in socket execve ptrace capset; do
	check "the primary names the call that killed a worker: $what" \
		grep -q "killed by its sandbox (SIGSYS): system call [0-9]* ($what)" "$log"
done
check "reading /etc/passwd is blocked, the worker goes on" \
	grep -q "hostile: open /etc/passwd: blocked (Permission denied)" "$log"
check "creating a file in /tmp is blocked, the worker goes on" \
	grep -q "hostile: create a file in /tmp: blocked (Permission denied)" "$log"
check "no attempt got through" cond '! grep -q "NOT BLOCKED" "$log"'
check "no file was created" \
	cond '[ ! -e "/tmp/mpe-hostile.$PRIMARY_PID" ] && [ ! -e "/tmp/mpe-hostile-exec.$PRIMARY_PID" ]'
check "nothing connected to 127.0.0.1:$PORT" [ "$(cat "$TMP/accepted")" = 0 ]

python3 "$CLIENT" "$PREFIX" /mpe/workers > "$TMP/workers.json" || true
check "/mpe/workers: each worker's sandbox, and 4 sandbox kills in all" jtest "$TMP/workers.json" \
	'all(v[w]["sandbox"].startswith("seccomp,") for w in ("0", "1")) and
	 sum(v[w]["sandbox_kills"] for w in ("0", "1")) == 4 and
	 sum(v[w]["restarts"] for w in ("0", "1")) == 4'
"$CTL" -p "$PREFIX" workers 0 > "$TMP/ctl.out" 2>&1 || true
check "mpe-ctl workers 0 shows its sandbox" grep -q "sandbox .*seccomp," "$TMP/ctl.out"

rc=0
stop_primary 30 || rc=$?
check "the primary stops" [ "$rc" != 124 ]
check_books
check "the engine counted every packet of the capture" [ "$(total in "$log")" = "$PACKETS" ]
check "the background flows kept flowing: every stretch arrived, less at most 2 bursts" \
	python3 - "$TMP/out1.pcap" "$GAP" ${#ATTEMPTS[@]} "$BURST" <<'EOF'
import struct, sys
data, gap, n = open(sys.argv[1], "rb").read(), int(sys.argv[2]), int(sys.argv[3])
burst = int(sys.argv[4])
seen, off = set(), 24
while off + 16 <= len(data):
    caplen = struct.unpack("<I", data[off + 8:off + 12])[0]
    fr = data[off + 16:off + 16 + caplen]
    off += 16 + caplen
    i = fr.find(b"bg ")
    if i >= 0:
        seen.add(int(fr[i + 3:i + 9]))
stretch = [sum(1 for s in seen if k * gap <= s < (k + 1) * gap) for k in range(n + 1)]
print("# background packets out, by stretch:", stretch)
sys.exit(0 if min(stretch) >= gap - 2 * burst else 1)
EOF

# sandbox = off: nothing locked, the hostile stage does nothing
log=$TMP/off.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in0.pcap,tx_pcap=$TMP/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$TMP/empty.pcap,tx_pcap=$TMP/out1.pcap" \
	-- -c "$TMP/off.ini"
check "sandbox = off: each worker says so" wait_for_count "worker [01]: sandbox: off" 2 20
check "sandbox = off: the hostile stage makes no attempt" \
	wait_for_count "hostile: sandbox not applied (off): no attempt" ${#ATTEMPTS[@]} 20
check "sandbox = off: no worker died" cond '! grep -q "killed by" "$log"'
rc=0
stop_primary 30 || rc=$?
check "sandbox = off: the primary stops and exits 0" [ "$rc" = 0 ]
check "nothing connected to 127.0.0.1:$PORT" [ "$(cat "$TMP/accepted")" = 0 ]
finish
