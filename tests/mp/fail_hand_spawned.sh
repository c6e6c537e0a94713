#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build without --no-spawn: the primary starts its workers itself, and an instance
# started by hand for a worker it is respawning refuses, saying so, however early it comes.
# The respawned child is held in a wrapper (--secondary) while the hand instance starts; let
# go, it attaches and the worker is back. SIGINT: exit 0, every mbuf back, nothing left.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	ok "thread build: workers are lcores of the primary"
	finish
	exit $?
fi

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --seed 43 > /dev/null
loop_vdevs "$TMP/in.pcap"
cat > "$TMP/engine.ini" <<INI
[engine]
shape = distributor
io_lcore = 1
restart_backoff_ms = 10

$LOOP_PORTS
[worker 0]
lcore = 2

[worker 1]
lcore = 3
INI
cat > "$TMP/held-secondary" <<WRAP
#!/bin/sh
while [ -e "$TMP/hold" ]; do sleep 0.05; done
exec "$SECONDARY" "\$@"
WRAP
chmod +x "$TMP/held-secondary"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/engine.ini" \
	--secondary "$TMP/held-secondary"
check "the engine runs" wait_for "$log" "running:" 30
w0=$(worker_pid 0)
EXTRA_PIDS+=" $w0 $(worker_pid 1)"
touch "$TMP/hold"
kill -KILL "$w0"
check "worker 0 is respawned, its new process held before it starts" \
	wait_for_count "worker 0: spawned pid" 2 5
EXTRA_PIDS+=" $(worker_pid 0)"
rc=0
timeout -k 2 30 "$SECONDARY" --proc-type=secondary --file-prefix "$PREFIX" \
	--lcores "2@$((2 % NCPU))" --no-pci -- --worker 0 > "$TMP/hand.log" 2>&1 || rc=$?
check "an instance started by hand exits 1 (status $rc)" [ "$rc" = 1 ]
check "it says why: $(grep -o "worker 0: the primary starts.*" "$TMP/hand.log")" \
	grep -q "worker 0: the primary starts this worker itself (it runs without --no-spawn)" \
	"$TMP/hand.log"
rm -f "$TMP/hold"
check "the respawned worker 0 attaches and is back (pid $(worker_pid 0))" \
	wait_for "$log" "worker 0: back after [0-9.]* ms (pid $(worker_pid 0))" 20
rc=0
stop_primary 30 || rc=$?
check "SIGINT: the primary exits 0 (status $rc)" [ "$rc" = 0 ]
check_pool_whole
assert_clean "nothing left behind"
finish
