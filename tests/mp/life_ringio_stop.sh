#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Process build: mpe-ringio stopped (SIGINT) while it waits for room in a full queue counts
# only the packets it put into the queue, and frees the one it held. The rss worker that
# polls the queue is SIGSTOPped, so that the queue fills; once it runs again, the engine has
# received and sent exactly what mpe-ringio says it injected, and every mbuf is back in the
# pool.
. "$(dirname "$0")/lib.sh"

if [ "$MODEL" = thread ]; then
	ok "thread build: no worker process to stop apart from the primary"
	finish
	exit $?
fi

{
	printf '[engine]\nshape = rss\nstall_timeout_ms = 0\n\n'
	printf '[port 0]\ndevice = net_ring0\npeer = 1\n\n[port 1]\ndevice = net_ring1\nrx = off\n'
	printf '\n[worker 0]\nlcore = 2\n'
} > "$TMP/engine.ini"
"$PCAPGEN" -o "$TMP/in.pcap" -n 20000 -f 50 --seed 61 > /dev/null
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev net_ring0 --vdev net_ring1 -- \
	-c "$TMP/engine.ini"
check "the engine runs" wait_for "$log" "running:" 30
w=$(worker_pid 0)
kill -STOP "$w"
"$RINGIO" --proc-type=secondary --file-prefix "$PREFIX" --lcores "5@$((5 % NCPU))" --no-pci \
	-- --in-port net_ring0 --out-port net_ring1 --inject "$TMP/in.pcap" --queues 1 \
	--collect "$TMP/out.pcap" > "$TMP/ringio.log" 2>&1 &
io=$!
EXTRA_PIDS+=" $io"
sleep 2
check "mpe-ringio still waits for room (the worker is stopped)" kill -0 "$io"
kill -INT "$io"
rc=0
wait_exit "$io" 10 || rc=$?
injected=$(sed -n 's/^mpe-ringio: injected \([0-9]*\) .*/\1/p' "$TMP/ringio.log")
check "mpe-ringio ends on SIGINT and says what it injected ($injected)" \
	cond '[ "$rc" != 124 ] && [ "${injected:-0}" -gt 0 ] && [ "$injected" -lt 20000 ]'
kill -CONT "$w"
# what the engine sent meanwhile waits in net_ring1: a second run with an empty capture (its
# header only) collects it
head -c 24 "$TMP/in.pcap" > "$TMP/none.pcap"
rc=0
"$RINGIO" --proc-type=secondary --file-prefix "$PREFIX" --lcores "5@$((5 % NCPU))" --no-pci \
	-- --in-port net_ring0 --out-port net_ring1 --inject "$TMP/none.pcap" --queues 1 \
	--expect "${injected:-0}" --collect "$TMP/out2.pcap" > "$TMP/ringio2.log" 2>&1 || rc=$?
check "a second mpe-ringio collects as many as were injected ($(cat "$TMP/ringio2.log" |
	tail -1))" [ "$rc" = 0 ]
rc=0
stop_primary 30 || rc=$?
check "the primary exits 0 (status $rc)" [ "$rc" = 0 ]
in=$(total in "$log")
check "the engine received what mpe-ringio injected ($in, $injected)" [ "${in:-x}" = "$injected" ]
check_pool_whole
assert_clean "nothing left behind"
finish
