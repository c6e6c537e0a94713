#!/usr/bin/env bash
# Process build: a worker killed while it fills its mempool cache from the pool's ring, before
# a receive call (common/pool.c, mpe_pool_fill), leaves neither the ring stuck nor an mbuf lost
# or doubled: the primary finishes the dequeue for it. gdb watches the worker's hand in shared
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

if [ "$MODEL" = thread ]; then
	ok "thread build: a worker cannot die alone"
	finish
	exit $?
fi
require_gdb || { finish; exit $?; }

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
val = lambda name: int(gdb.parse_and_eval(name))
at = lambda a: int(gdb.parse_and_eval("*(volatile uint32_t *)%d" % a)) # by address
mp = gdb.parse_and_eval('((struct rte_mempool *(*)(const char *))rte_mempool_lookup)'
                        '("mpe_mbufs")')
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

class Step(gdb.Breakpoint):
    def __init__(self):
        super().__init__("*(volatile uint32_t *)%d" % A[word],
                         gdb.BP_WATCHPOINT, gdb.WP_WRITE, internal=True)

    def stop(self):
        if not cond():
            return False
        print("KILLED-AT %s " % point +
              " ".join("%s=%d" % (k, at(a)) for k, a in sorted(A.items())))
        return True

Step()
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
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -c "back after" "$log" || true)" -ge "$deaths" ] && break
		sleep 0.05
	done
	check "worker 0 recovered and respawned after the death at '$point'" \
		[ "$(grep -c "back after" "$log" || true)" -ge "$deaths" ]
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
ops_t = "((struct rte_mempool_ops_table *)&rte_mempool_ops_table)"
n = int(gdb.parse_and_eval(ops_t + "->num_ops"))
fn = next(int(gdb.parse_and_eval(ops_t + "->ops[%d]" % i)["dequeue"]) for i in range(n)
          if gdb.parse_and_eval(ops_t + "->ops[%d]" % i)["name"].string() == "ring_mp_mc")
gdb.execute("break *%d" % fn)
threading.Timer(3.0, lambda: gdb.post_event(lambda: gdb.execute("interrupt"))).start()
gdb.execute("continue")
print("DEQUEUE-ENTERED" if int(gdb.parse_and_eval("$pc")) == fn else "NO-DEQUEUE")
gdb.execute("delete")
gdb.execute("detach")
EOF
pid=$(worker_pid 0)
timeout 60 gdb -p "$pid" -batch -nx -ex "add-symbol-file $PRIMARY -o 0" -ex "source $TMP/nodeq.py" > "$TMP/gdb-nodeq.log" 2>&1 || true
check "worker 0's receive calls take from its cache only: no dequeue from the ring in 3 s" \
	grep -q "^NO-DEQUEUE" "$TMP/gdb-nodeq.log"
grep -q "^NO-DEQUEUE\|^DEQUEUE-ENTERED" "$TMP/gdb-nodeq.log" || tail -5 "$TMP/gdb-nodeq.log"
check "worker 0 still runs after gdb left it" alive "$pid"
sleep 0.3
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
check "the pool holds every mbuf, each once" grep -q "mempool: every mbuf back in the pool, once" "$log"
check "no entry of the pool repeats an mbuf" cond '! grep -q "repeat an mbuf" "$log"'
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
unacc=$(total unaccounted "$log")
check "in = out + dropped ($in = $out + $dropped), nothing unaccounted" \
	cond '[ "${unacc:-x}" = 0 ] && [ $((out + dropped)) = "$in" ]'
assert_clean "nothing left behind"
finish
