#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An I/O lcore that shares its CPU with a worker: a looping capture (the I/O lcore never runs
# out of packets to receive) into a pipeline whose second worker runs on the I/O lcore's CPU
# and is slow (burn). That worker runs only when the I/O lcore gives the CPU away; the I/O
# lcore does so when the worker's input ring is half full, and counts it. Checks: the engine
# says the CPU is shared, the I/O lcore gave its CPU away because of the ring, the second
# worker forwarded, and every packet is sent or counted.
# Usage: traffic_shared_cpu.sh SHAPE
. "$(dirname "$0")/lib.sh"

SHAPE=$1
[ "$SHAPE" = pipeline ] && w0=fwd || w0=burn,fwd
# lcores 1 (I/O) and 3 (worker 1) run on the same CPU (CPU 1, or CPU 0 on a 1-CPU host)
cfg=$TMP/engine.ini
cat > "$cfg" <<EOF2
[engine]
shape = $SHAPE
io_lcore = 1
burn_cycles = 3000

$LOOP_PORTS
[worker 0]
lcore = 2
stages = $w0

[worker 1]
lcore = 3
stages = burn,fwd
EOF2
"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --bidir --seed 9 > /dev/null
log=$TMP/primary.log
loop_vdevs "$TMP/in.pcap"
start_primary "$log" --lcores "0@0,1@$((1 % NCPU)),2@0,3@$((1 % NCPU))" \
	"${LOOP_VDEVS[@]}" -- -c "$cfg"
check "engine runs, $SHAPE, worker 1 on the I/O lcore's CPU ($MODEL build)" \
	wait_for "$log" "running:" 30
check "the engine says the I/O lcore shares its CPU" \
	grep -q "I/O lcore 1 shares its CPU with a worker" "$log"
sleep 2
rc=0
stop_primary 30 || rc=$?
check "primary stops on SIGINT and exits 0" [ "$rc" = 0 ]

yields=$(sed -n 's/^    gave its CPU \([0-9]*\) times to a worker on it.*/\1/p' "$log")
check "the I/O lcore gave its CPU to worker 1 when its ring filled (${yields:-0} times)" \
	[ "${yields:-0}" -gt 0 ]
w1tx=$(sed -n 's/^  worker 1 (lcore 3, [a-z]*) .* tx \([0-9]*\).*/\1/p' "$log")
check "worker 1 forwarded (${w1tx:-0} packets)" [ "${w1tx:-0}" -gt 0 ]
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
unacc=$(total unaccounted "$log")
check "every packet sent or counted ($in in, $out out, $dropped dropped)" \
	cond '[ -n "$in" ] && [ "$in" -gt 0 ] && [ "${unacc:-x}" = 0 ]'
assert_clean
finish
