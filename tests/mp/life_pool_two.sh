#!/usr/bin/env bash
# Process build: two workers dead inside enqueues to the mbuf pool's ring, the later
# reservation's worker recovered first. Its slots wait for the earlier ones, which only the
# other dead worker's recovery would finish: the primary finishes that one first, then its
# own, and the engine goes on (before, the first recovery gave up after 250 ms and the engine
# stopped: "the pool can no longer be used").
# The workers transmit (tx = workers): the driver returns what they send to their caches, and
# before a transmit call a worker makes room in its cache by a flush to the ring. gdb holds
# worker 0 right after it records the reservation of such a flush; worker 1's next flush then
# reserves after it and waits for worker 0's tail (without backpressure the I/O lcore goes on
# feeding worker 1). Worker 1 is killed there (SIGKILL, reaped at once, its recovery begins
# and waits), then worker 0.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	ok "thread build: a worker cannot die alone"
	finish
	exit $?
fi
require_gdb || { finish; exit $?; }

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 100 --seed 17 > /dev/null
loop_vdevs "$TMP/in.pcap"
cfg=$TMP/engine.ini
cat > "$cfg" <<EOF
[engine]
shape = distributor
io_lcore = 1
tx = workers
restart_backoff_ms = 10

$LOOP_PORTS
[worker 0]
lcore = 2
stages = fwd

[worker 1]
lcore = 3
stages = fwd
EOF
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$cfg"
check "engine runs" wait_for "$log" "running:" 30
w0=$(worker_pid 0)
w1=$(worker_pid 1)
EXTRA_PIDS+=" $w0 $w1"

cat > "$TMP/two.py" <<'EOF'
import gdb, os, signal, time
put0 = shm["workers"][0]["hand"]["put"]
put1 = shm["workers"][1]["hand"]["put"]
pid1 = int(os.environ["W1"])
val = lambda name: int(gdb.parse_and_eval(name))
at = lambda a: int(gdb.parse_and_eval("*(volatile uint32_t *)%d" % a)) # by address
A0 = {k: int(put0[k].address) for k in ("state", "head_set", "head")}
A1 = {k: int(put1[k].address) for k in ("state", "head_set", "head")}
TO_RING = (val("MPE_PUT_FLUSH"), val("MPE_PUT_RING"))

class Reserved(gdb.Breakpoint):
    def __init__(self):
        super().__init__("*(volatile uint32_t *)%d" % A0["head_set"],
                         gdb.BP_WATCHPOINT, gdb.WP_WRITE, internal=True)

    def stop(self):
        return at(A0["head_set"]) == 1 and at(A0["state"]) in TO_RING

Reserved()
gdb.execute("continue")
print("HELD-0 head=%d state=%d" % (at(A0["head"]), at(A0["state"])))
# worker 1's next enqueue reserves after worker 0's slots and waits for them
behind = lambda: (at(A1["head_set"]) == 1 and at(A1["state"]) in TO_RING and
                  0 < (at(A1["head"]) - at(A0["head"])) % (1 << 32) < (1 << 31))
end = time.time() + 10
while time.time() < end and not behind():
    time.sleep(0.01)
time.sleep(0.05)
if behind():
    print("BEHIND-1 head=%d state=%d" % (at(A1["head"]), at(A1["state"])))
    os.kill(pid1, signal.SIGKILL)
    time.sleep(0.05)   # reaped; its recovery waits for worker 0's slots
    print("KILLED-BOTH")
else:
    print("WORKER-1-NEVER-BEHIND")
gdb.execute("kill")
EOF
W1=$w1 gdb_worker "$w0" "$TMP/two.py" "$TMP/gdb.log"
grep -E "^(HELD|BEHIND|KILLED|WORKER)" "$TMP/gdb.log" | sed 's/^/# /'
if grep -q "^KILLED-BOTH" "$TMP/gdb.log"; then
	ok "worker 1 killed waiting behind worker 0's reservation, then worker 0"
else
	not_ok "the two deaths were not set up"; tail -12 "$TMP/gdb.log"
fi
for ((i = 0; i < 200; i++)); do
	[ "$(grep -c "back after" "$log" || true)" -ge 2 ] && break
	sleep 0.05
done
check "both workers recovered and respawned" [ "$(grep -c "back after" "$log" || true)" -ge 2 ]
check "worker 1's recovery finished worker 0's enqueue first" \
	grep -qE "worker 1: its recovery waits for worker 0, dead too: what worker 0 left in mempool mpe_mbufs's ring \((flushing its cache|into the ring)\) is finished first: [1-9][0-9]* slots on its behalf" "$log"
check "then its own" \
	grep -qE "worker 1: died returning mbufs to the pool \((flushing its cache|into the ring)\): [1-9][0-9]* enqueued to the ring on its behalf" "$log"
check "the engine did not give the pool up" cond '! grep -q "can no longer be used" "$log"'
grep -E "its recovery waits|died returning|back after" "$log" | sed 's/^/# /'
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
