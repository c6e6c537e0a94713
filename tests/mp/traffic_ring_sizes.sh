#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Ring lengths and the pool size, from where the lcores run. With ring_size left out, a ring
# into a lcore that shares its CPU with another polling lcore holds 8192 packets and every
# other ring 1024, and the pool grows to fill them when mbufs is left out too; a ring_size
# that is given holds for every ring; an mbufs that is given and too small for the longer
# rings, or hugepages too few for their pool, keep them all at ring_size, with a notice. The
# pool left out is at least 8191 mbufs, and counts the capture net_pcap keeps in it with
# infinite_rx. Read from /mpe/rings (capacities) and a debug dump (pool size).
. "$(dirname "$0")/lib.sh"

# lcores 1 and 3 on CPU 1, lcores 0, 2 and 4 on CPU 0, whatever the number of CPUs
PIN=0@0,1@1,2@0,3@1,4@0

if [ "$NCPU" -lt 2 ]; then
	echo "# $NCPU CPU: every lcore would share one; this test needs 2"
	not_ok "2 CPUs or more"
	finish
	exit 1
fi

log=$TMP/primary.log
t=$TMP/t
EAL_MORE=
PORTS=$NULL_PORTS
VDEVS=(--vdev net_null0 --vdev net_null1)

# run NAME ENGINE-KEYS WORKERS-LCORES SHAPE: starts the engine on the ports $PORTS of the
# devices $VDEVS (net_null) with the keys given in [engine], one fwd worker per lcore listed
# and the EAL options in $EAL_MORE; leaves its /mpe/rings reply in $t.rings and the pool size
# in $POOL. Status 1 (reported) when it does not start.
run() {
	local name=$1 keys=$2 lcores=$3 shape=$4 cfg=$TMP/$1.ini id=0 l dump
	{
		printf '[engine]\nshape = %s\nio_lcore = 1\nstats_period_ms = 0\n%s\n\n' \
			"$shape" "$keys"
		echo "$PORTS"
		for l in $lcores; do
			printf '[worker %u]\nlcore = %u\nstages = fwd\n\n' "$id" "$l"
			id=$((id + 1))
		done
	} > "$cfg"
	start_primary "$log" --lcores "$PIN" $EAL_MORE "${VDEVS[@]}" -- -c "$cfg"
	if ! wait_for "$log" "running:" 30; then
		not_ok "$name: the engine runs"
		sed 's/^/#   /' "$log" | tail -20
		return 1
	fi
	python3 "$CLIENT" "$PREFIX" /mpe/rings > "$t.rings" 2> "$t.err" || true
	dump=$(sig_dump)
	POOL=$(sed -n 's/^mempool mpe_mbufs: size \([0-9]*\),.*/\1/p' "$dump" 2>/dev/null | head -1)
	return 0
}

# caps: "ring=capacity ..." from the last /mpe/rings reply, sorted by name
caps() {
	jget "$t.rings" '" ".join("%s=%d" % (k, v[k]["capacity"]) for k in sorted(v))'
}

# Checks on the engine of case $name. rings_are WHAT CAPS: the last /mpe/rings reply's
# capacities are CAPS; pool_is WHAT N: the pool holds N mbufs; no_notice: no ring was made
# longer.
rings_are() {
	local c
	c=$(caps)
	check "$name: $1 ($c)" [ "$c" = "$2" ]
}
pool_is() {
	check "$name: $1 (${POOL:-none})" [ "${POOL:-0}" = "$2" ]
}
no_notice() {
	check "$name: no notice of longer rings" cond '! grep -q "ring_size not given" "$log"'
}

# stopped NAME: the engine stops on SIGINT, exits 0, leaves nothing behind
stopped() {
	local rc=0
	stop_primary 30 || rc=$?
	check "$1: the engine stops and exits 0 (status $rc)" [ "$rc" = 0 ]
	assert_clean "$1: nothing left behind"
}

# --- distributor, worker 1 on the I/O lcore's CPU: the rings into either are the longer ones
name="distributor, ring_size and mbufs left out"
if run dist_auto "" "2 3" distributor; then
	rings_are "the rings into worker 1 and into the I/O lcore (one CPU) hold 8192, the \
ring into worker 0 1024" "mpe_io_w0=1023 mpe_io_w1=8191 mpe_w0_io=8191 mpe_w1_io=8191"
	pool_is "the pool grew to fill them: 32767 mbufs" 32767
	check "$name: a notice names the longer rings" grep -q \
		"ring_size not given: 8192 slots (not 1024) for mpe_w0_io, mpe_io_w1, mpe_w1_io, into" \
		"$log"
	stopped "$name"
fi

name="distributor, ring_size = 1024 given"
if run dist_given "ring_size = 1024" "2 3" distributor; then
	rings_are "every ring holds 1024" \
		"mpe_io_w0=1023 mpe_io_w1=1023 mpe_w0_io=1023 mpe_w1_io=1023"
	pool_is "the pool holds what 4 rings, 2 ports and 4 lcores need, more than 8191: \
16383 mbufs" 16383
	no_notice
	stopped "$name"
fi

name="distributor, mbufs = 16383 given, ring_size left out"
if run dist_mbufs "mbufs = 16383" "2 3" distributor; then
	rings_are "too few mbufs for longer rings: every ring holds 1024" \
		"mpe_io_w0=1023 mpe_io_w1=1023 mpe_w0_io=1023 mpe_w1_io=1023"
	pool_is "the pool is the size given" 16383
	check "$name: a notice says why" grep -q \
		"mbufs = 16383 cannot fill 8192-slot rings into lcores that share a CPU" "$log"
	stopped "$name"
fi

# the hugepages the primary may take (--socket-limit, MB) hold the pool rings of 1024 need
# (16383 mbufs, about 40 MB) and not the 32767 the longer rings want: the rings keep ring_size
name="distributor, ring_size and mbufs left out, hugepages for 16383 mbufs only"
EAL_MORE="--socket-limit 64"
if run dist_memory "" "2 3" distributor; then
	rings_are "every ring holds 1024" \
		"mpe_io_w0=1023 mpe_io_w1=1023 mpe_w0_io=1023 mpe_w1_io=1023"
	pool_is "the pool holds what rings of 1024 need: 16383 mbufs" 16383
	check "$name: a notice says why" grep -q "no hugepage memory for 32767 mbufs: every \
ring holds ring_size = 1024, and the pool 16383 mbufs" "$log"
	stopped "$name"
fi
EAL_MORE=

# --- every polling lcore on a CPU of its own: no ring longer --------------------------------
name="distributor, worker 0 on lcore 2 (CPU 0), I/O lcore on CPU 1"
if run dist_apart "" "2" distributor; then
	rings_are "every ring holds 1024" "mpe_io_w0=1023 mpe_w0_io=1023"
	pool_is "the pool keeps its default, 8191 mbufs" 8191
	no_notice
	stopped "$name"
fi

# the same with net_pcap replaying a capture of 12000 packets (infinite_rx), which it keeps
# in the pool: 7104 mbufs needed besides
"$PCAPGEN" -o "$TMP/cap.pcap" -n 12000 -f 100 --seed 71 > /dev/null
PORTS=${LOOP_PORTS}
loop_vdevs "$TMP/cap.pcap"
VDEVS=("${LOOP_VDEVS[@]}")
name="distributor apart, net_pcap keeping a capture of 12000 packets"
if run dist_capture "" "2" distributor; then
	pool_is "the pool holds the capture besides: 32767 mbufs" 32767
	check "$name: a notice says why" grep -q "net_pcap keeps its capture in the pool \
(infinite_rx; net_pcap0 12000 mbufs): mbufs 32767" "$log"
	stopped "$name"
fi
name="the same with mbufs = 16383 given"
if run dist_capture_given "mbufs = 16383" "2" distributor; then
	pool_is "the pool is the size given" 16383
	check "$name: a warning says it may be short" grep -q "mbufs = 16383: net_pcap keeps \
12000 of them (infinite_rx; net_pcap0 12000), and the queues, rings and caches may take \
7104 more" "$log"
	stopped "$name"
fi
PORTS=$NULL_PORTS
VDEVS=(--vdev net_null0 --vdev net_null1)

# --- two workers on CPU 0, the I/O lcore alone on CPU 1: the rings into the workers ---------
name="distributor, workers on lcores 2 and 4 (CPU 0), I/O lcore on CPU 1"
if run dist_workers "" "2 4" distributor; then
	rings_are "the rings into the workers hold 8192, those into the I/O lcore 1024" \
		"mpe_io_w0=8191 mpe_io_w1=8191 mpe_w0_io=1023 mpe_w1_io=1023"
	stopped "$name"
fi

# --- pipeline, worker 1 on the I/O lcore's CPU: worker 1's input ring from worker 0 sets how
# often the I/O lcore hands the CPU over, although worker 0 has a CPU of its own
name="pipeline, worker 0 on lcore 2 (CPU 0), worker 1 on lcore 3 (the I/O lcore's CPU)"
if run pipe_io "" "2 3" pipeline; then
	rings_are "the rings into worker 1 and into the I/O lcore hold 8192, the ring into \
worker 0 1024" "mpe_io_w0=1023 mpe_w0_w1=8191 mpe_w1_io=8191"
	pool_is "the pool grew to fill them: 32767 mbufs" 32767
	stopped "$name"
fi

# --- pipeline, both workers on CPU 0 ---------------------------------------------------------
name="pipeline, workers on lcores 2 and 4 (CPU 0)"
if run pipe_workers "" "2 4" pipeline; then
	rings_are "the rings into the workers hold 8192, the I/O lcore's 1024" \
		"mpe_io_w0=8191 mpe_w0_w1=8191 mpe_w1_io=1023"
	stopped "$name"
fi

finish
