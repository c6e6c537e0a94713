#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker killed while it fills its mempool cache from the pool's ring, before
# a receive call (common/worker/pool_put.c, mpe_pool_fill), leaves neither the ring stuck nor
# an mbuf lost or doubled: the primary finishes the dequeue for it. gdb watches the worker's hand in shared
# memory and the pool ring's consumer tail, and kills the worker right after a chosen step:
#   filling  the fill is begun, nothing taken from the ring yet: nothing to finish;
#   recorded the ring's consumer head is moved and the slots recorded, the tail not moved:
#            the primary copies the slots into the dead worker's cache and moves the tail;
#   moved    the tail is moved, the cache's length not yet: the primary counts the entries.
# Worker 0 is the first of a pipeline with rx = workers: it receives from net_null, whose
# receive allocates mbufs, and frees none, so its cache keeps running short. Before its
# receive calls filled the cache themselves (DPDK's refill inside the driver), a death there
# stopped the engine: life_pool_stuck.
. "$(dirname "$0")/lib.sh"

require_process_gdb

cfg=$TMP/engine.ini
cat > "$cfg" <<EOF
[engine]
shape = pipeline
rx = workers
tx = workers
restart_backoff_ms = 10

[port 0]
device = net_null0
peer = 1

[port 1]
device = net_null1
peer = 0

[worker 0]
lcore = 2
stages = fwd

[worker 1]
lcore = 3
stages = fwd
EOF
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
check "engine runs" wait_for "$log" "running:" 30

cat > "$TMP/fill.py" <<'EOF'
import gdb, os
point = os.environ["POINT"]
put = shm["workers"][0]["hand"]["put"]
mp = gdb.parse_and_eval("mpe_pool_mapped")
ring = gdb.parse_and_eval("(struct rte_ring *)%d" % int(mp["pool_data"]))
A = {"state": int(put["state"].address), "head_set": int(put["head_set"].address),
     "cons_tail": int(ring["cons"]["tail"].address)}
FILL = val("MPE_PUT_FILL")
# the word to watch, and what must hold when it is written
word, cond = {
    "filling": ("state", lambda: at(A["state"]) == FILL),
    "recorded": ("head_set", lambda: at(A["state"]) == FILL and at(A["head_set"]) == 1),
    "moved": ("cons_tail", lambda: at(A["state"]) == FILL and at(A["head_set"]) == 1),
}[point]

def step():
    if not cond():
        return False
    print("KILLED-AT %s " % point +
          " ".join("%s=%d" % (k, at(a)) for k, a in sorted(A.items())))
    return True

OnWrite({"state": put["state"], "head_set": put["head_set"],
         "cons_tail": ring["cons"]["tail"]}[word], step)
gdb.execute("continue")
gdb.execute("kill")
EOF

deaths=0
for point in filling recorded moved; do
	pid=$(worker_pid 0)
	EXTRA_PIDS+=" $pid"
	POINT=$point gdb_worker "$pid" "$TMP/fill.py" "$TMP/gdb-$point.log"
	if grep -q "^KILLED-AT $point" "$TMP/gdb-$point.log"; then
		ok "gdb killed worker 0 at step '$point': $(grep "^KILLED-AT" "$TMP/gdb-$point.log")"
		deaths=$((deaths + 1))
	else
		not_ok "gdb did not stop worker 0 at step '$point'"; tail -12 "$TMP/gdb-$point.log"
	fi
	check "worker 0 recovered and respawned after the death at '$point'" respawned "$deaths"
done

# what each recovery did, in the order of the deaths
mapfile -t did < <(sed -n 's/^mpe.engine: worker 0: died filling its mempool cache from the ring: //p' "$log")
printf '# %s\n' "${did[@]}"
check "filling: nothing taken yet, nothing to finish (${did[0]:-none})" \
	cond '[[ "${did[0]}" == "0 entries taken on its behalf, 0 counted into its cache" ]]'
check "recorded: the primary took the recorded slots into the cache and moved the tail (${did[1]:-none})" \
	cond '[[ "${did[1]}" =~ ^([1-9][0-9]*)\ entries\ taken\ on\ its\ behalf,\ ([1-9][0-9]*)\ counted ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]'
check "moved: the primary counted what the worker had taken (${did[2]:-none})" \
	cond '[[ "${did[2]}" =~ ^0\ entries\ taken\ on\ its\ behalf,\ [1-9][0-9]*\ counted ]]'
check "no recovery found the fill at odds with the cache" cond '! grep -q "contradicts its cache" "$log"'
check "the default cache is large enough to be filled ahead: no notice about it" \
	cond '! grep -q "too small to be filled ahead" "$log"'
check "the ring was never left stuck" cond '! grep -q "left half done" "$log"'

# The receive calls themselves no longer dequeue from the pool's ring: the ring driver's
# dequeue (found as life_pool_stuck finds it) is never entered by worker 0 in 3 s.
cat > "$TMP/nodeq.py" <<'EOF'
import gdb, threading
fn = mempool_op("ring_mp_mc", "dequeue")
gdb.execute("break *%d" % fn)
threading.Timer(3.0, lambda: gdb.post_event(lambda: gdb.execute("interrupt"))).start()
gdb.execute("continue")
print("DEQUEUE-ENTERED" if int(gdb.parse_and_eval("$pc")) == fn else "NO-DEQUEUE")
gdb.execute("delete")
gdb.execute("detach")
EOF
pid=$(worker_pid 0)
gdb_ops "$pid" "$TMP/nodeq.py" "$TMP/gdb-nodeq.log"
check "worker 0's receive calls take from its cache only: no dequeue from the ring in 3 s" \
	grep -q "^NO-DEQUEUE" "$TMP/gdb-nodeq.log"
grep -q "^NO-DEQUEUE\|^DEQUEUE-ENTERED" "$TMP/gdb-nodeq.log" || tail -5 "$TMP/gdb-nodeq.log"
check "worker 0 still runs after gdb left it" alive "$pid"
sleep 0.3
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
check_pool_whole
assert_clean "nothing left behind"
finish
