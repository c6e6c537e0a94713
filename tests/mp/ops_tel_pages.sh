#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# /mpe/workers in pages. DPDK's telemetry drops, without a word, the entries that do not fit
# its reply (16 KiB in 22.11), so the engine sends a few workers a reply and says where the
# next page starts. An engine of 10 workers on net_null:
#   - /mpe/workers holds workers 0..7 and next = 8; /mpe/workers,from=8 holds 8 and 9 and no
#     next; every worker with its every key; bad pages are refused;
#   - mpe-ctl workers --json, top and metrics see all 10;
#   - a page of workers at their largest fits a reply: the workers run the most stages, with
#     long names; worker 9's entry with every number at 20 digits and the longest cause, times the
#     workers of a page, is under the reply size the telemetry socket announces.
. "$(dirname "$0")/lib.sh"
unset RUNTIME_DIRECTORY

HERE=$(cd "$(dirname "$0")" && pwd)
NW=10
MAX_STAGES=$(sed -n 's/^#define MPE_MAX_STAGES \([0-9]*\).*/\1/p' "$HERE/../../common/config/config.h")

lcores="0@0,1@1"
for ((w = 0; w < NW; w++)); do lcores+=",$((w + 2))@$((w % NCPU))"; done
long=$(for ((s = 1; s < MAX_STAGES; s++)); do echo -n "flowhash, "; done)fwd
cfg=$TMP/engine.ini
{
	printf '[engine]\nshape = distributor\nio_lcore = 1\nring_size = 256\n\n'
	echo "$NULL_PORTS"
	for ((w = 0; w < NW; w++)); do
		printf '[worker %d]\nlcore = %d\nstages = %s\n\n' "$w" $((w + 2)) "$long"
	done
} > "$cfg"

log=$TMP/primary.log
start_primary "$log" --lcores "$lcores" --vdev net_null0 --vdev net_null1 -- -c "$cfg"
if ! wait_for "$log" "running:" 60; then
	not_ok "engine runs with $NW workers ($MODEL build)"
	finish
	exit 1
fi
ok "engine runs with $NW workers ($MODEL build)"

t=$TMP/t
tel() { python3 "$CLIENT" "$PREFIX" "$1" > "$2" 2> "$2.err"; }
# jtest's helper: whole(w), a worker entry with every key
JTEST_DEFS=$(cat <<'EOF'
KEYS = ["pid", "lcore", "state", "heartbeat", "heartbeat_age_ms", "rx", "tx", "polls",
        "bursts", "wait_cycles", "drops", "restarts", "lost", "in_doubt", "last_cause",
        "last_recover_ms", "down", "dead", "sandbox", "sandbox_kills", "cycles_per_packet",
        "cycles_sample", "stages"]
def whole(w):
    return isinstance(w, dict) and all(k in w for k in KEYS)
EOF
)

rc=0; tel /mpe/workers "$t.p0" || rc=$?
check "/mpe/workers: workers 0..7, each whole, next = 8 (status $rc)" jtest "$t.p0" \
	'sorted(k for k in v if k != "next") == [str(i) for i in range(8)] and v.get("next") == 8
	and all(whole(v[str(i)]) for i in range(8))'
rc=0; tel /mpe/workers,from=8 "$t.p1" || rc=$?
check "/mpe/workers,from=8: workers 8 and 9, each whole, no next (status $rc)" jtest "$t.p1" \
	'sorted(v) == ["8", "9"] and all(whole(w) for w in v.values())'
check "/mpe/workers,from=8: worker 9 with its $MAX_STAGES stages" jtest "$t.p1" \
	"len(v['9']['stages']) == $MAX_STAGES"
rc=0; tel /mpe/workers,from=3 "$t.p3" || rc=$?
check "/mpe/workers,from=3: workers 3..9 (7, within a page), no next (status $rc)" jtest "$t.p3" \
	'sorted((k for k in v if k != "next"), key=int) == [str(i) for i in range(3, 10)]
	and "next" not in v'
for bad in from=$NW from= from=x from=-1 from=1x; do
	rc=0; tel "/mpe/workers,$bad" "$t.bad" || rc=$?
	check "/mpe/workers,$bad is refused (status $rc)" \
		cond '[ "$rc" = 3 ] && [ ! -s "$t.bad" ] && grep -q "failed in the engine" "$t.bad.err"'
done
rc=0; tel /mpe/workers,9 "$t.d9" || rc=$?
check "/mpe/workers,9: worker 9 in detail, as before (status $rc)" jtest "$t.d9" \
	'v.get("id") == 9 and whole(v) and "malformed" in v'

# the largest page: worker 9's entry with every number at 20 digits, the longest cause and
# state, as many times as a page holds, in the reply's frame; against the announced size
rc=0
per_page=$(jget "$t.p0" 'v["next"]')
read -r biggest limit < <(python3 - "$PREFIX" "$t.p1" "${per_page:-0}" << 'PY' || echo "0 0"
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(os.path.join("/var/run/dpdk", sys.argv[1], "dpdk_telemetry.v2"))
limit = json.loads(s.recv(4096).decode())["max_output_len"]
def largest(o):
    if isinstance(o, dict):
        return {k: largest(x) for k, x in o.items()}
    if isinstance(o, bool) or not isinstance(o, int):
        return o
    return 18446744073709551615
w = largest(json.load(open(sys.argv[2]))["9"])
w.update(pid=-2147483648, state="restarting", last_cause="x" * 95)
per_page = int(sys.argv[3])
page = {"/mpe/workers": dict({str(i + 10): w for i in range(per_page)}, next=32)}
print(len(json.dumps(page, separators=(",", ":"))), limit)
PY
)
check "a page of ${per_page:-?} workers at their largest fits ($biggest of $limit bytes)" \
	cond '[ "${per_page:-0}" -ge 8 ] && [ "$biggest" -gt $((${per_page:-0} * 1000)) ] \
	&& [ "$biggest" -lt "$limit" ]'

rc=0; "$CTL" -p "$PREFIX" --json workers > "$t.ctl" 2> "$t.ctl.err" || rc=$?
check "mpe-ctl --json workers: all $NW workers, each whole (status $rc)" jtest "$t.ctl" \
	"sorted(v, key=int) == [str(i) for i in range($NW)] and all(whole(w) for w in v.values())"
rc=0; "$CTL" -p "$PREFIX" top -n 1 -d 0.3 > "$t.top" 2>&1 || rc=$?
rows=$(grep -cE '^ *[0-9]+ ' "$t.top" || true)
check "mpe-ctl top: a row per worker ($rows of $NW, status $rc)" \
	cond '[ "$rc" = 0 ] && [ "$rows" = "$NW" ]'
rc=0; "$CTL" -p "$PREFIX" metrics > "$t.prom" 2>&1 || rc=$?
n=$(grep -c '^mpe_worker_polls_total{' "$t.prom" || true)
check "mpe-ctl metrics: mpe_worker_polls for all $NW workers ($n, status $rc)" \
	cond '[ "$rc" = 0 ] && [ "$n" = "$NW" ]'

rc=0
stop_primary 30 || rc=$?
check "primary stops and exits 0" [ "$rc" = 0 ]
assert_clean
finish
