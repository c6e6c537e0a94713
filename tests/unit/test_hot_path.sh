#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The packet loops are compiled as hot code. DPDK declares rte_log() cold, and GCC's guessed
# profile takes every path that ends in a call to it as never executed: a function whose
# every way out logs (mpe_worker_main, mpe_io_main) then has its loop, and every static
# function only the loop calls, compiled for size, unaligned, in .text.unlikely. The loops
# are marked hot against that; this reads the sections GCC put the functions in.
# Usage: test_hot_path.sh LIBMPE_COMMON.a LIBIO_OBJS.a
set -uo pipefail

if [[ $# -ne 2 || ! -r $1 || ! -r $2 ]]; then
	echo "usage: $0 libmpe_common.a libio_objs.a (readable archives)" >&2
	exit 2
fi
if ! command -v objdump > /dev/null; then
	echo "$0: objdump (binutils) is needed" >&2
	exit 2
fi
passed=0
failed=0

# section ARCHIVE MEMBER FUNCTION: the section of FUNCTION in MEMBER, or "absent"
section() {
	objdump -t "$1" | awk -v m="$2:" -v f="$3" '
		/file format/ {
			# meson names a member after its folder too: worker_worker.c.o
			n = split($1, p, "/"); k = length(p[n]) - length(m)
			inside = p[n] == m || (k > 0 && substr(p[n], k) == "_" m); next }
		inside && $3 == "F" && $6 == f { s = $4 }
		END { print (s == "" ? "absent" : s) }'
}

# expect ARCHIVE MEMBER FUNCTION hot|not-cold
expect() {
	local s
	s=$(section "$1" "$2" "$3")
	if [[ $4 == hot && $s == .text.hot ]] ||
	   [[ $4 == not-cold && $s != .text.unlikely && ($s == absent || $s == .text*) ]]; then
		echo "ok - $2: $3 in ${s/absent/no section of its own (inlined)}"
		passed=$((passed + 1))
	else
		echo "not ok - $2: $3 in $s, expected ${4/not-cold/.text or .text.hot}"
		failed=$((failed + 1))
	fi
}

# the objects must be there, with the loops in them
for m in worker.c.o io.c.o; do
	a=$1
	[[ $m == io.c.o ]] && a=$2
	# grep reads all of objdump's output (no -q): with pipefail, a grep that quits at the
	# first match fails the pipeline whenever objdump is still writing (SIGPIPE)
	if objdump -t "$a" | grep -E "(^|/|_)${m//./\\.}:[[:space:]]+file format" > /dev/null; then
		echo "ok - $m found in $(basename "$a")"
		passed=$((passed + 1))
	else
		echo "not ok - $m not found in $a"
		failed=$((failed + 1))
	fi
done

expect "$1" worker.c.o loop_rings hot
expect "$1" worker.c.o loop_ports hot
for f in burst_rings burst_ports run_stages transmit_burst enqueue_burst send_ports \
	rte_eth_tx_burst mpe_pool_dev_enter should_stop; do
	expect "$1" worker.c.o "$f" not-cold
done
expect "$2" io.c.o io_loop hot
for f in rx_burst flush_pending flush_all_pending rings_have_room share_waiting tx_side \
	tx_flush stopping; do
	expect "$2" io.c.o "$f" not-cold
done

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
