#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The flow stage's clock is fresh on every burst, though a worker times only one burst in
# cycles_sample: with slow bursts (a burn stage) and a long sample, an untimed burst that saw
# the last timed burst's time would stamp its flows seconds in the past, and the next timed
# burst's sweep would expire flows that are still sending. 200 flows loop through one worker
# with a 300 ms idle timeout, each seen every few milliseconds: none may expire.
. "$(dirname "$0")/lib.sh"

FLOWS=200
"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f $FLOWS --sizes 64 > /dev/null
cfg=$TMP/engine.ini
cat > "$cfg" <<EOF2
[engine]
shape = pipeline
io_lcore = 1
burn_cycles = 100000
cycles_sample = 1024
flow_timeout_ms = 300
flow_capacity = 256

$LOOP_PORTS
[worker 0]
lcore = 2
stages = parse, flow, burn, fwd
EOF2
loop_vdevs "$TMP/in.pcap"
log=$TMP/engine.log
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$cfg"
check "engine starts" wait_for "$log" "running:" 30
sleep 3
"$CLIENT" "$PREFIX" /mpe/flows,0 > "$TMP/flows.json" 2> /dev/null || true
got=$(jget "$TMP/flows.json" '" ".join(str(v[k]) for k in ("inserted", "expired", "active"))')
check "every flow inserted once, none expired while sending, all active: ${got:-?}" \
	[ "$got" = "$FLOWS 0 $FLOWS" ]
stop_primary 30 > /dev/null || true
assert_clean
finish
