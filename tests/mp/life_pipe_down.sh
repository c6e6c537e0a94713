#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: in a pipeline of three stages, the middle worker dies with restart = off and
# stays down. The stage before it stops sending into its ring and counts what it would have
# sent as worker_down, as the I/O lcore does for a worker down for good; not as ring_full,
# and not left in the ring. At the stop the primary names the worker failed (exit 1) and the
# books balance.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	ok "thread build: no worker dies alone"
	finish
	exit $?
fi

{
	echo "[engine]"
	echo "shape = pipeline"
	echo "io_lcore = 1"
	echo "restart = off"
	echo
	echo "$NULL_PORTS"
	for w in 0 1 2; do printf '[worker %d]\nlcore = %d\n\n' "$w" $((w + 2)); done
} > "$TMP/engine.ini"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$TMP/engine.ini"
check "engine runs" wait_for "$log" "running:" 30
w1=$(worker_pid 1)
EXTRA_PIDS+=" $(worker_pid 0) $w1 $(worker_pid 2)"
sleep 0.3
kill -KILL "$w1"
check "worker 1 stays down (restart = off)" \
	wait_for "$log" "worker 1: restart = off: it stays down" 5
sleep 0.3
drops() { # worker 0's drops: ring_full worker_down
	python3 "$CLIENT" "$PREFIX" /mpe/workers | jq_py \
		'd["0"]["drops"].get("ring_full", 0), d["0"]["drops"].get("worker_down", 0)'
}
read -r full1 down1 <<< "$(drops)"
sleep 0.5
read -r full2 down2 <<< "$(drops)"
check "worker 0 counts what it would send to worker 1 as worker_down ($down1 -> $down2)" \
	cond '[ -n "$down2" ] && [ "$down2" -gt "${down1:-0}" ]'
check "worker 0 counts none of it as ring_full ($full1 -> $full2)" \
	cond '[ -n "$full2" ] && [ "$full2" = "$full1" ]'
# emptied when worker 1 went down; at most a burst sent before worker 0 saw it
left=$(python3 "$CLIENT" "$PREFIX" /mpe/rings | jq_py 'd["mpe_w0_w1"]["count"]')
check "the ring into worker 1 does not fill again ($left packets in it)" \
	cond '[ -n "$left" ] && [ "$left" -lt 64 ]'
rc=0
stop_primary 30 || rc=$?
check "a worker failed: the primary exits 1 (status $rc)" [ "$rc" = 1 ]
check_books
assert_clean "nothing left behind"
finish
