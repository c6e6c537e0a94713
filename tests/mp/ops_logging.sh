#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Logging: the workers' log lines land in the primary's log prefixed "worker N: " (process
# build: their stdout and stderr through a pipe the primary reads; thread build: by the lcore
# that logs), and --log-level works as in any DPDK application, for the primary and for the
# workers it spawns:
#   - default level: each worker's INFO line, prefixed with its own id, and no DEBUG line;
#     the primary's own lines carry no prefix; the workers' last lines come before the summary;
#   - --log-level=mpe.worker:debug, --log-level mpe.worker:8 (numeric, separate argument) and
#     --log-level=mpe.*:debug (a pattern) show the workers' DEBUG line, prefixed;
#   - --log-level=mpe.worker:warning hides the workers' INFO lines;
#   - process build: workers whose primary is killed still leave on their own and clean up,
#     and what they say then still reaches the log (their pipe is broken: they neither block
#     nor die of it, and write to the primary's stderr themselves); what a worker prints
#     on its stderr (a refusal to run) is in the primary's log, prefixed.
. "$(dirname "$0")/lib.sh"

cfg=$TMP/engine.ini
cat > "$cfg" <<EOF
[engine]
shape = distributor
io_lcore = 1

$NULL_PORTS
[worker 0]
lcore = 2

[worker 1]
lcore = 3
EOF
DEBUG_LINE='mpe.worker: worker %s: burst 32, 1 stages, input mpe_io_w%s,'

# run NAME [EAL args]: an engine with those arguments until it runs; its log is $TMP/NAME.log
run() {
	local name=$1; shift
	log=$TMP/$name.log
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 "$@" \
		-- -c "$cfg"
	wait_for "$log" "running:" 30
}

# lines LOG W PATTERN: how many lines of worker W match the fixed string PATTERN, prefixed
lines() {
	grep -cF "worker $2: $3" "$1" || true
}

# --- default level ------------------------------------------------------------------------
check "engine runs at the default log level ($MODEL build)" run default
sleep 0.5
for w in 0 1; do
	n=$(lines "$log" "$w" "mpe.worker: worker $w: running on lcore $((w + 2)) (rings)")
	check "worker $w: its INFO line is in the primary's log, prefixed 'worker $w: ' ($n)" \
		[ "$n" = 1 ]
	# shellcheck disable=SC2059
	n=$(grep -cF "$(printf "$DEBUG_LINE" "$w" "$w")" "$log" || true)
	check "worker $w: no DEBUG line at the default level ($n)" [ "$n" = 0 ]
done
check "the primary's own lines carry no worker prefix" \
	cond 'grep -q "^mpe.engine: running:" "$log" && grep -q "^mpe.io: I/O loop on lcore 1" "$log"'
if [ "$MODEL" = process ]; then
	check "process build: a worker's EAL lines are prefixed too" \
		cond 'grep -q "^worker 0: EAL: " "$log" && grep -q "^worker 1: EAL: " "$log"'
fi
rc=0; stop_primary 30 || rc=$?
check "primary stops and exits 0 ($rc)" [ "$rc" = 0 ]
last=$(grep -nF "worker 1: mpe.worker: worker 1: stopped after" "$log" | cut -d: -f1 || true)
summary=$(grep -n "^mpe summary" "$log" | cut -d: -f1 || true)
check "the workers' last lines come before the summary (lines ${last:-none} < ${summary:-none})" \
	cond '[ -n "$last" ] && [ -n "$summary" ] && [ "$last" -lt "$summary" ]'

# --- --log-level in its usual forms -------------------------------------------------------
levels=("--log-level=mpe.worker:debug" "--log-level mpe.worker:8" "--log-level=mpe.*:debug")
for i in "${!levels[@]}"; do
	# shellcheck disable=SC2206
	args=(${levels[$i]})
	if ! run "debug$i" "${args[@]}"; then
		not_ok "${levels[$i]}: the engine runs"
		continue
	fi
	sleep 0.5
	n=0
	for w in 0 1; do
		# shellcheck disable=SC2059
		grep -qF "worker $w: $(printf "$DEBUG_LINE" "$w" "$w")" "$log" && n=$((n + 1))
	done
	check "${levels[$i]}: both workers' DEBUG lines, prefixed ($n of 2)" [ "$n" = 2 ]
	rc=0; stop_primary 30 || rc=$?
	check "${levels[$i]}: primary exits 0 ($rc)" [ "$rc" = 0 ]
done

if run quiet --log-level=mpe.worker:warning; then
	sleep 0.5
	n=$(grep -c "mpe.worker: worker [01]: running on lcore" "$log" || true)
	check "--log-level=mpe.worker:warning: the workers' INFO lines are gone ($n)" [ "$n" = 0 ]
else
	not_ok "--log-level=mpe.worker:warning: the engine runs"
fi

# --- process build: the primary dies; its workers leave anyway ----------------------------
if [ "$MODEL" = process ]; then
	mapfile -t wpids < <(sed -n 's/.*: spawned pid \([0-9]*\).*/\1/p' "$log")
	dead=$PRIMARY_PID
	kill -9 "$PRIMARY_PID"
	wait "$PRIMARY_PID" 2> /dev/null || true
	PRIMARY_PID=
	gone=0
	for ((i = 0; i < 100; i++)); do
		gone=0
		for pid in "${wpids[@]}"; do alive "$pid" || gone=$((gone + 1)); done
		[ "$gone" = "${#wpids[@]}" ] && break
		sleep 0.1
	done
	check "primary killed: its ${#wpids[@]} workers left within 10 s ($gone gone)" \
		cond '[ "${#wpids[@]}" = 2 ] && [ "$gone" = 2 ]'
	n=$(grep -cE "^worker ([01]): mpe.worker: worker \1: primary \(pid $dead\) is gone: exiting" \
		"$log" || true)
	check "primary killed: each worker's last words reach the log, prefixed ($n of 2)" [ "$n" = 2 ]
else
	rc=0; stop_primary 30 || rc=$?
	check "primary exits 0 ($rc)" [ "$rc" = 0 ]
fi
# --- process build: what a worker writes to its stderr lands prefixed ----------------------
if [ "$MODEL" = process ]; then
	log=$TMP/refuse.log
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg" \
		--secondary "$BUILD/tests/mp/mpe-secondary-badlayout"
	rc=0; wait_exit "$PRIMARY_PID" 30 || rc=$?
	[ "$rc" != 124 ] && PRIMARY_PID=
	check "a worker of another layout: its refusal on stderr is in the primary's log, prefixed" \
		cond '[ "$rc" = 1 ] && grep -qE "^worker [01]: mpe-secondary: worker [01]: refusing to run" "$log"'
fi
assert_clean
finish
