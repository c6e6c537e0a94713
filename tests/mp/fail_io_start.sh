#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The I/O lcore cannot start (gdb makes the allocation of its first transmit buffer fail, as
# when the heap is exhausted): the primary says so and why, never reports the engine
# running, stops the workers it started, and exits 1 with every mbuf back in the pool and
# nothing left behind. An engine that ran without its I/O lcore would poll no port, forward
# nothing, and (here, with --idle-exit) end with status 0 as if it had run.
. "$(dirname "$0")/lib.sh"

require_gdb || { finish; exit $?; }
# the register of a call's first argument, on the architectures DPDK runs on
case $(uname -m) in
x86_64) ARG0='$rdi' ;;
aarch64) ARG0='$x0' ;;
ppc64le) ARG0='$r3' ;;
*) not_ok "no register known for a first argument on $(uname -m)"; finish; exit 1 ;;
esac
{
	echo "[engine]"
	echo "shape = distributor"
	echo "io_lcore = 1"
	echo
	echo "$NULL_PORTS"
	echo "[worker 0]"
	echo "lcore = 2"
} > "$TMP/engine.ini"
log=$TMP/primary.log
# the primary runs under gdb; its exit status is gdb's
rc=0
timeout -k 5 60 gdb -batch -nx -ex 'set breakpoint pending on' \
	-ex "break rte_zmalloc_socket if $ARG0 != 0 && \$_streq((char *)$ARG0, \"mpe_txbuf\")" \
	-ex run -ex 'return (void *)0' -ex continue -ex 'quit $_exitcode' \
	--args "$PRIMARY" --no-pci --file-prefix "$PREFIX" --lcores "$LCORES" \
	--vdev net_null0 --vdev net_null1 -- -c "$TMP/engine.ini" --idle-exit 1000 \
	> "$log" 2>&1 || rc=$?
check "gdb stopped the allocation of the I/O lcore's transmit buffer" \
	grep -q "hit Breakpoint 1,.*rte_zmalloc_socket" "$log"
check "the primary exits 1 (status $rc)" [ "$rc" = 1 ]
check "it says why: I/O lcore 1: cannot start: Cannot allocate memory" \
	grep -q "I/O lcore 1: cannot start: Cannot allocate memory" "$log"
check "it never reports the engine running" cond '! grep -q "running: " "$log"'
check "the worker was stopped, not left running" \
	grep -qE "^  worker 0 \(lcore 2, exited\) +rx 0" "$log"
check_pool_whole
assert_clean "nothing left behind"
finish
