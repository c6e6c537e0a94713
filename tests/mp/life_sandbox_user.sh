#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Workers that switch to an unprivileged user (docs/sandbox.md#an-unprivileged-user). Process
# build: a distributor of 2 workers (parse, flow, acl, fwd) with worker_user = nobody, on a
# capture replayed without end into a net_null sink. Checks:
#   - every thread of each worker runs as nobody (uid and gid, real, effective, saved, file
#     system), with no capability but CAP_SYS_ADMIN in the multi-process thread under IOVA
#     as PA; the slot says ",user" (/mpe/workers) and the log names the user;
#   - the EAL's files the workers still open are nobody's, and nothing else of the runtime
#     directory is (the telemetry socket stays root's);
#   - the primary's heap grows while they run (a rules file of 12000 rules, reloaded): the new
#     hugepage files are nobody's, the workers map them (the reload is applied by both, none
#     dies);
#   - a worker killed is respawned and switches again;
#   - the engine stops, exits 0 and the books balance;
#   - when the primary is killed, the workers leave its files (theirs to remove no longer) and
#     the next primary of the prefix starts as usual.
# (The thread build has no worker process to switch: fail_sandbox_check checks it says so.)
. "$(dirname "$0")/lib.sh"

tel() { python3 "$CLIENT" "$PREFIX" "$1"; }
USER_NAME=nobody
UID_N=$(id -u "$USER_NAME")
GID_N=$(id -g "$USER_NAME")

"$PCAPGEN" -o "$TMP/in.pcap" -n 2000 -f 64 > /dev/null
printf '@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 17/0xff count 10\n' > "$TMP/small.rules"
# 12000 rules of random port ranges: the ACL context built from them needs more than the heap
# holds at the start
python3 - "$TMP/big.rules" <<'EOF'
import random, sys
r = random.Random(7)
with open(sys.argv[1], "w") as f:
    for i in range(12000):
        s, d = r.randrange(60000), r.randrange(60000)
        f.write("@10.%d.%d.0/24 0.0.0.0/0 %d : %d %d : %d 17/0xff count %d\n"
                % (i // 256, i % 256, s, s + r.randrange(5000), d, d + r.randrange(5000),
                   1 + i % 100))
EOF

cat > "$TMP/engine.ini" <<EOF
[engine]
shape = distributor
io_lcore = 1
worker_user = $USER_NAME
rules = small.rules
restart_backoff_ms = 20
; a small heap at the start, so that the reload below grows it
ring_size = 1024

[port 0]
device = net_pcap0
peer = 1

[port 1]
device = net_null0
rx = off

[worker 0]
lcore = 2
stages = parse,flow,acl,fwd

[worker 1]
lcore = 3
stages = parse,flow,acl,fwd
EOF

check "--check names the user and its ids" \
	cond '"$PRIMARY" --check -c "$TMP/engine.ini" | grep -q "^worker_user: $USER_NAME (uid $UID_N, gid $GID_N)"'

log=$TMP/primary.log
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in.pcap,infinite_rx=1" --vdev net_null0 \
	-- -c "$TMP/engine.ini"
check "both workers switch to $USER_NAME" \
	wait_for_count "worker [01]: sandbox: runs as $USER_NAME (uid $UID_N, gid $GID_N)" 2 20
check "both workers lock down with the switch" \
	wait_for_count "worker [01]: sandbox: seccomp,[a-z0-9,]*,user, [0-9]* system calls allowed" 2 20
if ! wait_for_count "running on lcore" 2 10; then
	not_ok "both workers run"
	finish
	exit 1
fi
ok "both workers run"

# ids THREAD-STATUS-FILE: "uid gid" if every one of the four is that, else what it holds
ids_of() {
	awk '/^Uid:/ { u = ($2 == $3 && $3 == $4 && $4 == $5) ? $2 : $0 }
	     /^Gid:/ { g = ($2 == $3 && $3 == $4 && $4 == $5) ? $2 : $0 }
	     END { print u, g }' "$1"
}
# the threads of a worker and what they hold: "comm uid gid capeff", one line each
threads_of() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "$(tr ' ' _ < "$t/comm") $(ids_of "$t/status") $(awk '/^CapEff:/ { print $2 }' "$t/status")"
	done
}
check_worker_threads() { # WORKER-ID WHAT
	local pid bad f
	pid=$(worker_pid "$1")
	threads_of "$pid" > "$TMP/threads.$1"
	sed "s/^/# worker $1: /" "$TMP/threads.$1"
	# CAP_SYS_ADMIN is bit 21: 0000000000200000
	bad=$(awk -v u="$UID_N" -v g="$GID_N" '$2 != u || $3 != g ||
		($4 != "0000000000000000" && !($1 == "rte_mp_handle" && $4 == "0000000000200000"))' \
		"$TMP/threads.$1")
	f=$TMP/threads.$1
	check "worker $1 ($2): every thread is $USER_NAME, without capabilities" \
		cond '[ -n "$pid" ] && [ -s "$f" ] && [ -z "$bad" ]'
}
check_worker_threads 0 first
check_worker_threads 1 first

tel /mpe/workers > "$TMP/workers.json" || true
check "/mpe/workers: each worker's sandbox says it switched user" jtest "$TMP/workers.json" \
	'all(v[w]["sandbox"].endswith(",user") for w in ("0", "1"))'

RUNDIR=/var/run/dpdk/$PREFIX
owned_by_user=$(find "$RUNDIR" -mindepth 1 -user "$USER_NAME" -printf '%f\n' | sort | tr '\n' ' ')
echo "# the user's in $RUNDIR: $owned_by_user"
check "the EAL's socket and lock file are the user's" \
	cond '[[ " $owned_by_user " == *" mp_socket "* && " $owned_by_user " == *" config "* ]]'
check "nothing else of the runtime directory is (telemetry, the workers' sockets)" \
	cond '! find "$RUNDIR" -mindepth 1 -user "$USER_NAME" ! -name mp_socket ! -name config ! -name hugepage_info ! -name "fbarray_*" | grep -q .'
check "the runtime directory stays root's, the user's group may only pass" \
	cond '[ "$(stat -c "%U %G %A" "$RUNDIR")" = "root $(id -gn "$USER_NAME") drwx--x---" ]'
files_before=$(find "$HUGEDIR" -maxdepth 1 -name "${PREFIX}map_*" | wc -l)
check "every hugepage file is the user's" \
	cond '[ "$files_before" -gt 0 ] && ! find "$HUGEDIR" -maxdepth 1 -name "${PREFIX}map_*" ! -user "$USER_NAME" | grep -q .'

# the heap grows: a big rules file, reloaded while the workers run
tel /eal/heap_info,0 | sed 's/^/# before: /'
tel "/mpe/reload,$TMP/big.rules" > "$TMP/reload.json" 2>&1 || true
check "the reload of 12000 rules is put in force" \
	wait_for_count "rules: .*big.rules: 12000 rules in force" 1 30
tel /eal/heap_info,0 | sed 's/^/# after: /'
files_after=$(find "$HUGEDIR" -maxdepth 1 -name "${PREFIX}map_*" | wc -l)
echo "# hugepage files: $files_before before the reload, $files_after after"
check "the heap grew (more hugepage files)" [ "$files_after" -gt "$files_before" ]
check "the new hugepage files are the user's too" \
	cond '! find "$HUGEDIR" -maxdepth 1 -name "${PREFIX}map_*" ! -user "$USER_NAME" | grep -q .'
check "no worker died, no memory sync failed" \
	cond '! grep -q -e "killed by\|died\|sync.*fail\|Could not\|cannot map" "$log"'

# a worker killed comes back, and switches again
kill -KILL "$(worker_pid 0)"
check "worker 0 is respawned" wait_for_count "worker 0: back after" 1 20
check "worker 0 switches again" \
	wait_for_count "worker 0: sandbox: runs as $USER_NAME" 2 10
check_worker_threads 0 respawned

rc=0
stop_primary 30 || rc=$?
check "the primary stops and exits 0" [ "$rc" = 0 ]
check_books

# the primary dies: the workers leave, and, being nobody, leave its files to the next primary
# of the prefix, which starts as usual
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in.pcap,infinite_rx=1" --vdev net_null0 \
	-- -c "$TMP/engine.ini"
check "the engine runs again" wait_for "$log" "running:" 20
w0=$(worker_pid 0)
w1=$(worker_pid 1)
pid=$PRIMARY_PID
kill -KILL "$pid"
wait "$pid" 2> /dev/null || true
PRIMARY_PID=
for ((i = 0; i < 60; i++)); do
	alive "$w0" || alive "$w1" || break
	sleep 0.05
done
check "after the primary's death both workers leave" cond '! alive "$w0" && ! alive "$w1"'
check "each says it leaves the files to the next primary" \
	cond '[ "$(grep -c "running as $USER_NAME, it leaves its hugepage files" "$log")" = 2 ]'
start_primary "$log" --lcores "$LCORES" \
	--vdev "net_pcap0,rx_pcap=$TMP/in.pcap,infinite_rx=1" --vdev net_null0 \
	-- -c "$TMP/engine.ini"
check "the next primary of the prefix starts, and so do its workers, as $USER_NAME" \
	wait_for_count "worker [01]: sandbox: runs as $USER_NAME" 2 20
rc=0
stop_primary 30 || rc=$?
check "it stops and exits 0" [ "$rc" = 0 ]
finish
