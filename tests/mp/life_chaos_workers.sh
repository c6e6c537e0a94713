#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Crash isolation under traffic (process build): a capture loops through the distributor
# into two worker processes while workers are killed (SIGKILL) or hung (SIGSTOP) at random
# moments, one at a time. Checks: every death is recovered and the worker respawned, the
# other worker keeps forwarding during every outage, the burst a killed worker held is finished
# by its replacement, nothing is stuck or leaked at the end, and every packet is either sent
# or counted where it was lost.
# Thread build: a crash there ends the engine; the test checks that the engine says so.
# Usage: life_chaos_workers.sh [KILLS]
. "$(dirname "$0")/lib.sh"

KILLS=${1:-50}
cfg=$TMP/engine.ini
cat > "$cfg" <<EOF2
[engine]
shape = distributor
io_lcore = 1
stats_period_ms = 20
restart_max = 1000
restart_window_ms = 1000
restart_backoff_ms = 20
stall_timeout_ms = 300
burn_cycles = 20000

$LOOP_PORTS
[worker 0]
lcore = 2
stages = parse,burn,fwd

[worker 1]
lcore = 3
stages = parse,burn,fwd
EOF2
# malformed frames in every burst: parse drops some of each burst before the workers die in
# burn, and a dead worker's recovery must count only what the stages did not count already
"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --bidir --seed 5 --malformed 400 > /dev/null
log=$TMP/primary.log
loop_vdevs "$TMP/in.pcap"
start_primary "$log" --lcores "$LCORES" \
	"${LOOP_VDEVS[@]}" -- -c "$cfg"
check "engine runs with a looping capture ($MODEL build)" wait_for "$log" "running:" 30

if [ "$MODEL" = thread ]; then
	check "the thread build says that a crashing worker takes the engine down" \
		grep -q "one that crashes takes the whole engine down" "$log"
	rc=0; stop_primary 30 || rc=$?
	check "stops cleanly" [ "$rc" = 0 ]
	assert_clean
	finish
	exit
fi

backs() { grep -c "back after" "$log" || true; }

stopped=0
for ((k = 1; k <= KILLS; k++)); do
	sleep "0.$((RANDOM % 20 + 5))"
	# one outage at a time: the other worker must be there to carry the traffic
	for ((i = 0; i < 200; i++)); do [ "$(backs)" -ge $((k - 1)) ] && break; sleep 0.025; done
	w=$((RANDOM % 2))
	pid=$(worker_pid $w)
	if ((RANDOM % 5 == 0)); then
		kill -STOP "$pid"; stopped=$((stopped + 1))
	else
		kill -KILL "$pid"
	fi
done
for ((i = 0; i < 200; i++)); do [ "$(backs)" -ge "$KILLS" ] && break; sleep 0.025; done
sleep 0.2
rc=0
stop_primary 30 || rc=$?
check "primary survives $KILLS worker deaths ($stopped of them hangs) and exits 0" [ "$rc" = 0 ]
# On a loaded 2-CPU machine a worker starved of CPU for 300 ms looks hung and is killed
# too: such extra restarts are allowed, missing ones are not.
deaths=$(grep -c "reclaimed from its hands" "$log" || true)
check "every death was recovered and the worker respawned ($(backs) of $deaths deaths, $KILLS caused)" \
	cond '[ "$(backs)" = "$deaths" ] && [ "$deaths" -ge "$KILLS" ]'
restarts=$(sed -n 's/^    restarts \([0-9]*\).*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
check "the summary counts the restarts ($restarts)" [ "$restarts" = "$deaths" ]
hangs=$(grep -c "no heartbeat for 300 ms: killing it" "$log" || true)
check "every hung worker was found by its heartbeat and killed ($hangs found, $stopped hung)" \
	[ "$hangs" -ge "$stopped" ]
check "both workers ran to the end and stopped cleanly" \
	[ "$(grep -cE '^  worker [01] \(lcore [23], exited\)' "$log")" = 2 ]
if grep -q "drain: not finished" "$log"; then
	not_ok "a ring was left stuck"; grep "drain:" "$log"
else
	ok "no ring was left stuck (drain finished)"
fi
check "every mbuf is back in the pool, once" grep -q "mempool: every mbuf back in the pool, once" "$log"

unacc=$(total unaccounted "$log")
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
check "in = out + dropped ($in = $out + $dropped), nothing unaccounted" \
	cond '[ "${unacc:-x}" = 0 ] && [ $((out + dropped)) = "$in" ]'
verdict=$(sed -n 's/^total:.* verdict \([0-9]*\).*/\1/p' "$log")
check "parse dropped the malformed frames all along (verdict ${verdict:-0})" [ "${verdict:-0}" -gt 0 ]
reclaimed=$(sed -n 's/.* \([0-9]*\) mbufs reclaimed from its hands$/\1/p' "$log" |
	awk '{s += $1} END {print s + 0}')
died=$(sed -n 's/^total:.* worker_died \([0-9]*\).*/\1/p' "$log")
check "packets lost in dead workers' hands are all counted (worker_died ${died:-0} = $reclaimed reclaimed)" \
	[ "${died:-0}" = "$reclaimed" ]
# killed from outside (SIGKILL, or the stall timeout's kill), a worker leaves its burst to the
# process respawned in its place, which finishes it (docs/recovery.md); one killed in turn
# before it ran the burst leaves it again, so "left" may count a burst twice
left=$(sed -n 's/.* \([0-9]*\) packets in its hands left to its replacement .*/\1/p' "$log" |
	awk '{s += $1} END {print s + 0}')
done_=$(sed -n 's/.* \([0-9]*\) packets its predecessor held \(run again\|sent on\)$/\1/p' "$log" |
	awk '{s += $1} END {print s + 0}')
check "some workers died holding packets, and their replacements finished them ($left left, $done_ finished)" \
	cond '[ "$done_" -gt 0 ] && [ "$done_" -le "$left" ]'

# traffic never stopped: while one worker was down, the other's counter kept moving
python3 - "$log" > "$TMP/gaps" <<'PY'
import re, sys
samples = []
for line in open(sys.argv[1]):
    m = re.search(r"stats: [0-9.]+ s in \d+ out \d+ dropped \d+ \| w0 (\w+) rx (\d+) tx \d+ \| w1 (\w+) rx (\d+)", line)
    if m:
        samples.append((m.group(1), int(m.group(2)), m.group(3), int(m.group(4))))
# an outage: consecutive samples where one worker is not running; across it (from the
# sample before it to the sample after it) the other worker's counter must have moved
outages = gaps = 0
for down, other in ((0, 3), (2, 1)):
    i = 1
    while i < len(samples):
        if samples[i][down] == "running":
            i += 1
            continue
        j = i
        while j < len(samples) and samples[j][down] != "running":
            j += 1
        if j < len(samples):
            outages += 1
            if samples[j][other] <= samples[i - 1][other]:
                gaps += 1
        i = j
print(outages, gaps, len(samples))
PY
read -r checked gaps nsamples < "$TMP/gaps"
check "the surviving worker forwarded through every outage ($checked outages seen in $nsamples samples, $gaps without progress)" \
	cond '[ "$checked" -gt 0 ] && [ "$gaps" = 0 ]'
assert_clean
finish
