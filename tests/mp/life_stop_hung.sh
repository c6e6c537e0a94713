#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker that hangs (SIGSTOP) when the engine is asked to stop is killed by
# the stop's own timeout, its hand recovered, and it is not respawned: the primary names it
# failed and exits 1, and the books balance. In rss nothing drains, so the engine is still
# running when the stop asks the workers to leave their loops; in the distributor the I/O
# lcore drains first. The stall check is off (stall_timeout_ms = 0), so that only the stop
# kills the worker.
# Usage: life_stop_hung.sh SHAPE
. "$(dirname "$0")/lib.sh"

SHAPE=$1
if [ "$MODEL" = thread ]; then
	ok "thread build: no worker can hang alone"
	finish
	exit $?
fi

{
	echo "[engine]"
	echo "shape = $SHAPE"
	[ "$SHAPE" = rss ] || echo "io_lcore = 1"
	echo "stall_timeout_ms = 0"
	echo "drain_timeout_ms = 200"
	echo
	echo "$NULL_PORTS"
	echo "[worker 0]"
	echo "lcore = 2"
	echo
	echo "[worker 1]"
	echo "lcore = 3"
} > "$TMP/engine.ini"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$TMP/engine.ini"
check "engine runs" wait_for "$log" "running:" 30
w0=$(worker_pid 0)
EXTRA_PIDS+=" $w0 $(worker_pid 1)"
sleep 0.2
kill -STOP "$w0"
rc=0
stop_primary 30 || rc=$?
check "the stop killed worker 0, which did not stop" \
	grep -q "worker 0 (pid $w0): did not stop in [0-9]* ms: killing it" "$log"
check "its hand was recovered as the engine stopped" \
	grep -qE "worker 0: pid $w0 killed by signal 9 \(Killed\) while the engine (drained|stopped)" \
	"$log"
check "it was not scheduled for a respawn" cond '! grep -q "worker 0: respawning" "$log"'
check "the primary names worker 0 failed" grep -q "worker 0 failed: pid $w0 killed by signal 9" \
	"$log"
check "a worker failed: the primary exits 1 (status $rc)" [ "$rc" = 1 ]
check "worker 1 is not reported failed" cond '! grep -q "worker 1 failed" "$log"'
# a worker stopped inside a transmit call leaves its packets' fate unknown: in_doubt
check_books
assert_clean "nothing left behind"
finish
