#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Worker processes and net_pcap ports: DPDK 22.11's pcap driver probes the ports again in
# every secondary process from a copy of the primary's arguments cut at 63 characters, and
# re-opens the tx_pcap files (truncating them). Checks that workers neither crash on cut
# arguments nor touch the captures, also when a worker is respawned after traffic has been
# written. Thread build: the same runs with no secondary at all.
. "$(dirname "$0")/lib.sh"

cd "$TMP"
# "rx_pcap=PATH,infinite_rx=1" of 65 characters: the copy ends in "infinite_rx" with no value.
# PATH is in a directory of known length: /tmp/mpeXXXXXX/ (15) + 23 + .pcap (5) = 43
SHORT=$(mktemp -d /tmp/mpeXXXXXX)
test_cleanup() { rm -rf "$SHORT"; }
long=$SHORT/ccccccccccccccccccccccc.pcap
"$PCAPGEN" -o "$long" -n 500 -f 20 --seed 9 > /dev/null
check "test set-up: the argument is 65 characters" \
	[ "$(printf 'rx_pcap=%s,infinite_rx=1' "$long" | wc -c)" = 65 ]
cfg=$TMP/inf.ini
printf '[engine]\nshape = distributor\nio_lcore = 1\n\n[port 0]\ndevice = net_pcap0\n' > "$cfg"
printf 'peer = 1\n\n[port 1]\ndevice = net_null1\nrx = off\n\n' >> "$cfg"
printf '[worker 0]\nlcore = 2\n\n[worker 1]\nlcore = 3\n' >> "$cfg"
log=$TMP/inf.log
start_primary "$log" --lcores "$LCORES" --vdev "net_pcap0,rx_pcap=$long,infinite_rx=1" \
	--vdev net_null1 -- -c "$cfg"
check "workers start although net_pcap's copy of the arguments is cut ($MODEL build)" \
	cond 'wait_for "$log" "running:" 20 && ! grep -q "signal 11" "$log"'
rc=0; stop_primary 30 || rc=$?
check "and the engine stops cleanly" [ "$rc" = 0 ]
assert_clean "infinite_rx engine: nothing left behind"

# short relative paths, which the driver's copy holds whole: a worker respawned after the
# capture was written must leave it alone
"$PCAPGEN" -o in.pcap -n 1000 -f 50 --seed 10 > /dev/null
cfg=$TMP/cap.ini
printf '[engine]\nshape = distributor\nio_lcore = 1\nbackpressure = on\n' > "$cfg"
printf 'restart_backoff_ms = 0\n\n[port 0]\ndevice = net_pcap0\npeer = 1\n\n' >> "$cfg"
printf '[port 1]\ndevice = net_pcap1\nrx = off\n\n' >> "$cfg"
printf '[worker 0]\nlcore = 2\n\n[worker 1]\nlcore = 3\n' >> "$cfg"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --vdev "net_pcap0,rx_pcap=in.pcap" \
	--vdev "net_pcap1,tx_pcap=out.pcap" -- -c "$cfg"
check "engine runs with a capture being written" wait_for "$log" "running:" 20
want=$(stat -c %s in.pcap)
for ((i = 0; i < 100; i++)); do [ "$(stat -c %s out.pcap)" = "$want" ] && break; sleep 0.05; done
check "the capture holds every packet ($(stat -c %s out.pcap) of $want bytes)" \
	[ "$(stat -c %s out.pcap)" = "$want" ]
if [ "$MODEL" = process ]; then
	w=$(sed -n 's/^mpe.engine: worker 0: spawned pid \([0-9]*\).*/\1/p' "$log" | tail -1)
	kill -KILL "$w"
	check "the killed worker is respawned" wait_for "$log" "worker 0: back after" 10
	sleep 0.3
	check "the respawned worker left the capture intact ($(stat -c %s out.pcap) bytes)" \
		[ "$(stat -c %s out.pcap)" = "$want" ]
fi
rc=0; stop_primary 30 || rc=$?
check "the engine stops cleanly" [ "$rc" = 0 ]
if "$PCAPCMP" in.pcap out.pcap > cmp.txt 2>&1; then
	ok "the output capture is whole: every packet, per-flow order kept"
else
	not_ok "the output capture differs"; tail -3 cmp.txt
fi
assert_clean
finish
