#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker that polls its own port queues (shape rss) publishes the receive
# phase of its hand (MPE_HAND_DEV) only once the last burst's n and kept are cleared. A death
# right after the phase store would otherwise make the primary's recovery free work[kept..n)
# of the burst before, mbufs already freed: the same mbuf twice in the pool.
# Checked on the binary as compiled: gdb watches worker 0's hand.phase in shared memory and,
# each time it goes from FREE (the last burst done) to DEV (receiving), reads n, kept and done
# at that very instruction; all must be 0, over 50 bursts.
# Then gdb kills the worker right after a receive has stored its burst's n, still in DEV (PROC
# not yet published): the primary must free the burst just received, pkts[0..n), and count
# it, not take the death for one inside a transmit and free work[] (the burst before, gone
# already). At the end the pool holds every mbuf once and in = out + dropped.
. "$(dirname "$0")/lib.sh"

require_process_gdb

start_null_rss
w0=$(worker_pid 0)
EXTRA_PIDS+=" $w0"

cat > "$TMP/hand.py" <<'EOF'
hand = shm["workers"][0]["hand"]
FREE = int(gdb.parse_and_eval("MPE_HAND_FREE"))
DEV = int(gdb.parse_and_eval("MPE_HAND_DEV"))

last = {"phase": int(hand["phase"]), "seen": 0}

def publish():
    """Stops the worker after the 50th write that turned FREE into DEV."""
    cur, prev = int(hand["phase"]), last["phase"]
    last["phase"] = cur
    if cur != DEV or prev != FREE:
        return False
    last["seen"] += 1
    print("RX-PUBLISH n=%d kept=%d done=%d" %
          (int(hand["n"]), int(hand["kept"]), int(hand["done"])))
    return last["seen"] >= 50

OnWrite(hand["phase"], publish)
gdb.execute("continue")
EOF
gdb_worker "$w0" "$TMP/hand.py" "$TMP/gdb.log"
seen=$(grep -c "^RX-PUBLISH" "$TMP/gdb.log" || true)
stale=$(grep "^RX-PUBLISH" "$TMP/gdb.log" | grep -vc "n=0 kept=0 done=0" || true)
if [ "$seen" = 50 ]; then
	ok "gdb saw worker 0 publish the receive phase 50 times"
else
	not_ok "gdb saw $seen receive phases"; tail -5 "$TMP/gdb.log"
fi
if [ "$stale" = 0 ]; then
	ok "each time n, kept and done were already 0"
else
	not_ok "$stale times of $seen the last burst's figures were still there:" \
		"$(grep "^RX-PUBLISH" "$TMP/gdb.log" | grep -vm1 "n=0 kept=0 done=0")"
fi

cat > "$TMP/received.py" <<'EOF'
hand = shm["workers"][0]["hand"]
DEV = int(gdb.parse_and_eval("MPE_HAND_DEV"))

def received():
    """Kills the worker at the write of a received burst's n, phase still DEV."""
    if int(hand["n"]) == 0 or int(hand["phase"]) != DEV:
        return False
    print("KILLED-AT received n=%d kept=%d" % (int(hand["n"]), int(hand["kept"])))
    return True

OnWrite(hand["n"], received)
gdb.execute("continue")
gdb.execute("kill")
EOF
gdb_worker "$w0" "$TMP/received.py" "$TMP/gdb-received.log"
if grep -q "^KILLED-AT received n=[1-9][0-9]* kept=0" "$TMP/gdb-received.log"; then
	ok "gdb killed worker 0 with a received burst in hand, before PROC:" \
		"$(grep "^KILLED-AT" "$TMP/gdb-received.log")"
else
	not_ok "gdb did not stop worker 0 after a receive"; tail -5 "$TMP/gdb-received.log"
fi
check "worker 0 recovered and respawned" respawned 1
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
check_pool_whole
assert_clean "nothing left behind"
finish
