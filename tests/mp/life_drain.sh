#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The drain at stop waits until every packet that came in has left or been counted, not
# merely until the rings are empty, and a pipeline stops from its first stage on.
# Pipeline of two workers: worker 0 burns ~2 ms on each packet (burn stage), so it holds each
# burst of 32 for tens of milliseconds while every ring can be empty; worker 1 forwards.
# 256 packets are replayed once; SIGINT comes while worker 0 is still at work. Every packet
# must leave the engine: none counted as a shutdown drop, in = out, exit 0.
# Process build, again: worker 0 is killed while the engine drains. The primary reclaims the
# burst in its hands and the packets queued for it, counts them, ends the drain without
# waiting for its timeout, gets every mbuf back, and exits 1 (a worker failed).
# And with --no-spawn, both workers started by hand (not the primary's children): the same.
. "$(dirname "$0")/lib.sh"

"$PCAPGEN" -o "$TMP/in.pcap" -n 256 -f 16 --seed 51 > /dev/null
n=$(pcap_count "$TMP/in.pcap")
cat > "$TMP/engine.ini" <<EOF
[engine]
shape = pipeline
io_lcore = 1
backpressure = on
burst = 32
burn_cycles = 5000000

[port 0]
device = net_pcap0
peer = 1

[port 1]
device = net_null1
rx = off

[worker 0]
lcore = 2
stages = burn

[worker 1]
lcore = 3
stages = fwd
EOF
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" \
	--vdev net_null1 -- -c "$TMP/engine.ini"
check "engine runs ($MODEL build)" wait_for "$log" "running:" 30
sleep 0.1
rc=0
stop_primary 30 || rc=$?
check "SIGINT while worker 0 is at work: exit 0 (status $rc)" [ "$rc" = 0 ]
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
check "every packet left the engine: $in in, $out out, $dropped dropped (sent $n)" \
	cond '[ "${in:-x}" = "$n" ] && [ "${out:-x}" = "$n" ] && [ "$dropped" = 0 ]'
check "nothing counted as a shutdown drop" cond '! grep -q "^total:.* shutdown [1-9]" "$log"'
assert_clean "nothing left behind"
[ "$MODEL" = thread ] && { finish; exit $?; }

# kill_draining WHO PID CAUSE: SIGINT, then SIGKILL to worker 0 (pid PID) once the engine
# drains; the primary must say CAUSE (its words for the end) and reclaim what it held
kill_draining() {
	local rc=0 in out dropped unacc died down
	kill -INT "$PRIMARY_PID"
	check "$1: SIGINT: the engine drains" wait_for "$log" "stopping: draining" 10
	kill -KILL "$2"
	wait_exit "$PRIMARY_PID" 30 || rc=$?
	[ "$rc" != 124 ] && PRIMARY_PID=
	check "$1: worker 0 killed while draining: exit 1, a worker failed (status $rc)" [ "$rc" = 1 ]
	check "$1: the primary reclaimed what worker 0 held and what was queued for it" \
		grep -qE "^mpe.engine: worker 0: pid $2 $3 while the engine drained; [0-9]+ mbufs reclaimed from its hands, [0-9]+ packets queued for it dropped \(worker_down\)" "$log"
	check "$1: the drain did not wait for its timeout" cond '! grep -q "drain: not finished" "$log"'
	in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
	unacc=$(total unaccounted "$log")
	died=$(sed -n 's/^total:.* worker_died \([0-9]*\).*/\1/p' "$log")
	down=$(sed -n 's/^total:.* worker_down \([0-9]*\).*/\1/p' "$log")
	check "$1: every packet left or was counted: $in in = $out out + $dropped dropped (worker_died ${died:-0}, worker_down ${down:-0}), nothing unaccounted" \
		cond '[ "${unacc:-x}" = 0 ] && [ "$((out + dropped))" = "$in" ] && [ $((${died:-0} + ${down:-0})) -gt 0 ]'
	check "$1: every mbuf back in the pool, once" grep -q "mempool: every mbuf back in the pool, once" "$log"
	assert_clean "$1: nothing left behind after the kill"
}

log=$TMP/primary-kill.log
start_primary "$log" --lcores "$LCORES" --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" \
	--vdev net_null1 -- -c "$TMP/engine.ini"
check "engine runs again" wait_for "$log" "running:" 30
w0=$(worker_pid 0)
sleep 0.1
kill_draining spawned "$w0" "killed by signal 9 \(Killed\)"

log=$TMP/primary-hand.log
start_primary "$log" --lcores "$LCORES" --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" \
	--vdev net_null1 -- -c "$TMP/engine.ini" --no-spawn
check "--no-spawn: the engine prints how to start worker 1" \
	wait_for "$log" "worker 1: start it with: mpe-secondary " 20
hand=()
for w in 0 1; do
	read -ra args <<< "$(sed -n "s/^worker $w: start it with: mpe-secondary //p" "$log")"
	"$SECONDARY" "${args[@]}" > "$TMP/hand$w.log" 2>&1 &
	hand+=($!)
	EXTRA_PIDS+=" $!"
done
check "both workers started by hand are ready" wait_for "$log" "running: 2 workers ready" 30
sleep 0.1
kill_draining "by hand" "${hand[0]}" "is gone"
finish
