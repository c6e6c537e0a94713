#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Bad input to the engine gets a clear error and exit 1, and costs nothing: no hugepage file,
# no runtime directory, no process left.
#   1. invalid configuration files: each error as FILE:LINE: KEY: REASON, all of them at once
#   2. a missing file; --check on every shipped config/*.ini; rss on net_pcap refused
#   3. bad command lines
#   4. what only the EAL can tell: io_lcore not enabled, a port whose device was not probed
#   5. mpe-secondary with bad arguments against a running engine, which must not notice
. "$(dirname "$0")/lib.sh"

CONFIG_DIR=$(cd "$(dirname "$0")/../../config" 2> /dev/null && pwd || true)

# cond 'SHELL CONDITION': several tests joined by && as one command for check


# run_primary LOG ARGS...: mpe-primary with this test's EAL arguments; returns its status
run_primary() {
	local log=$1 rc=0
	shift
	timeout -k 2 20 "$PRIMARY" --no-pci --file-prefix "$PREFIX" "$@" > "$log" 2>&1 || rc=$?
	return "$rc"
}

# A valid engine; a case adds lines to a section. The line an error must be reported at
# carries the comment "; <-" (comments are stripped before parsing).
# write_ini FILE ENGINE PORT0 PORT1 WORKER0: extra lines per section ('\n' separated); a
# shape given in ENGINE replaces the default one
write_ini() {
	local shape='shape = pipeline\n'
	[[ "$2" == *"shape ="* ]] && shape=
	{
		printf "[engine]\\n${shape}io_lcore = 1\\n%b\\n" "$2"
		printf '[port 0]\ndevice = net_null0\n%b\n' "$3"
		printf '[port 1]\n%b\n' "${4:-device = net_null1}"
		printf '%b\n' "${5:-[worker 0]\nlcore = 2}"
	} > "$1"
}

# --- 1. one error each: NAME|ENGINE|PORT0|PORT1|WORKER0|KEY: REASON (extended regex)
cases=(
	'shape|shape = triangle ; <-|||'"|shape: 'triangle' is not one of pipeline, distributor, rss"
	'burst_range|burst = 0 ; <-|||'"|burst: '0' out of range: must be between 1 and"
	'ring_pow2|ring_size = 1000 ; <-||||ring_size: 1000 is not a power of 2'
	'bool|backpressure = maybe ; <-|||'"|backpressure: 'maybe' is not on/off"
	'not_number|mbufs = lots ; <-|||'"|mbufs: 'lots' is not a whole number"
	'unknown_key|colour = blue ; <-||||colour: unknown key in \[engine\]'
	'repeated|burst = 32\nburst = 64 ; <-||||burst: repeated in \[engine\] \(first at line 4\)'
	'mbufs_short|mbufs = 1023 ; <-||||mbufs: 1023 cannot fill the configured queues, rings and caches'
	'peer||peer = 5 ; <-|||peer: port 5 is not configured'
	'mac|||device = net_null1\ndst_mac = 02:00:00:00:00 ; <-|'"|dst_mac: '02:00:00:00:00' is not a MAC address"
	'device_dup|||device = net_null0 ; <-|'"|device: 'net_null0' already used by port 0"
	'stage||||[worker 0]\nlcore = 2\nstages = fwd,bogus ; <-'"|stages: unknown stage 'bogus'"
	'lcore_missing||||[worker 0] ; <-\nstages = fwd|lcore: missing in \[worker 0\]'
	'rss_queues|shape = rss|rx_queues = 1 ; <-||[worker 0]\nlcore = 2\nqueue = 2|rx_queues: 1, but shape rss has a worker poll queue 2 of every port'
	'queue_dup|shape = rss|||[worker 0]\nlcore = 2\nqueue = 1\n[worker 1]\nlcore = 3\nqueue = 1 ; <-|queue: 1 already owned by worker 0'
	'queue_io||||[worker 0]\nlcore = 2\nqueue = 0 ; <-|queue: worker 0 owns no queue'
	'standby_range|standby = 9 ; <-||||'"standby: '9' out of range: must be between 0 and 8"
	'standby_workers|standby = 2 ; <-||||standby: (2 for 1 worker: at most one per worker|the thread build has no worker process)'
	'standby_restart|restart = off\nstandby = 1 ; <-||||standby: (a standby takes a dead worker.s place, and restart is off|the thread build has no worker process)'
)
for c in "${cases[@]}"; do
	IFS='|' read -r name eng p0 p1 w0 want <<< "$c"
	ini=$TMP/$name.ini
	write_ini "$ini" "$eng" "$p0" "$p1" "$w0"
	line=$(grep -n '; <-' "$ini" | cut -d: -f1)
	rc=0
	"$PRIMARY" --check -c "$ini" > "$TMP/$name.log" 2>&1 || rc=$?
	nerr=$(grep -cE "^$ini:[0-9]+: " "$TMP/$name.log" || true)
	if [ "$rc" = 1 ] && [ "$nerr" = 1 ] && grep -qE "^$ini:$line: $want" "$TMP/$name.log" &&
		grep -qx "$ini: 1 error" "$TMP/$name.log"; then
		ok "$name: exit 1, '$(grep -E "^$ini:" "$TMP/$name.log" | head -1 | sed "s|^$TMP/||")'"
	else
		not_ok "$name: want exit 1 and one '$name.ini:$line: $want' (status $rc, $nerr errors)"
		sed "s|^|    |" "$TMP/$name.log"
	fi
done

# three errors in one file: all three reported, each with its line, then the count
ini=$TMP/three.ini
write_ini "$ini" 'shape = triangle ; <-\nburst = 0 ; <-' '' '' \
	'[worker 0]\nlcore = 2\nstages = fwd,bogus ; <-'
read -r l1 l2 l3 <<< "$(grep -n '; <-' "$ini" | cut -d: -f1 | tr '\n' ' ')"
log=$TMP/three.log
rc=0
run_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$ini" || rc=$?
check "3 errors: the primary exits 1 (status $rc)" [ "$rc" = 1 ]
check "3 errors: 3 lines FILE:LINE: KEY: REASON, at lines $l1, $l2 and $l3" \
	cond '[ "$(grep -cE "^$ini:[0-9]+: [a-z_]+: " "$log")" = 3 ] &&
		grep -q "^$ini:$l1: shape: " "$log" && grep -q "^$ini:$l2: burst: " "$log" &&
		grep -q "^$ini:$l3: stages: " "$log"'
check "3 errors: then '$ini: 3 errors'" grep -qx "$ini: 3 errors" "$log"
check "3 errors: refused before the EAL starts" cond '! grep -q "^EAL:" "$log"'
assert_clean "3 errors: nothing left behind"

# --- 2. a missing file
log=$TMP/missing.log
rc=0
run_primary "$log" --lcores "$LCORES" --vdev net_null0 -- -c "$TMP/nonexistent.ini" || rc=$?
check "missing file: exit 1 (status $rc) and '$TMP/nonexistent.ini: cannot open: No such file'" \
	cond '[ "$rc" = 1 ] && grep -q "^$TMP/nonexistent.ini: cannot open: No such file" "$log"'
check "missing file: refused before the EAL starts" cond '! grep -q "^EAL:" "$log"'
assert_clean "missing file: nothing left behind"
rc=0
"$PRIMARY" --check -c "$TMP/nonexistent.ini" > "$log" 2>&1 || rc=$?
check "missing file: --check exits 1 too (status $rc)" [ "$rc" = 1 ]

# every shipped example passes --check
shipped=()
[ -n "$CONFIG_DIR" ] && shipped=("$CONFIG_DIR"/*.ini)
if [ "${#shipped[@]}" = 0 ] || [ ! -e "${shipped[0]}" ]; then
	echo "# skip: no config/*.ini shipped yet"
else
	for f in "${shipped[@]}"; do
		rc=0
		"$PRIMARY" --check -c "$f" > "$TMP/shipped.log" 2>&1 || rc=$?
		if [ "$rc" = 0 ] && grep -q "^$f: OK: shape " "$TMP/shipped.log"; then
			ok "config/$(basename "$f") passes --check: $(sed "s|^$f: ||" "$TMP/shipped.log")"
		else
			not_ok "config/$(basename "$f") fails --check (status $rc)"; cat "$TMP/shipped.log"
		fi
	done
fi

# rss needs workers that poll ports: not on net_pcap
ini=$TMP/rss_pcap.ini
write_ini "$ini" '' '' 'device = net_pcap1' '[worker 0]\nlcore = 2'
sed -i 's/^shape = pipeline/shape = rss/; s/net_null0/net_pcap0/' "$ini"
rc=0
"$PRIMARY" --check -c "$ini" > "$TMP/rss_pcap.log" 2>&1 || rc=$?
check "rss on net_pcap: --check exits 1 (status $rc)" [ "$rc" = 1 ]
check "rss on net_pcap: both ports refused at their device line, naming secondary processes" \
	cond '[ "$(grep -cE "^$ini:(6|9): device: .net_pcap[01].: .*secondary processes" \
		"$TMP/rss_pcap.log")" = 2 ]'

# --- 3. bad command lines: exit 1, a message, and the EAL never starts
ini=$TMP/good.ini
write_ini "$ini" '' '' '' ''
cmdlines=(
	"unknown option|-- -c $ini --frobnicate|unknown option '--frobnicate'"
	"--idle-exit abc|-- -c $ini --idle-exit abc|--idle-exit: 'abc' is not a number of milliseconds"
	"--idle-exit 0|-- -c $ini --idle-exit 0|--idle-exit: '0' is not a number of milliseconds"
	"no -c|-- --idle-exit 100|no configuration: give -c FILE"
	"-c without a file|-- -c|-c needs a value"
	"stray argument|-- -c $ini extra|unexpected argument 'extra'"
	"-c twice|-- -c $ini --config=$ini|-c/--config given twice"
	"no --|-c $ini|no engine options: give \[EAL args\] -- -c FILE"
	"EAL option abbreviated|--no-p -- -c $ini|'--no-p': write the EAL option --no-pci in full"
	"EAL option abbreviated, with a value|--file-pre=x -- -c $ini|'--file-pre=x': write the EAL option --file-prefix in full"
	# EAL options that leave worker processes nothing to attach to
	"--in-memory|--in-memory -- -c $ini|EAL option '--in-memory' cannot be used: it keeps no hugepage files"
	"--in-memory abbreviated|--in-mem -- -c $ini|EAL option '--in-mem' cannot be used: it keeps no hugepage files"
	"--no-shconf|--no-shconf -- -c $ini|EAL option '--no-shconf' cannot be used: it shares no configuration"
	"--huge-unlink|--huge-unlink -- -c $ini|EAL option '--huge-unlink' cannot be used: it removes the hugepage files"
	"--huge-unlink=always|--huge-unlink=always -- -c $ini|EAL option '--huge-unlink=always' cannot be used"
	"--no-huge|--no-huge -- -c $ini|EAL option '--no-huge' cannot be used: worker processes map"
	"--proc-type secondary|--proc-type secondary -- -c $ini|EAL option '--proc-type secondary' cannot be used: mpe-primary is the primary process"
	"--proc-type=secondary|--proc-type=secondary -- -c $ini|EAL option '--proc-type=secondary' cannot be used"
)
for c in "${cmdlines[@]}"; do
	IFS='|' read -r name args want <<< "$c"
	read -ra argv <<< "$args"
	log=$TMP/cmdline.log
	rc=0
	run_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 "${argv[@]}" || rc=$?
	if [ "$rc" = 1 ] && grep -qE "^mpe-primary: $want" "$log" && ! grep -q "^EAL:" "$log"; then
		ok "command line, $name: exit 1, '$(head -1 "$log")', no EAL"
	else
		not_ok "command line, $name: want exit 1 and 'mpe-primary: $want' (status $rc)"
		cat "$log"
	fi
	assert_clean "command line, $name: nothing left behind"
done

# the forms of those options that keep the hugepage files, and the primary's own process
# type, are taken: the engine starts
for args in "--huge-unlink=never" "--huge-unlink=existing" "--proc-type=primary" \
	"--proc-type auto"; do
	read -ra argv <<< "$args"
	log=$TMP/eal_ok.log
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 "${argv[@]}" \
		-- -c "$ini"
	if wait_for "$log" "running:" 20; then
		ok "EAL option $args: the engine runs"
	else
		not_ok "EAL option $args: the engine does not run"
		tail -5 "$log"
	fi
	stop_primary 20 || true
	assert_clean "EAL option $args: nothing left behind"
done

# --- 4. io_lcore 1 not among the EAL's lcores
ini=$TMP/good.ini
log=$TMP/io.log
rc=0
run_primary "$log" --lcores "0@0,2@0,3@$((3 % NCPU))" --vdev net_null0 --vdev net_null1 \
	-- -c "$ini" || rc=$?
check "io_lcore not enabled: exit 1 (status $rc)" [ "$rc" = 1 ]
check "io_lcore not enabled: says so and how to fix it" \
	grep -q "io_lcore 1 is not enabled: enable it with -l/--lcores" "$log"
check "io_lcore not enabled: no worker was started" cond '! grep -q "spawned pid\|^total:" "$log"'
assert_clean "io_lcore not enabled: nothing left behind"

# a port whose device the EAL does not have
log=$TMP/nodev.log
rc=0
run_primary "$log" --lcores "$LCORES" --vdev net_null0 -- -c "$ini" || rc=$?
check "device not probed: exit 1 (status $rc)" [ "$rc" = 1 ]
check "device not probed: names the port and the device" \
	grep -q "port 1: device 'net_null1' not found: give it to the EAL with --vdev" "$log"
assert_clean "device not probed: nothing left behind"

# --- 5. mpe-secondary with bad arguments against a running engine (2 workers)
ini=$TMP/two.ini
write_ini "$ini" '' '' '' '[worker 0]\nlcore = 2\nstages = flowhash\n\n[worker 1]\nlcore = 3'
log=$TMP/primary.log
: > "$log" # start_primary truncates it in the background: no stale "running:"
start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$ini"
check "engine runs (2 workers, $MODEL build)" wait_for "$log" "running:" 20
pids=$(sed -n 's/.*worker [0-9]*: spawned pid \([0-9]*\).*/\1/p' "$log" | tr '\n' ' ')
bad=(
	"--worker abc|-- --worker abc|--worker: 'abc' is not a worker number between 0 and"
	"--worker 99|-- --worker 99|--worker: '99' is not a worker number between 0 and"
	"--worker 5|-- --worker 5|worker 5: not configured \(the engine has 2 workers\)"
	"no --worker||no worker number: give -- --worker N"
	"unknown option|-- --worker 0 --frobnicate|unknown option '--frobnicate'"
	"--worker without a number|-- --worker|--worker needs a value"
	"--log-fd without a descriptor|-- --worker 0 --log-fd|--log-fd needs a value"
	"stray argument|-- --worker 0 extra|unexpected argument 'extra'"
	"--worker twice|-- --worker 0 --worker 1|--worker given twice"
)
for c in "${bad[@]}"; do
	IFS='|' read -r name args want <<< "$c"
	read -ra argv <<< "$args"
	rc=0
	# lcore 5: the lcore id for extra tools, never a worker's
	timeout -k 2 15 "$SECONDARY" --proc-type=secondary --file-prefix "$PREFIX" \
		--lcores "5@$((5 % NCPU))" --no-pci "${argv[@]}" > "$TMP/sec.log" 2>&1 || rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 124 ] && grep -qE -- "$want" "$TMP/sec.log"; then
		ok "mpe-secondary $name: status $rc, '$(grep -m1 -oE -- "$want.*" "$TMP/sec.log")'"
	else
		not_ok "mpe-secondary $name: want non-zero and '$want' (status $rc)"
		tail -3 "$TMP/sec.log"
	fi
done
check "the engine still runs" kill -0 "$PRIMARY_PID"
if [ "$MODEL" = process ]; then
	check "its two worker processes still run ($pids)" \
		cond 'for p in $pids; do kill -0 $p || exit 1; done; [ -n "$pids" ]'
fi
rc=0
stop_primary 30 || rc=$?
check "the engine stops with exit 0 (status $rc)" [ "$rc" = 0 ]
check "both workers exited cleanly, packets went through, nothing unaccounted" \
	cond '[ "$(grep -cE "^  worker [01] \(lcore [23], exited\)" "$log")" = 2 ] &&
		[ "$(total out "$log")" -gt 0 ] && [ "$(total unaccounted "$log")" = 0 ]'
assert_clean "running engine: nothing left behind"
finish
