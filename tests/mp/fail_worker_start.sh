#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: worker processes that end before they are ready (here mpe-secondary's place
# is taken by a program that exits 3 at once) fail the start: the primary says which worker
# did not become ready, names it failed, schedules no respawn, and exits 1. Whichever of the
# two it reaps first is the one named; the other ends as the engine stops.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	ok "thread build: no worker process to fail"
	finish
	exit $?
fi

{
	echo "[engine]"
	echo "shape = rss"
	echo
	echo "$NULL_PORTS"
	echo "[worker 0]"
	echo "lcore = 2"
	echo
	echo "[worker 1]"
	echo "lcore = 3"
} > "$TMP/engine.ini"
printf '#!/bin/sh\nexit 3\n' > "$TMP/no-secondary"
chmod +x "$TMP/no-secondary"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- \
	-c "$TMP/engine.ini" --secondary "$TMP/no-secondary"
rc=0
wait_exit "$PRIMARY_PID" 30 || rc=$?
PRIMARY_PID=
check "the primary exits 1 (status $rc)" [ "$rc" = 1 ]
check "it says a worker did not become ready" grep -q "did not become ready" "$log"
check "it names a worker failed, with its exit status" \
	grep -qE "worker [01] failed: pid [0-9]* exited with status 3" "$log"
check "it schedules no respawn" cond '! grep -q "respawning" "$log"'
check "it never ran" cond '! grep -q "^mpe.engine: running:" "$log"'
assert_clean "nothing left behind"
finish
