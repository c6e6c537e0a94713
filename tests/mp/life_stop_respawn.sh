#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: SIGINT while a worker is being respawned is a normal stop. The new instance
# attaches after the stop began, refuses to run ("the engine is stopping"), and that is no
# failure: the primary exits 0, names no failed worker and no stale cause, the books balance
# and nothing is left. The respawn is made slow on purpose: the primary runs mpe-secondary
# through a wrapper (--secondary) that waits 1 s before it once worker 0 has been killed.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	ok "thread build: workers are not respawned"
	finish
	exit $?
fi

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 200 --seed 41 > /dev/null
loop_vdevs "$TMP/in.pcap"
cat > "$TMP/engine.ini" <<EOF
[engine]
shape = distributor
io_lcore = 1
restart_backoff_ms = 10

$LOOP_PORTS
[worker 0]
lcore = 2

[worker 1]
lcore = 3
EOF
cat > "$TMP/slow-secondary" <<EOF
#!/bin/sh
[ -e "$TMP/slow" ] && sleep 1
exec "$SECONDARY" "\$@"
EOF
chmod +x "$TMP/slow-secondary"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" "${LOOP_VDEVS[@]}" -- -c "$TMP/engine.ini" \
	--secondary "$TMP/slow-secondary"
check "engine runs" wait_for "$log" "running:" 30
w0=$(worker_pid 0)
EXTRA_PIDS+=" $w0 $(worker_pid 1)"
sleep 0.2
touch "$TMP/slow"
kill -KILL "$w0"
check "worker 0 is being respawned" wait_for "$log" "worker 0: respawning" 5
for ((i = 0; i < 100; i++)); do
	[ "$(grep -c 'worker 0: spawned pid' "$log")" -ge 2 ] && break
	sleep 0.01
done
EXTRA_PIDS+=" $(worker_pid 0)"
rc=0
stop_primary 30 || rc=$?
check "SIGINT during the respawn: the primary exits 0 (status $rc)" [ "$rc" = 0 ]
check "the new instance did not start, and the primary says why" \
	grep -q "worker 0: pid [0-9]* did not start: the engine is stopping" "$log"
check "no worker is reported failed" cond '! grep -q "worker [0-9]* failed" "$log"'
check "the killed instance's cause is not reported again at stop" \
	cond '[ "$(grep -c "killed by signal 9" "$log")" = 1 ]'
in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
unacc=$(total unaccounted "$log")
check "every packet accounted ($in in, $out out, $dropped dropped, $unacc unaccounted)" \
	cond '[ "${in:-0}" -gt 0 ] && [ $((out + dropped)) = "$in" ] && [ "$unacc" = 0 ]'
assert_clean "nothing left behind"
finish
