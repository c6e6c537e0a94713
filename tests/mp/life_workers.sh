#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Worker lifecycle under the primary's supervision.
# Process build:
#   1. each worker is a child process of the primary that shows its role in ps
#      ("mpe-worker N [stages] lcore L")
#   2. SIGKILL of a worker (shape rss on net_null: every worker has traffic of its own): the
#      primary logs "worker N (pid P): killed by signal 9" within 1 s and keeps running, the
#      other worker keeps forwarding (port counters read through the primary's telemetry
#      socket); on stop the primary exits 1 (a worker failed)
#   2b. a worker killed while it holds packets (blocked on a full ring, backpressure on):
#      what it held must show up as counted drops, not as "unaccounted"
#   3. SIGKILL of the primary: every worker notices (heartbeat stops, pid gone) and exits by
#      itself within 1 s; measured, with up to 1.5 s allowed for scheduling noise. Twice:
#      traffic flowing, and output stalled with backpressure on (workers waiting for room).
#      The hugepage files the primary could not remove are left to the EXIT trap.
# Thread build: the workers are lcore threads of the primary, no mpe-secondary process
# exists; they stop with the engine (exit 0) and die with it.
. "$(dirname "$0")/lib.sh"


# cond 'SHELL CONDITION': several tests joined by && as one command for check

# gone PID: the process has ended (a zombie waiting for its new parent counts as ended)
gone() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1) || true
	[ -z "$st" ] || [ "$st" = Z ]
}

# Worker processes rename themselves (setproctitle), so their command line no longer holds
# --file-prefix and lib.sh cannot find them: end the ones this test saw, by pid.

# worker_pids LOG: sets WPIDS to the pids the primary spawned, in worker order
worker_pids() {
	WPIDS=$(sed -n 's/.*worker [0-9]*: spawned pid \([0-9]*\).*/\1/p' "$1" | tr '\n' ' ')
	EXTRA_PIDS+=" $WPIDS"
}

# the interpreter itself, not a version manager's shim: each sample must be quick
PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null || true)

# telemetry FIELD CMD...: the sum of FIELD over the primary's replies to CMD... (DPDK's v2
# telemetry socket)
telemetry() {
	"$PYTHON" - "/var/run/dpdk/$PREFIX/dpdk_telemetry.v2" "$@" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.recv(65536)
total = 0
for cmd in sys.argv[3:]:
    s.send(cmd.encode())
    total += json.loads(s.recv(1 << 20).decode())[cmd.split(",")[0]][sys.argv[2]]
print(total)
EOF
}

# packets_out: packets both ports have transmitted so far
packets_out() {
	telemetry opackets /ethdev/stats,0 /ethdev/stats,1
}

# ms_until_gone SECS PID...: "PID:MSms" for each, how long after the call it ended, or
# "PID:never" if it still runs after SECS
ms_until_gone() {
	local t0 now p left secs=$1
	local -A when=()
	shift
	t0=$(date +%s%N)
	while :; do
		now=$(date +%s%N)
		left=0
		for p in "$@"; do
			[ -n "${when[$p]:-}" ] && continue
			if gone "$p"; then when[$p]=$(((now - t0) / 1000000)); else left=1; fi
		done
		[ "$left" = 0 ] || [ $((now - t0)) -gt $((secs * 1000000000)) ] && break
		sleep 0.01
	done
	for p in "$@"; do
		if [ -n "${when[$p]:-}" ]; then echo -n " $p:${when[$p]}ms"; else echo -n " $p:never"; fi
	done
}

# within_ms MS PID:Tms...: every T is at most MS
within_ms() {
	local max=$1 t
	shift
	for t in "$@"; do
		t=${t#*:}
		[ "$t" != never ] && [ "${t%ms}" -le "$max" ] || return 1
	done
}

# wait_re FILE ERE SECS: an extended regular expression matches a line within SECS
wait_re() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE -- "$2" "$1" && return 0
		sleep 0.05
	done
	return 1
}

# killed_re ID PID: how the primary reports that worker ID's process PID died of SIGKILL
killed_re() {
	echo "worker $1( \\(pid $2\\):|: pid $2) killed by signal 9"
}

forget_killed_primary() {
	rm -f "$HUGEDIR/${PREFIX}"map_* 2> /dev/null || true
	rm -rf "/var/run/dpdk/$PREFIX"
}

cfg=$TMP/engine.ini
printf '[engine]\nshape = rss\nrestart = off\n\n[port 0]\ndevice = net_null0\n\n' > "$cfg"
printf '[port 1]\ndevice = net_null1\n\n[worker 0]\nlcore = 2\n\n[worker 1]\nlcore = 3\n' >> "$cfg"
# worker 1 on another CPU than the one LCORES gives lcore 3: both builds must put it there
CPU1=$(((3 + 1) % NCPU))
printf 'cpu = %d\n' "$CPU1" >> "$cfg"
# cpus_of PID [TID]: the CPUs the kernel lets that process (or thread) run on
cpus_of() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/task/${2:-$1}/status" 2> /dev/null
}
log=$TMP/primary.log

if [ "$MODEL" = thread ]; then
	: > "$log" # start_primary truncates it in the background: no stale "running:"
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
	check "engine runs (thread build)" wait_for "$log" "running:" 20
	check "no worker process: the primary has no child and is the only process of its prefix" \
		cond '[ -z "$(pgrep -P "$PRIMARY_PID")" ] && [ "$(prefix_pids)" = "$PRIMARY_PID" ]'
	for lc in 2 3; do
		tid=$(grep -lE "^(rte|lcore)-worker-$lc\$" /proc/"$PRIMARY_PID"/task/*/comm 2> /dev/null |
			head -1 | cut -d/ -f5 || true)
		cpu0=$(cut -d' ' -f14,15 "/proc/$PRIMARY_PID/task/$tid/stat" 2> /dev/null | tr ' ' +)
		sleep 0.3
		cpu1=$(cut -d' ' -f14,15 "/proc/$PRIMARY_PID/task/$tid/stat" 2> /dev/null | tr ' ' +)
		check "lcore $lc is a thread of the primary ($tid) that polls (cpu ticks $((cpu0)) -> $((cpu1)))" \
			cond '[ -n "$tid" ] && [ $((cpu1)) -gt $((cpu0)) ]'
		[ "$lc" = 3 ] && check "worker 1's thread runs on its cpu $CPU1, not lcore 3's: $(cpus_of "$PRIMARY_PID" "$tid")" \
			[ "$(cpus_of "$PRIMARY_PID" "$tid")" = "$CPU1" ]
	done
	rc=0
	stop_primary 30 || rc=$?
	check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
	check "both worker threads left their loop cleanly" \
		cond '[ "$(grep -cE "^  worker [01] \(lcore [23], exited\)" "$log")" = 2 ]'
	assert_clean "nothing left behind"

	: > "$log"
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
	check "engine runs again" wait_for "$log" "running:" 20
	pid=$PRIMARY_PID
	kill -KILL "$pid"
	ms=$(ms_until_gone 2 "$pid")
	PRIMARY_PID=
	check "SIGKILL of the primary ends its worker threads with it:$ms" within_ms 1000 $ms
	check "no process of this engine is left" cond '[ -z "$(prefix_pids)" ]'
	forget_killed_primary
	finish
	exit $?
fi

# --- 1. roles in ps, children of the primary
: > "$log"
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
check "engine runs (process build, 2 workers)" wait_for "$log" "running:" 20
worker_pids "$log"
read -r w0 w1 <<< "$WPIDS"
for w in 0 1; do
	pid=$w0
	[ "$w" = 1 ] && pid=$w1
	args=$(ps -o args= -p "$pid" 2> /dev/null || true)
	check "worker $w (pid $pid) shows its role in ps: '${args%%  *}'" \
		cond '[[ "$args" == "mpe-worker $w [fwd] lcore $((w + 2))"* ]]'
	ppid=$(ps -o ppid= -p "$pid" 2> /dev/null | tr -d ' ' || true)
	check "worker $w (pid $pid) is a child of the primary ($ppid = $PRIMARY_PID)" \
		[ "$ppid" = "$PRIMARY_PID" ]
done
check "worker 1 runs on its cpu $CPU1, not lcore 3's: $(cpus_of "$w1")" [ "$(cpus_of "$w1")" = "$CPU1" ]

# --- 2. a worker is killed (restart = off: it stays down, as it did before respawning existed)
has_tel=0
[ -n "$PYTHON" ] && has_tel=1
kill -KILL "$w0"
t0=$(date +%s%N)
seen=
for ((i = 0; i < 150; i++)); do
	if grep -qE "$(killed_re 0 "$w0")" "$log"; then
		seen=$((($(date +%s%N) - t0) / 1000000))
		break
	fi
	sleep 0.01
done
check "the primary logs that worker 0 (pid $w0) was killed by signal 9 within 1 s (${seen:-not in 1.5 s} ms): $(grep -m1 -oE "$(killed_re 0 "$w0").*" "$log" || true)" \
	cond '[ -n "$seen" ] && [ "$seen" -le 1000 ]'
check "the primary keeps running" kill -0 "$PRIMARY_PID"
check "worker 1 keeps running" cond '! gone "$w1"'
if [ "$has_tel" = 1 ]; then
	sleep 0.2
	o1=$(packets_out || echo x)
	sleep 0.5
	o2=$(packets_out || echo x)
	check "packets keep going out through worker 1 (ports sent $o1, then $o2 0.5 s later)" \
		cond '[ "$o1" != x ] && [ "$o2" != x ] && [ "$o2" -gt "$o1" ]'
else
	echo "# skip the forwarding check: no python3 for the telemetry client"
fi
rc=0
stop_primary 30 || rc=$?
check "on stop the primary exits 1: a worker failed (status $rc)" [ "$rc" = 1 ]
check "it names the failed worker and why" grep -qE "worker 0 failed: .*killed by signal 9" "$log"
check "summary: worker 0 failed, worker 1 exited after forwarding" \
	cond 'grep -qE "^  worker 0 \(lcore 2, failed\)" "$log" &&
		grep -qE "^  worker 1 \(lcore 3, exited\) +rx [1-9][0-9]* tx [1-9]" "$log"'
check "worker 1 has ended" cond 'gone "$w1"'
assert_clean "killed worker: nothing left behind"

# --- 2b. killed while holding packets: the output is a net_ring that nobody reads, so with
# backpressure the worker waits for room with a burst in hand. pipeline: worker 1 blocks on
# its output ring; rss: worker 0 blocks on its transmit queue.
# killed_holding SHAPE WORKER
killed_holding() {
	local shape=$1 id=$2 ini=$TMP/holding.ini pid rc=0 in out dropped unacc
	{
		printf '[engine]\nshape = %s\nio_lcore = 1\nbackpressure = on\nring_size = 64\n' "$shape"
		printf 'restart = off\ndrain_timeout_ms = 200\n\n[port 0]\ndevice = net_null0\npeer = 1\n\n'
		printf '[port 1]\ndevice = net_ring1\npeer = 0\nrx = off\n\n'
		printf '[worker 0]\nlcore = 2\nstages = %s\n\n' "$([ "$shape" = rss ] && echo fwd || echo flowhash)"
		printf '[worker 1]\nlcore = 3\nstages = fwd\n'
	} > "$ini"
	: > "$log"
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_ring1 -- -c "$ini"
	check "$shape, output stalled: engine runs" wait_for "$log" "running:" 20
	worker_pids "$log"
	pid=$(echo $WPIDS | cut -d' ' -f$((id + 1)))
	sleep 0.5
	kill -KILL "$pid"
	check "$shape: worker $id, blocked with packets in hand, is reported killed" \
		wait_re "$log" "$(killed_re "$id" "$pid")" 2
	stop_primary 30 || rc=$?
	check "$shape: the primary exits 1 (status $rc)" [ "$rc" = 1 ]
	in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
	unacc=$(total unaccounted "$log")
	if [ "$shape" = rss ] && grep -q "died inside a device call holding up to" "$log"; then
		# killed inside the transmit call itself: whether the device took the burst is
		# unknown, and the engine says so; at most that burst is unaccounted
		held=$(sed -n 's/.*died inside a device call holding up to \([0-9]*\).*/\1/p' "$log")
		check "$shape: killed inside a device call: at most the $held packets in doubt are unaccounted ($unacc), and the log says so" \
			cond '[ -n "$unacc" ] && [ "$unacc" -ge 0 ] && [ "$unacc" -le "$held" ]'
	else
		check "$shape: what the dead worker held is counted: in $in = out $out + dropped $dropped (unaccounted $unacc)" \
			[ "${unacc:-x}" = 0 ]
	fi
	assert_clean "$shape, killed blocked worker: nothing left behind"
}
killed_holding pipeline 1
killed_holding rss 0

# workers blocked on a full ring, for 3.: the stalled pipeline of 2b
stall=$TMP/stall.ini
printf '[engine]\nshape = pipeline\nio_lcore = 1\nbackpressure = on\nring_size = 64\n\n' > "$stall"
printf '[port 0]\ndevice = net_null0\npeer = 1\n\n[port 1]\ndevice = net_ring1\npeer = 0\nrx = off\n' >> "$stall"
printf '\n[worker 0]\nlcore = 2\nstages = flowhash\n\n[worker 1]\nlcore = 3\nstages = fwd\n' >> "$stall"

# --- 3. the primary is killed
# primary_dies LABEL CONFIG VDEV...: SIGKILL the primary, measure how long each worker lives on
primary_dies() {
	local label=$1 ini=$2 pid ws timings
	shift 2
	: > "$log"
	start_primary "$log" --lcores "$LCORES" "$@" -- -c "$ini"
	check "$label: engine runs" wait_for "$log" "running:" 20
	worker_pids "$log"
	ws=$WPIDS
	sleep 0.5
	if [ -n "${STALL_CHECK:-}" ] && [ "$has_tel" = 1 ]; then
		o1=$(telemetry opackets /ethdev/stats,1 || echo x)
		sleep 0.3
		o2=$(telemetry opackets /ethdev/stats,1 || echo y)
		check "$label: the output is stalled (port 1 sent $o1, then $o2)" [ "$o1" = "$o2" ]
	fi
	pid=$PRIMARY_PID
	kill -KILL "$pid"
	wait "$pid" 2> /dev/null || true
	PRIMARY_PID=
	timings=$(ms_until_gone 2 $ws)
	check "$label: every worker exits by itself within 1 s of the primary's death (1.5 s allowed):$timings" \
		cond 'within_ms 1500 $timings && [ "$(echo $ws | wc -w)" = 2 ]'
	check "$label: each says the primary is gone" \
		cond '[ "$(grep -c "primary (pid $pid) is gone: exiting" "$log")" = 2 ]'
	end_processes
	check "$label: no process of this engine is left" cond '[ -z "$(prefix_pids)" ]'
	if [ "$MODEL" = process ]; then
		left=$(ls "$HUGEDIR" | grep -c "^$PREFIX" || true)
		check "$label: the last worker removed the engine's hugepage files ($left left) and runtime directory" \
			cond '[ "$left" = 0 ] && [ ! -e "/var/run/dpdk/$PREFIX" ]'
	fi
	forget_killed_primary
}

primary_dies "traffic flowing" "$cfg" --vdev net_null0 --vdev net_null1

STALL_CHECK=1 primary_dies "output stalled, backpressure on" "$stall" --vdev net_null0 --vdev net_ring1
finish
