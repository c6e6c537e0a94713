#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker that leaves on SIGTERM while the engine runs (an operator, a service
# manager) is a death, not a clean stop: the primary says so, recovers it and respawns it, and
# the engine keeps forwarding. Backpressure is on, so that a worker gone unnoticed would stall
# its producer for good.
#   A. distributor: SIGTERM to worker 0; the I/O lcore feeds it.
#   B. pipeline: SIGTERM to worker 1; worker 0 waits for room in its ring.
#   C. SIGTERM to the primary and every worker at once (systemd's KillMode=control-group):
#      the workers go on while the primary drains, then stop in order; nothing is dropped
#      at shutdown, nothing failed.
#   D. --no-spawn: SIGTERM to a worker started by hand, whose parent leaves it a zombie; the
#      primary notices all the same, says why, recovers it and prints its command line
#      again; started by hand once more, the worker is back and forwards, as does the other.
# Each case ends with SIGINT: exit 0, in = out + dropped, nothing unaccounted, every mbuf
# back in the pool.
. "$(dirname "$0")/lib.sh"

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --seed 31 > /dev/null
loop_vdevs "$TMP/in.pcap"
log=$TMP/primary.log

# ini FILE SHAPE: two workers, backpressure, periodic stats, a quick respawn
ini() {
	cat > "$1" <<EOF
[engine]
shape = $2
io_lcore = 1
backpressure = on
stats_period_ms = 50
restart_backoff_ms = 10

$LOOP_PORTS
[worker 0]
lcore = 2

[worker 1]
lcore = 3
EOF
}

# books LABEL: SIGINT, exit 0, the books balance
books() {
	local rc=0 in out dropped unacc
	stop_primary 30 || rc=$?
	check "$1: SIGINT stops the engine with exit 0 (status $rc)" [ "$rc" = 0 ]
	in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
	unacc=$(total unaccounted "$log")
	check "$1: every packet accounted ($in in, $out out, $dropped dropped, $unacc unaccounted)" \
		cond '[ "${in:-0}" -gt 0 ] && [ $((out + dropped)) = "$in" ] && [ "$unacc" = 0 ]'
	check "$1: no worker failed" cond '! grep -q "worker [0-9]* failed" "$log"'
	check "$1: every mbuf is back in the pool" \
		grep -q "mempool: every mbuf back in the pool" "$log"
	assert_clean "$1: nothing left behind"
}

# sigterm_worker LABEL SHAPE ID
sigterm_worker() {
	local label=$1 id=$3 pid
	ini "$TMP/$2.ini" "$2"
	: > "$log"
	start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/$2.ini"
	check "$label: engine runs" wait_for "$log" "running:" 30
	sleep 0.3
	pid=$(worker_pid "$id")
	EXTRA_PIDS+=" $pid"
	kill -TERM "$pid"
	check "$label: the primary says worker $id left on SIGTERM while the engine runs" \
		wait_for "$log" "worker $id: pid $pid left on SIGTERM while the engine runs" 5
	check "$label: worker $id is respawned and back" wait_for "$log" "worker $id: back after" 5
	check "$label: a new process for worker $id" cond '[ "$(worker_pid "$id")" != "$pid" ]'
	EXTRA_PIDS+=" $(worker_pid "$id")"
	sleep 0.5
	check "$label: both workers forward after the respawn" \
		cond 'rx_moves 0 "worker $id: back after" && rx_moves 1 "worker $id: back after"'
	books "$label"
	check "$label: the summary shows the restart and why" \
		grep -q "restarts 1, .*last end: pid $pid left on SIGTERM while the engine runs" "$log"
}

if [ "$MODEL" = thread ]; then
	ok "thread build: workers are threads of the primary, no worker process to signal"
	finish
	exit $?
fi

sigterm_worker "distributor" distributor 0
sigterm_worker "pipeline" pipeline 1

# --- C. the whole control group at once
ini "$TMP/c.ini" distributor
: > "$log"
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/c.ini"
check "group: engine runs" wait_for "$log" "running:" 30
sleep 0.3
w0=$(worker_pid 0); w1=$(worker_pid 1)
EXTRA_PIDS+=" $w0 $w1"
kill -TERM "$PRIMARY_PID" "$w0" "$w1"
rc=0
wait_exit "$PRIMARY_PID" 30 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
check "group: the primary exits 0 (status $rc)" [ "$rc" = 0 ]
check "group: both workers stopped in order, none respawned" \
	cond '[ "$(grep -cE "^  worker [01] \(lcore [23], exited\)" "$log")" = 2 ] &&
		! grep -q "respawning\|left on SIGTERM" "$log"'
check "group: the rings drained, nothing dropped at shutdown" \
	cond 'grep -q "^total: in [1-9]" "$log" && ! grep -q "^total:.* shutdown [1-9]" "$log"'
unacc=$(total unaccounted "$log")
check "group: nothing unaccounted ($unacc)" [ "$unacc" = 0 ]
assert_clean "group: nothing left behind"

# --- D. workers started by hand
: > "$log"
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/c.ini" --no-spawn
check "by hand: the primary prints how to start the workers" \
	wait_for "$log" "worker 1: start it with: mpe-secondary " 20
hand=()
# worker 0's parent never reaps it (a careless supervisor): once it ends it stays a zombie,
# which kill(pid, 0) still finds
read -ra args <<< "$(sed -n "s/^worker 0: start it with: mpe-secondary //p" "$log")"
python3 -c 'import subprocess, sys, time
p = subprocess.Popen(sys.argv[2:], stdout=open(sys.argv[1], "w"), stderr=subprocess.STDOUT)
print(p.pid, flush=True)
time.sleep(600)' "$TMP/worker0.log" "$SECONDARY" "${args[@]}" > "$TMP/w0.pid" &
careless=$!
EXTRA_PIDS+=" $careless"
for ((i = 0; i < 100; i++)); do [ -s "$TMP/w0.pid" ] && break; sleep 0.05; done
hand+=("$(cat "$TMP/w0.pid")")
EXTRA_PIDS+=" ${hand[0]}"
read -ra args <<< "$(sed -n "s/^worker 1: start it with: mpe-secondary //p" "$log")"
"$SECONDARY" "${args[@]}" > "$TMP/worker1.log" 2>&1 &
hand+=($!)
EXTRA_PIDS+=" $!"
check "by hand: engine runs" wait_for "$log" "running:" 30
sleep 0.3
kill -TERM "${hand[0]}"
check "by hand: the primary says worker 0 left on SIGTERM while the engine runs" \
	wait_for "$log" "worker 0: pid ${hand[0]} left on SIGTERM while the engine runs" 5
check "by hand: worker 0 is to be started again, and the primary prints its line again" \
	cond 'wait_for "$log" "worker 0: to be started again by hand in 10 ms (restart 1)" 5 &&
		wait_for_count "worker 0: start it with: mpe-secondary " 2 5'
check "by hand: worker 0 was a zombie, not reaped by its parent" \
	cond '[ "$(ps -o stat= -p "${hand[0]}" | cut -c1)" = Z ]'
kill "$careless"
read -ra args <<< "$(sed -n "s/^worker 0: start it with: mpe-secondary //p" "$log" | tail -1)"
"$SECONDARY" "${args[@]}" > "$TMP/worker0b.log" 2>&1 &
hand+=($!)
EXTRA_PIDS+=" $!"
check "by hand: worker 0, started again, is back" wait_for "$log" "worker 0: back after" 10
sleep 0.5
check "by hand: both workers forward after the restart" \
	cond 'rx_moves 0 "worker 0: back after" && rx_moves 1 "worker 0: back after"'
books "by hand"
check "by hand: the summary shows the restart and why" \
	grep -q "restarts 1, .*last end: pid ${hand[0]} left on SIGTERM while the engine" "$log"
for w in 1 2; do
	rc=0
	wait_exit "${hand[$w]}" 10 || rc=$?
	check "by hand: worker process ${hand[$w]} exits 0 (status $rc)" [ "$rc" = 0 ]
done
assert_clean "by hand: nothing left behind"
finish
