#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Lcore ids: mempool caches are per lcore id and shared by every process, so no two workers
# (and no worker and the I/O lcore) may share one, and a worker must run on its own.
#   a. two workers on one lcore: refused by the config check, before the EAL exists
#   b. a worker on the I/O lcore, a worker on lcore 0: refused the same way
#   c. process build, --no-spawn: a worker started on another worker's lcore is refused;
#      a second copy of a running worker is refused; the engine still runs and stops cleanly
#      thread build: a worker lcore the EAL was not given is refused, naming worker and lcore
#      (process build: that configuration runs, each worker gets its own --lcores)
. "$(dirname "$0")/lib.sh"

# cond 'SHELL CONDITION': several tests joined by && as one command for check


# engine_ini FILE SHAPE LCORE...: net_null ports, one worker per lcore given
engine_ini() {
	local f=$1 shape=$2 w=0 lc
	shift 2
	printf '[engine]\nshape = %s\nio_lcore = 1\n\n' "$shape" > "$f"
	printf '[port 0]\ndevice = net_null0\n\n[port 1]\ndevice = net_null1\n' >> "$f"
	for lc in "$@"; do
		printf '\n[worker %d]\nlcore = %s\n' "$w" "$lc" >> "$f"
		w=$((w + 1))
	done
}

# refused_by_config NAME INI PATTERN: the primary (with full EAL arguments) exits 1 with a
# file:line: lcore: message matching PATTERN, and the EAL never started
refused_by_config() {
	local name=$1 ini=$2 pattern=$3 rc=0 log=$TMP/$1.log
	timeout -k 2 20 "$PRIMARY" --no-pci --file-prefix "$PREFIX" --lcores "$LCORES" \
		--vdev net_null0 --vdev net_null1 -- -c "$ini" > "$log" 2>&1 || rc=$?
	check "$name: primary exits 1 (status $rc)" [ "$rc" = 1 ]
	if grep -qE "^$ini:[0-9]+: lcore: $pattern" "$log"; then
		ok "$name: '$(grep -m1 -E "$pattern" "$log")'"
	else
		not_ok "$name: no '$ini:LINE: lcore: $pattern' message"; cat "$log"
	fi
	check "$name: refused before EAL initialisation (no EAL line, no hugepage)" \
		cond '! grep -q "^EAL:" "$log"'
	assert_clean "$name: nothing left behind"
}

# --- a. two workers on one lcore
engine_ini "$TMP/shared.ini" pipeline 2 2
refused_by_config shared_lcore "$TMP/shared.ini" "2 already used by worker 0"

# --- b. a worker on the I/O lcore; a worker on lcore 0 (the main lcore)
engine_ini "$TMP/io.ini" distributor 2 1
refused_by_config io_lcore "$TMP/io.ini" "1 is the I/O lcore"
engine_ini "$TMP/zero.ini" pipeline 0 2
refused_by_config lcore_zero "$TMP/zero.ini" "'0' out of range"

# --- c.
if [ "$MODEL" = thread ]; then
	engine_ini "$TMP/seven.ini" pipeline 7
	log=$TMP/primary.log
	rc=0
	timeout -k 2 20 "$PRIMARY" --no-pci --file-prefix "$PREFIX" --lcores 0@0,1@1 \
		--vdev net_null0 --vdev net_null1 -- -c "$TMP/seven.ini" > "$log" 2>&1 || rc=$?
	check "thread build, worker on lcore 7 not in --lcores 0@0,1@1: exit 1 (status $rc)" \
		[ "$rc" = 1 ]
	if grep -q "worker 0: lcore 7 is not enabled" "$log"; then
		ok "the error names the worker and the lcore: $(grep -m1 'lcore 7' "$log")"
	else
		not_ok "no 'worker 0: lcore 7 is not enabled' message"; tail -5 "$log"
	fi
	check "no summary: no worker ever started" cond '! grep -q "^total:" "$log"'
	assert_clean "thread build, lcore not enabled: nothing left behind"
	finish
	exit $?
fi

# process build: an lcore id the primary does not have is fine, the worker gets its own
engine_ini "$TMP/seven.ini" pipeline 7
log=$TMP/primary.log
: > "$log" # start_primary truncates it in the background: no stale "running:"
start_primary "$log" --lcores 0@0,1@1 --vdev net_null0 --vdev net_null1 -- -c "$TMP/seven.ini"
check "process build: worker on lcore 7 runs with the primary on --lcores 0@0,1@1" \
	wait_for "$log" "running:" 20
check "it was spawned with --lcores=7@CPU" grep -qE "worker 0: spawned pid [0-9]* \(--lcores=7@\(?[0-9]" "$log"
rc=0
stop_primary 30 || rc=$?
check "it stops with exit 0" [ "$rc" = 0 ]
assert_clean "lcore 7 engine: nothing left behind"

# --no-spawn: an operator starts the workers, and gets the lcores wrong
engine_ini "$TMP/hand.ini" pipeline 2 3
: > "$log"
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$TMP/hand.ini" \
	--no-spawn
check "--no-spawn prints how to start worker 1" wait_for "$log" "worker 1: start it with:" 20
read -ra cmd0 <<< "$(sed -n 's/^worker 0: start it with: mpe-secondary //p' "$log")"
read -ra cmd1 <<< "$(sed -n 's/^worker 1: start it with: mpe-secondary //p' "$log")"
check "worker 0 is to run as lcore 2" cond '[[ " ${cmd0[*]} " == *" --lcores=2@"* ]]'

# worker 1 with worker 0's lcore
wrong=("${cmd1[@]/#--lcores=3@/--lcores=2@}")
rc=0
timeout -k 2 15 "$SECONDARY" "${wrong[@]}" > "$TMP/wrong.log" 2>&1 || rc=$?
check "worker 1 started as lcore 2 exits non-zero (status $rc)" cond '[ "$rc" != 0 ] && [ "$rc" != 124 ]'
if grep -q "worker 1: configured for lcore 3 but started as lcore 2" "$TMP/wrong.log"; then
	ok "it says: $(grep -m1 -o 'worker 1: configured for lcore.*' "$TMP/wrong.log")"
else
	not_ok "no 'configured for lcore 3 but started as lcore 2'"; tail -3 "$TMP/wrong.log"
fi

# worker 0 as printed, then worker 0 again
"$SECONDARY" "${cmd0[@]}" > "$TMP/w0.log" 2>&1 &
w0=$!
EXTRA_PIDS+=" $w0"
for ((i = 0; i < 100; i++)); do
	grep -q "worker 0: running" "$TMP/w0.log" 2> /dev/null && break
	sleep 0.05
done
check "worker 0 started as printed is running" grep -q "worker 0: running on lcore 2" "$TMP/w0.log"
rc=0
timeout -k 2 15 "$SECONDARY" "${cmd0[@]}" > "$TMP/dup.log" 2>&1 || rc=$?
check "a second worker 0 exits non-zero (status $rc)" cond '[ "$rc" != 0 ] && [ "$rc" != 124 ]'
if grep -q "worker 0: already running as pid $w0" "$TMP/dup.log"; then
	ok "it says: worker 0: already running as pid $w0"
else
	not_ok "no 'worker 0: already running as pid $w0'"; tail -3 "$TMP/dup.log"
fi
check "the first worker 0 still runs" kill -0 "$w0"

"$SECONDARY" "${cmd1[@]}" > "$TMP/w1.log" 2>&1 &
w1=$!
EXTRA_PIDS+=" $w1"
check "with worker 1 on its own lcore the engine runs" wait_for "$log" "running: 2 workers ready" 20
sleep 0.3
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
rc0=0; rc1=0
wait_exit "$w0" 10 || rc0=$?
wait_exit "$w1" 10 || rc1=$?
check "both hand-started workers exit 0 ($rc0, $rc1)" cond '[ "$rc0" = 0 ] && [ "$rc1" = 0 ]'
check "packets went through, nothing unaccounted" \
	cond '[ "$(total out "$log")" -gt 0 ] && [ "$(total unaccounted "$log")" = 0 ]'
assert_clean "--no-spawn engine: nothing left behind"
finish
