#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build, no standby: a worker killed from outside leaves its burst to the process to
# be respawned in its place (docs/recovery.md#a-burst-carried-to-the-replacement). When the
# engine stops before that process is started (here, within a long restart_backoff_ms), the
# burst is not waited for: it is dropped, counted as shutdown, and the stop ends at once.
# Checks: the burst was left to the replacement, then dropped as the stop began; the drain
# finished; the primary exits 0; the books balance and every mbuf is back. SHAPE rss: no
# I/O lcore and no drain, the workers told to stop one by one (net_null's empty frames).
# Usage: life_carry_stop.sh [SHAPE]   (distributor or rss)
. "$(dirname "$0")/lib.sh"

SHAPE=${1:-distributor}
if [ "$MODEL" = thread ]; then
	ok "thread build: workers are not respawned"
	finish
	exit $?
fi

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --seed 43 > /dev/null
loop_vdevs "$TMP/in.pcap"
ports=$LOOP_PORTS stages=parse,burn,fwd
if [ "$SHAPE" = rss ]; then
	# the workers poll the ports: net_null, whose empty frames parse would drop
	LOOP_VDEVS=(--vdev net_null0 --vdev net_null1) ports=$NULL_PORTS stages=burn,fwd
fi
# a slow stage: a worker spends nearly all its time with a burst in its stages
cat > "$TMP/engine.ini" <<EOF2
[engine]
shape = $SHAPE
io_lcore = 1
restart_backoff_ms = 20000
burn_cycles = 200000

$ports
[worker 0]
lcore = 2
stages = $stages

[worker 1]
lcore = 3
stages = $stages
EOF2
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/engine.ini"
check "engine runs ($SHAPE)" wait_for "$log" "running:" 30
w0=$(worker_pid 0)
EXTRA_PIDS+=" $w0 $(worker_pid 1)"
sleep 0.3
kill -KILL "$w0"
check "worker 0 is to be respawned in 20 s" wait_for "$log" "worker 0: respawning in 20000 ms" 5
check "the burst it held is left to its replacement" \
	grep -qE "worker 0: [1-9][0-9]* packets in its hands left to its replacement \(to run again\)" "$log"
left=$(sed -n 's/.*worker 0: \([0-9]*\) packets in its hands left to its replacement.*/\1/p' "$log")
t0=$(date +%s%N)
rc=0
stop_primary 30 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "SIGINT during the back-off: the primary exits 0 (status $rc) in ${ms} ms" \
	cond '[ "$rc" = 0 ] && [ "$ms" -lt 10000 ]'
check "the burst left to it is dropped, not waited for (shutdown)" \
	grep -q "worker 0: the burst left to it dropped, not respawned (shutdown)" "$log"
[ "$SHAPE" = rss ] || check "the drain finished" cond '! grep -q "drain: not finished" "$log"'
check_books
shutdown=$(total shutdown "$log")
check "the burst is among the shutdown drops (${shutdown:-0} >= ${left:-?})" \
	cond '[ -n "$left" ] && [ "${shutdown:-0}" -ge "$left" ]'
check "every mbuf is back in the pool, once" grep -q "mempool: every mbuf back in the pool, once" "$log"
assert_clean "nothing left behind"
finish
