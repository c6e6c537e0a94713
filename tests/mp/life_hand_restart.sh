#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
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
#   4. a second engine: worker 0 killed, and its next instance fails in its set-up (gdb): a
#      death like the first, so its line comes again; then a second instance started while
#      the first one sets up (gdb holds it) refuses.
#      An instance killed in its set-up, after it claimed the slot, is a death too.
#   5. worker 0's next instance held by gdb in its set-up when SIGINT comes:
#      the primary waits for it; let go, the instance runs and stops, and the primary exits
#      0, books balanced.
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

# line_args W: worker W's last printed command line, without mpe-secondary, in ARGS
line_args() {
	read -ra ARGS <<< "$(sed -n "s/^worker $1: start it with: mpe-secondary //p" "$log" |
		tail -1)"
}

# hand_start W NAME: runs worker W's last printed command line; its pid in HAND
hand_start() {
	line_args "$1"
	"$SECONDARY" "${ARGS[@]}" > "$TMP/$2.log" 2>&1 &
	HAND=$!
	EXTRA_PIDS+=" $HAND"
}

# gdb_start NAME GDB-ARGS...: worker 0's last printed command line run under gdb with
# GDB-ARGS (after a breakpoint at mpe_worker_init, where the instance has claimed its slot);
# gdb's output in $TMP/NAME.log, its pid in GDB_PID
gdb_start() {
	local name=$1
	shift
	line_args 0
	gdb -batch -nx -ex 'break mpe_worker_init' -ex run "$@" -ex 'quit $_exitcode' \
		--args "$SECONDARY" "${ARGS[@]}" > "$TMP/$name.log" 2>&1 &
	GDB_PID=$!
	EXTRA_PIDS+=" $GDB_PID"
}

# hold NAME: gdb_start that holds the instance at the breakpoint until $TMP/go-NAME exists
# (or the test's directory is gone)
hold() {
	gdb_start "$1" -ex "shell while [ -d $TMP ] && [ ! -e $TMP/go-$1 ]; do sleep 0.05; done" \
		-ex continue
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

# engine_up PREFIX: the primary started with --no-spawn and both workers started by hand from
# the lines it prints (worker 0's pid in $first, worker 1's in $other); PREFIX leads each
# check's name
engine_up() {
	start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/engine.ini" --no-spawn
	check "$1the primary prints how to start the workers" \
		wait_for "$log" "worker 1: start it with: mpe-secondary " 20
	hand_start 0 worker0; first=$HAND
	hand_start 1 worker1; other=$HAND
	check "$1the engine runs" wait_for "$log" "running: 2 workers ready" 30
}

engine_up ""
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
	cond 'rx_moves 0 "worker 0: pid $second is gone" &&
		rx_moves 1 "worker 0: pid $second is gone"'

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

# --- 4. a new instance that fails to attach, then two started at once
sed -i 's/^restart_backoff_ms = .*/restart_backoff_ms = 10/; s/^restart_max = .*/restart_max = 5/' \
	"$TMP/engine.ini"
engine_up "4: "
kill -KILL "$first"
check "4: worker 0's line comes again" \
	wait_for_count "^worker 0: start it with: mpe-secondary " 2 10
# gdb makes the worker's set-up fail, as a stage that cannot start would
gdb_start failing -ex 'return (int)-22' -ex continue
failing=$GDB_PID
rc=0
wait_exit "$failing" 30 || rc=$?
check "4: the failing instance stopped in its set-up and exited 1 (status $rc)" \
	cond '[ "$rc" = 1 ] && grep -q "hit Breakpoint 1,.*mpe_worker_init" "$TMP/failing.log"'
check "4: the primary takes it for a death: its line comes a third time, after twice the \
back-off" cond 'wait_for "$log" "worker 0: to be started again by hand in 20 ms (restart 2)" 5 &&
		wait_for_count "^worker 0: start it with: mpe-secondary " 3 10'
# two instances at once (an operator and a service manager): gdb holds the first one in its
# set-up, after it claimed the slot, while the second one starts; that one refuses
hold held
gdb4=$GDB_PID
check "4: gdb holds an instance in its set-up" \
	wait_for "$TMP/held.log" "hit Breakpoint 1,.*mpe_worker_init" 60
held=$(pgrep -f -P "$gdb4" -- "--worker 0" | head -1)
refused 0 twin "another instance, pid ${held:-?}, is attaching"
touch "$TMP/go-held"
check "4: the held instance goes on, and worker 0 is back (pid $held)" \
	wait_for "$log" "worker 0: back after [0-9.]* ms (pid $held)" 15

# --- 4b. an instance that claimed the slot and died before it was ready is a death too: the
# slot is not left claimed by a dead pid
kill -KILL "$held"
check "4b: worker 0's line comes a fourth time" \
	wait_for_count "^worker 0: start it with: mpe-secondary " 4 10
hold dying
gdb4b=$GDB_PID
check "4b: gdb holds an instance in its set-up" \
	wait_for "$TMP/dying.log" "hit Breakpoint 1,.*mpe_worker_init" 60
dying=$(pgrep -f -P "$gdb4b" -- "--worker 0" | head -1)
kill -KILL "$dying"
touch "$TMP/go-dying" # gdb finds its inferior gone, reaps it, and ends
check "4b: the primary notices the death of pid $dying, and worker 0's line comes again" \
	cond 'wait_for "$log" "worker 0: pid $dying is gone" 5 &&
		wait_for_count "^worker 0: start it with: mpe-secondary " 5 10'
wait_exit "$gdb4b" 10 || true

# --- 5. the stop waits for an instance that is attaching
hold held5
gdb5=$GDB_PID
check "5: gdb holds a new instance in its set-up" \
	wait_for "$TMP/held5.log" "hit Breakpoint 1,.*mpe_worker_init" 60
kill -INT "$PRIMARY_PID"
sleep 0.5
check "5: half a second after SIGINT the primary still waits for that instance" \
	cond 'grep -q "stopping:" "$log" && kill -0 "$PRIMARY_PID"'
touch "$TMP/go-held5"
rc=0
wait_exit "$PRIMARY_PID" 30 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
check "5: once it goes on, it stops, and so does the primary, with exit 0 (status $rc)" \
	[ "$rc" = 0 ]
rc=0
wait_exit "$gdb5" 10 || rc=$?
check "5: the instance ran, then left cleanly (status $rc)" \
	cond '[ "$rc" = 0 ] && grep -q "worker 0: stopped after [0-9]* packets" "$TMP/held5.log"'
check_pool_whole 5
assert_clean "5: nothing left behind"
finish
