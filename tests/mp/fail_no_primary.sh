#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A worker started where no engine runs must refuse quickly, say why, and leave nothing:
# no process, no hugepage file, no runtime directory /var/run/dpdk/PREFIX.
#   1. mpe-secondary and mpe-secondary-badlayout, --proc-type=secondary, no primary
#   2. mpe-secondary without --proc-type (the EAL makes it a primary): refused as well
. "$(dirname "$0")/lib.sh"

BADLAYOUT=$BUILD/tests/mp/mpe-secondary-badlayout
LC2="2@$((2 % NCPU))"

# cond 'SHELL CONDITION': several tests joined by && as one command for check

# run_refused NAME LOG BINARY ARGS...: runs a binary that must refuse, at most 10 s
run_refused() {
	local name=$1 log=$2 rc=0 t0 ms
	shift 2
	t0=$(date +%s%N)
	timeout -k 2 10 "$@" > "$log" 2>&1 || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	check "$name: refuses with a non-zero status within 5 s (status $rc, $ms ms)" \
		cond '[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$rc" != 137 ] && [ "$ms" -lt 5000 ]'
}

for bin in "$SECONDARY" "$BADLAYOUT"; do
	name=$(basename "$bin")
	log=$TMP/$name.log
	run_refused "$name, no primary" "$log" "$bin" --proc-type=secondary --file-prefix "$PREFIX" \
		--lcores "$LC2" --no-pci -- --worker 0
	if grep -q -- "same --file-prefix" "$log"; then
		ok "$name: the message says to run mpe-primary with the same --file-prefix"
	else
		not_ok "$name: no hint at a missing primary / --file-prefix"; cat "$log"
	fi
	# the reason given must be a reason: the EAL does not set rte_errno on this path
	if grep -q "cannot attach to the primary: Success" "$log"; then
		not_ok "$name: the reason printed is 'Success': $(grep -m1 'cannot attach' "$log")"
	else
		ok "$name: the reason printed is not 'Success'"
	fi
	assert_clean "$name, no primary: nothing left behind (process, hugepage files, runtime dir)"
	# the next case must not inherit what this one left
	rm -rf "/var/run/dpdk/$PREFIX"
done

# Without --proc-type the EAL starts as a primary: mpe-secondary must refuse, and not leave
# the primary's runtime files (config, fbarray_*, hugepage_info) behind it.
log=$TMP/as-primary.log
run_refused "mpe-secondary without --proc-type" "$log" "$SECONDARY" --file-prefix "$PREFIX" \
	--lcores "$LC2" --no-pci -- --worker 0
check "mpe-secondary without --proc-type says it must start with --proc-type=secondary" \
	grep -q -- "must start with --proc-type=secondary" "$log"
assert_clean "mpe-secondary without --proc-type: nothing left behind"
finish
