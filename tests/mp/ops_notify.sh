#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The engine under a service manager (docs/service.md), with a stand-in for systemd: a
# listener on $NOTIFY_SOCKET records every notification, and $WATCHDOG_USEC asks for pings.
#   - READY=1 comes only once every worker is ready (process build: the workers are started
#     by hand, with --no-spawn, after a wait in which no READY=1 may come), with a STATUS
#     naming the workers running; STATUS lines follow with the rates;
#   - WATCHDOG=1 keeps coming at half the interval, stops while the primary is stopped
#     (SIGSTOP), and comes again once it goes on (SIGCONT);
#   - a reload by SIGHUP (what the unit's ExecReload sends) and one by mpe-ctl: each
#     RELOADING=1 (with MONOTONIC_USEC) followed by READY=1 saying the new generation;
#   - SIGTERM: STOPPING=1, and the engine exits 0 with every packet accounted for.
. "$(dirname "$0")/lib.sh"

SOCK=$TMP/notify.sock
NOTES=$TMP/notify.jsonl
WATCHDOG_MS=1000

python3 - "$SOCK" "$NOTES" <<'EOF' &
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        msg = s.recv(4096).decode(errors="replace")
        f.write(json.dumps({"t": time.monotonic(), "msg": msg}) + "\n")
EOF
LISTENER=$!
EXTRA_PIDS+=" $LISTENER"
for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.05; done
check "the stand-in listens on $SOCK" [ -S "$SOCK" ]

now() { python3 -c 'import time; print(time.monotonic())'; }
# notes PYTHON-EXPR: the expression holds for n, the list of {t, msg} received so far
echo null > "$TMP/null.json"
notes() { JTEST_DEFS="n = [json.loads(l) for l in open('$NOTES')]" jtest "$TMP/null.json" "$1"; }
has() { notes "any('$1' in x['msg'] and x['t'] > ${2:-0} for x in n)"; } # MSG [AFTER]
# reload_order T: after monotonic time T, RELOADING=1 (with MONOTONIC_USEC), then READY=1
reload_order() {
	notes "[x['msg'].split('\\n')[0] for x in n if x['t'] > $1 and
	x['msg'].split('\\n')[0] in ('RELOADING=1', 'READY=1')][:2] == ['RELOADING=1', 'READY=1']
	and any(x['msg'].startswith('RELOADING=1\\nMONOTONIC_USEC=') for x in n if x['t'] > $1)"
}
wait_note() { # MSG-SUBSTRING AFTER SECONDS
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		has "$1" "$2" > /dev/null && return 0
		sleep 0.05
	done
	return 1
}

printf '%s\n' "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff count 10" > "$TMP/count.rules"
cfg=$TMP/engine.ini
cat > "$cfg" <<EOF2
[engine]
shape = distributor
io_lcore = 1
rules = $TMP/count.rules

$LOOP_PORTS
[worker 0]
lcore = 2
stages = parse,flow,acl,fwd

[worker 1]
lcore = 3
stages = parse,flow,acl,fwd
EOF2
"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --bidir --seed 4 > /dev/null
log=$TMP/primary.log
loop_vdevs "$TMP/in.pcap"
nospawn=
[ "$MODEL" = process ] && nospawn=--no-spawn
NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=$((WATCHDOG_MS * 1000)) \
	start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$cfg" $nospawn

if [ "$MODEL" = process ]; then
	check "--no-spawn: the engine waits for its workers" \
		wait_for "$log" "worker 1: start it with: mpe-secondary " 30
	sleep 1
	check "no READY=1 while the workers are not started" cond '! has READY=1 > /dev/null'
	for w in 0 1; do
		line=$(sed -n "s/^worker $w: start it with: //p" "$log")
		read -ra args <<< "${line#mpe-secondary }"
		"$SECONDARY" "${args[@]}" > "$TMP/worker$w.log" 2>&1 &
		EXTRA_PIDS+=" $!"
	done
fi
check "READY=1 once the engine runs" wait_note READY=1 0 60
check "READY=1 after the log says every worker is ready, with a STATUS naming them" \
	cond 'grep -q "running: 2 workers ready" "$log" && has "READY=1\nSTATUS=2 of 2 workers running"'
check "STATUS lines follow, with the rates" wait_note "workers running; in " 0 5
check "the start log gives the watchdog" grep -q "systemd: watchdog of $WATCHDOG_MS ms" "$log"

# the watchdog: 3 s of pings, then 3 s stopped, then pings again
t0=$(now)
sleep 3
t1=$(now)
check "WATCHDOG=1 every $((WATCHDOG_MS / 2)) ms or so: at least 4 in 3 s, no gap of $WATCHDOG_MS ms" \
	notes "len([x for x in n if x['msg'] == 'WATCHDOG=1' and $t0 <= x['t'] <= $t1]) >= 4 and
	all(b - a < $WATCHDOG_MS / 1000.0 for a, b in zip(*(lambda ts: (ts, ts[1:]))(
	[x['t'] for x in n if x['msg'] == 'WATCHDOG=1' and $t0 <= x['t'] <= $t1])))"
kill -STOP "$PRIMARY_PID"
ts=$(now)
sleep 3
tc=$(now)
kill -CONT "$PRIMARY_PID"
check "no WATCHDOG=1 while the primary is stopped" \
	notes "not [x for x in n if x['msg'] == 'WATCHDOG=1' and $ts + 0.1 < x['t'] < $tc]"
check "WATCHDOG=1 again once it goes on" wait_note WATCHDOG=1 "$tc" 5

# reloads: SIGHUP (the unit's ExecReload), then mpe-ctl
t2=$(now)
kill -HUP "$PRIMARY_PID"
check "SIGHUP: RELOADING=1 with MONOTONIC_USEC, then READY=1 with generation 2" \
	wait_note "READY=1\nSTATUS=rules: generation 2 in force" "$t2" 20
check "SIGHUP: RELOADING=1 came first" reload_order "$t2"
t3=$(now)
"$CTL" -p "$PREFIX" reload > "$TMP/reload.out" 2>&1
check "mpe-ctl reload: READY=1 with generation 3" \
	wait_note "READY=1\nSTATUS=rules: generation 3 in force" "$t3" 20
check "mpe-ctl reload: RELOADING=1 came first" reload_order "$t3"

t4=$(now)
kill -TERM "$PRIMARY_PID"
check "SIGTERM: STOPPING=1" wait_note STOPPING=1 "$t4" 20
rc=0
wait_exit "$PRIMARY_PID" 60 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
check "the engine exits 0 ($rc)" [ "$rc" = 0 ]
check_books
kill "$LISTENER" 2> /dev/null
wait "$LISTENER" 2> /dev/null || true
assert_clean
finish
