#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The engine's telemetry commands (/mpe/info, /mpe/stats, /mpe/workers, /mpe/rings,
# /mpe/config), read through the primary's DPDK telemetry socket with tel_client.py while a
# looping capture runs through a distributor of two workers:
#   - every command answers with its keys and types, and with the running engine's values;
#   - process build: a killed worker shows its restart and cause, and telemetry answers while
#     a worker is stopped (SIGSTOP), that worker's heartbeat age growing;
#   - the client fails clearly where no engine runs.
. "$(dirname "$0")/lib.sh"

DROPS='["ring_full", "tx_full", "no_mbuf", "verdict", "no_route", "shutdown", "worker_died",
	"worker_down", "quarantine"]'
RING_SIZE=1024

cfg=$TMP/engine.ini
cat > "$cfg" <<EOF2
[engine]
shape = distributor
io_lcore = 1
ring_size = $RING_SIZE
backpressure = off
stats_period_ms = 0
stall_timeout_ms = 5000

$LOOP_PORTS
[worker 0]
lcore = 2
stages = fwd

[worker 1]
lcore = 3
stages = fwd
EOF2

# tel CMD FILE: the JSON value of the reply to CMD into FILE; the client's status
tel() {
	python3 "$CLIENT" "$PREFIX" "$1" > "$2" 2> "$2.err"
}

# jtest's helpers: is_int(x); has(d, key=type, ...): d is a dict holding each key with that
# type; drops_ok(d): every drop reason, none negative
JTEST_DEFS=$(cat <<'EOF'
import os
def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)
def has(d, **types):
    if not isinstance(d, dict):
        return False
    for k, t in types.items():
        if k not in d or not (is_int(d[k]) if t is int else isinstance(d[k], t)):
            print("#   key %r: %r" % (k, d.get(k, "missing")))
            return False
    return True
DROPS = json.loads(os.environ["DROPS"])
def drops_ok(d):
    return isinstance(d, dict) and sorted(d) == sorted(DROPS) and \
        all(is_int(x) and x >= 0 for x in d.values())
EOF
)
export DROPS


now_ms() { echo $(($(date +%s%N) / 1000000)); }

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --bidir --seed 11 > /dev/null
log=$TMP/primary.log
loop_vdevs "$TMP/in.pcap"
start_primary "$log" --lcores "$LCORES" \
	"${LOOP_VDEVS[@]}" -- -c "$cfg"
if ! wait_for "$log" "running:" 30; then
	not_ok "engine runs with a looping capture ($MODEL build)"
	finish
	exit 1
fi
ok "engine runs with a looping capture ($MODEL build)"
check "no warning about telemetry at start" cond '! grep -q "telemetry:" "$log"'

# --- every command, its keys and types ---------------------------------------------------
t=$TMP/t
check "/ lists the five /mpe commands" cond 'tel / "$t.list" && jtest "$t.list" \
	"all(c in v for c in [\"/mpe/info\", \"/mpe/stats\", \"/mpe/workers\", \"/mpe/rings\",
	 \"/mpe/config\"])"'
for c in info stats workers rings config; do
	check "/help,/mpe/$c: a help text" cond 'tel "/help,/mpe/$c" "$t.help" && jtest "$t.help" \
		"isinstance(v.get(\"/mpe/$c\"), str) and len(v[\"/mpe/$c\"]) > 10"'
done

rc=0; tel /mpe/info "$t.info" || rc=$?
check "/mpe/info answers (status $rc)" [ "$rc" = 0 ]
check "/mpe/info: keys and types" jtest "$t.info" 'has(v, version=str, model=str, shape=str,
	workers=int, io_lcore=int, lcores=list, uptime_s=int, primary_pid=int, tsc_hz=int)
	and v["tsc_hz"] > 0
	and all(is_int(x) for x in v["lcores"])'
check "/mpe/info: model $MODEL, 2 workers on lcores 2 and 3, shape distributor, io_lcore 1" \
	jtest "$t.info" "v['model'] == '$MODEL' and v['workers'] == 2 and v['lcores'] == [2, 3]
	and v['shape'] == 'distributor' and v['io_lcore'] == 1 and v['io_lcores'] == [1]"
check "/mpe/info: primary_pid is the primary ($PRIMARY_PID), version set" \
	jtest "$t.info" "v['primary_pid'] == $PRIMARY_PID and len(v['version']) > 0"

rc=0; tel /mpe/stats "$t.s1" || rc=$?
check "/mpe/stats answers (status $rc)" [ "$rc" = 0 ]
sleep 0.3
tel /mpe/stats "$t.s2" || true
check "/mpe/stats: keys and types, every drop reason, counters not negative" jtest "$t.s1" \
	'has(v, **{"in": int, "out": int, "dropped": int, "in_doubt": int, "drops": dict,
	"ports": dict}) and drops_ok(v["drops"]) and min(v["in"], v["out"], v["dropped"]) >= 0
	and v["in_doubt"] == 0'
check "/mpe/stats: the I/O lcore's polls and full_polls, full_polls no more than polls" \
	jtest "$t.s1" 'has(v["io"], polls=int, full_polls=int, wait_cycles=int) and v["io"]["polls"] > 0
	and 0 <= v["io"]["full_polls"] <= v["io"]["polls"]'
check "/mpe/stats: the I/O lcore's cost, packets moved to the ports and their cycles, grows" \
	jtest "$t.s2" "has(v['io'], moved=int, cycles=int)
	and v['io']['moved'] > $(jget "$t.s1" 'v["io"]["moved"]')
	and v['io']['cycles'] > $(jget "$t.s1" 'v["io"]["cycles"]')
	and v['io']['cycles'] > v['io']['moved']"
check "/mpe/stats: ports 0 and 1 with device, rx, tx" jtest "$t.s1" \
	'sorted(v["ports"]) == ["0", "1"] and all(has(p, device=str, rx=int, tx=int)
	for p in v["ports"].values()) and v["ports"]["0"]["device"] == "net_pcap0"'
tel /mpe/workers,0 "$t.d1" || true
sleep 0.2
tel /mpe/workers,0 "$t.d2" || true
c1=$(jget "$t.d1" 'v["cycles"]'); c2=$(jget "$t.d2" 'v["cycles"]')
check "/mpe/workers,0: its busy cycles, in the detail, grow while traffic flows ($c1 -> $c2)" \
	cond '[ -n "$c1" ] && [ -n "$c2" ] && [ "$c2" -gt "$c1" ]'
in1=$(jget "$t.s1" 'v["in"]'); in2=$(jget "$t.s2" 'v["in"]')
check "/mpe/stats: in grows while traffic flows ($in1 -> $in2 in 0.3 s)" \
	cond '[ -n "$in1" ] && [ -n "$in2" ] && [ "$in2" -gt "$in1" ]'

# the first request reports every heartbeat age as 0; this one measures since the last
tel /mpe/workers "$t.w0" || true
sleep 0.1
rc=0; tel /mpe/workers "$t.w" || rc=$?
check "/mpe/workers answers (status $rc)" [ "$rc" = 0 ]
check "/mpe/workers: workers 0 and 1, each with every key and type" jtest "$t.w" \
	'sorted(v) == ["0", "1"] and all(has(w, pid=int, lcore=int, state=str, heartbeat=int,
	heartbeat_age_ms=int, rx=int, tx=int, polls=int, bursts=int, wait_cycles=int, drops=dict,
	restarts=int, lost=int, in_doubt=int, carried=int,
	last_cause=str,
	last_recover_ms=int, down=int, dead=int, sandbox=str, sandbox_kills=int,
	fault_deaths=int, quarantined=int, cycles_per_packet=int, stages=dict)
	and drops_ok(w["drops"]) for w in v.values())'
check "/mpe/workers: each worker's sandbox says what it applied ($MODEL build)" jtest "$t.w" \
	"all(w['sandbox'].startswith('seccomp,') if '$MODEL' == 'process'
	else w['sandbox'] == 'n/a (thread)' for w in v.values())"
check "/mpe/workers: stage fwd of each worker with packets and cycles_per_packet" jtest "$t.w" \
	'all(list(w["stages"]) == ["fwd"] and has(w["stages"]["fwd"], packets=int,
	cycles_per_packet=int) for w in v.values())'
check "/mpe/workers: each worker's flight recorder counted its writes: packets and their cycles" \
	jtest "$t.w" 'all(has(w["recorder"], packets=int, cycles=int, cycles_per_packet=int)
	and w["recorder"]["packets"] > 0 and w["recorder"]["cycles"] > 0
	for w in v.values())'
check "/mpe/workers: both running on lcores 2 and 3, rx > 0, heartbeat_age_ms < 1000" \
	jtest "$t.w" 'all(v[i]["state"] == "running" and v[i]["lcore"] == 2 + int(i)
	and v[i]["rx"] > 0 and v[i]["heartbeat_age_ms"] < 1000 and v[i]["stages"]["fwd"]["packets"] > 0
	and v[i]["down"] == 0 and v[i]["dead"] == 0 and v[i]["restarts"] == 0 for i in v)'
check "/mpe/workers: each worker polled, with bursts > 0 and no more than its polls" \
	jtest "$t.w" 'all(0 < w["bursts"] <= w["polls"] for w in v.values())'
p0=$(jget "$t.w" 'v["0"]["pid"]'); p1=$(jget "$t.w" 'v["1"]["pid"]')
if [ "$MODEL" = process ]; then
	spawned=$(sed -n 's/.*worker \([01]\): spawned pid \([0-9]*\).*/\2/p' "$log" | tr '\n' ' ')
	check "/mpe/workers: the pids are the worker processes spawned ($p0 $p1 = $spawned)" \
		cond '[ "$p0 $p1 " = "$spawned" ] && alive "$p0" && alive "$p1"'
	# the pids to signal come from /mpe/workers, and only if they are the ones spawned
	w0=; w1=
	[ "$p0 $p1 " = "$spawned" ] && w0=$p0 && w1=$p1
else
	check "/mpe/workers: thread workers report the primary's pid ($p0 $p1)" \
		cond '[ "$p0" = "$PRIMARY_PID" ] && [ "$p1" = "$PRIMARY_PID" ]'
fi

rc=0; tel /mpe/rings "$t.r" || rc=$?
check "/mpe/rings answers (status $rc)" [ "$rc" = 0 ]
check "/mpe/rings: the 4 rings of the distributor, capacity $((RING_SIZE - 1)), count and free \
within it" jtest "$t.r" "sorted(v) == ['mpe_io_w0', 'mpe_io_w1', 'mpe_w0_io', 'mpe_w1_io']
	and all(has(r, count=int, capacity=int, free=int) and r['capacity'] == $RING_SIZE - 1
	and 0 <= r['count'] <= r['capacity'] and 0 <= r['free'] <= r['capacity'] for r in v.values())"

rc=0; tel /mpe/config "$t.c" || rc=$?
check "/mpe/config answers (status $rc)" [ "$rc" = 0 ]
check "/mpe/config: the running configuration as INI text" jtest "$t.c" \
	'isinstance(v, str) and "shape = distributor\n" in v and "stall_timeout_ms = 5000\n" in v
	and "[worker 1]\nlcore = 3\nstages = fwd\n" in v and "device = net_null1\n" in v'

rc=0; python3 "$CLIENT" "$PREFIX" /mpe/nosuch > /dev/null 2> "$t.err" || rc=$?
check "the client says so when a command is unknown (status $rc)" \
	cond '[ "$rc" != 0 ] && grep -q "unknown command" "$t.err"'

# --- process build: a worker killed, a worker stopped ------------------------------------
if [ "$MODEL" = process ] && { [ -z "$w0" ] || [ -z "$w1" ]; }; then
	not_ok "worker pids from /mpe/workers ($p0 $p1) are not the spawned ones: no signal sent"
elif [ "$MODEL" = process ]; then
	kill -KILL "$w0"
	if wait_for "$log" "worker 0: back after" 10; then
		ok "worker 0 killed (pid $w0) and back"
	else
		not_ok "worker 0 killed (pid $w0): not back within 10 s"
	fi
	tel /mpe/workers "$t.k" || true
	np0=$(jget "$t.k" 'v["0"]["pid"]')
	nw0=$(sed -n 's/.*worker 0: spawned pid \([0-9]*\).*/\1/p' "$log" | tail -1)
	check "/mpe/workers after the kill: worker 0 restarted once, running, new pid ($w0 -> $np0)" \
		jtest "$t.k" "v['0']['restarts'] == 1 and v['0']['state'] == 'running'
		and v['0']['pid'] == ${nw0:-0} != $w0 and v['0']['down'] == 0 and v['0']['dead'] == 0"
	cause=$(jget "$t.k" 'v["0"]["last_cause"]')
	check "/mpe/workers: last_cause says how it ended ($cause)" \
		jtest "$t.k" "'pid $w0 killed by signal 9' in v['0']['last_cause']"
	check "/mpe/workers: last_recover_ms > 0 ($(jget "$t.k" 'v["0"]["last_recover_ms"]'))" \
		jtest "$t.k" "v['0']['last_recover_ms'] > 0"
	check "/mpe/workers: worker 1 untouched (restarts 0, running)" \
		jtest "$t.k" "v['1']['restarts'] == 0 and v['1']['state'] == 'running'"

	# worker 1 stopped: telemetry must still answer, and see its heartbeat stand still
	kill -STOP "$w1"
	# one connection, a request every 100 ms: times the engine's answers, not the start-up of
	# a client process (seconds on a loaded machine)
	read -r answers slowest age stopped_ms < <(python3 - "$PREFIX" << 'PY' || echo "0 0 0 0"
import json, os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(os.path.join("/var/run/dpdk", sys.argv[1], "dpdk_telemetry.v2"))
s.recv(65536)
t0 = time.monotonic()
answers, slowest, age = 0, 0, 0
while time.monotonic() - t0 < 1.5:
    c0 = time.monotonic()
    s.send(b"/mpe/workers")
    v = json.loads(s.recv(65536).decode())["/mpe/workers"]
    slowest = max(slowest, int((time.monotonic() - c0) * 1000))
    answers += 1
    age = v["1"]["heartbeat_age_ms"]
    if age >= 300 and answers >= 2:
        break
    time.sleep(0.1)
print(answers, slowest, age, int((time.monotonic() - t0) * 1000))
PY
)
	kill -CONT "$w1"
	tel /mpe/workers "$t.st" || true
	check "/mpe/workers answers while worker 1 is stopped ($answers answers in $stopped_ms ms, slowest $slowest ms)" \
		cond '[ "$answers" -ge 2 ] && [ "$slowest" -lt 1000 ]'
	check "worker 1's heartbeat_age_ms grows while it is stopped (${age:-none} >= 300)" \
		cond '[ "${age:-0}" -ge 300 ]'
	check "worker 0 kept running meanwhile" jtest "$t.st" "v['0']['state'] == 'running'"
	# resumed before stall_timeout_ms: not killed, heartbeat moving again
	for ((i = 0; i < 20; i++)); do
		sleep 0.1
		tel /mpe/workers "$t.res" || continue
		jtest "$t.res" 'v["1"]["heartbeat_age_ms"] < 300' > /dev/null && break
	done
	check "worker 1 resumed after SIGCONT: heartbeat moves, same pid, not restarted" \
		jtest "$t.res" "v['1']['heartbeat_age_ms'] < 300 and v['1']['pid'] == $w1
		and v['1']['restarts'] == 0 and v['1']['state'] == 'running'"
fi

# --- stop ---------------------------------------------------------------------------------
rc=0
stop_primary 30 || rc=$?
check "primary stops and exits 0" [ "$rc" = 0 ]
unacc=$(total unaccounted "$log")
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
check "final books: in = out + dropped ($in = $out + $dropped), unaccounted ${unacc:-none}" \
	cond '[ "${unacc:-x}" = 0 ] && [ -n "$in" ] && [ $((out + dropped)) = "$in" ]'

rc=0; python3 "$CLIENT" "$PREFIX" /mpe/info > /dev/null 2> "$t.err" || rc=$?
check "client on the stopped engine's prefix fails clearly (status $rc: $(head -c 80 "$t.err"))" \
	cond '[ "$rc" = 1 ] && grep -q "no DPDK primary runs with --file-prefix $PREFIX" "$t.err"'
nobody=mpet_nobody_$$
rc=0; python3 "$CLIENT" "$nobody" /mpe/workers > "$t.out" 2> "$t.err" || rc=$?
check "client where no engine ever ran fails with a message and no output (status $rc)" \
	cond '[ "$rc" = 1 ] && [ ! -s "$t.out" ] && grep -q "no such socket" "$t.err"'
assert_clean
finish
