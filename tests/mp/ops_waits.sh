#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Who waits for whom, from telemetry: the I/O lcore's polls, full_polls and wait_cycles
# (/mpe/stats io), each worker's polls, bursts and wait_cycles (/mpe/workers), in TSC cycles
# of /mpe/info's tsc_hz. Three engines, one worker behind a distributor:
#   - a worker slower than its input (a burn stage), drop mode: nearly every poll of the I/O
#     lcore finds the worker's ring full and it waits most of the time; the worker hardly
#     waits;
#   - the same with backpressure: the I/O lcore's polls wait with packets in hand;
#   - a capture that has ended: the worker polls, finds nothing and waits all the time, the
#     I/O lcore never finds the ring full and never waits for it.
# Each figure is a difference between two readings 2 s apart, taken once traffic is steady;
# a share of time is that of the wall clock between the two.
. "$(dirname "$0")/lib.sh"

"$PCAPGEN" -o "$TMP/in.pcap" -n 500 -f 50 --seed 5 > /dev/null

# run NAME PORTS STAGES BACKPRESSURE VDEVS...: the engine, with readings into $TMP/NAME.[sw][12]
run() {
	local name=$1 ports=$2 stages=$3 bp=$4 cfg=$TMP/$1.ini log=$TMP/$1.log k
	shift 4
	printf '[engine]\nshape = distributor\nio_lcore = 1\nring_size = 1024\nburn_cycles = 20000\n' > "$cfg"
	printf 'backpressure = %s\nstats_period_ms = 0\n%s\n\n%s\n[worker 0]\nlcore = 2\nstages = %s\n' \
		"$bp" "${ENGINE_KEYS:-}" "$ports" "$stages" >> "$cfg"
	start_primary "$log" --lcores "$LCORES" "$@" -- -c "$cfg"
	if ! wait_for "$log" "running:" 30; then
		not_ok "$name: engine runs"
		return 1
	fi
	sleep 1
	python3 "$CLIENT" "$PREFIX" /mpe/info > "$TMP/$name.info" 2> /dev/null || true
	# each reading between two clock readings: its time is their midpoint
	for k in 1 2; do
		date +%s.%N > "$TMP/$name.ts$k"
		python3 "$CLIENT" "$PREFIX" /mpe/stats > "$TMP/$name.s$k" 2> /dev/null || true
		date +%s.%N >> "$TMP/$name.ts$k"
		python3 "$CLIENT" "$PREFIX" /mpe/workers > "$TMP/$name.w$k" 2> /dev/null || true
		date +%s.%N >> "$TMP/$name.ts$k"
		[ $k = 2 ] || sleep 2
	done
	stop_primary 30 > /dev/null || true
}

# delta NAME EXPR: EXPR of the second reading minus that of the first; s = /mpe/stats,
# w = /mpe/workers["0"]
delta() {
	python3 - "$TMP/$1" "$2" <<'PY'
import json, sys
def val(k):
    s = json.load(open(sys.argv[1] + ".s%d" % k))
    w = json.load(open(sys.argv[1] + ".w%d" % k))["0"]
    return eval(sys.argv[2])
print(val(2) - val(1))
PY
}

# waited NAME EXPR: percent of the time between the two readings that the wait_cycles of EXPR
# (s[...]: of /mpe/stats, w[...]: of /mpe/workers) grew by
waited() {
	python3 - "$TMP/$1" "$(delta "$1" "$2")" "${2:0:1}" <<'PY'
import json, sys
hz = json.load(open(sys.argv[1] + ".info"))["tsc_hz"]
def at(k):  # the reading's time: the midpoint of the clock readings around it
    t = [float(x) for x in open(sys.argv[1] + ".ts%d" % k).read().split()]
    return (t[0] + t[1]) / 2 if sys.argv[3] == "s" else (t[1] + t[2]) / 2
print(int(100 * int(sys.argv[2]) / (hz * (at(2) - at(1)))))
PY
}

for bp in off on; do
	name=behind_$bp
	run "$name" "$NULL_PORTS" "burn, fwd" "$bp" --vdev net_null0 --vdev net_null1 || continue
	polls=$(delta "$name" 's["io"]["polls"]'); full=$(delta "$name" 's["io"]["full_polls"]')
	wp=$(delta "$name" 'w["polls"]'); wb=$(delta "$name" 'w["bursts"]')
	check "worker behind, backpressure $bp: the I/O lcore's ring is full on most polls ($full of $polls)" \
		cond '[ "${polls:-0}" -gt 0 ] && [ $((10 * ${full:-0})) -gt $((9 * polls)) ]'
	# not "on most polls": a reading's client can take the I/O lcore's CPU for a few ms, in
	# which the worker empties its ring and polls it many times; the time it waited shows
	# how little that is
	check "worker behind, backpressure $bp: the worker found packets ($wb bursts in $wp polls)" \
		cond '[ "${wb:-0}" -gt 0 ] && [ "$wb" -le "${wp:-0}" ]'
	iw=$(waited "$name" 's["io"]["wait_cycles"]'); ww=$(waited "$name" 'w["wait_cycles"]')
	check "worker behind, backpressure $bp: the I/O lcore waited for it ${iw:-?}% of the time, it ${ww:-?}%" \
		cond '[ "${iw:-0}" -ge 50 ] && [ "${iw:-0}" -le 120 ] && [ "${ww:-100}" -le 10 ]'
	busy=$(waited "$name" 's["io"]["cycles"]')
	check "worker behind, backpressure $bp: the I/O lcore busy ${busy:-?}% of the time, waiting $iw%" \
		cond '[ "${busy:-0}" -ge 0 ] && [ $((${busy:-999} + ${iw:-0})) -le 120 ]'
done

# The I/O lcore the bottleneck, receive only (the worker transmits): its polls either receive
# or find the ring full, so its busy time (one poll in cycles_sample timed, standing for the
# others) and its waits add up to the time
name=rx_only
ENGINE_KEYS="tx = workers
cycles_sample = 8" run "$name" "$NULL_PORTS" "fwd" off --vdev net_null0 --vdev net_null1 && {
	busy=$(waited "$name" 's["io"]["cycles"]'); iw=$(waited "$name" 's["io"]["wait_cycles"]')
	moved=$(delta "$name" 's["io"]["moved"]'); in=$(delta "$name" 's["in"]')
	check "receive only: busy ${busy:-?}% and waiting ${iw:-?}% of the time, together 70 to 120%" \
		cond '[ $((${busy:-0} + ${iw:-0})) -ge 70 ] && [ $((${busy:-999} + ${iw:-0})) -le 120 ]'
	check "receive only: nothing moved to the ports ($moved), $in packets received" \
		cond '[ "$moved" = 0 ] && [ "${in:-0}" -gt 0 ]'
}

name=ended
run "$name" "$LOOP_PORTS" "fwd" off --vdev "net_pcap0,rx_pcap=$TMP/in.pcap" --vdev net_null1 &&
{
	polls=$(delta "$name" 's["io"]["polls"]'); full=$(delta "$name" 's["io"]["full_polls"]')
	wp=$(delta "$name" 'w["polls"]'); wb=$(delta "$name" 'w["bursts"]')
	in=$(jget "$TMP/$name.s2" 'v["in"]')
	check "capture ended: all 500 packets came in ($in)" test "${in:-0}" = 500
	check "capture ended: the I/O lcore polls ($polls) and never finds the ring full ($full)" \
		cond '[ "${polls:-0}" -gt 0 ] && [ "$full" = 0 ]'
	check "capture ended: the worker polls ($wp) and finds nothing ($wb bursts)" \
		cond '[ "${wp:-0}" -gt 0 ] && [ "$wb" = 0 ]'
	iw=$(delta "$name" 's["io"]["wait_cycles"]'); ww=$(waited "$name" 'w["wait_cycles"]')
	check "capture ended: the worker waited ${ww:-?}% of the time, the I/O lcore never for it ($iw cycles)" \
		cond '[ "${ww:-0}" -ge 80 ] && [ "${ww:-0}" -le 120 ] && [ "$iw" = 0 ]'
	busy=$(delta "$name" 's["io"]["cycles"]')
	check "capture ended: the I/O lcore's busy cycles stay ($busy)" test "$busy" = 0
}
assert_clean
finish
