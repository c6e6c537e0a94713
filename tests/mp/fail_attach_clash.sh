#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A worker whose own address space holds the addresses of the primary's memory cannot attach
# (docs/operations.md#address-space): it must refuse at once, name the cause and the cure
# (--base-virtaddr), and leave the engine waiting for a worker that can. The primary runs with
# --no-spawn and --base-virtaddr BASE, so that its memory is known to lie at BASE and its
# shared config just below; libmpe-test-squat.so (LD_PRELOAD) maps those addresses in the
# worker before its main():
#   1. the first GiB at BASE taken (the memzone list's array, then the memory segments):
#      refused, naming --base-virtaddr
#   2. the shared config's pages below BASE taken: refused, naming --base-virtaddr
#   3. the same command line with nothing in the way: the worker attaches and the engine runs
# and with no primary at all, the refusal still points at --file-prefix, not at addresses.
. "$(dirname "$0")/lib.sh"

SQUAT=$BUILD/tests/mp/libmpe-test-squat.so
BASE=0x300000000000
# a sanitizer build's runtime must come first among the libraries preloaded
PRELOAD=$SQUAT
ASAN_LIB=$(ldd "$SECONDARY" | awk '/libasan/ { print $3 }')
[ -z "$ASAN_LIB" ] || PRELOAD="$ASAN_LIB $SQUAT"

cfg=$TMP/engine.ini
printf '[engine]\nshape = distributor\nio_lcore = 1\n\n%s\n[worker 0]\nlcore = 2\n' \
	"$NULL_PORTS" > "$cfg"
log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" --base-virtaddr "$BASE" --vdev net_null0 \
	--vdev net_null1 -- -c "$cfg" --no-spawn
check "the primary (--base-virtaddr $BASE, --no-spawn) prints worker 0's command line" \
	wait_for "$log" "worker 0: start it with: mpe-secondary " 20
line=$(sed -n "s/^worker 0: start it with: //p" "$log")
read -ra args <<< "${line#mpe-secondary }"
check "the worker's command line passes --base-virtaddr on" \
	cond '[[ " ${args[*]} " == *" --base-virtaddr"* ]]'

# refused NAME SQUAT: worker 0 started with SQUAT ("ADDR:LEN") held must refuse within 10 s,
# say it could not map the primary's memory and name --base-virtaddr
refused() {
	local name=$1 wlog=$TMP/worker-$1.log rc=0
	MPE_TEST_SQUAT=$2 LD_PRELOAD=$PRELOAD timeout -k 2 10 "$SECONDARY" "${args[@]}" \
		> "$wlog" 2>&1 || rc=$?
	check "$name: the squat held $2 in the worker" grep -q "^squat: holding $2" "$wlog"
	check "$name: the worker refuses (status $rc), not a timeout" \
		cond '[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$rc" != 137 ]'
	if grep -q "cannot map the primary's shared memory at the primary's addresses.*start mpe-primary with --base-virtaddr" "$wlog"; then
		ok "$name: the refusal names the cause and --base-virtaddr"
	else
		not_ok "$name: the refusal does not name the cause and --base-virtaddr"
		tail -5 "$wlog" | sed 's/^/#   /'
	fi
	check "$name: it does not send the operator to --file-prefix" \
		cond '! grep -q "same --file-prefix" "$wlog"'
}
refused segments "$BASE:0x40000000"
refused config "$(printf '0x%x' $((BASE - 0x4000000))):0x4000000"
check "the engine still waits for its worker" \
	cond 'kill -0 "$PRIMARY_PID" && ! grep -q "running:" "$log"'

"$SECONDARY" "${args[@]}" > "$TMP/worker.log" 2>&1 &
wpid=$!
EXTRA_PIDS+=" $wpid"
check "nothing in the way: the same command line attaches and the engine runs" \
	wait_for "$log" "running: 1 workers ready" 20
rc=0
stop_primary || rc=$?
check "the primary stops and exits 0 (status $rc)" [ "$rc" = 0 ]
rc=0
wait_exit "$wpid" 10 || rc=$?
check "the worker exits 0 with the engine (status $rc)" [ "$rc" = 0 ]
assert_clean "nothing left behind"

# no primary: the other cause, the other hint
rc=0
timeout -k 2 10 "$SECONDARY" "${args[@]}" > "$TMP/worker-none.log" 2>&1 || rc=$?
check "no primary: refused (status $rc), sent to --file-prefix, not to --base-virtaddr" \
	cond '[ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -q "same --file-prefix" "$TMP/worker-none.log" &&
		! grep -q "start mpe-primary with --base-virtaddr" "$TMP/worker-none.log"'
assert_clean "no primary: nothing left behind"
finish
