#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: a worker that keeps dying is respawned restart_max times within the window,
# then left down for good: the engine says so, goes on with the other worker, and the
# distributor counts what it would have sent to the dead one (worker_down).
. "$(dirname "$0")/lib.sh"

cfg=$TMP/engine.ini
cat > "$cfg" <<EOF2
[engine]
shape = distributor
io_lcore = 1
stats_period_ms = 50
restart_max = 2
restart_window_ms = 60000
restart_backoff_ms = 10

$LOOP_PORTS
[worker 0]
lcore = 2

[worker 1]
lcore = 3
EOF2
"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --seed 12 > /dev/null
log=$TMP/primary.log
loop_vdevs "$TMP/in.pcap"
start_primary "$log" --lcores "$LCORES" \
	"${LOOP_VDEVS[@]}" -- -c "$cfg"
check "engine runs" wait_for "$log" "running:" 30

for k in 1 2; do
	kill -KILL "$(worker_pid 0)"
	check "death $k: worker 0 is respawned" wait_for "$log" "worker 0: respawning in .* (restart $k)" 5
	for ((i = 0; i < 100; i++)); do
		[ "$(grep -c 'worker 0: back after' "$log")" -ge "$k" ] && break
		sleep 0.05
	done
done
kill -KILL "$(worker_pid 0)"
check "death 3: worker 0 is left down, and the engine says so" \
	wait_for "$log" "worker 0: died 3 times within 60000 ms (restart_max): it stays down" 5
sleep 0.5
check "worker 0 was not respawned a third time" \
	[ "$(grep -c 'worker 0: spawned pid' "$log")" = 3 ]
# worker 1 keeps forwarding after worker 0 went down for good
python3 - "$log" > "$TMP/after" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
down = next(i for i, l in enumerate(lines) if "it stays down" in l)
rx = [int(m.group(1)) for l in lines[down:]
      for m in [re.search(r"\| w1 running rx (\d+)", l)] if m]
print(len(rx), rx[-1] - rx[0] if len(rx) > 1 else 0)
PY
read -r samples moved < "$TMP/after"
check "worker 1 kept forwarding after worker 0 went down ($moved packets in $samples samples)" \
	cond '[ "$samples" -ge 2 ] && [ "$moved" -gt 0 ]'
rc=0
stop_primary 30 || rc=$?
check "on stop the primary exits 1: a worker is down (status $rc)" [ "$rc" = 1 ]
down=$(sed -n 's/^total:.* worker_down \([0-9]*\).*/\1/p' "$log")
check "what the distributor would have sent to worker 0 is counted (worker_down ${down:-0})" \
	[ "${down:-0}" -gt 0 ]
check "the summary shows it down for good" grep -q "restarts 2 (down for good)" "$log"
unacc=$(total unaccounted "$log")
check "nothing unaccounted ($unacc)" [ "${unacc:-x}" = 0 ]
check "every mbuf is back in the pool" grep -q "mempool: every mbuf back in the pool" "$log"
assert_clean
finish
