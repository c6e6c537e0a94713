#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: two workers dead inside enqueues to the mbuf pool's ring at once, the later
# reservation behind the earlier one's slots. Whichever is recovered first finishes the
# other's recorded slots first, then its own, and only then puts back what the puts still
# held (DPDK's enqueue of that would wait for good behind a dead worker's slots); the engine
# goes on. Before, the first recovery gave up after 250 ms and the engine stopped ("the mbuf
# pool can no longer be used"), or, with a put's objects to put back, hung.
# The workers parse and transmit (tx = workers: the driver returns what they send to their
# caches, and before a transmit call a worker makes room in its cache by a flush with no
# objects of its own). One run of the engine for each kind of flush of worker 0:
#   put   nearly every frame is malformed (all of those go to worker 0, keyed alike), so most
#         of worker 0's bursts are dropped whole and freed by a put, without a transmit
#         call: its cache is flushed by a put that has objects of its own, waiting;
#   room  every frame has a malformed twin, and worker 0's cache is flushed by making room.
# gdb holds worker 0 right after it records the reservation of such a flush; worker 1's next
# flush then reserves after it and waits for worker 0's tail (without backpressure the I/O
# lcore goes on feeding worker 1). Then, the primary stopped meanwhile, both are killed: it
# reaps worker 0 first (the older child), whose recovery finishes its own slots, then meets
# worker 1's.
. "$(dirname "$0")/lib.sh"

require_process_gdb

"$PCAPGEN" -o "$TMP/put.pcap" -n 100 -f 100 --seed 17 --malformed 4000 > /dev/null
"$PCAPGEN" -o "$TMP/room.pcap" -n 2000 -f 100 --seed 17 --malformed 1000 > /dev/null
cat > "$TMP/two.py" <<'EOF'
import gdb, os, signal, time
point = os.environ["POINT"]
put0 = shm["workers"][0]["hand"]["put"]
put1 = shm["workers"][1]["hand"]["put"]
pid1 = int(os.environ["W1"])
primary = int(os.environ["PRIMARY_PID"])
A0 = {k: int(put0[k].address) for k in ("state", "head_set", "head", "n")}
A1 = {k: int(put1[k].address) for k in ("state", "head_set", "head")}
FLUSH = val("MPE_PUT_FLUSH")
TO_RING = (FLUSH, val("MPE_PUT_RING"))
# "put": a put's flush, objects of its own waiting; "room": room made, none
own = (lambda n: n > 0) if point == "put" else (lambda n: n == 0)

OnWrite(put0["head_set"], lambda: (at(A0["head_set"]) == 1 and at(A0["state"]) == FLUSH and
                                   own(at(A0["n"]))))
gdb.execute("continue")
print("HELD-0 head=%d n=%d" % (at(A0["head"]), at(A0["n"])))
# worker 1's next enqueue reserves after worker 0's slots and waits for them
behind = lambda: (at(A1["head_set"]) == 1 and at(A1["state"]) in TO_RING and
                  0 < (at(A1["head"]) - at(A0["head"])) % (1 << 32) < (1 << 31))
end = time.time() + 10
while time.time() < end and not behind():
    time.sleep(0.01)
time.sleep(0.05)
if behind():
    print("BEHIND-1 head=%d state=%d" % (at(A1["head"]), at(A1["state"])))
    # both dead before the primary reaps either: it reaps the older child first, worker 0,
    # whose slots come first, and whose recovery meets worker 1's slots after its own
    os.kill(primary, signal.SIGSTOP)
    os.kill(pid1, signal.SIGKILL)
    gdb.execute("kill")
    time.sleep(0.05)
    os.kill(primary, signal.SIGCONT)
    print("KILLED-BOTH")
else:
    print("WORKER-1-NEVER-BEHIND")
    gdb.execute("kill")
EOF

for point in ${POINTS:-put room}; do
	loop_vdevs "$TMP/$point.pcap"
	cfg=$TMP/engine-$point.ini
	cat > "$cfg" <<EOF
[engine]
shape = distributor
io_lcore = 1
tx = workers
restart_backoff_ms = 10

$LOOP_PORTS
[worker 0]
lcore = 2
stages = parse, fwd

[worker 1]
lcore = 3
stages = parse, fwd
EOF
	log=$TMP/primary-$point.log
	start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$cfg"
	check "$point: engine runs" wait_for "$log" "running:" 30
	w0=$(worker_pid 0)
	w1=$(worker_pid 1)
	EXTRA_PIDS+=" $w0 $w1"
	POINT=$point W1=$w1 PRIMARY_PID=$PRIMARY_PID gdb_worker "$w0" "$TMP/two.py" "$TMP/gdb-$point.log"
	grep -E "^(HELD|BEHIND|KILLED|WORKER)" "$TMP/gdb-$point.log" | sed 's/^/# /' || true
	if grep -q "^KILLED-BOTH" "$TMP/gdb-$point.log"; then
		ok "$point: worker 1 killed waiting behind worker 0's reservation, and worker 0"
	else
		not_ok "$point: the two deaths were not set up"; tail -12 "$TMP/gdb-$point.log"
	fi
	check "$point: both workers recovered and respawned" respawned 2
	check "$point: worker 0's recovery finished worker 1's slots before putting anything back" \
		grep -qE "worker 0: the pool's ring is held by worker 1, dead too: what worker 1 left in mempool mpe_mbufs's ring \((flushing its cache|into the ring)\) is finished first: [1-9][0-9]* slots on its behalf" "$log"
	check "$point: the engine did not give the pool up" cond '! grep -q "can no longer be used" "$log"'
	if [ "$point" = put ]; then
		check "put: the objects worker 0's put held went back to the pool" \
			grep -qE "worker 0: died returning mbufs to the pool \(flushing its cache\): [1-9][0-9]* enqueued to the ring on its behalf, [1-9][0-9]* put back" "$log"
	fi
	grep -E "is held by worker|died returning|back after" "$log" | sed 's/^/# /' || true
	sleep 0.3
	rc=0
	stop_primary 30 || rc=$?
	check "$point: the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
	check_pool_whole "$point"
done
assert_clean "nothing left behind"
finish
