#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker killed after a device call returned, but before its hand says so.
# The worker counts what a call returned (rx, tx) first; its hand's dev_cnt0 holds that
# counter as it was before the call. The primary must read a counter past the mark as a call
# that returned: a receive's burst is in hand (freed and counted, though n is not yet set), a
# transmit's packets have left (counted out, not in doubt).
# gdb watches worker 0's rx, then tx counter, and kills the worker at the counter's write while
# its hand is still in the device phase. At the end the pool holds every mbuf once and
# in = out + dropped, with nothing in doubt.
. "$(dirname "$0")/lib.sh"

require_process_gdb

start_null_rss

# counted.py, with COUNTER=rx or tx in its environment: kills worker 0 at a write of that
# counter while its hand is in DEV, in a receive (kept 0) or a transmit (kept > 0)
cat > "$TMP/counted.py" <<'EOF'
import os
hand = shm["workers"][0]["hand"]
cnt = shm["wcnt"][0] if shm["wcnt"].type.sizeof > 0 else shm["workers"][0]["cnt"]
DEV = int(gdb.parse_and_eval("MPE_HAND_DEV"))
which = os.environ["COUNTER"]
last = [now(cnt[which])]

def counted():
    cur = now(cnt[which])
    moved, last[0] = (cur - last[0]) & 0xffffffff, cur
    if now(hand["phase"]) != DEV or (now(hand["kept"]) == 0) != (which == "rx"):
        return False
    print("KILLED-AT %s moved=%d n=%d kept=%d done=%d dev_end=%d" % (which, moved,
          now(hand["n"]), now(hand["kept"]), now(hand["done"]), now(hand["dev_end"])))
    return True

OnWrite(cnt[which], counted)
gdb.execute("continue")
gdb.execute("kill")
EOF

for which in rx tx; do
	w0=$(worker_pid 0)
	EXTRA_PIDS+=" $w0"
	sleep 0.2
	backs0=$(grep -c "worker 0: back after" "$log" || true)
	COUNTER=$which gdb_worker "$w0" "$TMP/counted.py" "$TMP/gdb-$which.log"
	killed=$(grep "^KILLED-AT $which" "$TMP/gdb-$which.log" || true)
	if [ -n "$killed" ]; then
		ok "gdb killed worker 0 with its $which counted, still in DEV: $killed"
	else
		not_ok "gdb did not stop worker 0 at its $which counter"; tail -5 "$TMP/gdb-$which.log"
	fi
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c "worker 0: back after" "$log" || true)" -gt "$backs0" ] && break
		sleep 0.1
	done
	check "worker 0 is back after the $which kill" \
		[ "$(grep -c "worker 0: back after" "$log" || true)" -gt "$backs0" ]
done
sleep 0.3
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
check "no packet was taken to be in doubt" cond '! grep -q "died inside a transmit call" "$log"'
check_pool_whole
assert_clean "nothing left behind"
finish
