#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker killed inside a dequeue from the mbuf pool's ring, between moving the
# ring's head and its tail, leaves every later user of the pool spinning for ever. The primary
# must not be one of them: it sees the ring stuck before it recovers anything, says so, kills
# the workers, removes the hugepage files and the runtime directory and exits 1, in seconds.
# (A worker's own returns to the pool and fills of its cache record their reservation and are
# finished for it, see life_pool_put and life_pool_fill; DPDK's get, inside a driver's receive
# call, cannot be. A worker fills its cache before each receive call, so that the call takes
# from the cache only; a cache of at most 64 (mbuf_cache) is too small for that, and DPDK's get
# takes a burst of 32 from the ring itself.)
# The death is made exact with gdb: worker 0 (the first of a pipeline with rx = workers: it
# receives from net_null, whose receive allocates mbufs, and frees none) is stopped on the
# instruction after the compare-and-swap that moved the ring's consumer head, then killed
# there.
. "$(dirname "$0")/lib.sh"

require_process_gdb

cfg=$TMP/engine.ini
printf '[engine]\nshape = pipeline\nrx = workers\ntx = workers\nmbuf_cache = 32\n\n' > "$cfg"
printf '[port 0]\ndevice = net_null0\npeer = 1\n\n[port 1]\ndevice = net_null1\npeer = 0\n' >> "$cfg"
printf '\n[worker 0]\nlcore = 2\n\n[worker 1]\nlcore = 3\n' >> "$cfg"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
check "engine runs" wait_for "$log" "running:" 30
check "it says the cache is too small to be filled ahead of a receive call" \
	grep -q "mbuf_cache 32 is too small to be filled ahead of a receive call (more than 64 needed)" "$log"
w0=$(worker_pid 0)
w1=$(worker_pid 1)
EXTRA_PIDS+=" $w0 $w1"
sleep 0.3

# The pool's dequeue is the ring driver's: its first lock cmpxchg is the move of the consumer
# head.
cat > "$TMP/stuck.py" <<'EOF'
import gdb
fn = mempool_op("ring_mp_mc", "dequeue")
insns = gdb.selected_frame().architecture().disassemble(fn, count=400)
after = next(insns[i + 1]["addr"] for i, ins in enumerate(insns) if "cmpxchg" in ins["asm"])
# stop there only when the swap succeeded (ZF): the head is moved, the tail not yet
gdb.execute("break *%d if ($eflags & 0x40)" % after)
gdb.execute("continue")
print("STUCK-AT-HEAD-MOVED %s" % gdb.parse_and_eval("$pc"))
gdb.execute("kill")
EOF
gdb_ops "$w0" "$TMP/stuck.py" "$TMP/gdb.log"
if grep -q "STUCK-AT-HEAD-MOVED" "$TMP/gdb.log"; then
	ok "gdb killed worker 0 between the head and the tail of a pool dequeue"
else
	not_ok "gdb did not stop worker 0 inside a pool dequeue"; tail -5 "$TMP/gdb.log"
fi
rc=0
wait_exit "$PRIMARY_PID" 10 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
check "the primary does not hang: it exits 1 within 10 s (status $rc)" [ "$rc" = 1 ]
check "it names the cause" \
	grep -q "worker 0: the dequeue of mempool mpe_mbufs's ring (ring_mp_mc) was left half done" "$log"
check "it says it stops without waiting" \
	grep -q "the mbuf pool can no longer be used: stopping the engine now" "$log"
check "it prints the summary" grep -q "^total: in " "$log"
check "worker 1 was killed ($w1)" cond '! alive "$w1"'
assert_clean "no process, hugepage file or runtime directory left"
finish
