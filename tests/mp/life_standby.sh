#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Standby workers under traffic (process build, docs/standby.md): `standby = 1`, a looping
# capture, and workers killed by mixed signals (SIGKILL, SIGSEGV, SIGABRT, SIGBUS) one at a
# time, each once a standby is parked again. Checks: every death is taken over by a standby
# (no respawn), counted per worker and in telemetry; the pool is refilled each time; the
# engine then stops cleanly with every mbuf back and every packet accounted for; the outage
# of each takeover (death seen to the new instance's first burst) is on record, and printed.
# Thread build: `standby` is refused at its line.
# Usage: life_standby.sh SHAPE KILLS   (SHAPE: pipeline; distributor, with backpressure; rss,
# each worker polling a queue of its own)
. "$(dirname "$0")/lib.sh"

SHAPE=${1:-pipeline}
KILLS=${2:-50}
cfg=$TMP/engine.ini
if [ "$SHAPE" = pipeline ]; then
	workers='[worker 0]
lcore = 2
stages = parse

[worker 1]
lcore = 3
stages = burn

[worker 2]
lcore = 4
stages = fwd'
	nw=3
	extra=
	ports=$LOOP_PORTS
else
	# rss: each worker polls a queue of its own; distributor: with backpressure
	workers='[worker 0]
lcore = 2
stages = parse,burn,fwd

[worker 1]
lcore = 3
stages = parse,burn,fwd'
	nw=2
	extra='backpressure = on'
	ports=$LOOP_PORTS
	if [ "$SHAPE" = rss ]; then
		extra=
		ports=$NULL_PORTS
	fi
fi
cat > "$cfg" <<EOF2
[engine]
shape = $SHAPE
io_lcore = 1
standby = 1
stats_period_ms = 50
restart_max = 1000
restart_window_ms = 1000
restart_backoff_ms = 20
stall_timeout_ms = 1000
burn_cycles = 2000
quarantine_after = 0
$extra

$ports
$workers
EOF2

if [ "$MODEL" = thread ]; then
	rc=0
	"$PRIMARY" --check -c "$cfg" > "$TMP/check.out" 2>&1 || rc=$?
	check "the thread build refuses standby, at its line" \
		cond '[ "$rc" != 0 ] && grep -q "engine.ini:4: standby: the thread build has no worker process" "$TMP/check.out"'
	finish
	exit
fi

"$PRIMARY" --check -c "$cfg" > "$TMP/check.out" 2>&1
check "--check says what standby does" grep -q "^standby: 1 worker process attached and parked" "$TMP/check.out"


"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --bidir --seed 7 > /dev/null
log=$TMP/primary.log
loop_vdevs "$TMP/in.pcap"
# rss: the workers poll the ports, which net_pcap cannot give a secondary; net_null can
[ "$SHAPE" = rss ] && LOOP_VDEVS=(--vdev net_null0 --vdev net_null1)
rc=0
timeout -k 2 30 "$PRIMARY" --no-pci --file-prefix "$PREFIX" --lcores "$LCORES" \
	"${LOOP_VDEVS[@]}" -- -c "$cfg" --no-spawn > "$TMP/nospawn.log" 2>&1 || rc=$?
check "standby with --no-spawn: refused ($rc), saying why" \
	cond '[ "$rc" = 1 ] && grep -q "standbys are started by the primary, and --no-spawn starts none" "$TMP/nospawn.log"'
assert_clean "standby with --no-spawn: nothing left behind"
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$cfg"
check "engine runs with a standby parked ($SHAPE)" wait_for "$log" "running:" 60
check "the standby parked before the engine ran" \
	cond '[ "$(grep -n "standby 0: attached on lcore" "$log" | head -1 | cut -d: -f1)" -lt "$(grep -n "running:" "$log" | cut -d: -f1)" ]'
"$CLIENT" "$PREFIX" /mpe/info > "$TMP/info.json"
check "telemetry says a standby is parked" \
	jtest "$TMP/info.json" "v['standby'] == 1 and v['standby_parked'] == 1"

parked() { grep -c "standby [0-9]*: attached on lcore [0-9]* and parked" "$log" || true; }
sigs=(KILL SEGV ABRT BUS)
for ((k = 1; k <= KILLS; k++)); do
	# one at a time, each with a standby parked: the takeover is what is tested
	for ((i = 0; i < 400; i++)); do [ "$(parked)" -ge "$k" ] && break; sleep 0.025; done
	sleep "0.0$((RANDOM % 9 + 1))"
	w=$((RANDOM % nw))
	kill -"${sigs[$((RANDOM % 4))]}" "$(worker_pid $w)"
done
wait_for_count "takes its place" "$KILLS" 20 || true
for ((i = 0; i < 200; i++)); do
	[ "$(grep -c "moving packets again" "$log" || true)" -ge "$KILLS" ] && break; sleep 0.025
done
# a standby that dies while parked is replaced, and costs the workers nothing
for ((i = 0; i < 400; i++)); do [ "$(parked)" -gt "$KILLS" ] && break; sleep 0.025; done
sb=$(sed -n 's/^mpe.engine: standby 0: spawned pid \([0-9]*\).*/\1/p' "$log" | tail -1)
kill -KILL "$sb"
check "a standby killed while parked is named and replaced" \
	wait_for_count "standby 0: pid $sb killed by signal 9 (Killed) while parked: another one is started" 1 10
"$CLIENT" "$PREFIX" /mpe/workers > "$TMP/workers.json"
for ((i = 0; i < 400; i++)); do [ "$(parked)" -gt $((KILLS + 1)) ] && break; sleep 0.025; done
"$CTL" -p "$PREFIX" workers > "$TMP/ctl.workers" 2>&1 || true
"$CTL" -p "$PREFIX" top -n 1 -d 0.2 > "$TMP/ctl.top" 2>&1 || true
rc=0
stop_primary 30 || rc=$?
check "primary survives $KILLS worker deaths and exits 0" [ "$rc" = 0 ]

deaths=$(grep -c "reclaimed from its hands" "$log" || true)
takeovers=$(grep -c "takes its place (takeover" "$log" || true)
check "every death was taken over by a standby ($takeovers of $deaths deaths, $KILLS caused)" \
	cond '[ "$takeovers" = "$deaths" ] && [ "$deaths" -ge "$KILLS" ]'
check "no death fell back to a respawn" cond '! grep -q "respawning" "$log"'
check "each standby that took over did so on the worker's lcore id it was given" \
	cond '[ "$(grep -c "standby [0-9]*: takes worker [0-9]*.s place" "$log")" = "$takeovers" ]'
summed=$(sed -n 's/^    takeovers \([0-9]*\) (by standbys).*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
check "the summary counts the takeovers ($summed)" [ "$summed" = "$takeovers" ]
tel=$(jget "$TMP/workers.json" "sum(w['takeovers'] for w in v.values())")
check "telemetry counted the takeovers so far (${tel:-none})" \
	cond '[ -n "$tel" ] && [ "$tel" -ge $((KILLS - 1)) ]'
ctl_sum=$(awk '$1 ~ /^[0-9]+$/ && $4 == "running" {s += $9} END {print s + 0}' "$TMP/ctl.workers")
check "mpe-ctl workers shows the takeovers ($ctl_sum)" \
	cond 'grep -q "takeovers *outage_us" "$TMP/ctl.workers" && [ "$ctl_sum" -ge $((KILLS - 1)) ]'
check "mpe-ctl top shows the standby parked" grep -q ", standby 1/1 parked," "$TMP/ctl.top"
check "the pool of standbys was refilled after each takeover and that death ($(parked) parked)" \
	[ "$(parked)" -ge $((KILLS + 2)) ]
check "the standby left when the engine stopped" grep -q "standby 0: pid [0-9]* ended: told to leave" "$log"
if grep -q "drain: not finished" "$log"; then
	not_ok "a ring was left stuck"; grep "drain:" "$log"
else
	ok "no ring was left stuck (drain finished)"
fi
if [ "$SHAPE" = rss ]; then
	# a worker killed inside a device call leaves those packets' fate unknown: in_doubt
	check_books
	check "no mbuf handed out twice" cond '! grep -q "repeat an mbuf" "$log"'
else
	check_pool_whole
fi
outages=$TMP/outages
sed -n 's/.*: moving packets again \([0-9]*\) us after its death was seen/\1/p' "$log" > "$outages"
check "every takeover's outage is on record ($(wc -l < "$outages") of $takeovers)" \
	[ "$(wc -l < "$outages")" = "$takeovers" ]
sort -n "$outages" | awk '{a[NR] = $1} END {
	if (NR) printf "# outage, death seen to first burst (us): p50 %d p99 %d max %d over %d\n",
		a[int((NR + 1) / 2)], a[int(NR * 0.99 + 0.999)], a[NR], NR }'
assert_clean
finish
