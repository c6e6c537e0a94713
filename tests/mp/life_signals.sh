#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Signals to the primary.
#   A. SIGTERM stops a running engine in order: exit 0, summary printed, nothing left; the
#      same when SIGTERM comes twice within 250 ms (one request sent twice, as GNU timeout
#      does), not a forced exit.
#   B. (process build) a second signal forces the exit: a worker is SIGSTOPped so that its
#      ring never drains (backpressure on, drain_timeout_ms 60000); after SIGINT the primary
#      is still draining 1 s later; a second SIGINT ends it at once with status 130, the
#      worker processes, the stopped one included, are killed by pid, and the hugepage files
#      and the runtime directory are removed all the same.
#   C. (both builds) the same with a stall no process needs to be stopped for: the output
#      port is a net_ring nobody reads (rx = off), so with backpressure the I/O lcore, then
#      the workers, then the input rings stall. SIGTERM starts the drain, SIGINT forces exit;
#      nothing is left behind.
. "$(dirname "$0")/lib.sh"

# cond 'SHELL CONDITION': several tests joined by && as one command for check


# gone PID: the process has ended (a zombie waiting for its new parent counts as ended)
gone() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1) || true
	[ -z "$st" ] || [ "$st" = Z ]
}

# wait_gone SECS PID...: all have ended within SECS
wait_gone() {
	local secs=$1 i p left
	shift
	for ((i = 0; i <= secs * 50; i++)); do
		left=0
		for p in "$@"; do gone "$p" || left=1; done
		[ "$left" = 0 ] && return 0
		sleep 0.02
	done
	return 1
}

worker_pids() {
	sed -n 's/.*worker [0-9]*: spawned pid \([0-9]*\).*/\1/p' "$1" | tr '\n' ' '
}

# ini FILE OUT-DEVICE [engine lines...]: distributor of 2 workers, net_null0 in
ini() {
	local f=$1 out=$2
	shift 2
	{
		printf '[engine]\nshape = distributor\nio_lcore = 1\n'
		printf '%s\n' "$@"
		printf '\n[port 0]\ndevice = net_null0\npeer = 1\n\n[port 1]\ndevice = %s\npeer = 0\n' "$out"
		[ "$out" = net_ring1 ] && printf 'rx = off\n'
		printf '\n[worker 0]\nlcore = 2\n\n[worker 1]\nlcore = 3\n'
	} > "$f"
}

# --- A. SIGTERM
ini "$TMP/a.ini" net_null1
log=$TMP/primary.log
: > "$log" # start_primary truncates it in the background: no stale "running:"
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$TMP/a.ini"
check "engine runs ($MODEL build)" wait_for "$log" "running:" 20
pids=$(worker_pids "$log")
sleep 0.3
kill -TERM "$PRIMARY_PID"
rc=0
wait_exit "$PRIMARY_PID" 20 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
check "SIGTERM: the primary exits 0 (status $rc)" [ "$rc" = 0 ]
check "SIGTERM: it drained, then printed the summary with a total: line" \
	cond 'grep -q "stopping: draining rings" "$log" && grep -q "^total: in [1-9]" "$log"'
check "SIGTERM: every worker left its loop cleanly, nothing unaccounted" \
	cond '[ "$(grep -cE "^  worker [01] \(lcore [23], exited\)" "$log")" = 2 ] &&
		[ "$(total unaccounted "$log")" = 0 ]'
if [ "$MODEL" = process ]; then
	check "SIGTERM: both worker processes ended ($pids)" wait_gone 1 $pids
fi
assert_clean "SIGTERM: nothing left behind"

# --- A2. the same request sent twice, 50 ms apart: GNU timeout signals the program, then its
# process group, so the primary gets it twice at once. One stop, not a forced exit. The
# workers burn 0.2 ms a packet, so that draining their full rings takes longer than that.
ini "$TMP/a2.ini" net_null1 "backpressure = on" "drain_timeout_ms = 60000" \
	"burn_cycles = 500000" "ring_size = 256"
sed -i 's/^lcore = [23]$/&\nstages = burn, fwd/' "$TMP/a2.ini"
: > "$log"
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$TMP/a2.ini"
check "SIGTERM twice: engine runs" wait_for "$log" "running:" 20
sleep 0.3
kill -TERM "$PRIMARY_PID"
sleep 0.05
still=0
kill -TERM "$PRIMARY_PID" 2> /dev/null && still=1
rc=0
wait_exit "$PRIMARY_PID" 30 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
check "SIGTERM twice 50 ms apart: still draining at the second" [ "$still" = 1 ]
check "SIGTERM twice 50 ms apart: one stop, exit 0 (status $rc)" [ "$rc" = 0 ]
check "SIGTERM twice 50 ms apart: drained and summed up, no forced exit" \
	cond 'grep -q "^total: in [1-9]" "$log" && ! grep -q "second signal" "$log"'
assert_clean "SIGTERM twice: nothing left behind"

# force LABEL FIRST-SIGNAL: signal, still draining after 1 s, second signal ends it now
force() {
	local label=$1 first=$2 rc=0 t0 ms
	kill "-$first" "$PRIMARY_PID"
	check "$label: SIGINT/SIGTERM starts the drain" wait_for "$log" "stopping: draining" 5
	sleep 1
	check "$label: 1 s later the primary is still draining" \
		cond 'kill -0 "$PRIMARY_PID" && ! grep -q "^total:" "$log"'
	t0=$(date +%s%N)
	kill -INT "$PRIMARY_PID"
	wait_exit "$PRIMARY_PID" 5 || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$rc" != 124 ] && PRIMARY_PID=
	check "$label: a second signal ends it with status 130 within 1 s (status $rc, $ms ms)" \
		cond '[ "$rc" = 130 ] && [ "$ms" -lt 1000 ]'
	check "$label: it says so" grep -q "second signal: forcing exit" "$log"
}

# --- B. a stopped worker (process build)
if [ "$MODEL" = process ]; then
	ini "$TMP/b.ini" net_null1 "backpressure = on" "drain_timeout_ms = 60000"
	: > "$log"
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$TMP/b.ini"
	check "stopped worker: engine runs" wait_for "$log" "running:" 20
	read -r w0 w1 <<< "$(worker_pids "$log")"
	kill -STOP "$w0"
	sleep 0.3
	force "stopped worker" INT
	check "stopped worker: both worker processes are killed ($w0 stopped, $w1)" \
		wait_gone 1 "$w0" "$w1"
	assert_clean "stopped worker: the forced exit leaves no process, hugepage file or runtime directory"
fi

# --- C. output stalled, both builds
ini "$TMP/c.ini" net_ring1 "backpressure = on" "drain_timeout_ms = 60000"
: > "$log"
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_ring1 -- -c "$TMP/c.ini"
check "stalled output: engine runs" wait_for "$log" "running:" 20
pids=$(worker_pids "$log")
sleep 0.5
force "stalled output" TERM
if [ "$MODEL" = process ]; then
	check "stalled output: the worker processes are killed ($pids)" wait_gone 1 $pids
fi
assert_clean "stalled output: the forced exit leaves no process, hugepage file or runtime directory"
finish
