#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mpe-chaos against a live engine (docs/standby.md#measuring-the-outage): a distributor fed by
# a looping capture, with a standby. mpe-chaos kills workers one at a time by mixed signals,
# then two at once during a rules reload; its report must agree with the engine's own books:
# one record per death, each seen and taken over, detection and outage measured (and outage
# at least detection), the losses it reports equal to what /mpe/stats counted, and the engine
# ends with every packet accounted for. Bad usage is refused with exit 2.
# Thread build: mpe-chaos refuses the engine and says why.
# Usage: ops_chaos.sh [io2]   (io2: two I/O lcores, each polling one of port 0's two queues
# and transmitting on a queue of its own: every worker has two rings in each direction)
. "$(dirname "$0")/lib.sh"

IO=${1:-}

CHAOS=$BUILD/tools/mpe-chaos
[ -x "$CHAOS" ] || CHAOS=$(dirname "$0")/../../tools/mpe-chaos
cfg=$TMP/engine.ini
standby='standby = 2' # the thread build has none: refused
[ "$MODEL" = thread ] && standby=
printf '%s\n' "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff count 10" > "$TMP/count.rules"
ports=$LOOP_PORTS io=
if [ "$IO" = io2 ]; then
	ports=${LOOP_PORTS/peer = 1/peer = 1
rx_queues = 2}
	io='[io 0]
lcore = 1

[io 1]
lcore = 4
'
fi
cat > "$cfg" <<EOF2
[engine]
shape = distributor
$([ -z "$io" ] && echo "io_lcore = 1")
$standby
restart_max = 1000
restart_backoff_ms = 20
quarantine_after = 0
rules = $TMP/count.rules

$ports
$io
[worker 0]
lcore = 2
stages = parse,flow,acl,fwd

[worker 1]
lcore = 3
stages = parse,flow,acl,fwd
EOF2
"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --bidir --seed 3 > /dev/null
log=$TMP/primary.log
loop_vdevs "$TMP/in.pcap"
# a second RX queue: net_pcap gives one per rx_pcap
[ "$IO" = io2 ] && LOOP_VDEVS[1]+=",rx_pcap=$TMP/in.pcap"
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$cfg"
check "engine runs ($MODEL build${IO:+, two I/O lcores})" wait_for "$log" "running:" 60
[ "$IO" = io2 ] && io2_own_queues

if [ "$MODEL" = thread ]; then
	rc=0
	"$CHAOS" -p "$PREFIX" -n 1 > "$TMP/chaos.out" 2>&1 || rc=$?
	check "mpe-chaos refuses a thread-build engine, saying why (exit $rc)" \
		cond '[ "$rc" = 2 ] && grep -q "is a thread build: its workers are threads of the primary" "$TMP/chaos.out"'
	rc=0; stop_primary 30 || rc=$?
	check "the engine was not touched: it stops cleanly" [ "$rc" = 0 ]
	finish
	exit
fi

refused() { # refused NAME PATTERN ARGS...: exit 2 and PATTERN on stderr
	local rc=0
	WANT=$2
	"$CHAOS" "${@:3}" > "$TMP/bad.out" 2>&1 || rc=$?
	check "refused: $1 (exit $rc)" cond '[ "$rc" = 2 ] && grep -q -- "$WANT" "$TMP/bad.out"'
}
refused "no prefix" "the following arguments are required: -p" -n 1
refused "unknown engine" 'no engine with file prefix "nope_'"$$"'"' -p "nope_$$"
refused "a signal that ends nothing" "'SIGCONT' is not a signal that ends or stops" -p "$PREFIX" -s CONT
refused "a count of 0" "not a positive number: '0'" -p "$PREFIX" -n 0
refused "a worker the engine lacks" "worker 5: the engine has 2 workers" -p "$PREFIX" -w 5
refused "more at once than there are workers" "--together 3: only 2 workers" -p "$PREFIX" -t 3

"$CLIENT" "$PREFIX" /mpe/stats > "$TMP/stats0.json"
"$CLIENT" "$PREFIX" /mpe/workers > "$TMP/workers0.json"
rc=0
"$CHAOS" -p "$PREFIX" -n 12 -s KILL,SEGV,ABRT,TERM -i 100 --seed 1 --json \
	> "$TMP/chaos.json" 2> "$TMP/chaos.err" || rc=$?
check "12 deaths one at a time: exit 0 ($rc)" [ "$rc" = 0 ]
"$CLIENT" "$PREFIX" /mpe/stats > "$TMP/stats1.json"
"$CLIENT" "$PREFIX" /mpe/workers > "$TMP/workers1.json"
check "one record per death, each seen and taken over by a standby, detection and outage measured" \
	jtest "$TMP/chaos.json" 'len(v["deaths"]) == 12 and v["summary"]["takeovers"] == 12 and
	all(r["detection_us"] is not None and r["detection_us"] > 0 and
	    r["outage_us"] is not None and r["outage_us"] >= r["detection_us"]
	    for r in v["deaths"]) and v["summary"]["outage_us"]["n"] == 12'
check "the signals asked for, and only those" \
	jtest "$TMP/chaos.json" 'set(r["signal"] for r in v["deaths"]) <= {"SIGKILL", "SIGSEGV", "SIGABRT", "SIGTERM"}'
JTEST_DEFS="import json; s0 = json.load(open('$TMP/stats0.json')); s1 = json.load(open('$TMP/stats1.json'))" \
check "the losses it reports are what the engine counted meanwhile" \
	jtest "$TMP/chaos.json" 'all(v["summary"]["lost"].get(c, 0) <= s1["drops"][c] - s0["drops"][c]
	    for c in ("worker_died", "quarantine", "ring_full")) and
	sum(v["summary"]["lost"].values()) <= s1["dropped"] - s0["dropped"] + s1.get("in_doubt", 0)'
JTEST_DEFS="import json; w0 = json.load(open('$TMP/workers0.json')); w1 = json.load(open('$TMP/workers1.json'))" \
check "the packets it reports carried to the standbys are what the workers counted meanwhile" \
	jtest "$TMP/chaos.json" 'v["summary"]["carried"] == sum(w["carried"] for w in w1.values()) -
	    sum(w["carried"] for w in w0.values())'
jget "$TMP/chaos.json" 'v["summary"]' | sed 's/^/# /'

rc=0
"$CHAOS" -p "$PREFIX" -n 3 -t 2 --reload -i 100 --seed 2 > "$TMP/chaos.txt" 2>&1 || rc=$?
check "two at once during a reload, as text: exit 0 ($rc), a line per death and the summary" \
	cond '[ "$rc" = 0 ] && [ "$(grep -c "^death [123]: worker [01] (pid [0-9]*) SIG" "$TMP/chaos.txt")" = 6 ] &&
	grep -q "^6 deaths: " "$TMP/chaos.txt" && grep -q "^outage (signal to first burst again): *p50 " "$TMP/chaos.txt"'
sed 's/^/# /' "$TMP/chaos.txt" | tail -4
check "the reloads happened" grep -q "rules: .* in force as generation [2-9]" "$log"

rc=0
stop_primary 30 || rc=$?
check "the engine survives and exits 0" [ "$rc" = 0 ]
check_books
check "every mbuf is back in the pool, once" grep -q "mempool: every mbuf back in the pool, once" "$log"
assert_clean
finish
