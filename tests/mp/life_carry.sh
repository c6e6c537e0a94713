#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# No packet lost to a kill (process build, docs/recovery.md#a-burst-carried-to-the-replacement):
# with a standby parked, a worker killed from outside (SIGKILL) leaves the burst in its hands
# to the standby that takes its place, which runs it again from the first stage (the primary
# put back what the burst had counted) or sends on what its stages had finished. mpe-ringio
# plays the NIC on net_ring with backpressure on, so that nothing may be dropped: while it
# runs, workers are killed one at a time. Checks: the output holds exactly the input's
# packets, per-flow order kept; nothing dropped, nothing lost; every packet counted once in
# the books the stages keep (worker and stage counters, flow lookups, rule hits), though
# bursts were carried; every kill taken over.
# With SIGNALS other than KILL (SIGSEGV, SIGABRT: deaths the worker caused), only what those
# deaths held is lost, counted quarantine (or worker_died, outside the stages), and every
# SIGKILL still loses nothing.
# With STANDBY 0, no standby: each killed worker is respawned, and the process started in its
# place finishes the burst (rss only: a dead worker's queues wait for it, where the I/O
# lcore would drop what is bound for a worker that is down).
# With IO 2 (distributor, pipeline): two I/O lcores, each polling one of two RX queues, so
# that the workers take bursts from two input rings and the hands name which (the pipeline:
# a lane per I/O lcore through its three stages, a ring each between two of them).
# With POOLS 2: pools = port and a third port that receives (nothing
# comes in on it), so that the engine has two mbuf pools; mpe-ringio takes its mbufs from both
# in turn, as two ports receiving into pools of their own would hand them on: the workers
# return mbufs of both, and a death in the middle of a return is repaired in the right pool.
# Usage: life_carry.sh SHAPE KILLS [SIGNALS [STANDBY [IO [POOLS]]]]   (SHAPE: distributor,
# pipeline or rss; SIGNALS: comma-separated, default KILL; STANDBY: 1 or 0, default 1; IO: 1
# or 2; POOLS: 1 or 2)
. "$(dirname "$0")/lib.sh"

SHAPE=${1:-distributor}
KILLS=${2:-12}
IFS=, read -r -a SIGS <<< "${3:-KILL}"
mixed=0
[ "${3:-KILL}" != KILL ] && mixed=1
STANDBY=${4:-1}
IO=${5:-1}
POOLS=${6:-1}
PACKETS=${MPE_TEST_PACKETS:-120000}
cfg=$TMP/engine.ini
queues=1
case $SHAPE in
pipeline)
	workers='[worker 0]
lcore = 2
stages = parse,flow

[worker 1]
lcore = 3
stages = acl,burn

[worker 2]
lcore = 4
stages = fwd'
	nw=3 flow_workers=0 ;;
*)
	workers='[worker 0]
lcore = 2
stages = parse,flow,acl,burn,fwd

[worker 1]
lcore = 3
stages = parse,flow,acl,burn,fwd'
	nw=2 flow_workers='0 1'
	[ "$SHAPE" = rss ] && queues=2 ;;
esac
io='io_lcore = 1'
if [ "$IO" = 2 ]; then
	queues=2 io='[io 0]
lcore = 1

[io 1]
lcore = 6'
	LCORES+=",6@$((6 % NCPU))" # 5 is mpe-ringio's
fi
printf '%s\n' "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff count 10" > "$TMP/count.rules"
cat > "$cfg" <<EOF2
[engine]
shape = $SHAPE
standby = $STANDBY
backpressure = on
restart_max = 1000
restart_window_ms = 1000
stall_timeout_ms = 2000
burn_cycles = 400000
quarantine_after = 0
rules = $TMP/count.rules

[port 0]
device = net_ring0
peer = 1
rx_queues = $queues

[port 1]
device = net_ring1
rx = off

$workers
EOF2
vdevs=(--vdev net_ring0 --vdev net_ring1)
if [ "$POOLS" = 2 ]; then
	sed -i "s/^shape = $SHAPE$/&\npools = port/" "$cfg"
	printf '\n[port 2]\ndevice = net_ring2\nrx_queues = %s\n' "$queues" >> "$cfg"
	vdevs+=(--vdev net_ring2)
fi
# an engine line of its own, or I/O lcore sections
if [ "$IO" = 2 ]; then printf '\n%s\n' "$io" >> "$cfg"; else sed -i "s/^shape = $SHAPE$/&\n$io/" "$cfg"; fi
"$PCAPGEN" -o "$TMP/in.pcap" -n "$PACKETS" -f 200 --bidir --seed 11 > /dev/null
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" "${vdevs[@]}" -- -c "$cfg"
check "engine runs, $SHAPE, standby = $STANDBY ($MODEL build)" wait_for "$log" "running:" 60
if [ "$POOLS" = 2 ]; then
	check "two mbuf pools, one for each receiving port" \
		grep -qE "placement: 2 mbuf pools: mpe_mbufs on socket [0-9]+ for port 0, mpe_mbufs_1 on socket [0-9]+ for port 2," "$log"
fi

# the replacements ready: K standbys parked, or K - 1 respawned workers back
ready() {
	if [ "$STANDBY" = 1 ]; then
		[ "$(grep -c "standby [0-9]*: attached on lcore [0-9]* and parked" "$log")" -ge "$1" ]
	else
		[ "$(grep -c "back after" "$log")" -ge $(($1 - 1)) ]
	fi
}
# mixed: the packets of the faults never come back, and mpe-ringio waits for them this long
ringio --queues "$queues" --timeout $((mixed ? 3000 : 10000)) --collect "$TMP/out.pcap" \
	--pools "$POOLS" &
rpid=$!
# every mbuf back in its pool, once: the pool, or each of the two
check_pools() {
	if [ "$POOLS" = 2 ]; then
		check "every mbuf is back in its pool, once, in each of the two" cond \
			'grep -q "mempool mpe_mbufs: every mbuf back in the pool, once" "$log" &&
			 grep -q "mempool mpe_mbufs_1: every mbuf back in the pool, once" "$log"'
	else
		check "every mbuf is back in the pool, once" \
			grep -q "mempool: every mbuf back in the pool, once" "$log"
	fi
}
killed=0
for ((k = 1; k <= KILLS; k++)); do
	for ((i = 0; i < 400; i++)); do ready "$k" && break; sleep 0.025; done
	sleep "0.$((RANDOM % 10))"
	kill -0 "$rpid" 2> /dev/null || break # the traffic is over
	# the signals in turn (KILL,SEGV,ABRT: a SIGKILL every third death), the worker at random;
	# in a mixed pipeline a SIGKILL goes to worker 1, whose burn stage always holds a burst:
	# the other two mostly wait for it, and a run whose SIGKILLs all found empty hands would
	# show nothing carried
	sig=${SIGS[$(((k - 1) % ${#SIGS[@]}))]} victim=$((RANDOM % nw))
	[ "$mixed" = 1 ] && [ "$sig" = KILL ] && [ "$SHAPE" = pipeline ] && victim=1
	kill -"$sig" "$(worker_pid "$victim")"
	killed=$k
done
rcio=0
wait "$rpid" || rcio=$?
check "workers were killed under traffic ($killed)" [ "$killed" -ge $((KILLS / 2)) ]
if [ "$STANDBY" = 1 ]; then
	wait_for_count "takes its place" "$killed" 20 || true
else
	wait_for_count "back after" "$killed" 20 || true
fi
for f in stats workers acl; do "$CLIENT" "$PREFIX" "/mpe/$f" > "$TMP/$f.json"; done
for w in $flow_workers; do "$CLIENT" "$PREFIX" "/mpe/flows,$w" > "$TMP/flows$w.json"; done
carried=$(jget "$TMP/workers.json" "sum(w['carried'] for w in v.values())")
lost=$(jget "$TMP/workers.json" "sum(w['lost'] for w in v.values())")
doubt=$(jget "$TMP/workers.json" "sum(w['in_doubt'] for w in v.values())")
if [ "$mixed" = 1 ]; then
	out=$(jget "$TMP/stats.json" 'v["out"]')
	check "what came out is what the engine sent ($out)" \
		cond '[ "$(pcap_count "$TMP/out.pcap")" = "$out" ]'
	JTEST_DEFS="N = $PACKETS; L = $lost" \
	check "in = $PACKETS = out + what the faults' hands held ($lost), under quarantine or worker_died only" \
		jtest "$TMP/stats.json" 'v["in"] == N and v["out"] + L == N and v["dropped"] == L and
		all(c in ("quarantine", "worker_died") or n == 0 for c, n in v["drops"].items())'
	check "a SIGKILL lost nothing: every packet lost was in the hands of a fault's victim" \
		cond '! grep -q "killed by signal 9 (Killed); [1-9][0-9]* mbufs reclaimed" "$log"'
	check "bursts were carried to the standbys ($carried), none in doubt" \
		cond '[ "$carried" -gt 0 ] && [ "$doubt" = 0 ]'
	grep -o "killed by signal [0-9]* ([A-Za-z ]*); [0-9]* mbufs" "$log" | sort | uniq -c |
		sed 's/^/# /'
	rc=0
	stop_primary 30 || rc=$?
	check "the engine exits 0" [ "$rc" = 0 ]
	check_books
	check_pools
	assert_clean
	finish
	exit
fi
check "mpe-ringio got back as many packets as it sent" [ "$rcio" = 0 ]
check "the same packets came out, per-flow order kept" "$PCAPCMP" -q "$TMP/in.pcap" "$TMP/out.pcap"
JTEST_DEFS="N = $PACKETS" check "in = out = $PACKETS, nothing dropped" \
	jtest "$TMP/stats.json" 'v["in"] == N and v["out"] == N and v["dropped"] == 0'
check "bursts were carried to the replacements, none lost ($carried carried, $lost lost, $doubt in doubt)" \
	cond '[ "$carried" -gt 0 ] && [ "$lost" = 0 ] && [ "$doubt" = 0 ]'
# each packet went through one worker (distributor, rss) or every worker (pipeline) once
per=$PACKETS
[ "$SHAPE" = pipeline ] && per=$((PACKETS * nw))
JTEST_DEFS="N = $per" check "the workers' rx and tx counted each packet once" \
	jtest "$TMP/workers.json" 'sum(w["rx"] for w in v.values()) == N and
	sum(w["tx"] for w in v.values()) == N'
JTEST_DEFS="N = $PACKETS" check "every stage counted each packet once" \
	jtest "$TMP/workers.json" 'all(sum(w["stages"][n]["packets"] for w in v.values() if n in w["stages"]) == N
	    for n in {n for w in v.values() for n in w["stages"]})'
JTEST_DEFS="N = $PACKETS" check "rule hits: each packet once" \
	jtest "$TMP/acl.json" 'v["default_hits"] + sum(r["hits"] for r in v["rules"].values()) == N'
lookups=0
for w in $flow_workers; do lookups=$((lookups + $(jget "$TMP/flows$w.json" 'v["lookups"]'))); done
check "flow lookups: each packet once ($lookups)" [ "$lookups" = "$PACKETS" ]
rc=0
stop_primary 30 || rc=$?
check "the engine exits 0" [ "$rc" = 0 ]
if [ "$STANDBY" = 1 ]; then
	takeovers=$(grep -c "takes its place (takeover" "$log" || true)
	check "every kill was taken over by a standby ($takeovers of $killed)" [ "$takeovers" = "$killed" ]
else
	back=$(grep -c "back after" "$log" || true)
	check "every killed worker was respawned ($back of $killed)" [ "$back" = "$killed" ]
fi
check_books
check_pools
assert_clean
finish
