#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker killed while it returns mbufs to the pool (common/worker/pool_put.c)
# loses none and leaves none in the pool twice; the primary finishes or undoes the return. gdb watches the
# worker's hand in shared memory and kills it right after a chosen step, on the binary as
# compiled:
#   held     the put owns its mbufs, none returned yet: the primary puts them back;
#   cache    the copy into the worker's cache is under way, not counted by it: put back;
#   reserved slots of the pool's ring reserved and recorded, not filled (the worker only
#            returns mbufs, so its cache fills and is flushed): the primary fills them and
#            moves the ring's tail on the worker's behalf;
#   armed    a free of dropped packets begun, nothing handed to a put yet: the primary frees
#            them, and counts them once.
# Parse drops packets in every burst, which the worker frees: in the distributor each frame of
# the capture has a twin with a malformed IPv4 header; in rss (net_pcap's datapath does not
# work in a worker process) net_null makes frames of 10 bytes, too short for Ethernet. At the
# end: each death recovered, the recoveries said what they did, the pool holds every mbuf
# once, and in = out + dropped.
# Usage: life_pool_put.sh [SHAPE]   (distributor, the default: the worker dequeues from its
#                                    ring; rss: it polls and transmits on the ports itself)
. "$(dirname "$0")/lib.sh"

SHAPE=${1:-distributor}
require_process_gdb

# rss: the worker's receive takes from its mempool cache what its frees put back, so the cache
# never fills and is never flushed: no 'reserved' step there
if [ "$SHAPE" = rss ]; then
	POINTS=${POINTS:-held cache armed}
	PORTS=$NULL_PORTS
	VDEVS=(--vdev net_null0,size=10 --vdev net_null1)
else
	"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 100 --seed 17 --malformed 1000 > /dev/null
	loop_vdevs "$TMP/in.pcap"
	PORTS=$LOOP_PORTS
	VDEVS=("${LOOP_VDEVS[@]}")
fi
cfg=$TMP/engine.ini
cat > "$cfg" <<EOF
[engine]
shape = $SHAPE
$([ "$SHAPE" = rss ] || echo "io_lcore = 1")
backpressure = on
restart_backoff_ms = 10

$PORTS
[worker 0]
lcore = 2
stages = parse,fwd
EOF
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" "${VDEVS[@]}" -- -c "$cfg"
check "engine runs" wait_for "$log" "running:" 30

cat > "$TMP/put.py" <<'EOF'
import gdb, os
point = os.environ["POINT"]
hand = shm["workers"][0]["hand"]
put = hand["put"]
A = {k: int(v.address) for k, v in (
    ("state", put["state"]), ("n", put["n"]), ("head_set", put["head_set"]),
    ("phase", hand["phase"]), ("free_from", hand["free_from"]),
    ("free_end", hand["free_end"]), ("free_armed", hand["free_armed"]))}
# the word to watch, the value that stops the worker, and what else must hold then
word, want, extra = {
    "held": ("state", val("MPE_PUT_HELD"), None),
    "cache": ("state", val("MPE_PUT_CACHE"), None),
    "reserved": ("head_set", 1, lambda: at(A["state"]) == val("MPE_PUT_FLUSH")),
    "armed": ("free_armed", 1, lambda: at(A["phase"]) == val("MPE_HAND_FREE")),
}[point]

def step():
    if at(A[word]) != want or (extra is not None and not extra()):
        return False
    print("KILLED-AT %s " % point +
          " ".join("%s=%d" % (k, at(a)) for k, a in sorted(A.items())))
    return True

OnWrite({"state": put["state"], "head_set": put["head_set"],
         "free_armed": hand["free_armed"]}[word], step)
gdb.execute("continue")
gdb.execute("kill")
EOF

deaths=0
for point in ${POINTS:=held cache reserved armed}; do
	pid=$(worker_pid 0)
	EXTRA_PIDS+=" $pid"
	POINT=$point gdb_worker "$pid" "$TMP/put.py" "$TMP/gdb-$point.log"
	if grep -q "^KILLED-AT $point" "$TMP/gdb-$point.log"; then
		ok "gdb killed worker 0 at step '$point': $(grep "^KILLED-AT" "$TMP/gdb-$point.log")"
		deaths=$((deaths + 1))
	else
		not_ok "gdb did not stop worker 0 at step '$point'"; tail -12 "$TMP/gdb-$point.log"
	fi
	check "worker 0 recovered and respawned after the death at '$point'" respawned "$deaths"
done

check "held: the primary put the mbufs back" \
	grep -qE "worker 0: died returning mbufs to the pool \(held\): 0 enqueued to the ring on its behalf, [1-9][0-9]* put back" "$log"
check "cache: the primary put back the mbufs its cache had not counted" \
	grep -qE "worker 0: died returning mbufs to the pool \(into its cache\): 0 enqueued to the ring on its behalf, [1-9][0-9]* put back" "$log"
case " $POINTS " in *" reserved "*)
	check "reserved: the primary filled the reserved slots and moved the ring's tail" \
		grep -qE "worker 0: died returning mbufs to the pool \(flushing its cache\): [1-9][0-9]* enqueued to the ring on its behalf, [1-9][0-9]* put back" "$log"
esac
grep "died returning mbufs to the pool" "$log" | sed 's/^/# /'
sleep 0.3
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
check_pool_whole
verdict=$(sed -n 's/^total:.* verdict \([0-9]*\).*/\1/p' "$log")
check "parse dropped the malformed frames (verdict ${verdict:-0})" [ "${verdict:-0}" -gt 0 ]
assert_clean "nothing left behind"
finish
