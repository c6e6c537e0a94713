#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# tools/mpe-ctl against a running engine that has replayed a known capture once through a
# distributor of two workers (backpressure on: every packet goes out):
#   - every command the engine serves, human and --json, its numbers against the capture and
#     against the raw telemetry replies; top refreshes; metrics in the classic text, every
#     counter typed, and --openmetrics parsed, its counters equal to /mpe/stats; DPDK's own
#     dpdk-telemetry.py answers /mpe/info and /mpe/stats;
#   - acl, flows, reload, dump and workers ID in detail are checked on the engine only when it
#     lists those commands ("# SKIP" lines say which it lacks), and always against a stand-in
#     server that answers as their contracts say (tel_fake.py);
#   - clear failures, exit status 2: no engine, a wrong prefix, a stale socket, a DPDK
#     application without /mpe/ commands, a reply too large, a reply that is not JSON.
. "$(dirname "$0")/lib.sh"
unset RUNTIME_DIRECTORY # the engine's runtime files in /var/run/dpdk, where lib.sh cleans up

HERE=$(cd "$(dirname "$0")" && pwd)
FAKE=$HERE/tel_fake.py
# Debian's interpreter: it has python3-prometheus-client (another python3 may come first)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
N=3000
FLOWS=8 # at most 10 per worker: every flow is in /mpe/flows' top list

cfg=$TMP/engine.ini
cat > "$cfg" <<EOF
[engine]
shape = distributor
io_lcore = 1
backpressure = on
rules = rules.txt

$LOOP_PORTS
[worker 0]
lcore = 2
stages = parse, flow, acl, fwd

[worker 1]
lcore = 3
stages = parse, flow, acl, fwd
EOF

# mpe-ctl on the engine of prefix $P, in runtime directory $RD (empty: DPDK's default)
P=$PREFIX
RD=
ctl() { RUNTIME_DIRECTORY=$RD "$CTL" -p "$P" "$@"; }

JTEST_PY=$PY # jtest (lib.sh) with Debian's interpreter
# col FILE KEY: the value column of a "key  value" line of a human table
col() { awk -v k="$2" '$1 == k { $1 = ""; sub(/^ +/, ""); print; exit }' "$1"; }

# rules that count and let everything through: every packet must come out
cat > "$TMP/rules.txt" <<EOF
@10.0.0.0/9 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff count 20
@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 17/0xff count 10
EOF
"$PCAPGEN" -o "$TMP/in.pcap" -n "$N" -f "$FLOWS" --bidir --seed 7 > /dev/null
check "capture holds $N packets" cond '[ "$(pcap_count "$TMP/in.pcap")" = "$N" ]'

# --- no engine, wrong prefix -----------------------------------------------------------------
# fails FILE-STEM PATTERN MPE-CTL-ARGS...: exit 2, nothing on stdout, PATTERN on stderr, one line
fails() {
	local stem=$1 pattern=$2 rc=0; shift 2
	"$@" > "$stem.out" 2> "$stem.err" || rc=$?
	if [ "$rc" = 2 ] && [ ! -s "$stem.out" ] && [ "$(wc -l < "$stem.err")" = 1 ] \
		&& grep -q -- "$pattern" "$stem.err"; then
		return 0
	fi
	echo "#   status $rc, stdout $(head -c 200 "$stem.out"), stderr $(head -c 300 "$stem.err")"
	return 1
}
t=$TMP/t
SOCK=/var/run/dpdk/$PREFIX/dpdk_telemetry.v2
check "no engine: exit 2, one line naming prefix and socket" fails "$t.none" \
	"^mpe-ctl: no engine with file prefix \"$PREFIX\": $SOCK does not exist$" \
	"$CTL" -p "$PREFIX" stats
mkdir -p "$TMP/run"
check "default prefix rte, in the runtime directory DPDK would use (RUNTIME_DIRECTORY)" fails \
	"$t.dflt" "no engine with file prefix \"rte\": $TMP/run/dpdk/rte/dpdk_telemetry.v2 does not" \
	env RUNTIME_DIRECTORY="$TMP/run" "$CTL" info
rc=0; "$CTL" > /dev/null 2> "$t.usage" || rc=$?
check "no command: usage, exit 2 (status $rc)" cond '[ "$rc" = 2 ] && grep -q "^Usage: mpe-ctl" "$t.usage"'
rc=0; "$CTL" -p "$PREFIX" reload '' > /dev/null 2> "$t.usage" || rc=$?
check "reload of an empty FILE: refused before any request, exit 2 (status $rc)" \
	cond '[ "$rc" = 2 ] && grep -q "argument FILE: empty" "$t.usage"'

# --- the engine, after one replay of the capture ----------------------------------------------
log=$TMP/primary.log
# lcore 3 (worker 1) on the I/O lcore's CPU, whatever the number of CPUs (rings below)
start_primary "$log" --lcores 0@0,1@1,2@0,3@1 \
	--vdev "net_pcap0,rx_pcap=$TMP/in.pcap" --vdev net_null1 -- -c "$cfg"
if ! wait_for "$log" "running:" 30; then
	not_ok "engine runs ($MODEL build)"
	finish
	exit 1
fi
ok "engine runs ($MODEL build)"
for ((i = 0; i < 200; i++)); do
	python3 "$CLIENT" "$PREFIX" /mpe/stats > "$t.st" 2> /dev/null \
		&& jtest "$t.st" "v['out'] == $N" > /dev/null && break
	sleep 0.05
done
check "the engine has replayed the capture: /mpe/stats in = out = $N" \
	jtest "$t.st" "v['in'] == $N and v['out'] == $N and v['dropped'] == 0"
# the raw replies, to compare with what mpe-ctl prints
for c in info stats workers rings config; do
	python3 "$CLIENT" "$PREFIX" "/mpe/$c" > "$t.raw.$c" || true
done
check "/ lists the engine's base commands" cond \
	'python3 "$CLIENT" "$PREFIX" / > "$t.list" && jtest "$t.list" "\"/mpe/info\" in v"'

# wrong prefix while an engine runs
check "wrong prefix: exit 2, names the prefix" fails "$t.wrong" \
	"^mpe-ctl: no engine with file prefix \"mpet_nobody_$$\"" "$CTL" -p "mpet_nobody_$$" info

# --json prints the reply unchanged; VOLATILE keys (heartbeats, polls, uptime) are left out
same_json() { # same_json FILE-A FILE-B VOLATILE-KEYS...
	"$PY" - "$@" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in sys.argv[3:]}
    return v
if strip(a) != strip(b):
    print("#   %.300s\n#   %.300s" % (json.dumps(strip(a)), json.dumps(strip(b))))
    sys.exit(1)
EOF
}
for c in info stats workers rings config; do
	rc=0; ctl --json "$c" > "$t.j.$c" 2> "$t.err" || rc=$?
	check "$c --json: exit 0 ($rc), the engine's reply unchanged" cond '[ "$rc" = 0 ] &&
		same_json "$t.j.$c" "$t.raw.$c" uptime_s heartbeat heartbeat_age_ms polls \
		full_polls wait_cycles cycles_per_packet'
	rc=0; ctl "$c" > "$t.h.$c" 2> "$t.err" || rc=$?
	check "$c: exit 0 ($rc), a table, nothing on stderr" \
		cond '[ "$rc" = 0 ] && [ -s "$t.h.$c" ] && [ ! -s "$t.err" ]'
done
check "--json is pretty (indented)" cond 'grep -q "^  \"in\": $N,$" "$t.j.stats"'

# info
check "info: model $MODEL, shape distributor, 2 workers on lcores 2 3, primary pid" cond \
	'[ "$(col "$t.h.info" model)" = "$MODEL" ] && [ "$(col "$t.h.info" shape)" = distributor ] &&
	[ "$(col "$t.h.info" workers)" = 2 ] && [ "$(col "$t.h.info" lcores)" = "2 3" ] &&
	[ "$(col "$t.h.info" primary_pid)" = "$PRIMARY_PID" ]'

# stats: every number from the capture
check "stats: in $N, out $N, dropped 0, every reason 0" cond \
	'[ "$(col "$t.h.stats" in)" = "$N" ] && [ "$(col "$t.h.stats" out)" = "$N" ] &&
	[ "$(col "$t.h.stats" dropped)" = 0 ] && [ "$(col "$t.h.stats" ring_full)" = 0 ] &&
	[ "$(col "$t.h.stats" verdict)" = 0 ] && [ "$(col "$t.h.stats" worker_died)" = 0 ]'
check "stats: port 0 net_pcap0 rx $N tx 0, port 1 net_null1 rx 0 tx $N" cond \
	'[ "$(col "$t.h.stats" 0)" = "net_pcap0 $N 0" ] &&
	grep -Eq "^ +1 +net_null1 +0 +$N$" "$t.h.stats"'

# workers: one row each, rx summing to the capture, the pids of the raw reply
wrows=$(awk '$1 ~ /^[0-9]+$/' "$t.h.workers")
sum=$(echo "$wrows" | awk '{ s += $5 } END { print s }')
check "workers: two rows, running, lcores 2 and 3, rx sums to $N ($sum)" cond \
	'[ "$(echo "$wrows" | wc -l)" = 2 ] && [ "$sum" = "$N" ] &&
	[ "$(echo "$wrows" | awk "{ print \$3, \$4 }" | tr "\n" " ")" = "2 running 3 running " ]'
check "workers: pids as /mpe/workers says, tx = rx, no drops" cond \
	'[ "$(echo "$wrows" | awk "{ print \$2 }" | tr "\n" " ")" = \
	"$(jget "$t.raw.workers" "v[\"0\"][\"pid\"]") $(jget "$t.raw.workers" "v[\"1\"][\"pid\"]") " ] &&
	[ -z "$(echo "$wrows" | awk "\$5 != \$6 || \$7 != 0")" ]'
check "workers: stages parse, flow, acl and fwd with their cycles" cond \
	'[ "$(echo "$wrows" | grep -c "parse [0-9]*, flow [0-9]*, acl [0-9]*, fwd [0-9]*$")" = 2 ]'

# workers ID
rx1=$(jget "$t.raw.workers" 'v["1"]["rx"]')
rc=0; ctl workers 1 > "$t.w1" 2> "$t.err" || rc=$?
check "workers 1: exit 0 ($rc), worker 1's rx ($rx1), its stages with packets = rx" cond \
	'[ "$rc" = 0 ] && [ "$(col "$t.w1" worker)" = 1 ] && [ "$(col "$t.w1" rx)" = "$rx1" ] &&
	[ "$(col "$t.w1" lcore)" = 3 ] && grep -Eq "^parse +$rx1 +[0-9]+$" "$t.w1" &&
	grep -Eq "^fwd +$rx1 +[0-9]+$" "$t.w1" && grep -Eq "^acl +$rx1 +[0-9]+$" "$t.w1" &&
	grep -Eq "^ring_full +0$" "$t.w1"'
rc=0; ctl --json workers 1 > "$t.jw1" || rc=$?
check "workers 1 --json: worker 1's object" \
	jtest "$t.jw1" "v['lcore'] == 3 and v['rx'] == $rx1 and v['state'] == 'running'"
check "workers 7: exit 2, no such worker" fails "$t.w7" "no worker 7: the engine has 2 workers" \
	ctl workers 7

# rings
# (worker 1's lcore shares the I/O lcore's CPU: the rings into either are longer, ring_size
# being left out)
check "rings: the 4 rings of the distributor, empty, capacity 8191 but into worker 0 (1023)" \
	cond '[ "$(grep -Ec "^mpe_io_w0 +0 +1023 +1023 +0.0$" "$t.h.rings")" = 1 ] &&
	 [ "$(grep -Ec "^mpe_(w0_io|io_w1|w1_io) +0 +8191 +8191 +0.0$" "$t.h.rings")" = 3 ]'

# config: the INI text itself
check "config: the running configuration, as the engine sends it" cond \
	'"$PY" -c "import json, sys; sys.stdout.write(json.load(open(sys.argv[1])))" \
	"$t.raw.config" | diff -q - "$t.h.config" > /dev/null &&
	grep -qx "backpressure = on" "$t.h.config"'

# --- top ---------------------------------------------------------------------------------------
rc=0; t0=$(date +%s%N)
ctl top -n 2 -d 0.3 > "$t.top" 2> "$t.err" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
# a worker's row, idle: id state pid lcore rx/s tx/s drop/s drops hb_age restarts takeovers
# outage_us cyc/pkt stages
# an idle worker waits all the time: 100%, give or take the replies' latency (70-129%)
IDLE_ROW="^ +[01] +running +[0-9]+ +[23] +0 +0 +0 +0 +[0-9.]+ +0 +0 +- +[0-9]+ +([7-9][0-9]|1[0-2][0-9])% +"
IDLE_ROW+="parse=[0-9]+ flow=[0-9]+ acl=[0-9]+ fwd=[0-9]+$"
check "top -n 2: exit 0 ($rc) after two periods ($ms ms), no screen clearing on a pipe" cond \
	'[ "$rc" = 0 ] && [ "$ms" -ge 600 ] && ! grep -q $'"'"'\033'"'"' "$t.top"'
check "top -n 2: two refreshes, each with both workers running, rx/s 0 (idle engine)" cond \
	'[ "$(grep -c "^mpe-ctl top: prefix $PREFIX, $MODEL build, distributor, 2 workers" \
	"$t.top")" = 2 ] && [ "$(grep -Ec "$IDLE_ROW" "$t.top")" = 4 ] &&
	[ "$(grep -c "totals: in $N  out $N  dropped 0   I/O lcore waits 0%$" "$t.top")" = 2 ]'
check "top --json: refused" fails "$t.topj" "top has no --json form" ctl --json top -n 1
rc=0; ctl top -n 0 > "$t.top0" 2>&1 || rc=$?
check "top -n 0: refused as a usage error ($rc), not an empty run" \
	cond '[ "$rc" = 2 ] && grep -q -- "--count: not positive: '"'"'0'"'"'" "$t.top0"'

# --- metrics -----------------------------------------------------------------------------------
rc=0; ctl metrics --openmetrics > "$t.prom" 2> "$t.err" || rc=$?
check "metrics --openmetrics: exit 0 ($rc), ends with # EOF" \
	cond '[ "$rc" = 0 ] && [ "$(tail -1 "$t.prom")" = "# EOF" ]'
rc=0; ctl metrics > "$t.promc" 2> "$t.err" || rc=$?
check "metrics: exit 0 ($rc), Prometheus' classic text: every counter typed, with its help" \
	"$PY" - "$t.promc" "$N" <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
fams = list(text_string_to_metric_families(text))
counters = [f for f in fams if f.type == "counter"]
bad = [f.name for f in fams if f.type not in ("counter", "gauge") or not f.documentation]
ok = (not bad and "# EOF" not in text and len(counters) >= 10 and
      "# TYPE mpe_in_packets_total counter\n" in text and
      [s.value for f in counters if f.name == "mpe_in_packets" for s in f.samples] ==
      [float(sys.argv[2])])
if not ok:
    print("#   untyped or without help: %s" % bad)
sys.exit(0 if ok else 1)
EOF
ctl --json stats > "$t.jst2"
ctl --json workers > "$t.jw2"
check "metrics --openmetrics: parses as OpenMetrics, counters equal /mpe/stats and /mpe/workers" \
	"$PY" - "$t.prom" "$t.jst2" "$t.jw2" "$N" "$t.raw.info" "$t.raw.workers" "$t.raw.stats" <<'EOF'
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
stats, workers, n = json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), int(sys.argv[4])
hz = json.load(open(sys.argv[5]))["tsc_hz"]
raw_workers, raw_stats = json.load(open(sys.argv[6])), json.load(open(sys.argv[7]))
fam = {f.name: f for f in text_string_to_metric_families(text)}
def val(name, **labels):
    got = [s.value for f in fam.values() for s in f.samples
           if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(got) == 1, (name, labels, got)
    return got[0]
checks = [
    (fam["mpe_in_packets"].type, "counter"), (fam["mpe_in_packets"].unit, "packets"),
    (val("mpe_in_packets_total"), stats["in"]), (val("mpe_in_packets_total"), n),
    (val("mpe_out_packets_total"), stats["out"]),
    (sum(s.value for s in fam["mpe_dropped_packets"].samples), stats["dropped"]),
    (val("mpe_worker_state", worker="0", state="running"), 1),
    (val("mpe_worker_state", worker="1", state="exited"), 0),
    (fam["mpe_uptime_seconds"].unit, "seconds"),
]
checks += [(val("mpe_dropped_packets_total", reason=r), x) for r, x in stats["drops"].items()]
for p, port in stats["ports"].items():
    checks += [(val("mpe_port_rx_packets_total", port=p, device=port["device"]), port["rx"]),
               (val("mpe_port_tx_packets_total", port=p, device=port["device"]), port["tx"])]
for i, w in workers.items():
    checks += [(val("mpe_worker_rx_packets_total", worker=i), w["rx"]),
               (val("mpe_worker_tx_packets_total", worker=i), w["tx"]),
               (val("mpe_worker_restarts_total", worker=i), w["restarts"])]
    checks += [(val("mpe_stage_packets_total", worker=i, stage=s), x["packets"])
               for s, x in w["stages"].items()]
    # polls and waits go on while the engine idles: metrics was read between the earlier
    # raw replies and the later ones, so its values lie between theirs; the waits in
    # seconds of the engine's tsc_hz
    r = raw_workers[i]
    checks += [(val("mpe_worker_bursts_total", worker=i), w["bursts"]),
               (r["polls"] <= val("mpe_worker_polls_total", worker=i) <= w["polls"], True),
               (r["wait_cycles"] / hz <= val("mpe_worker_wait_seconds_total", worker=i)
                <= w["wait_cycles"] / hz, True)]
checks += [(fam["mpe_worker_wait_seconds"].unit, "seconds"),
           (fam["mpe_io_wait_seconds"].type, "counter"),
           (raw_stats["io"]["polls"] <= val("mpe_io_polls_total") <= stats["io"]["polls"], True),
           (val("mpe_io_full_polls_total"), stats["io"]["full_polls"]),
           (val("mpe_io_wait_seconds_total"), stats["io"]["wait_cycles"] / hz),
           (val("mpe_io_moved_packets_total"), stats["io"]["moved"]),
           (val("mpe_io_busy_seconds_total"), stats["io"]["cycles"] / hz)]
bad = [c for c in checks if c[0] != c[1]]
for c in bad:
    print("#   got %r, want %r" % c)
sys.exit(1 if bad else 0)
EOF
check "metrics --openmetrics: TYPE, UNIT and HELP lines, labels worker, port, ring, reason" cond \
	'grep -q "^# TYPE mpe_in_packets counter$" "$t.prom" &&
	grep -q "^# UNIT mpe_in_packets packets$" "$t.prom" &&
	grep -q "^# HELP mpe_in_packets " "$t.prom" && grep -q "^mpe_in_packets_total $N.0$" "$t.prom" &&
	grep -q "{worker=\"1\"}" "$t.prom" && grep -q "port=\"0\"" "$t.prom" &&
	grep -q "{ring=\"mpe_io_w0\"}" "$t.prom" && grep -q "reason=\"ring_full\"" "$t.prom"'

# --- DPDK's own client -------------------------------------------------------------------------
rc=0
printf '/mpe/info\n/mpe/stats\n' | timeout 20 python3 /usr/bin/dpdk-telemetry.py -f "$PREFIX" \
	> "$t.dpdk" 2> "$t.err" || rc=$?
check "dpdk-telemetry.py -f PREFIX answers /mpe/info ($MODEL) and /mpe/stats (in $N)" \
	"$PY" - "$t.dpdk" "$MODEL" "$N" <<'EOF'
import json, sys
replies = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
ok = len(replies) == 2 and replies[0]["/mpe/info"]["model"] == sys.argv[2] \
    and replies[1]["/mpe/stats"]["in"] == int(sys.argv[3])
if not ok:
    print("#   %.300r" % replies)
sys.exit(0 if ok else 1)
EOF

# --- commands being added: acl, flows, reload, dump, workers ID in detail -----------------------
# contract_checks NAME: the checks of those commands on the engine at $P / $RD, each only if the
# engine lists it; a command it lacks must fail clearly and is reported as skipped.
printf '# nothing valid here\nthis is not a rule\n' > "$TMP/bad.rules"
SKIPPED=
contract_checks() {
	local name=$1 rc
	ctl --json workers > "$t.cw" 2>/dev/null || true
	RUNTIME_DIRECTORY=$RD python3 -c 'import json, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
base = os.environ.get("RUNTIME_DIRECTORY") or "/var/run"
s.connect(os.path.join(base, "dpdk", sys.argv[1], "dpdk_telemetry.v2"))
s.recv(4096); s.send(b"/"); print(json.dumps(json.loads(s.recv(65536))["/"]))' "$P" > "$t.cl"

	if jtest "$t.cl" '"/mpe/acl" in v' > /dev/null; then
		rc=0; ctl acl > "$t.acl" 2> "$t.err" || rc=$?
		ctl --json acl > "$t.jacl" || rc=$?
		check "$name: acl: exit 0 ($rc), every rule (all pages) with its id, action and hits" \
			"$PY" - "$t.acl" "$t.jacl" <<'EOF'
import json, re, sys
human, v = open(sys.argv[1]).read().splitlines(), json.load(open(sys.argv[2]))
rules = sorted(v["rules"].items(), key=lambda kr: int(kr[0]))
ok = "next" not in v and len(rules) == v["nb_rules"] and re.match(
    r"rules: .*, generation %d, %d rules; default action %s, %d hits; reloads %d \(%d refused\)$"
    % (v["generation"], v["nb_rules"], v["default_action"], v["default_hits"], v["reloads"],
       v["reload_errors"]), human[0]) is not None
rows = [l.split() for l in human[2:2 + len(rules)]]
ok = ok and len(rows) == len(rules)
for (i, r), row in zip(rules, rows):
    ok = ok and row[:5] == [i, str(r["line"]), str(r["priority"]), r["action"],
                            str(r["hits"])] and " ".join(row[5:]) == " ".join(r["rule"].split())
if not ok:
    print("#   %.300r" % human)
sys.exit(0 if ok else 1)
EOF
	else
		check "$name: acl: the engine lacks /mpe/acl: exit 2, says so" fails "$t.acl" \
			"does not serve /mpe/acl" ctl acl
		SKIPPED+=" acl"
	fi

	if jtest "$t.cl" '"/mpe/flows" in v' > /dev/null; then
		rc=0; ctl flows > "$t.fl" 2> "$t.err" || rc=$?
		check "$name: flows: exit 0 ($rc), a section per worker" cond \
			'[ "$rc" = 0 ] && [ "$(grep -c "^worker [0-9]*: " "$t.fl")" = \
			"$(jget "$t.cw" "len(v)")" ]'
		rc=0; ctl --json flows 0 > "$t.jfl" || rc=$?
		ctl flows 0 > "$t.fl0" || rc=$?
		check "$name: flows 0: worker 0's flows, largest first, packets and bytes per direction" \
			"$PY" - "$t.fl0" "$t.jfl" <<'EOF'
import json, sys
human, v = open(sys.argv[1]).read().splitlines(), json.load(open(sys.argv[2]))
ok = v["worker"] == 0 and v["active"] <= v["capacity"] and human[0].startswith(
    "worker 0: %d active flows of %d;" % (v["active"], v["capacity"]))
want = sorted(v["top"].values(), key=lambda f: -(f["bytes_ab"] + f["bytes_ba"]))
rows = [l.split() for l in human[2:]] if want else []
ok = ok and len(rows) == len(want)
for f, row in zip(want, rows):
    ok = ok and row[1:7] == [f["a"], f["b"]] + [str(f[k]) for k in (
        "packets_ab", "packets_ba", "bytes_ab", "bytes_ba")]
if not ok:
    print("#   %.300r" % human)
sys.exit(0 if ok else 1)
EOF
	else
		check "$name: flows: the engine lacks /mpe/flows: exit 2, says so" fails "$t.fl" \
			"does not serve /mpe/flows" ctl flows
		SKIPPED+=" flows"
	fi

	if jtest "$t.cl" '"/mpe/reload" in v' > /dev/null; then
		rc=0; ctl reload "$TMP/bad.rules" > "$t.rl" 2> "$t.rle" || rc=$?
		# a line that says so, then every error
		check "$name: reload of a bad file: exit 1 ($rc), every error as file:line: reason" cond \
			'[ "$rc" = 1 ] && [ ! -s "$t.rl" ] && head -1 "$t.rle" | grep -q "reload refused" &&
			[ "$(sed 1d "$t.rle" | grep -Evc "^$TMP/bad.rules:[0-9]+: .+")" = 0 ] &&
			[ "$(sed 1d "$t.rle" | wc -l)" -ge 1 ]'
		rc=0; ctl --json reload "$TMP/bad.rules" > "$t.jrl" 2> /dev/null || rc=$?
		check "$name: reload --json of a bad file: exit 1 ($rc), ok 0 with errors" cond \
			'[ "$rc" = 1 ] && jtest "$t.jrl" "not v[\"ok\"] and len(v[\"errors\"]) >= 1"'
		rc=0; ctl --json reload > "$t.jrl0" 2> /dev/null || rc=$?
		check "$name: reload (the file in force): exit status follows ok ($rc)" cond \
			'jtest "$t.jrl0" "bool(v[\"ok\"]) == ($rc == 0) and ($rc in (0, 1))"'
	else
		check "$name: reload: the engine lacks /mpe/reload: exit 2, says so" fails "$t.rl" \
			"does not serve /mpe/reload" ctl reload
		SKIPPED+=" reload"
	fi

	if jtest "$t.cl" '"/mpe/dump" in v' > /dev/null; then
		rc=0; ctl dump > "$t.dump" 2> "$t.err" || rc=$?
		path=$(cat "$t.dump")
		check "$name: dump: exit 0 ($rc), prints the path of a dump in the prefix's directory" \
			cond '[ "$rc" = 0 ] && [ -s "$path" ] &&
			[ "$(dirname "$path")" = "${RD:-/var/run}/dpdk/$P" ]'
		ctl --json dump > "$t.jdump" || true
		check "$name: dump --json: {path}" jtest "$t.jdump" 'v["path"].startswith("/")'
	else
		check "$name: dump: the engine lacks /mpe/dump: exit 2, says so" fails "$t.dump" \
			"does not serve /mpe/dump" ctl dump
		SKIPPED+=" dump"
	fi

	# /mpe/workers,<id>: one worker with its malformed frames by reason and inspection counters
	ctl --json workers 1 > "$t.jw1c" || true
	if jtest "$t.jw1c" '"malformed" in v' > /dev/null; then
		ctl workers 1 > "$t.w1c" || true
		check "$name: workers 1: its malformed reasons, inspection counters and stages shown" \
			"$PY" - "$t.w1c" "$t.jw1c" <<'EOF'
import json, sys
human, v = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
lines = [l.split() for l in human.splitlines()]
ok = v["id"] == 1 and ["worker", "1"] in lines and ["malformed", "reason", "frames"] in lines
ok = ok and all([r, str(n)] in lines for r, n in v["malformed"].items())
ok = ok and all([r, str(n)] in lines for r, n in v.get("inspect", {}).items())
ok = ok and all([n, str(s["packets"]), str(s["cycles_per_packet"])] in lines
                for n, s in v["stages"].items())
sys.exit(0 if ok else 1)
EOF
	else
		SKIPPED+=" workers,<id>"
	fi
}

# the inspection commands' numbers against the traffic, where the engine lists them (/)
if jtest "$t.list" '"/mpe/acl" in v' > /dev/null; then
	ctl --json acl > "$t.eacl" || true
	check "engine: acl: rules.txt in force, generation 1, 2 rules, default allow" jtest "$t.eacl" \
		'v["file"].endswith("/rules.txt") and v["generation"] == 1 and v["nb_rules"] == 2
		and v["default_action"] == "allow" and [r["action"] for r in v["rules"].values()]
		== ["count", "count"]'
	check "engine: acl: the hits of the rules and of the default action add up to $N" jtest \
		"$t.eacl" "sum(r['hits'] for r in v['rules'].values()) + v['default_hits'] == $N
		and all(r['hits'] > 0 for r in v['rules'].values())"
	check "engine: metrics: the rules' hits as /mpe/acl counts them" "$PY" - "$t.prom" \
		"$t.eacl" <<'EOF'
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fam = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
acl = json.load(open(sys.argv[2]))
hits = {s.labels["rule"]: s.value for s in fam["mpe_acl_rule_hits"].samples}
sys.exit(0 if hits == {k: r["hits"] for k, r in acl["rules"].items()} and
         fam["mpe_acl_default_hits"].samples[0].value == acl["default_hits"] else 1)
EOF
fi
if jtest "$t.list" '"/mpe/flows" in v' > /dev/null; then
	for w in 0 1; do ctl --json flows "$w" > "$t.efl$w" || true; done
	check "engine: flows: the $FLOWS flows of the capture, in both workers' tables, $N packets" \
		"$PY" - "$t.efl0" "$t.efl1" "$FLOWS" "$N" <<'EOF'
import json, sys
tables = [json.load(open(f)) for f in sys.argv[1:3]]
flows, n = int(sys.argv[3]), int(sys.argv[4])
top = [f for t in tables for f in t["top"].values()]
ok = sum(t["active"] for t in tables) == flows == len(top) and \
    sum(t["inserted"] for t in tables) == flows and \
    sum(f["packets_ab"] + f["packets_ba"] for f in top) == n and \
    all(f["packets_ab"] > 0 and f["packets_ba"] > 0 for f in top)
if not ok:
    print("#   %.300r" % tables)
sys.exit(0 if ok else 1)
EOF
fi

RD= P=$PREFIX contract_checks engine
if jtest "$t.list" '"/mpe/reload" in v' > /dev/null; then
	ctl --json acl > "$t.eacl2" || true
	check "engine: after two refused reloads and one good one: generation 2, 1 reload, 2 refused" \
		jtest "$t.eacl2" 'v["generation"] == 2 and v["reloads"] == 1 and v["reload_errors"] == 2'
fi
ENGINE_SKIPPED=$SKIPPED
for s in $ENGINE_SKIPPED; do
	echo "# SKIP engine: /mpe/$s is not served by this engine; its checks wait for it"
done

# --- stop: no engine any more ----------------------------------------------------------------
rc=0
stop_primary 30 || rc=$?
check "primary stops and exits 0" [ "$rc" = 0 ]
check "after the stop: exit 2, no engine" fails "$t.gone" \
	"^mpe-ctl: no engine with file prefix \"$PREFIX\"" \
	"$CTL" -p "$PREFIX" info
assert_clean

# --- stand-in servers: the contracts, other applications, broken replies ----------------------
FAKE_PID=
fake() { # fake MODE PREFIX: a stand-in server in $TMP/run
	if [ -n "$FAKE_PID" ]; then
		kill "$FAKE_PID" 2> /dev/null || true
		wait "$FAKE_PID" 2> /dev/null || true
	fi
	python3 "$FAKE" "$1" "$TMP/run" "$2" & FAKE_PID=$!
	EXTRA_PIDS+=" $FAKE_PID"
	for ((i = 0; i < 100; i++)); do
		[ -S "$TMP/run/dpdk/$2/dpdk_telemetry.v2" ] && return 0
		sleep 0.05
	done
	return 1
}

RD=$TMP/run
fake contract fakec
SKIPPED=
P=fakec contract_checks "stand-in"
check "stand-in: every contract command checked" [ -z "$SKIPPED" ]
P=fakec
ctl acl > "$t.facl"
check "stand-in: acl: both pages of rules; rule 0 drop 42 hits with its text, default 7 hits" \
	cond 'grep -q "default action allow, 7 hits; reloads 2 (1 refused)$" "$t.facl" &&
	grep -Eq "^ +0 +3 +10 +drop +42 +@10.0.0.0/8 0.0.0.0/0 0 : 65535 80 : 80 6/0xff$" "$t.facl" &&
	grep -Eq "^ +1 +4 +5 +count +5 +@0.0.0.0/0 " "$t.facl" &&
	grep -Eq "^/etc/mpe/rules.acl +1000$" "$t.facl"'
ctl flows 0 > "$t.ffl"
check "stand-in: flows 0: lookups and cache hits; tcp flow first (most bytes), flags SA/A, 2.5 s; udp; proto 47" cond \
	'[ "$(awk "NR > 2 { print \$1 }" "$t.ffl" | tr "\n" " ")" = "tcp udp 47 " ] &&
	grep -Eq "^tcp +10.0.0.2:1234 +10.9.0.2:80 +10 +8 +9000 +700 +SA/A +2.5$" "$t.ffl" &&
	grep -q "; lookups 99, 80 from the cache$" "$t.ffl"'
check "stand-in: flows 1: a worker without a flow table says so" \
	cond '[ "$(ctl flows 1)" = "worker 1: no flow table (it runs no flow stage)" ]'
rc=0; ctl reload "$TMP/bad.rules" > /dev/null 2> "$t.frl" || rc=$?
check "stand-in: reload of a bad file: both errors, as sent, exit 1 ($rc)" cond \
	'[ "$rc" = 1 ] && grep -qx "$TMP/bad.rules:3: bad address '"'"'10.0.0/33'"'"'" "$t.frl" &&
	grep -qx "$TMP/bad.rules:7: unknown action '"'"'dorp'"'"'" "$t.frl"'
(cd "$TMP" && RUNTIME_DIRECTORY=$RD "$CTL" -p fakec reload good.rules > "$t.frg") || true
check "stand-in: reload FILE: the engine gets an absolute path; prints the result" cond \
	'[ "$(cat "$t.frg")" = "reloaded $TMP/good.rules: 2 rules, generation 4" ]'
check "stand-in: flows 5: no such worker: exit 2" fails "$t.ff5" \
	"no worker 5: the engine has 3 workers" ctl flows 5
# the stand-in's /mpe/info says 3 workers, its other commands know 2
check "stand-in: flows 2, a worker the engine does not answer for: exit 2, says so" \
	fails "$t.ff2" "/mpe/flows,2: the engine could not answer" ctl flows 2
ctl metrics --openmetrics > "$t.fprom"
check "stand-in: metrics --openmetrics with acl, flows, malformed frames and waits parse as OpenMetrics" "$PY" - \
	"$t.fprom" <<'EOF'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
fam = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
hits = {s.labels["rule"]: s.value for s in fam["mpe_acl_rule_hits"].samples}
active = {s.labels["worker"]: s.value for s in fam["mpe_flows_active"].samples}
cached = {s.labels["worker"]: s.value for s in fam["mpe_flows_cache_hits"].samples}
bad = {(s.labels["worker"], s.labels["reason"]): s.value
       for s in fam["mpe_worker_malformed_frames"].samples}
ok = hits == {"0": 42, "1": 5} and active == {"0": 3} and cached == {"0": 80} and \
    bad[("1", "truncated")] == 2
# wait cycles over the stand-in's tsc_hz (3 GHz): worker k waited 0.5 * (k + 1) s
waits = {s.labels["worker"]: s.value for s in fam["mpe_worker_wait_seconds"].samples}
io = {f: fam[f].samples[0].value for f in ("mpe_io_polls", "mpe_io_full_polls",
                                           "mpe_io_wait_seconds", "mpe_io_moved_packets",
                                           "mpe_io_busy_seconds")}
ok = ok and waits == {"0": 0.5, "1": 1.0} and \
    io == {"mpe_io_polls": 1000, "mpe_io_full_polls": 600, "mpe_io_wait_seconds": 0.1,
           "mpe_io_moved_packets": 290, "mpe_io_busy_seconds": 0.2}
if not ok:
    print("#   waits %r, io %r" % (waits, io))
sys.exit(0 if ok else 1)
EOF

ctl --json workers > "$t.fwj" || true
check "stand-in: workers in pages of one: both, as one reply, no next" jtest "$t.fwj" \
	'sorted(v) == ["0", "1"] and v["1"]["rx"] == 200'
ctl workers > "$t.fw" || true
rows=$(awk '$1 ~ /^[0-9]+$/ { print $1 ":" $5 }' "$t.fw" | tr "\n" " ")
check "stand-in: workers: a row for each page's worker, with its rx ($rows)" \
	cond '[ "$rows" = "0:100 1:200 " ]'

fake reloading faker
P=faker
ctl --json acl > "$t.frel"
check "rules reloaded between two pages of acl: read again, one generation throughout" \
	jtest "$t.frel" 'v["generation"] == 4 and len(v["rules"]) == 2 and "next" not in v'

fake shrinking fakes
P=fakes
ctl --json acl > "$t.fshr" || true
check "rules reloaded to fewer between two pages of acl: read again, not a missing page" \
	jtest "$t.fshr" 'v["generation"] == 4 and list(v["rules"]) == ["0"] and "next" not in v'

fake pageloop fakel
P=fakel
check "a page of workers that is not the one announced: exit 2, says so" fails "$t.fpl" \
	"/mpe/workers,from=1: not the page the previous one announced" ctl workers

fake old fakeold
P=fakeold
rc=0; ctl workers 1 > "$t.old1" 2>&1 || rc=$?
check "an engine that ignores the worker parameter: workers 1 shows worker 1 ($rc)" cond \
	'[ "$rc" = 0 ] && [ "$(col "$t.old1" lcore)" = 3 ] && [ "$(col "$t.old1" rx)" = 200 ]'
served=$(echo /mpe/{config,info,rings,stats,workers})
check "an engine without /mpe/acl: exit 2, lists what it serves" fails "$t.old2" \
	"does not serve /mpe/acl (it is older than mpe-ctl); it serves: $served$" ctl acl

fake other fakeo
check "another DPDK application: exit 2, not an mpe engine" fails "$t.fo" \
	"with file prefix \"fakeo\" (.*pid [0-9]*, DPDK 22.11.fake) serves no /mpe/ commands" \
	env RUNTIME_DIRECTORY="$RD" "$CTL" -p fakeo stats
fake big fakeb
check "a reply too large: exit 2, says so" fails "$t.fb" "the reply to /mpe/stats is too large" \
	env RUNTIME_DIRECTORY="$RD" "$CTL" -p fakeb stats
fake garbage fakeg
check "a reply that is not JSON: exit 2, says so" fails "$t.fg" \
	"the reply to /mpe/workers is not JSON" env RUNTIME_DIRECTORY="$RD" "$CTL" -p fakeg workers
kill "$FAKE_PID" 2> /dev/null || true
wait "$FAKE_PID" 2> /dev/null || true
FAKE_PID=
mkdir -p "$RD/dpdk/stale"
python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).bind(sys.argv[1])' \
	"$RD/dpdk/stale/dpdk_telemetry.v2"
check "a stale socket (engine killed): exit 2, cannot connect" fails "$t.fs" \
	"no engine with file prefix \"stale\": cannot connect to" \
	env RUNTIME_DIRECTORY="$RD" "$CTL" -p stale info

[ -n "$ENGINE_SKIPPED" ] && echo "# engine commands not checked (absent):$ENGINE_SKIPPED"
finish
