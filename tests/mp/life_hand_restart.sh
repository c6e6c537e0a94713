#!/usr/bin/env bash
# Process build, --no-spawn: workers started by hand (an operator, a service manager) are
# restarted by hand, under the same rules as the primary's own respawns.
#   1. worker 0 is SIGSTOPped: its heartbeat stops, and the primary kills it although it is
#      not its child; after restart_backoff_ms it prints its command line again, and worker
#      0 started from it is back.
#   2. worker 0 is killed: the primary recovers it and prints its line again after twice the
#      back-off. Started before that, the new instance refuses (the rings and the pool may
#      still be under repair); started after it, it is back and forwards.
#   3. a third death within restart_window_ms is one more than restart_max: worker 0 stays
#      down, and an instance started by hand then refuses and says so.
# Worker 1 forwards throughout. SIGINT: exit 1 (a worker failed), the books balance, the
# pool holds every mbuf once, nothing is left.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	ok "thread build: no worker is started by hand"
	finish
	exit $?
fi

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --seed 53 > /dev/null
loop_vdevs "$TMP/in.pcap"
cat > "$TMP/engine.ini" <<EOF
[engine]
shape = distributor
io_lcore = 1
stats_period_ms = 50
restart_backoff_ms = 2500
restart_max = 2
restart_window_ms = 60000
stall_timeout_ms = 300

$LOOP_PORTS
[worker 0]
lcore = 2

[worker 1]
lcore = 3
EOF
log=$TMP/primary.log

# hand_start W NAME: runs worker W's last printed command line; its pid in HAND
hand_start() {
	local args
	read -ra args <<< "$(sed -n "s/^worker $1: start it with: mpe-secondary //p" "$log" |
		tail -1)"
	"$SECONDARY" "${args[@]}" > "$TMP/$2.log" 2>&1 &
	HAND=$!
	EXTRA_PIDS+=" $HAND"
}

# refused W NAME WORDS: an instance of worker W started now exits non-zero saying WORDS
refused() {
	local rc=0
	hand_start "$1" "$2"
	wait_exit "$HAND" 15 || rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q -- "$3" "$TMP/$2.log"; then
		ok "$2: refused with status $rc: '$(grep -m1 -o -- "worker $1: .*" "$TMP/$2.log")'"
	else
		not_ok "$2: want a refusal saying '$3' (status $rc)"
		tail -3 "$TMP/$2.log"
	fi
}

start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/engine.ini" --no-spawn
check "the primary prints how to start the workers" \
	wait_for "$log" "worker 1: start it with: mpe-secondary " 20
hand_start 0 worker0; first=$HAND
hand_start 1 worker1; other=$HAND
check "the engine runs" wait_for "$log" "running: 2 workers ready" 30
sleep 0.3

# --- 1. hung: the primary kills a process it did not start
kill -STOP "$first"
check "1: the stopped worker 0 is killed for its heartbeat" \
	wait_for "$log" "worker 0 (pid $first): no heartbeat for 300 ms: killing it" 5
check "1: worker 0 is to be started again by hand after the back-off" \
	wait_for "$log" "worker 0: to be started again by hand in 2500 ms (restart 1)" 5
check "1: the primary prints worker 0's line again" \
	wait_for_count "^worker 0: start it with: mpe-secondary " 2 10
hand_start 0 worker0b; second=$HAND
check "1: worker 0, started again, is back (pid $second)" \
	wait_for "$log" "worker 0: back after [0-9.]* ms (pid $second)" 10

# --- 2. killed, then started too early and on time
kill -KILL "$second"
check "2: the primary notices worker 0's death" \
	wait_for "$log" "worker 0: pid $second is gone" 5
check "2: worker 0 is to be started again after twice the back-off" \
	wait_for "$log" "worker 0: to be started again by hand in 5000 ms (restart 2)" 5
refused 0 early "its last instance died and is being recovered"
check "2: the early instance came before the line was printed again" \
	[ "$(grep -c "^worker 0: start it with: " "$log")" = 2 ]
check "2: the primary prints worker 0's line again" \
	wait_for_count "^worker 0: start it with: mpe-secondary " 3 10
hand_start 0 worker0c; third=$HAND
check "2: worker 0 is back a second time (pid $third)" \
	wait_for "$log" "worker 0: back after [0-9.]* ms (pid $third)" 10
check "2: worker 0 came back twice, each time within 100 s of its death" \
	cond '[ "$(grep -c "worker 0: back after [0-9]\{1,5\}\.[0-9] ms" "$log")" = 2 ]'

sleep 0.5
check "2: both workers forward after the restart" \
	cond 'rx_moves 0 "worker 0: pid $second is gone" && rx_moves 1 "worker 0: pid $second is gone"'

# --- 3. one death more than restart_max: down for good
kill -KILL "$third"
check "3: worker 0 stays down after 3 deaths within the window" \
	wait_for "$log" "worker 0: died 3 times within 60000 ms (restart_max): it stays down" 5
refused 0 late "left down for good"
check "3: no line is printed for it again" \
	[ "$(grep -c "^worker 0: start it with: " "$log")" = 3 ]
sleep 0.3
check "3: worker 1 goes on" rx_moves 1 "worker 0: died 3 times"

rc=0
stop_primary 30 || rc=$?
check "SIGINT: the primary exits 1, worker 0 having failed (status $rc)" [ "$rc" = 1 ]
check "the summary names worker 0 failed" grep -q "worker 0 failed: " "$log"
check_pool_whole
rc=0
wait_exit "$other" 10 || rc=$?
check "worker 1 exits 0 (status $rc)" [ "$rc" = 0 ]
assert_clean "nothing left behind"
finish
