#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build, --no-spawn: a worker started by hand is no child of the primary, which learns
# how it ended from its slot: the signal its handler wrote. One that dies by its own fault
# (SIGSEGV here, with a burst in its stages) is taken as such: its death is named by the
# signal, counted a fault death, and its burst is not carried to the next instance (nor its
# undo log trusted) but reclaimed or quarantined, as for a worker the primary started
# (docs/recovery.md#a-burst-carried-to-the-replacement).
# Then SIGINT: the books balance and every mbuf is back.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	ok "thread build: no worker is started by hand"
	finish
	exit $?
fi

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --seed 59 > /dev/null
loop_vdevs "$TMP/in.pcap"
# a slow stage: the worker spends nearly all its time with a burst in its stages
cat > "$TMP/engine.ini" <<EOF2
[engine]
shape = distributor
io_lcore = 1
restart_backoff_ms = 20000
burn_cycles = 200000
quarantine_after = 0

$LOOP_PORTS
[worker 0]
lcore = 2
stages = parse,burn,fwd

[worker 1]
lcore = 3
stages = parse,burn,fwd
EOF2
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/engine.ini" --no-spawn
check "the primary prints how to start the workers" \
	wait_for "$log" "worker 1: start it with: mpe-secondary " 20
for w in 0 1; do
	read -ra ARGS <<< "$(sed -n "s/^worker $w: start it with: mpe-secondary //p" "$log" | tail -1)"
	"$SECONDARY" "${ARGS[@]}" > "$TMP/worker$w.log" 2>&1 &
	EXTRA_PIDS+=" $!"
	[ "$w" = 0 ] && first=$!
done
check "the engine runs, its workers started by hand" wait_for "$log" "running: 2 workers ready" 30
sleep 0.3
kill -SEGV "$first"
check "the death is named by the signal the worker wrote" \
	wait_for "$log" "worker 0: pid $first ended by signal 11 (Segmentation fault)" 10
check "worker 0 is to be started again by hand" \
	wait_for "$log" "worker 0: to be started again by hand in 20000 ms" 5
"$CLIENT" "$PREFIX" /mpe/workers > "$TMP/workers.json"
check "a fault death, and nothing carried to the next instance" \
	jtest "$TMP/workers.json" 'v["0"]["fault_deaths"] == 1 and v["0"]["carried"] == 0'
check "nothing left to a replacement" cond '! grep -q "left to its replacement" "$log"'
rc=0
stop_primary 30 || rc=$?
check "SIGINT: the primary ends (status $rc)" [ "$rc" -le 1 ]
check_books
check "every mbuf is back in the pool, once" grep -q "mempool: every mbuf back in the pool, once" "$log"
assert_clean "nothing left behind"
finish
