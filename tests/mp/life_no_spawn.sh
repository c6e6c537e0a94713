#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# --no-spawn: the primary creates everything, prints one "worker N: start it with:
# mpe-secondary ARGS" line per worker and waits for an operator to start them.
# Process build: the printed lines are valid shell; run as printed (with the real path of
# mpe-secondary) the workers attach, the engine reports them ready and forwards two net_pcap
# captures (idle exit), the output is compared with mpe-pcapcmp, every process exits 0 and
# nothing is left.
# Thread build: --no-spawn is refused with a clear message and exit 1, nothing left.
. "$(dirname "$0")/lib.sh"

WORKERS=2

# cond 'SHELL CONDITION': several tests joined by && as one command for check


"$PCAPGEN" -o "$TMP/in0.pcap" -n 1000 -f 40 --bidir --seed 21 > /dev/null
"$PCAPGEN" -o "$TMP/in1.pcap" -n 50 -f 5 --seed 22 > /dev/null
n0=$(pcap_count "$TMP/in0.pcap")
n1=$(pcap_count "$TMP/in1.pcap")
cfg=$TMP/engine.ini
{
	printf '[engine]\nshape = pipeline\nio_lcore = 1\nbackpressure = on\n\n'
	printf '[port 0]\ndevice = net_pcap0\npeer = 1\n\n[port 1]\ndevice = net_pcap1\npeer = 0\n'
	printf '\n[worker 0]\nlcore = 2\nstages = flowhash\n\n[worker 1]\nlcore = 3\nstages = fwd\n'
} > "$cfg"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in0.pcap,tx_pcap=$TMP/out0.pcap" \
	--vdev "net_pcap1,rx_pcap=$TMP/in1.pcap,tx_pcap=$TMP/out1.pcap" \
	-- -c "$cfg" --no-spawn --idle-exit 1000

if [ "$MODEL" = thread ]; then
	rc=0
	wait_exit "$PRIMARY_PID" 20 || rc=$?
	[ "$rc" != 124 ] && PRIMARY_PID=
	check "thread build: --no-spawn exits 1 (status $rc)" [ "$rc" = 1 ]
	if grep -q "no-spawn is for the process build" "$log"; then
		ok "it says why: $(grep -m1 -o -- '--no-spawn is for.*' "$log")"
	else
		not_ok "no '--no-spawn is for the process build' message"; tail -5 "$log"
	fi
	check "no worker was started, no summary" cond '! grep -q "start it with\|^total:" "$log"'
	assert_clean "thread build, --no-spawn: nothing left behind"
	finish
	exit $?
fi

check "--no-spawn prints how to start the last worker" \
	wait_for "$log" "worker $((WORKERS - 1)): start it with: mpe-secondary " 20
sleep 0.3
check "one 'start it with:' line per worker ($WORKERS)" \
	[ "$(grep -c "^worker [0-9]*: start it with: mpe-secondary " "$log")" = "$WORKERS" ]
check "no worker process was spawned" \
	cond '! grep -q "spawned pid" "$log" && [ -z "$(pgrep -P "$PRIMARY_PID")" ]'
check "the engine waits: not running yet" cond '! grep -q "running:" "$log"'

pids=()
for ((w = 0; w < WORKERS; w++)); do
	line=$(sed -n "s/^worker $w: start it with: //p" "$log")
	# an operator pastes the line into a shell
	if bash -n -c "$line" 2> "$TMP/syntax.log"; then
		ok "worker $w: the printed command line is valid shell"
	else
		not_ok "worker $w: the printed command line is not valid shell: $line: $(head -1 "$TMP/syntax.log")"
	fi
	# then runs it as printed, word by word, mpe-secondary from this build
	read -ra args <<< "${line#mpe-secondary }"
	check "worker $w: the line gives --file-prefix $PREFIX and lcore $((w + 2))" \
		cond '[[ " ${args[*]} " == *" --file-prefix=$PREFIX "* ]] &&
			[[ " ${args[*]} " == *" --lcores=$((w + 2))@"* ]] &&
			[[ " ${args[*]} " == *" -- --worker $w " ]]'
	"$SECONDARY" "${args[@]}" > "$TMP/worker$w.log" 2>&1 &
	pids+=($!)
	EXTRA_PIDS+=" $!"
done
check "the engine reports both workers ready" wait_for "$log" "running: $WORKERS workers ready" 20
rc=0
wait_exit "$PRIMARY_PID" 60 || rc=$?
[ "$rc" != 124 ] && PRIMARY_PID=
check "after the captures (idle exit) the primary exits 0 (status $rc)" [ "$rc" = 0 ]
for ((w = 0; w < WORKERS; w++)); do
	rc=0
	wait_exit "${pids[$w]}" 10 || rc=$?
	check "worker $w (pid ${pids[$w]}) exits 0 (status $rc)" [ "$rc" = 0 ]
	check "worker $w ran on lcore $((w + 2))" \
		grep -q "worker $w: running on lcore $((w + 2))" "$TMP/worker$w.log"
done
check "summary: both workers exited cleanly" \
	[ "$(grep -cE "^  worker [01] \(lcore [23], exited\) +rx [1-9]" "$log")" = "$WORKERS" ]
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
check "every packet in and out ($in in, $out out, $dropped dropped; sent $n0 + $n1)" \
	cond '[ "${in:-x}" = $((n0 + n1)) ] && [ "${out:-x}" = "$in" ] && [ "$dropped" = 0 ]'
for d in "0 1" "1 0"; do
	read -r i o <<< "$d"
	if "$PCAPCMP" "$TMP/in$i.pcap" "$TMP/out$o.pcap" > "$TMP/cmp" 2>&1; then
		ok "port $i -> port $o: the same packets, per-flow order kept"
	else
		not_ok "port $i -> port $o differs"; head -5 "$TMP/cmp"
	fi
done
assert_clean "nothing left behind"
finish
