# SPDX-License-Identifier: BSD-3-Clause
# Shared by the end-to-end tests: every DPDK process runs with --no-pci and a file prefix of
# its own, and everything a test starts is ended by pid, with its hugepage files and runtime
# directory, when the test exits for any reason.
# Environment: MPE_BUILD (the build directory), MPE_MODEL (process or thread).

set -euo pipefail

BUILD=${MPE_BUILD:?MPE_BUILD must name the build directory}
PRIMARY=$BUILD/primary/mpe-primary
SECONDARY=$BUILD/secondary/mpe-secondary
PCAPGEN=$BUILD/tools/mpe-pcapgen
PCAPCMP=$BUILD/tools/mpe-pcapcmp
RINGIO=$BUILD/tools/mpe-ringio
# mpe-ctl is a script: the build's copy, else the source tree's
CTL=$BUILD/tools/mpe-ctl
[ -x "$CTL" ] || CTL=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../../tools/mpe-ctl
HUGEDIR=${MPE_HUGEDIR:-/dev/hugepages}
TEST=$(basename "$0" .sh)
PREFIX=mpet_${TEST}_$$
TMP=$(mktemp -d "/tmp/$PREFIX.XXXXXX")
PRIMARY_PID=
FAILED=0
PASSED=0
# Same EAL lcore line for both builds: lcore ids 0..5 spread over the CPUs there are.
NCPU=$(nproc)
LCORES="0@0"
for l in 1 2 3 4 5; do LCORES+=",$l@$((l % NCPU))"; done

MODEL=${MPE_MODEL:?MPE_MODEL must be process or thread}

# Pids of every process of this test: those run with our file prefix (primary, tools), the
# workers the primary says it spawned (their titles no longer show the prefix), and the
# primary's children.
prefix_pids() {
	local d pid
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" = "$$" ] && continue
		tr '\0' ' ' 2> /dev/null < "$d/cmdline" | grep -q -- "--file-prefix[= ]$PREFIX " \
			&& echo "$pid"
	done
	for f in "$TMP"/*.log; do
		[ -f "$f" ] && sed -n 's/.*: spawned pid \([0-9]*\).*/\1/p' "$f"
	done | while read -r pid; do
		alive "$pid" && echo "$pid"
	done
	[ -n "$PRIMARY_PID" ] && pgrep -P "$PRIMARY_PID" 2> /dev/null
	for pid in $EXTRA_PIDS; do
		alive "$pid" && echo "$pid"
	done
	return 0
}

# Processes a test starts itself that carry no prefix in their command line once running
# (workers started by hand rename themselves): the test adds their pids here.
EXTRA_PIDS=

# SIGKILL every process of this test and wait until each is gone
end_processes() {
	local p pids
	pids=$(prefix_pids | sort -u)
	[ -n "$PRIMARY_PID" ] && pids="$pids $PRIMARY_PID"
	for p in $pids; do kill -9 "$p" 2> /dev/null || true; done
	for p in $pids; do while alive "$p"; do sleep 0.05; done; done
	return 0
}

# a process that exists and is not a zombie waiting to be reaped
alive() {
	local st
	st=$(sed -n 's/^[0-9]* (.*) \([A-Z]\) .*/\1/p' "/proc/$1/stat" 2> /dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# A test may define test_cleanup (namespaces, links, helpers it started): it runs first.
cleanup() {
	local rc=$?
	set +e
	declare -F test_cleanup > /dev/null && test_cleanup
	end_processes
	rm -f "$HUGEDIR/${PREFIX}"map_* 2>/dev/null || true
	rm -rf "/var/run/dpdk/$PREFIX"
	if [ "$rc" != 0 ] && [ -f "$TMP/primary.log" ] && [ "${MPE_KEEP_LOG:-1}" = 1 ]; then
		echo "--- primary log (last 40 lines)"; tail -40 "$TMP/primary.log"
	fi
	[ -n "${MPE_KEEP_TMP:-}" ] && cp -r "$TMP" "$MPE_KEEP_TMP"
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { echo "ok - $*"; PASSED=$((PASSED + 1)); }
# check "name" cond 'shell condition'   (for conditions with && or ||)
cond() { eval "$1"; }
not_ok() { echo "not ok - $*"; FAILED=$((FAILED + 1)); }
check() { # check "name" command...
	local name=$1; shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
# require_gdb: whether gdb can read the engine's structures and DPDK's in this build (tests
# that drive a worker with gdb); else a failed check that says what is missing
require_gdb() {
	if ! command -v gdb > /dev/null; then
		not_ok "gdb is needed (tools/setup-host.sh installs it)"
		return 1
	fi
	if ! gdb -batch -nx -ex 'ptype struct rte_memzone' "$SECONDARY" > /dev/null 2>&1; then
		not_ok "$SECONDARY has no debug information: configure the build with -Ddebug=true"
		return 1
	fi
	# what every script of gdb_worker starts from: the engine's shared memory; a word read
	# as it is now (a gdb.Value keeps what it read first), by address or by value; and a
	# watchpoint that stops the worker after a write when a test holds
	cat > "$TMP/gdb_shm.py" <<'EOF'
import gdb
# read, never called: a call into the worker can change its vector registers
shm = gdb.parse_and_eval("mpe_shm_mapped")
val = lambda expr: int(gdb.parse_and_eval(expr))
at = lambda addr: val("*(volatile uint32_t *)%d" % addr)
now = lambda v: at(int(v.address))

class OnWrite(gdb.Breakpoint):
    """Stops the worker after a write to the 32-bit word of @v when @test() holds then."""
    def __init__(self, v, test):
        super().__init__("*(volatile uint32_t *)%d" % int(v.address),
                         gdb.BP_WATCHPOINT, gdb.WP_WRITE, internal=True)
        self.test = test

    def stop(self):
        return bool(self.test())
EOF
	# gdb_ops's: the function of mempool driver @driver for @op ("enqueue", "dequeue"), a
	# static function of a stripped library, found through rte_mempool_ops_table
	cat > "$TMP/gdb_ops.py" <<'EOF'
import gdb
def mempool_op(driver, op):
    table = "((struct rte_mempool_ops_table *)&rte_mempool_ops_table)"
    for i in range(int(gdb.parse_and_eval(table + "->num_ops"))):
        ops = gdb.parse_and_eval(table + "->ops[%d]" % i)
        if ops["name"].string() == driver:
            return int(ops[op])
    raise gdb.GdbError("no %s mempool ops" % driver)
EOF
}

# gdb_attach PID OUT GDB-ARGS...: gdb in batch mode attached to process PID, output in OUT, for
# at most 60 s; run in $TMP with core dumps off (a gdb that fails leaves no core behind)
gdb_attach() {
	local pid=$1 out=$2
	shift 2
	(cd "$TMP" && ulimit -c 0 && timeout 60 gdb -p "$pid" -batch -nx "$@") > "$out" 2>&1 || true
}

# gdb_worker PID SCRIPT OUT: gdb attached to worker process PID runs SCRIPT (Python, with
# `shm`, `val`, `at`, `now` and `OnWrite` of require_gdb), output in OUT
gdb_worker() {
	gdb_attach "$1" "$3" -ex "source $TMP/gdb_shm.py" -ex "source $2"
}

# gdb_ops PID SCRIPT OUT: the same with `mempool_op` of require_gdb instead, and the primary's
# symbols (the worker's debug information lacks the mempool ops table's type)
gdb_ops() {
	gdb_attach "$1" "$3" -ex "add-symbol-file $PRIMARY -o 0" -ex "source $TMP/gdb_ops.py" \
		-ex "source $2"
}

# start_null_rss: the rss shape on two net_null ports, workers 0 and 1 on lcores 2 and 3, a
# dead worker respawned after 10 ms; the primary's log in $log (set here); "engine runs" checked
start_null_rss() {
	cfg=$TMP/engine.ini
	log=$TMP/primary.log
	printf '[engine]\nshape = rss\nrestart_backoff_ms = 10\n\n[port 0]\ndevice = net_null0\n\n' \
		> "$cfg"
	printf '[port 1]\ndevice = net_null1\n\n[worker 0]\nlcore = 2\n\n[worker 1]\nlcore = 3\n' \
		>> "$cfg"
	start_primary "$log" --lcores "$LCORES" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
	check "engine runs" wait_for "$log" "running:" 30
}

# require_process_gdb: for a test that has gdb stop or kill one worker process at a chosen
# instruction. The thread build has no worker that can die alone: the test ends there.
require_process_gdb() {
	if [ "$MODEL" = thread ]; then
		ok "thread build: a worker cannot die alone"
		finish
		exit $?
	fi
	require_gdb || { finish; exit $?; }
}

# respawned N: the primary has said "back after" N times (respawns), within 10 s
respawned() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -c "back after" "$log" || true)" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# check_pool_whole [LABEL]: once the primary has stopped: its audit found every mbuf in the
# pool once, and its total line says in = out + dropped, nothing unaccounted
check_pool_whole() {
	local p=${1:+$1: } in out dropped unacc
	check "${p}the pool holds every mbuf, each once" \
		grep -q "mempool: every mbuf back in the pool, once" "$log"
	check "${p}no entry of the pool repeats an mbuf" cond '! grep -q "repeat an mbuf" "$log"'
	in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
	unacc=$(total unaccounted "$log")
	check "${p}in = out + dropped ($in = $out + $dropped), nothing unaccounted" \
		cond '[ "${unacc:-x}" = 0 ] && [ $((out + dropped)) = "$in" ]'
}

# check_books: once the primary has stopped: its total line says in = out + dropped +
# in_doubt, with packets in and nothing unaccounted
check_books() {
	local in out dropped doubt unacc
	in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
	doubt=$(total in_doubt "$log"); unacc=$(total unaccounted "$log")
	check "every packet accounted ($in in, $out out, $dropped dropped, ${doubt:-0} in doubt)" \
		cond '[ "${in:-0}" -gt 0 ] && [ "$unacc" = 0 ] &&
		[ $((out + dropped + ${doubt:-0})) = "$in" ]'
}

# rx_moves ID MARK: worker ID's rx counter moved in the stats lines after the first line
# matching MARK (at least two samples), in $log
rx_moves() {
	python3 - "$log" "$1" "$2" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
mark = next((i for i, l in enumerate(lines) if re.search(sys.argv[3], l)), None)
if mark is None:
    sys.exit(1)
rx = [int(m.group(1)) for l in lines[mark:]
      for m in [re.search(r"\| w%s running rx (\d+)" % sys.argv[2], l)] if m]
sys.exit(0 if len(rx) >= 2 and rx[-1] > rx[0] else 1)
PY
}

# wait_for_count PATTERN N SECS: $log has N lines matching PATTERN
wait_for_count() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		[ "$(grep -c -- "$1" "$log" || true)" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

# worker_pid ID [LOG]: the last pid the primary logged spawning for worker ID, or handing
# worker ID's place to (a standby)
worker_pid() {
	sed -n -e "s/^mpe.engine: worker $1: spawned pid \([0-9]*\).*/\1/p" \
		-e "s/^mpe.engine: worker $1: standby [0-9]* (pid \([0-9]*\),.*/\1/p" \
		"${2:-$log}" | tail -1
}

# A sanitizer build (MPE_SANITIZE: meson's b_sanitize): a report anywhere in the test's logs
# (the primary's holds its workers' output) is a failure, whatever the test saw of it: a worker
# a report stops is recovered as any dead worker is (docs/testing.md#sanitizers).
SANITIZER_REPORT='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:'
finish() {
	local r
	if [ "${MPE_SANITIZE:-none}" != none ]; then
		# regular files only: a test may leave a FIFO there, which grep would wait on
		r=$(find "$TMP" -type f -exec grep -lE "$SANITIZER_REPORT" {} + 2> /dev/null |
			tr '\n' ' ' || true)
		if [ -z "$r" ]; then
			ok "no sanitizer report in the test's logs ($MPE_SANITIZE)"
		else
			not_ok "sanitizer reports in $r"
			grep -hE -A12 "$SANITIZER_REPORT" $r | head -60 | sed 's/^/#   /'
		fi
	fi
	echo "$PASSED passed, $FAILED failed"
	[ "$FAILED" = 0 ]
}

# start_primary LOG EAL-ARGS... -- MPE-ARGS...   (runs in the background)
start_primary() {
	local log=$1; shift
	: > "$log"
	"$PRIMARY" --no-pci --file-prefix "$PREFIX" "$@" > "$log" 2>&1 &
	PRIMARY_PID=$!
}

# wait_for FILE PATTERN SECONDS: the pattern appears, or the primary has died
wait_for() {
	local file=$1 pattern=$2 secs=$3 i
	for ((i = 0; i < secs * 20; i++)); do
		grep -q -- "$pattern" "$file" 2>/dev/null && return 0
		if [ -n "$PRIMARY_PID" ] && ! kill -0 "$PRIMARY_PID" 2>/dev/null; then
			grep -q -- "$pattern" "$file" 2>/dev/null && return 0
			return 1
		fi
		sleep 0.05
	done
	return 1
}

# wait_exit PID SECONDS: returns the exit status, or 124 if it is still running
wait_exit() {
	local pid=$1 secs=$2 i
	for ((i = 0; i < secs * 20; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null && return 0 || return $?
		fi
		sleep 0.05
	done
	return 124
}

stop_primary() { # SIGINT, then the exit status (124 if it hangs)
	local rc=0
	kill -INT "$PRIMARY_PID" 2>/dev/null || true
	wait_exit "$PRIMARY_PID" "${1:-30}" || rc=$?
	[ "$rc" != 124 ] && PRIMARY_PID=
	return "$rc"
}

# nothing of this test's prefix left: processes, hugepage files, runtime directory
assert_clean() {
	local what=${1:-nothing left behind}
	local left
	left="$(prefix_pids | tr '\n' ' ')"
	left+="$(ls "$HUGEDIR" 2>/dev/null | grep "^$PREFIX" | tr '\n' ' ' || true)"
	[ -e "/var/run/dpdk/$PREFIX" ] && left+=" /var/run/dpdk/$PREFIX"
	if [ -z "$left" ]; then ok "$what"; else not_ok "$what: $left"; fi
}

# An engine fed forever: port 0 replays a capture in a loop, port 1 is a sink that is never
# polled. LOOP_PORTS goes into the configuration, loop_vdevs CAPTURE onto the EAL line.
LOOP_PORTS='[port 0]
device = net_pcap0
peer = 1

[port 1]
device = net_null1
rx = off
'
# The same with net_null0 as the source (--vdev net_null0 --vdev net_null1): empty frames
# forever, nothing to replay.
NULL_PORTS='[port 0]
device = net_null0
peer = 1

[port 1]
device = net_null1
rx = off
'
loop_vdevs() {
	LOOP_VDEVS=(--vdev "net_pcap0,rx_pcap=$1,infinite_rx=1" --vdev net_null1)
}

# ringio OPTIONS...: mpe-ringio as one more DPDK process of the engine's file prefix, on an
# lcore id of its own (5, never a worker's): injects $TMP/in.pcap into net_ring0 and collects
# what comes out of net_ring1 (OPTIONS: its queue options and --collect FILE). Its status;
# its output in $TMP/ringio.log.
ringio() {
	"$RINGIO" --proc-type=secondary --file-prefix "$PREFIX" --lcores "5@$((5 % NCPU))" --no-pci \
		-- --in-port net_ring0 --out-port net_ring1 --inject "$TMP/in.pcap" "$@" \
		> "$TMP/ringio.log" 2>&1
}

# io2_own_queues: two I/O lcores (lcores 1 and 4) each polling one port queue and
# transmitting on a TX queue of its own, as the start log says ($log)
io2_own_queues() {
	check "each I/O lcore polls a queue and transmits on its own" \
		cond 'grep -q "I/O loop 0 on lcore 1: 1 port queues, TX queue 0" "$log" &&
		      grep -q "I/O loop 1 on lcore 4: 1 port queues, TX queue 1" "$log"'
}

# stop_counted WHO: stops the primary, which must exit 0, and checks that its summary ($log)
# counted exactly $PACKETS packets in and out and dropped none; WHO names the counter.
stop_counted() {
	local rc=0 in out dropped
	stop_primary 30 || rc=$?
	check "primary stops on SIGINT and exits 0" [ "$rc" = 0 ]
	in=$(total in "$log"); out=$(total out "$log"); dropped=$(total dropped "$log")
	check "$1 counted every packet in and out ($in in, $out out, $dropped dropped)" \
		cond '[ "${in:-x}" = "$PACKETS" ] && [ "${out:-x}" = "$PACKETS" ] && [ "$dropped" = 0 ]'
}

# sig_dump: SIGUSR1 to the primary (whose log is $log), then the path it logged for the new
# dump (empty after 10 s)
sig_dump() {
	local before after i
	before=$(grep -c "dump: written to" "$log" || true)
	kill -USR1 "$PRIMARY_PID"
	for ((i = 0; i < 200; i++)); do
		after=$(grep -c "dump: written to" "$log" || true)
		if [ "$after" -gt "$before" ]; then
			grep "dump: written to" "$log" | tail -1 | sed 's/.*dump: written to \([^ ]*\).*/\1/'
			return 0
		fi
		sleep 0.05
	done
}

# marks_at_tails DUMP: every worker waiting to dequeue has its hand's cons_mark at its input
# ring's consumer tail (an idle engine: what recovery after a death there would rely on)
marks_at_tails() {
	awk '/^ring .* consumer worker [0-9]+$/ { t = $0; sub(/.*consumer tail /, "", t)
			sub(/,.*/, "", t); tail[$NF] = t }
		/^worker [0-9]+: pid/ { w = $2; sub(/:/, "", w) }
		/^  hand: phase dequeue,/ { n++; m = $NF
			if (!(w in tail) || tail[w] != m) { bad++; print "#   worker " w ": cons_mark " m ", tail " tail[w] } }
		END { exit !(n > 0 && bad == 0) }' "$1"
}

# pcap_count FILE: packets in a capture
pcap_count() {
	"$PCAPCMP" "$1" "$1" | sed -n 's/^packets: expected=\([0-9]*\).*/\1/p'
}

# total FIELD LOG: a number from the primary's "total:" line (in, out, dropped, unaccounted)
total() {
	sed -n "s/^total:.* $1 \([0-9-]*\).*/\1/p" "$2" | tail -1
}

# The tests' telemetry client (tel_client.py PREFIX COMMAND), and JSON helpers for checks.
MPDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # this folder: tel_client.py, frames.py
CLIENT=$MPDIR/tel_client.py

# jget FILE EXPR: prints EXPR evaluated with v = the JSON value in FILE (nothing on error)
jget() {
	python3 -c 'import json, sys
try:
    v = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))
except Exception:
    pass' "$1" "$2"
}

# jtest FILE EXPR: the Python expression EXPR holds for v, the JSON value in FILE; why not is
# printed as a comment line. $JTEST_DEFS: Python run first, defining helpers EXPR may use;
# $JTEST_PY: the interpreter (default python3).
jtest() {
	"${JTEST_PY:-python3}" - "$1" "$2" "${JTEST_DEFS:-}" <<'EOF'
import json, sys
exec(sys.argv[3])
try:
    v = json.load(open(sys.argv[1]))
    ok = eval("(" + sys.argv[2] + "\n)")
except Exception as e:
    print("#   %s: %s" % (type(e).__name__, e))
    ok = False
sys.exit(0 if ok else 1)
EOF
}

# jq_py EXPR: prints EXPR evaluated with d = the JSON value on standard input
jq_py() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
