#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker that transmits itself (tx = workers) killed inside its transmit call
# leaves the packets it gave the driver in doubt: sent or not, nobody can tell. The primary
# counts them once as in_doubt (neither out nor dropped), frees the survivors the driver never
# got (worker_died) and the stages' drops, respawns the worker, and at stop does not wait for
# the packets in doubt: the drain ends at once, with nothing unaccounted.
# gdb watches worker 0's hand.phase in shared memory and kills the worker right after it
# publishes the device phase of a transmit (n, the burst, not 0), on the binary as compiled;
# then the new worker 0 inside DPDK's put, in the middle of the driver's free.
# With POOLS 2 (pools = port: each net_null port receives into a pool of its own), the put gdb
# stops is one into the worker's cache of the second pool, mpe_mbufs_1: the primary must write
# off what that cache gained, from the length recorded for it, and flush the others as they
# were.
# Usage: life_dev_doubt.sh [POOLS]   (1 or 2, default 1)
. "$(dirname "$0")/lib.sh"

POOLS=${1:-1}
K=$((POOLS - 1)) # the pool whose cache gdb watches

require_process_gdb

cfg=$TMP/engine.ini
printf '[engine]\nshape = distributor\nio_lcore = 1\ntx = workers\nbackpressure = on\n' > "$cfg"
printf 'restart_backoff_ms = 10\n\n' >> "$cfg"
[ "$POOLS" = 2 ] && sed -i 's/^tx = workers$/&\npools = port/' "$cfg"
printf '[port 0]\ndevice = net_null0\npeer = 1\n\n[port 1]\ndevice = net_null1\npeer = 0\n' >> "$cfg"
printf '\n[worker 0]\nlcore = 2\n\n[worker 1]\nlcore = 3\n' >> "$cfg"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
check "engine runs" wait_for "$log" "running:" 30
w0=$(worker_pid 0)
EXTRA_PIDS+=" $w0"
sleep 0.2

cat > "$TMP/dev.py" <<'EOF'
import gdb
hand = shm["workers"][0]["hand"]
DEV = int(gdb.parse_and_eval("MPE_HAND_DEV"))

def in_tx():
    if now(hand["phase"]) != DEV or now(hand["n"]) == 0:
        return False
    print("KILLED-IN-TX n=%d kept=%d done=%d dev_end=%d" % (now(hand["n"]),
          now(hand["kept"]), now(hand["done"]), now(hand["dev_end"])))
    return True

OnWrite(hand["phase"], in_tx)
gdb.execute("continue")
gdb.execute("kill")
EOF
gdb_worker "$w0" "$TMP/dev.py" "$TMP/gdb.log"
if grep -q "^KILLED-IN-TX" "$TMP/gdb.log"; then
	ok "gdb killed worker 0 in a transmit call: $(grep "^KILLED-IN-TX" "$TMP/gdb.log")"
else
	not_ok "gdb did not stop worker 0 in a transmit call"; tail -5 "$TMP/gdb.log"
fi
read -r kept done dev_end < <(sed -n 's/^KILLED-IN-TX n=[0-9]* kept=\([0-9]*\) done=\([0-9]*\) dev_end=\([0-9]*\)/\1 \2 \3/p' "$TMP/gdb.log")
doubt=$((${dev_end:-0} - ${done:-0}))
check "the primary says how many packets are in doubt ($doubt, work[$done..$dev_end))" \
	wait_for "$log" "worker 0: died inside a transmit call with $doubt packets: their fate is unknown (in_doubt)" 5
check "worker 0 is back" wait_for "$log" "worker 0: back after" 10

# Again, inside DPDK's own put in the driver's free of a sent mbuf: right after it counted a
# new entry of the worker's mempool cache, before it wrote it. That entry holds an old
# pointer: flushed with the cache, it would put an mbuf into the pool a second time.
w0=$(worker_pid 0)
EXTRA_PIDS+=" $w0"
sleep 0.2
echo "K = $K" > "$TMP/put.py"
cat >> "$TMP/put.py" <<'EOF'
import gdb
hand = shm["workers"][0]["hand"]
mp = gdb.parse_and_eval("mpe_pools_mapped")[K]
cache_len = mp["local_cache"][int(shm["conf"]["workers"][0]["lcore"])]["len"]
DEV = int(gdb.parse_and_eval("MPE_HAND_DEV"))

last = [now(cache_len)]

def in_put():
    cur, prev = now(cache_len), last[0]
    last[0] = cur
    if cur != prev + 1 or now(hand["phase"]) != DEV or now(hand["n"]) == 0:
        return False
    print("KILLED-IN-PUT len=%d->%d len0=%d" % (prev, cur, now(hand["cache_len0"][K])))
    return True

OnWrite(cache_len, in_put)
gdb.execute("continue")
gdb.execute("kill")
EOF
gdb_worker "$w0" "$TMP/put.py" "$TMP/gdb2.log"
if grep -q "^KILLED-IN-PUT" "$TMP/gdb2.log"; then
	ok "gdb killed worker 0 inside DPDK's put: $(grep "^KILLED-IN-PUT" "$TMP/gdb2.log")"
else
	not_ok "gdb did not stop worker 0 inside DPDK's put"; tail -5 "$TMP/gdb2.log"
fi
which=""
[ "$POOLS" = 2 ] && which=" (mempool mpe_mbufs_1)"
check "the primary wrote off what the cache$which gained in that call, not flushed it" \
	wait_for "$log" "worker 0: [1-9][0-9]* entries its mempool cache$which gained in the transmit call it died in are written off" 5
backs() { grep -c "worker 0: back after" "$log" || true; }
for ((i = 0; i < 100; i++)); do [ "$(backs)" -ge 2 ] && break; sleep 0.1; done
check "worker 0 is back again" [ "$(backs)" -ge 2 ]
doubt=$(grep -o "worker 0: died inside a transmit call with [0-9]* packets" "$log" |
	awk '{s += $(NF - 1)} END {print s + 0}')
sleep 0.3
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
check "the drain did not wait for the packets in doubt" cond '! grep -q "drain: not finished" "$log"'
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
in_doubt=$(total in_doubt "$log"); unacc=$(total unaccounted "$log")
check "in = out + dropped + in_doubt ($in = $out + $dropped + ${in_doubt:-?}), in_doubt $doubt, nothing unaccounted" \
	cond '[ "${in_doubt:-x}" = "$doubt" ] && [ "$doubt" -gt 0 ] && [ "${unacc:-x}" = 0 ] &&
		[ $((out + dropped + in_doubt)) = "$in" ]'
missing=$(sed -n 's/.*mempool[a-z_0-9 ]*: \([0-9]*\) mbufs still in use at exit.*/\1/p' "$log" |
	awk '{s += $1} END {print s + 0}')
check "no mbuf in the pool twice" cond '! grep -q "repeat an mbuf" "$log"'
check "no mbuf lost but those in doubt (${missing:-0} of $doubt)" [ "${missing:-0}" -le "$doubt" ]
assert_clean "nothing left behind"
finish
