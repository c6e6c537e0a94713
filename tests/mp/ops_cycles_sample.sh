#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Cycles per packet from sampled bursts: a worker times one non-empty burst in cycles_sample,
# and the cycles of a timed burst count for it and the untimed bursts before it. A burn stage
# spends a known number of TSC cycles per packet, so its figure must come out at that cost
# whether every burst is timed (cycles_sample = 1) or one in 8 (the default) or 64: counting
# only the timed bursts' cycles would show an eighth of it, scaling twice eight times it.
# A timed burst that the host preempts counts for all the bursts it stands for, so one in 64
# is noisy on a shared machine: the bounds leave room for that and still catch the factors
# of 8 and 64 the mistakes would give. The worker gets lcore 1, a CPU of its own on a 2-CPU
# host, and the I/O lcore shares CPU 0 with the main lcore.
. "$(dirname "$0")/lib.sh"

BURN=3000

# run SAMPLE: the engine on net_null for a second; prints the exit summary's burn and worker
# cycles per packet. Keeps the summary in $TMP/sSAMPLE.log and /mpe/workers in sSAMPLE.json.
run() {
	local cfg=$TMP/s$1.ini log=$TMP/s$1.log
	{
		printf '[engine]\nshape = pipeline\nio_lcore = 2\nburn_cycles = %d\n' $BURN
		[ "$1" = default ] || printf 'cycles_sample = %d\n' "$1"
		printf '\n[port 0]\ndevice = net_null0\npeer = 1\n\n[port 1]\ndevice = net_null1\n'
		printf 'rx = off\n\n[worker 0]\nlcore = 1\nstages = burn, fwd\n'
	} > "$cfg"
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
	wait_for "$log" "running:" 30 || true
	sleep 1
	python3 "$CLIENT" "$PREFIX" /mpe/workers > "$TMP/s$1.json" 2> /dev/null || true
	stop_primary 30 > /dev/null || true
	printf '%s %s\n' \
		"$(sed -n 's/^    stage burn .* cycles\/pkt \([0-9.]*\)$/\1/p' "$log")" \
		"$(sed -n 's/^  worker 0 (.* cycles\/pkt \([0-9.]*\)$/\1/p' "$log")"
}

for sample in 1 default 64; do
	read -r burn worker <<< "$(run $sample)"
	check "cycles_sample $sample: burn stage ${burn:-?} cycles/pkt for $BURN spent, worker ${worker:-?} (at least as much)" \
		python3 -c "import sys; b, w = float('${burn:-0}'), float('${worker:-0}');
sys.exit(not ($BURN <= b <= 3 * $BURN and b <= w <= 4 * $BURN))"
done
# the figures say they are estimates wherever they are shown, and from how many bursts
for sample in 1 default 64; do
	n=$sample
	[ "$n" = default ] && n=8
	if [ "$n" -gt 1 ]; then
		check "cycles_sample $sample: the summary says the figures are estimates from 1 burst in $n" \
			grep -q "^  cycles/pkt: estimates, from one non-empty burst in $n timed" "$TMP/s$sample.log"
	else
		check "cycles_sample 1: the summary says nothing of estimates" \
			cond '! grep -q "cycles/pkt: estimates" "$TMP/s1.log"'
	fi
	check "cycles_sample $sample: /mpe/workers has cycles_sample = $n" \
		test "$(jget "$TMP/s$sample.json" 'v["0"]["cycles_sample"]')" = "$n"
done
check "the configuration dump shows the sampling (cycles_sample = 8 by default)" \
	cond '"$PRIMARY" --check --print-config -c "$TMP/sdefault.ini" 2> /dev/null |
	      grep -qx "cycles_sample = 8"'
assert_clean
finish
