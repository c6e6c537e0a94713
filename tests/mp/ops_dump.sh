#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Debug dumps: /mpe/dump (telemetry) and SIGUSR1 each write a new file in the engine's runtime
# directory, with every section and values that agree with the running engine:
#   - engine (build, worker count, primary pid), memzones (mpe_shared), mempools (mpe_mbufs:
#     its size, some in use under traffic), the four rings, both workers
#     (pid, lcore, state), both ports (device counters moving), flow tables (one line each), the recorder (each
#     worker's pcapng file, which tshark reads);
#   - process build: with a worker SIGSTOPped, both ways still answer at once, and the dump
#     shows that worker's heartbeat standing still while the other's moves.
. "$(dirname "$0")/lib.sh"

RUNDIR=/var/run/dpdk/$PREFIX
MBUFS=16383

cfg=$TMP/engine.ini
cat > "$cfg" <<EOF
[engine]
shape = distributor
io_lcore = 1
; every ring 1024 long, wherever the lcores run (the capacities checked below)
ring_size = 1024
mbufs = $MBUFS
stall_timeout_ms = 0

$NULL_PORTS
[worker 0]
lcore = 2

[worker 1]
lcore = 3
EOF

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
if ! wait_for "$log" "running:" 30; then
	not_ok "engine runs on net_null ports ($MODEL build)"
	finish
	exit 1
fi
ok "engine runs on net_null ports ($MODEL build)"
# traffic through the workers before the first dump, whose recorders must hold packets: on a
# loaded host (sanitizers) the first bursts can take longer than the start's log line
for ((i = 0; i < 100; i++)); do
	"$CLIENT" "$PREFIX" /mpe/workers > "$TMP/w.json" 2> /dev/null
	[ "$(jget "$TMP/w.json" 'sum(w["rx"] for w in v.values())')" -gt 0 ] 2> /dev/null && break
	sleep 0.1
done
sleep 0.5

# tel_dump: asks /mpe/dump; prints the path it answered (empty on failure)
tel_dump() {
	python3 "$CLIENT" "$PREFIX" /mpe/dump 2> "$TMP/tel.err" |
		python3 -c 'import json, sys; print(json.load(sys.stdin).get("path", ""))' 2> /dev/null
}


# sections FILE: every section header, in order
sections() {
	[ "$(grep '^== ' "$1" | tr '\n' '|')" = \
		"== engine|== memzones|== mempools|== rings|== workers|== ports|== flow tables|== recorder|== end|" ]
}

# content FILE: the values agree with this engine
content() {
	local f=$1 ok=0 size use avail
	grep -qE "^version .*, $MODEL build, shape distributor$" "$f" || { echo "#   engine line"; ok=1; }
	grep -q "^primary pid $PRIMARY_PID, file prefix $PREFIX, runtime directory $RUNDIR$" "$f" ||
		{ echo "#   primary pid"; ok=1; }
	grep -q "^workers 2, ports 2, io lcore 1," "$f" || { echo "#   worker count"; ok=1; }
	grep -q "name:<mpe_shared>" "$f" || { echo "#   memzone mpe_shared"; ok=1; }
	read -r size use avail < <(sed -n \
		's/^mempool mpe_mbufs: size \([0-9]*\), in_use \([0-9]*\), avail \([0-9]*\),.*/\1 \2 \3/p' "$f")
	# in use and available are read one after the other, under traffic: each within the size
	if [ "${size:-x}" != "$MBUFS" ] || [ "${use:-0}" -lt 1 ] || [ "$use" -gt "$MBUFS" ] ||
		[ "${avail:-$((MBUFS + 1))}" -gt "$MBUFS" ]; then
		echo "#   mempool: size ${size:-?} in_use ${use:-?} avail ${avail:-?}"; ok=1
	fi
	[ "$(grep -cE "^ring mpe_(io_w[01]|w[01]_io): count [0-9]+, capacity 1023, free [0-9]+, consumer tail [0-9]+" "$f")" = 4 ] ||
		{ echo "#   rings"; ok=1; }
	[ "$(grep -cE "^worker [01]: pid [0-9]+, lcore [23], state (running|ready), heartbeat [0-9]+" "$f")" = 2 ] ||
		{ echo "#   workers"; ok=1; }
	[ "$(grep -cE "^  hand: phase [a-z]+, n [0-9]+, kept [0-9]+, done [0-9]+, free_from [0-9]+, put (none|held|into its cache|flushing its cache|into the ring) \(pool [0-9]+\), in_ring [0-9]+, cons_mark [0-9]+$" "$f")" = 2 ] ||
		{ echo "#   hands"; ok=1; }
	grep -qE "^  device: ipackets [1-9][0-9]* " "$f" || { echo "#   port 0 counters"; ok=1; }
	[ "$(grep -cE "^port [01] \(net_null[01]\): ethdev [01]," "$f")" = 2 ] || { echo "#   ports"; ok=1; }
	[ "$(sed -n '/^== flow tables/,/^== recorder/p' "$f" | grep -cE "^worker [01]: (none|table )")" = 2 ] ||
		{ echo "#   flow tables"; ok=1; }
	# each worker's recorder, written beside the dump, as pcapng that tshark reads
	local recorded=0
	for w in 0 1; do
		local rec n
		rec=$(sed -n "s/^worker $w: head [0-9]*, last [0-9]* packets in \(.*\)$/\1/p" "$f")
		n=$(sed -n "s/^worker $w: head [0-9]*, last \([0-9]*\) packets in .*/\1/p" "$f")
		[ -n "$rec" ] && [ -f "$rec" ] && tshark -r "$rec" > /dev/null 2>&1 &&
			[ "$(tshark -r "$rec" -T fields -e frame.comment 2>/dev/null | grep -c "^worker $w, port ")" = "$n" ] ||
			{ echo "#   recorder of worker $w: '${rec:-none}', ${n:-?} packets"; ok=1; }
		recorded=$((recorded + ${n:-0}))
	done
	[ "$recorded" -gt 0 ] || { echo "#   the recorders hold no packet under traffic"; ok=1; }
	return $ok
}

# in_rundir PATH: a file of the engine's runtime directory, named as documented
in_rundir() {
	[[ "$1" =~ ^$RUNDIR/mpe-dump-[0-9]{8}-[0-9]{6}-[0-9]+\.txt$ ]] && [ -s "$1" ]
}

t=$(tel_dump)
check "/mpe/dump answers with the path of a new file in the runtime directory (${t:-none})" \
	in_rundir "$t"
check "telemetry dump: every section, in order" sections "$t"
check "telemetry dump: values of this engine" content "$t"
check "the primary logged the telemetry dump's path" grep -qF "dump: written to $t" "$log"

s=$(sig_dump)
check "SIGUSR1: the primary logs the path of a new file in the runtime directory (${s:-none})" \
	cond 'in_rundir "$s" && [ "$s" != "$t" ]'
check "SIGUSR1 dump: every section, in order" sections "$s"
check "SIGUSR1 dump: values of this engine" content "$s"
check "the primary still runs after SIGUSR1" kill -0 "$PRIMARY_PID"

if [ "$MODEL" = process ]; then
	w0=$(sed -n 's/.*worker 0: spawned pid \([0-9]*\).*/\1/p' "$log" | tail -1)
	kill -STOP "$w0"
	sleep 1
	start=$(date +%s%N)
	a=$(tel_dump)
	sleep 0.3
	b=$(sig_dump)
	ms=$((($(date +%s%N) - start) / 1000000))
	check "worker 0 stopped: /mpe/dump and SIGUSR1 both answer (${a:-none}, ${b:-none})" \
		cond 'in_rundir "$a" && in_rundir "$b" && sections "$a" && sections "$b"'
	check "worker 0 stopped: both dumps within 5 s ($ms ms)" [ "$ms" -lt 5000 ]
	beat() { sed -n "s/^worker $2: pid .* heartbeat \([0-9]*\).*/\1/p" "$1"; }
	h0a=$(beat "$a" 0); h0b=$(beat "$b" 0); h1a=$(beat "$a" 1); h1b=$(beat "$b" 1)
	check "worker 0 stopped: its heartbeat stands ($h0a, $h0b), worker 1's moves ($h1a, $h1b)" \
		cond '[ -n "$h0a" ] && [ "$h0a" = "$h0b" ] && [ -n "$h1a" ] && [ "$h1a" != "$h1b" ]'
	check "worker 0 stopped: the dump says for how long its heartbeat has not moved" \
		grep -qE "^worker 0: pid $w0, .* \(unchanged for [0-9]{3,} ms\)" "$b"
	kill -CONT "$w0"
fi

# dumps asked for in a loop: the runtime directory keeps the newest 16, the oldest go
for ((i = 0; i < 20; i++)); do
	last=$(tel_dump)
done
n=$(ls "$RUNDIR" | grep -c '^mpe-dump-.*\.txt$' || true)
check "20 more dumps: the newest 16 kept ($n files), the last there, the first gone" \
	cond '[ "$n" = 16 ] && in_rundir "$last" && [ ! -e "$t" ]'

rc=0; stop_primary 30 || rc=$?
check "primary stops on SIGINT and exits 0 ($rc)" [ "$rc" = 0 ]
assert_clean "nothing left behind (the dumps went with the runtime directory)"
finish
