#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Live rule reload under continuous traffic: a capture replayed without end (net_pcap
# infinite_rx) through parse, flow, acl, fwd on two distributor workers, to a net_null sink.
# 100 reloads alternate two rules files through telemetry; then a refused file, SIGHUP, and
# (process build) a reload while a worker is stopped. At the end no packet is lost and every
# packet was classified by exactly one of the two files, per the engine's own report.
. "$(dirname "$0")/lib.sh"

RELOADS=${MPE_TEST_RELOADS:-100}
tel() { python3 "$CLIENT" "$PREFIX" "$1"; }

cat > "$TMP/a.rules" << 'EOF'
@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff count 10
@::/0 ::/0 0 : 65535 0 : 65535 6/0xff count 10
EOF
cat > "$TMP/b.rules" << 'EOF'
@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 17/0xff count 10
@::/0 ::/0 0 : 65535 0 : 65535 17/0xff count 10
@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 0/0 allow 5
EOF
cat > "$TMP/bad.rules" << 'EOF'
@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff count 10
@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff reject 10
@300.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff count 10
EOF

cat > "$TMP/engine.ini" << EOF
[engine]
shape = distributor
io_lcore = 1
backpressure = on
stall_timeout_ms = 60000
rules = $TMP/a.rules
[port 0]
device = net_pcap0
peer = 1
[port 1]
device = net_null0
rx = off
peer = 0
[worker 0]
lcore = 2
stages = parse, flow, acl, fwd
[worker 1]
lcore = 3
stages = parse, flow, acl, fwd
EOF
"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 100 --sizes 64,128 --seed 5 > /dev/null

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in.pcap,infinite_rx=1" --vdev net_null0 \
	-- -c "$TMP/engine.ini"
check "engine runs" wait_for "$log" "running:" 60

packets_in() { tel /mpe/stats | jq_py 'd["in"]'; }
for ((i = 0; i < 100; i++)); do
	[ "$(packets_in 2> /dev/null || echo 0)" -gt 20000 ] && break
	sleep 0.1
done
in_before=$(packets_in)

# the reloads, over one telemetry connection: each reply must say ok with the next generation
python3 - "$PREFIX" "$RELOADS" "$TMP/a.rules" "$TMP/b.rules" > "$TMP/reloads.out" << 'PY'
import json, os, socket, sys
prefix, n, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(os.path.join("/var/run/dpdk", prefix, "dpdk_telemetry.v2"))
s.recv(65536)
gen, bad = 1, 0
for i in range(n):
    f = b if i % 2 == 0 else a
    s.send(("/mpe/reload," + f).encode())
    r = json.loads(s.recv(65536).decode())["/mpe/reload"]
    gen += 1
    if not (r and r["ok"] == 1 and r["generation"] == gen and r["file"] == f):
        bad += 1
        print("bad reply", i, r, file=sys.stderr)
print(gen, bad)
PY
read -r last_gen bad_replies < "$TMP/reloads.out"
check "$RELOADS reloads answered ok, each with the next generation (last $last_gen)" \
	cond '[ "$bad_replies" = 0 ] && [ "$last_gen" = $((RELOADS + 1)) ]'
in_after=$(packets_in)
check "traffic kept flowing during the reloads ($in_before -> $in_after packets in)" \
	[ "$in_after" -gt "$in_before" ]

pending=1
for ((i = 0; i < 100; i++)); do
	pending=$(tel /mpe/acl | jq_py 'd["retired_pending"]')
	[ "$pending" = 0 ] && break
	sleep 0.1
done
check "every replaced rule set freed once the workers passed a quiescent point" \
	[ "$pending" = 0 ]
# RELOADS is even: a.rules is in force again; its rules count TCP packets
acl=$(tel /mpe/acl)
h0=$(echo "$acl" | jq_py 'd["rules"]["0"]["hits"] + d["rules"]["1"]["hits"]')
sleep 0.5
acl=$(tel /mpe/acl)
h1=$(echo "$acl" | jq_py 'd["rules"]["0"]["hits"] + d["rules"]["1"]["hits"]')
check "the rules in force count the traffic ($h0 -> $h1 hits)" [ "$h1" -gt "$h0" ]
files=$(echo "$acl" | python3 -c 'import json, os, sys
d = json.load(sys.stdin)
print(" ".join(sorted(os.path.basename(f) for f in d["retired_files"])))')
check "/mpe/acl lists what the replaced generations of both files classified: $files" \
	[ "$files" = "a.rules b.rules" ]

r=$(tel "/mpe/reload,$TMP/bad.rules")
got=$(echo "$r" | jq_py 'd["ok"], len(d["errors"])')
check "a rules file with errors is refused with every error: $got" [ "$got" = "0 2" ]
check "the refusal names file:line and the reason" \
	cond 'echo "$r" | grep -q "bad.rules:2: action: unknown" && echo "$r" | grep -q "bad.rules:3: "'
gen=$(tel /mpe/acl | jq_py 'd["generation"], d["reload_errors"]')
check "after the refusal the old rules stay in force: $gen" [ "$gen" = "$last_gen 1" ]
refused=1

# A FIFO is refused at once: read, it would hold the control thread (and with it the lock
# SIGHUP's reload takes) until a writer came.
mkfifo "$TMP/fifo.rules"
r=$(timeout 10 python3 "$CLIENT" "$PREFIX" "/mpe/reload,$TMP/fifo.rules" || true)
check "a FIFO as rules file is refused at once, not read" \
	cond 'echo "$r" | grep -q "fifo.rules: not a regular file"'
refused=$((refused + 1))
# a path longer than a rule set keeps
long=$TMP/$(printf 'd%.0s' $(seq 300))
r=$(tel "/mpe/reload,$long")
check "a path of more than 255 characters is refused, not cut" \
	cond 'echo "$r" | grep -q "a path of $((${#long})) characters: at most 255"'
# errors longer than telemetry's strings (127 bytes) come cut and marked; the log has them whole
ldir=$TMP/$(printf 'l%.0s' $(seq 120))
mkdir "$ldir" && cp "$TMP/bad.rules" "$ldir/bad.rules"
r=$(tel "/mpe/reload,$ldir/bad.rules")
got=$(echo "$r" | jq_py 'd["ok"], len(d["errors"]), all(e.endswith("...") and len(e) == 127 for e in d["errors"])')
check "errors of a file at a long path: both, each cut to 127 bytes ending in '...': $got" \
	[ "$got" = "0 2 True" ]
check "the engine's log has them whole" \
	grep -q "rules reload refused: $ldir/bad.rules:2: action: unknown" "$log"
refused=$((refused + 1))

# a relative path: from the configuration file's directory, as its rules key
r=$(tel "/mpe/reload,a.rules")
got=$(echo "$r" | jq_py 'd["ok"], d["generation"], d["file"]')
check "a relative path is taken from the configuration's directory: $got" \
	[ "$got" = "1 $((last_gen + 1)) $TMP/a.rules" ]
last_gen=$((last_gen + 1))

kill -HUP "$PRIMARY_PID"
check "SIGHUP reloads the file in force as the next generation" \
	wait_for "$log" "in force as generation $((last_gen + 1))" 10
last_gen=$((last_gen + 1))

# retired_pending: the replaced rule sets not yet freed, from /mpe/acl
retired_pending() {
	tel /mpe/acl | jq_py 'd["retired_pending"]'
}

if [ "$MODEL" = process ]; then
	# the set SIGHUP replaced is freed once every worker has reported; only then does a
	# stopped worker hold the next one alone
	for ((i = 0; i < 100; i++)); do
		[ "$(retired_pending)" = 0 ] && break
		sleep 0.1
	done
	wpid=$(worker_pid 0)
	kill -STOP "$wpid"
	r=$(tel "/mpe/reload,$TMP/b.rules" | jq_py 'd["ok"]')
	sleep 0.5
	held=$(retired_pending)
	kill -CONT "$wpid"
	check "a stopped worker holds the replaced set: not freed while it cannot report ($r, $held pending)" \
		[ "$held" = 1 ]
	for ((i = 0; i < 100; i++)); do
		pending=$(retired_pending)
		[ "$pending" = 0 ] && break
		sleep 0.1
	done
	check "once it runs again the set is freed" [ "$pending" = 0 ]
	last_gen=$((last_gen + 1))
fi

rc=0
stop_primary || rc=$?
PRIMARY_PID=
check "primary stops cleanly ($MODEL build)" [ "$rc" = 0 ]
line=$(grep "^total:" "$log" || true)
total_in=$(echo "$line" | sed -n 's/^total: in \([0-9]*\) .*/\1/p')
check "no packet lost: $line" \
	cond '[[ "$line" == "total: in $total_in out $total_in dropped 0 unaccounted 0" ]]'
a=$(sed -n 's/.*classified by .*a\.rules: \([0-9]*\)$/\1/p' "$log")
b=$(sed -n 's/.*classified by .*b\.rules: \([0-9]*\)$/\1/p' "$log")
staged=$(grep -o "stage acl *packets [0-9]*" "$log" | awk '{s += $4} END {print s}')
check "every packet classified by exactly one of the files: a $a + b $b = acl stage $staged = in $total_in" \
	cond '[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((a + b)) = "$staged" ] && [ "$staged" = "$total_in" ]'
check "the report names generation $last_gen in force and the refused reload" \
	grep -q "acl rule sets: generation $last_gen in force, $((last_gen - 1)) reloads, $refused refused" "$log"
check "every mbuf back in the pool" grep -q "every mbuf back in the pool" "$log"
assert_clean
finish
