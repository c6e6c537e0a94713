#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A reap that takes long holds nothing up (process build, primary/reaper.c): the kernel can
# take seconds to release a dead process (its /proc entries), and the supervisor must go on
# handing places to standbys and noting outages meanwhile. libmpe-test-slowreap.so, preloaded
# into the primary, holds every reap of a killed child until a gate file exists. With the
# gate shut, worker 0 then worker 1 are killed: each is taken over by a standby and moving
# packets again, as the log and telemetry say; then the gate opens, and the engine stops
# cleanly with every process reaped, every mbuf back and every packet accounted for.
. "$(dirname "$0")/lib.sh"

SLOWREAP=$BUILD/tests/mp/libmpe-test-slowreap.so
# a sanitizer build's runtime must come first among the libraries preloaded
PRELOAD=$SLOWREAP
ASAN_LIB=$(ldd "$PRIMARY" | awk '/libasan/ { print $3 }')
[ -z "$ASAN_LIB" ] || PRELOAD="$ASAN_LIB $SLOWREAP"
GATE=$TMP/reap.gate

cfg=$TMP/engine.ini
cat > "$cfg" <<EOF2
[engine]
shape = distributor
io_lcore = 1
standby = 2
restart_backoff_ms = 20

$LOOP_PORTS
[worker 0]
lcore = 2
stages = parse,flow,fwd

[worker 1]
lcore = 3
stages = parse,flow,fwd
EOF2
"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --bidir --seed 5 > /dev/null
log=$TMP/primary.log
loop_vdevs "$TMP/in.pcap"
MPE_TEST_REAP_GATE=$GATE LD_PRELOAD=$PRELOAD \
	start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$cfg"
check "engine runs" wait_for "$log" "running:" 60

# worker W's pid and takeovers, from telemetry
field() { "$CLIENT" "$PREFIX" "/mpe/workers,$1" > "$TMP/w$1.json" && jget "$TMP/w$1.json" "v['$2']"; }

for w in 0 1; do
	pid=$(field $w pid)
	kill -KILL "$pid"
	check "worker $w (pid $pid) killed: a standby takes its place and moves packets, the reap held" \
		wait_for "$log" "worker $w: moving packets again" 20
	"$CLIENT" "$PREFIX" "/mpe/workers,$w" > "$TMP/w$w.json"
	check "worker $w: telemetry says so (takeovers, outage, a new pid)" \
		jtest "$TMP/w$w.json" "v['takeovers'] == 1 and v['last_outage_us'] > 0 and v['pid'] != $pid"
done
check "the reaps were held meanwhile" grep -q "^slowreap: holding the reap of pid" "$log"

touch "$GATE"
rc=0
stop_primary 30 || rc=$?
check "the engine stops and exits 0 ($rc)" [ "$rc" = 0 ]
check_books
check "every mbuf is back in the pool, once" grep -q "mempool: every mbuf back in the pool, once" "$log"
assert_clean
finish
