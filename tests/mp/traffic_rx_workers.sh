#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rx = workers: a pipeline whose first worker polls the ports itself (no ring from the I/O
# lcore). On net_ring, mpe-ringio plays the NIC: it feeds port 0's one queue and collects from
# every transmit queue of port 1. With tx = workers too, no I/O lcore runs at all.
# Process build, tx = workers: the receiving worker is killed under net_null traffic, and
# respawns polling the same queue; every packet is still sent or counted.
# Usage: traffic_rx_workers.sh TX WORKERS   (TX: io or workers)
. "$(dirname "$0")/lib.sh"

TX=$1
WORKERS=$2
PACKETS=${MPE_TEST_PACKETS:-10000}
FLOWS=${MPE_TEST_FLOWS:-100}

# engine_ini SHAPE PORT0 PORT1 [EXTRA]: a configuration with rx = workers
engine_ini() {
	printf '[engine]\nshape = %s\nio_lcore = 1\nbackpressure = on\nrx = workers\n' "$1"
	printf 'tx = %s\n%s\n\n' "$TX" "${4:-}"
	printf '[port 0]\ndevice = %s\npeer = 1\n\n' "$2"
	printf '[port 1]\ndevice = %s\nrx = off\n' "$3"
	for ((w = 0; w < WORKERS; w++)); do printf '\n[worker %d]\nlcore = %d\n' "$w" $((w + 2)); done
}

engine_ini distributor net_ring0 net_ring1 > "$TMP/dist.ini"
check "--check refuses rx = workers with shape distributor" \
	cond '! "$PRIMARY" --check -c "$TMP/dist.ini" 2> "$TMP/chk" &&
	      grep -q "rx: workers: shape distributor needs the I/O lcore" "$TMP/chk"'
engine_ini pipeline net_pcap0 net_ring1 > "$TMP/pcap.ini"
check "--check refuses rx = workers on a port only the primary can poll" \
	cond '! "$PRIMARY" --check -c "$TMP/pcap.ini" 2> "$TMP/chk" &&
	      grep -q "rx: workers: port 0.s driver (.net_pcap0.) does not work in secondary" "$TMP/chk"'
engine_ini pipeline net_ring0 net_ring1 | sed 's/^peer = 1$/peer = 1\nrx_queues = 2/' \
	> "$TMP/queues.ini"
check "--check refuses rx = workers on a port of two queues, with the line" \
	cond '! "$PRIMARY" --check -c "$TMP/queues.ini" 2> "$TMP/chk" &&
	      grep -q "queues.ini:[0-9]*: rx_queues: 2, but with rx = workers" "$TMP/chk"'

cfg=$TMP/engine.ini
engine_ini pipeline net_ring0 net_ring1 > "$cfg"
check "--check accepts rx = workers on net_ring" "$PRIMARY" --check -c "$cfg"
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f "$FLOWS" --bidir --seed 17 > /dev/null

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_ring0 --vdev net_ring1 -- -c "$cfg"
check "engine starts, pipeline of $WORKERS workers, the first receiving, tx = $TX ($MODEL build)" \
	wait_for "$log" "running:" 30
check "worker 0 polls the ports" grep -q "worker 0: running on lcore 2 (port queues)" "$log"
if [ "$TX" = workers ]; then
	check "no I/O lcore runs" cond '! grep -q "I/O loop on lcore" "$log"'
	outq=$WORKERS
else
	check "the I/O lcore only transmits" grep -q "I/O loop on lcore 1: 2 ports, 0 input and 1 output rings" "$log"
	outq=1
fi
ringio --queues 1 --out-queues "$outq" --collect "$TMP/out.pcap" && rcio=0 || rcio=$?
check "mpe-ringio got back as many packets as it sent" [ "$rcio" = 0 ]
"$CLIENT" "$PREFIX" /mpe/stats > "$TMP/stats.json" 2> /dev/null || true
check "/mpe/stats counts what worker 0 received as in ($(jget "$TMP/stats.json" 'v["in"]'))" \
	[ "$(jget "$TMP/stats.json" 'v["in"]')" = "$PACKETS" ]
stop_counted "the engine"
check "the same packets came out, per-flow order kept" "$PCAPCMP" -q "$TMP/in.pcap" "$TMP/out.pcap"
busy=$(grep -cE "^  worker [0-9]+ .* rx $PACKETS tx $PACKETS" "$log" || true)
check "every worker of the pipeline moved every packet ($busy of $WORKERS)" [ "$busy" = "$WORKERS" ]

if [ "$MODEL" = process ] && [ "$TX" = workers ]; then
	# the receiving worker dies under traffic: it comes back on the same queue
	engine_ini pipeline net_null0 net_null1 \
		"restart_backoff_ms = 20
burn_cycles = 2000" | sed 's/^backpressure = on$/backpressure = off/
		s/^lcore = 2$/lcore = 2\nstages = burn/' > "$TMP/kill.ini"
	log=$TMP/kill.log
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- \
		-c "$TMP/kill.ini"
	check "engine starts on net_null, worker 0 receiving" wait_for "$log" "running:" 30
	kills=3
	for ((k = 1; k <= kills; k++)); do
		sleep 0.3
		pid=$(sed -n 's/^mpe.engine: worker 0: spawned pid \([0-9]*\).*/\1/p' "$log" | tail -1)
		kill -KILL "$pid"
		for ((i = 0; i < 200; i++)); do
			[ "$(grep -c "worker 0: back after" "$log" || true)" -ge "$k" ] && break
			sleep 0.025
		done
	done
	sleep 0.3
	"$CLIENT" "$PREFIX" /mpe/stats > "$TMP/s1.json" 2> /dev/null || true
	sleep 0.3
	"$CLIENT" "$PREFIX" /mpe/stats > "$TMP/s2.json" 2> /dev/null || true
	in1=$(jget "$TMP/s1.json" 'v["in"]'); in2=$(jget "$TMP/s2.json" 'v["in"]')
	check "worker 0 respawned after each of $kills kills" \
		[ "$(grep -c "worker 0: back after" "$log" || true)" = "$kills" ]
	check "the respawned worker receives again (in ${in1:-?} then ${in2:-?})" \
		cond '[ -n "$in1" ] && [ -n "$in2" ] && [ "$in2" -gt "$in1" ]'
	rc=0
	stop_primary 30 || rc=$?
	check "primary survives the kills and exits 0" [ "$rc" = 0 ]
	in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
	unacc=$(total unaccounted "$log")
	# a worker killed inside rte_eth_rx_burst or tx_burst leaves at most a burst of unknown fate
	check "every packet sent or counted but at most a burst per kill inside a device call ($in in, $out out, $dropped dropped, ${unacc:-?} unaccounted)" \
		cond '[ -n "$in" ] && [ "$in" -gt 0 ] && [ "${unacc:-x}" -ge 0 ] &&
		      [ "$unacc" -le $((kills * 32)) ]'
	reclaimed=$(sed -n 's/.* \([0-9]*\) mbufs reclaimed from its hands$/\1/p' "$log" |
		awk '{s += $1} END {print s + 0}')
	died=$(sed -n 's/^total:.* worker_died \([0-9]*\).*/\1/p' "$log")
	check "packets lost in the dead worker's hands are counted (worker_died ${died:-0} = $reclaimed reclaimed)" \
		[ "${died:-0}" = "$reclaimed" ]
	# a kill inside the driver's receive call loses what it had allocated
	leaked=$(sed -n 's/.*mempool: \([0-9]*\) mbufs still in use at exit.*/\1/p' "$log")
	check "every mbuf is back in the pool, but at most a burst per kill (${leaked:-0} lost)" \
		cond 'grep -q "mempool: every mbuf back in the pool" "$log" ||
		      [ "${leaked:-x}" -le $((kills * 32)) ]'
fi
assert_clean
finish
