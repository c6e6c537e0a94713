#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Tests of the offline pcap tools: mpe-pcapgen output and mpe-pcapcmp verdicts.
# Usage: test_pcap_tools.sh PATH/TO/mpe-pcapgen PATH/TO/mpe-pcapcmp   (TAP-like "ok"/"not ok")
set -euo pipefail

if [[ $# -ne 2 || ! -x $1 || ! -x $2 ]]; then
	echo "usage: $0 PATH/TO/mpe-pcapgen PATH/TO/mpe-pcapcmp (both executable)" >&2
	exit 2
fi
gen=$1
cmp=$2
python=$(command -v python3 || true)
if [[ -z $python ]]; then
	echo "$0: python3 is needed to edit pcap files" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/test_pcap_tools.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Small pcap editor, standard library only. Timestamps stay with their slot in the file.
cat >"$work/pcapedit.py" <<'EOF'
import struct
import sys


def load(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        end = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        end = '>'
    else:
        sys.exit('pcapedit: %s is not a pcap file' % path)
    recs = []
    off = 24
    while off < len(data):
        sec, usec, incl, _orig = struct.unpack(end + 'IIII', data[off:off + 16])
        recs.append([sec, usec, data[off + 16:off + 16 + incl]])
        off += 16 + incl
    return end, data[:24], recs


def save(path, end, hdr, recs):
    with open(path, 'wb') as f:
        f.write(hdr)
        for sec, usec, frame in recs:
            f.write(struct.pack(end + 'IIII', sec, usec, len(frame), len(frame)))
            f.write(frame)


def flow(frame):
    """Canonical 5-tuple (both directions equal), like mpe_flow_key_canon."""
    etype = struct.unpack('>H', frame[12:14])[0]
    off = 14
    while etype in (0x8100, 0x88a8):
        etype = struct.unpack('>H', frame[off + 2:off + 4])[0]
        off += 4
    if etype == 0x0800:
        proto, src, dst = frame[off + 9], frame[off + 12:off + 16], frame[off + 16:off + 20]
        l4 = off + (frame[off] & 15) * 4
    elif etype == 0x86dd:
        proto, src, dst = frame[off + 6], frame[off + 8:off + 24], frame[off + 24:off + 40]
        l4 = off + 40
    else:
        return ('l2', frame[:12])
    sport, dport = struct.unpack('>HH', frame[l4:l4 + 4])
    return (proto,) + tuple(sorted([(src, sport), (dst, dport)]))


def swap(recs, i, j):
    recs[i][2], recs[j][2] = recs[j][2], recs[i][2]


def main():
    op, src = sys.argv[1], sys.argv[2]
    end, hdr, recs = load(src)
    if op == 'count':
        print(len(recs))
        return
    if op == 'flows':
        print(len({flow(r[2]) for r in recs}))
        return
    dst = sys.argv[3]
    if op == 'drop':
        del recs[int(sys.argv[4])]
    elif op == 'swap-same-flow':
        # Two consecutive packets of one flow with different bytes change places.
        last = {}
        for i, r in enumerate(recs):
            k = flow(r[2])
            if k in last and recs[last[k]][2] != r[2]:
                swap(recs, last[k], i)
                break
            last[k] = i
        else:
            sys.exit('pcapedit: no flow with two different packets')
    elif op == 'swap-other-flows':
        # Two neighbours of different flows change places: only the interleaving changes.
        for i in range(len(recs) - 1):
            if flow(recs[i][2]) != flow(recs[i + 1][2]):
                swap(recs, i, i + 1)
                break
        else:
            sys.exit('pcapedit: no neighbours of different flows')
    elif op == 'rewrite-mac':
        for r in recs:
            r[2] = bytes.fromhex('02aaaaaaaaaa02bbbbbbbbbb') + r[2][12:]
    elif op == 'linktype':
        hdr = hdr[:20] + struct.pack(end + 'I', int(sys.argv[4]))
    else:
        sys.exit('pcapedit: unknown operation ' + op)
    save(dst, end, hdr, recs)


main()
EOF

edit() {
	"$python" "$work/pcapedit.py" "$@"
}

# run CMD...: sets $out, $err and $rc without tripping set -e.
run() {
	rc=0
	"$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
	out=$(cat "$work/stdout")
	err=$(cat "$work/stderr")
}

# want DESCRIPTION TEST...: runs the test, explains a failure on stderr.
want() {
	local desc=$1
	shift
	if ! "$@"; then
		echo "  # failed: $desc" >&2
		echo "  # rc=$rc stdout: $(tail -n 5 <<<"$out" | tr '\n' '|')" >&2
		echo "  # stderr: $(tail -n 5 <<<"$err" | tr '\n' '|')" >&2
		return 1
	fi
}

last_line() {
	tail -n 1 <<<"$out"
}

failures=0
check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok - $name"
	else
		echo "not ok - $name"
		failures=$((failures + 1))
	fi
}

base=$work/base.pcap
n=2000

t_gen_count() {
	run "$gen" -o "$base" -n "$n" -f 40 --seed 7
	want "exit 0" test "$rc" -eq 0 || return 1
	want "summary line" test "$out" = \
		"wrote $n packets, 40 flows (20 ipv4, 20 ipv6, 20 tcp, 20 udp) to $base" || return 1
	want "pcap holds $n records" test "$(edit count "$base")" -eq "$n" || return 1
	want "40 distinct flows" test "$(edit flows "$base")" -eq 40 || return 1
	run "$cmp" "$base" "$base"
	want "pcapcmp counts" grep -q "^packets: expected=$n actual=$n matched=$n " <<<"$out" ||
		return 1
	want "pcapcmp flows" grep -qx "flows: expected=40 actual=40" <<<"$out"
}

t_deterministic() {
	"$gen" -o "$work/again.pcap" -n "$n" -f 40 --seed 7 >/dev/null
	want "same seed, same bytes" cmp -s "$base" "$work/again.pcap" || return 1
	"$gen" -o "$work/other.pcap" -n "$n" -f 40 --seed 8 >/dev/null
	want "other seed, other bytes" eval '! cmp -s "$base" "$work/other.pcap"'
}

t_tcpdump() {
	if ! command -v tcpdump >/dev/null; then
		echo "  # tcpdump not installed, check skipped" >&2
		return 0
	fi
	run tcpdump -nn -vv -r "$base"
	want "tcpdump reads it" test "$rc" -eq 0 || return 1
	want "tcpdump sees $n packets" test "$(grep -c '^[0-9][0-9]:' <<<"$out")" -eq "$n" ||
		return 1
	want "checksums correct" eval '! grep -qiE "incorrect|bad udp cksum|bad cksum" <<<"$out"'
}

t_identical() {
	cp "$base" "$work/copy.pcap"
	run "$cmp" "$base" "$work/copy.pcap"
	want "exit 0" test "$rc" -eq 0 || return 1
	want "last line" test "$(last_line)" = "pcapcmp: identical"
}

t_quiet() {
	run "$cmp" --quiet "$base" "$base"
	want "one line" test "$out" = "pcapcmp: identical"
}

t_missing() {
	edit drop "$base" "$work/drop.pcap" $((n / 2))
	run "$cmp" "$base" "$work/drop.pcap"
	want "exit 1" test "$rc" -eq 1 || return 1
	want "missing=1" grep -q " missing=1 extra=0 reordered=0" <<<"$out" || return 1
	want "listed" grep -q "^  missing " <<<"$out" || return 1
	want "last line" test "$(last_line)" = "pcapcmp: 1 differences"
}

t_extra() {
	edit drop "$base" "$work/drop.pcap" 0
	run "$cmp" "$work/drop.pcap" "$base"
	want "exit 1" test "$rc" -eq 1 || return 1
	want "extra=1" grep -q " missing=0 extra=1 reordered=0" <<<"$out"
}

t_reorder_same_flow() {
	edit swap-same-flow "$base" "$work/swap.pcap"
	run "$cmp" "$base" "$work/swap.pcap"
	want "exit 1" test "$rc" -eq 1 || return 1
	want "reordered=1" grep -q " missing=0 extra=0 reordered=1" <<<"$out" || return 1
	want "listed" grep -q "^  reordered " <<<"$out" || return 1
	want "last line" test "$(last_line)" = "pcapcmp: 1 differences"
}

t_reorder_other_flows() {
	edit swap-other-flows "$base" "$work/inter.pcap"
	want "file changed" eval '! cmp -s "$base" "$work/inter.pcap"' || return 1
	run "$cmp" "$base" "$work/inter.pcap"
	want "exit 0" test "$rc" -eq 0 || return 1
	want "last line" test "$(last_line)" = "pcapcmp: identical"
}

t_v6_vlan_bidir() {
	local f=$work/v6.pcap

	run "$gen" -o "$f" -n 1000 -f 10 --ipv6 100 --vlan 10 --vlan 20 --bidir
	want "exit 0" test "$rc" -eq 0 || return 1
	want "summary" grep -q "^wrote 1000 packets, 10 flows (0 ipv4, 10 ipv6, " <<<"$out" ||
		return 1
	run "$cmp" "$f" "$f"
	want "identical to itself" test "$rc" -eq 0 || return 1
	want "bidir flows are one flow each" grep -qx "flows: expected=10 actual=10" <<<"$out" ||
		return 1
	if command -v tcpdump >/dev/null; then
		run tcpdump -nn -e -r "$f"
		want "QinQ tags" grep -q "802.1Q-QinQ (0x88a8), length [0-9]*: vlan 10, .*vlan 20" \
			<<<"$out" || return 1
		want "both directions" test "$(grep -c '02:00:00:00:00:02 > 02:00:00:00:00:01' \
			<<<"$out")" -gt 0 || return 1
	fi
	"$gen" -o "$work/v6uni.pcap" -n 1000 -f 10 --ipv6 100 --vlan 10 --vlan 20 >/dev/null
	run "$cmp" "$f" "$work/v6uni.pcap"
	want "differs from the one-way file" test "$rc" -eq 1
}

t_mac() {
	edit rewrite-mac "$base" "$work/mac.pcap"
	run "$cmp" "$base" "$work/mac.pcap"
	want "differs without --ignore-mac" test "$rc" -eq 1 || return 1
	want "all extra" grep -q " missing=$n extra=$n " <<<"$out" || return 1
	run "$cmp" --ignore-mac "$base" "$work/mac.pcap"
	want "identical with --ignore-mac" test "$rc" -eq 0 || return 1
	run "$cmp" "$base" "$work/mac.pcap" --expect-dst-mac 02:AA:aa:aa:aa:aa
	want "identical with the right --expect-dst-mac" test "$rc" -eq 0 || return 1
	run "$cmp" --expect-dst-mac 02:aa:aa:aa:aa:ab "$base" "$work/mac.pcap"
	want "wrong --expect-dst-mac differs" test "$rc" -eq 1 || return 1
	want "dst-mac=$n" grep -q " dst-mac=$n$" <<<"$out" || return 1
	want "listed" grep -q "^  dst-mac .* has destination 02:aa:aa:aa:aa:aa" <<<"$out"
}

t_bad_captures() {
	local size

	size=$(stat -c %s "$base")
	head -c $((size - 10)) "$base" >"$work/trunc.pcap"
	run "$cmp" "$base" "$work/trunc.pcap"
	want "truncated record: exit 2" test "$rc" -eq 2 || return 1
	want "truncated record: message" grep -q "truncated" <<<"$err" || return 1
	head -c 10 "$base" >"$work/short.pcap"
	run "$cmp" "$work/short.pcap" "$base"
	want "truncated header: exit 2" test "$rc" -eq 2 || return 1
	want "truncated header: message" grep -q "short.pcap" <<<"$err" || return 1
	printf 'this is not a capture file at all, just some text\n' >"$work/garbage.pcap"
	run "$cmp" "$base" "$work/garbage.pcap"
	want "garbage: exit 2" test "$rc" -eq 2 || return 1
	want "garbage: message" grep -q "cannot read actual capture" <<<"$err" || return 1
	run "$cmp" "$base" "$work/does-not-exist.pcap"
	want "missing file: exit 2" test "$rc" -eq 2 || return 1
	want "missing file: message" grep -q "does-not-exist.pcap" <<<"$err" || return 1
	edit linktype "$base" "$work/raw.pcap" 101
	run "$cmp" "$base" "$work/raw.pcap"
	want "odd link type: exit 2" test "$rc" -eq 2 || return 1
	want "odd link type: message" grep -q "link type .* is not supported" <<<"$err"
}

# bad_args WANTED_STDERR_PATTERN CMD...: exit 2, message on stderr, nothing written.
bad_args() {
	local pattern=$1
	shift
	rm -f "$work/bad.pcap"
	run "$@"
	want "$* -> exit 2" test "$rc" -eq 2 || return 1
	want "$* -> message /$pattern/" grep -q -- "$pattern" <<<"$err" || return 1
	want "$* -> no output file" test ! -e "$work/bad.pcap"
}

t_bad_args_gen() {
	local o=$work/bad.pcap

	bad_args "'abc' is not a whole number" "$gen" -o "$o" -n abc || return 1
	bad_args "'0' is out of range" "$gen" -o "$o" -n 0 || return 1
	bad_args "'-5' is not a whole number" "$gen" -o "$o" -n -5 || return 1
	bad_args "'99999999999999999999999' is out of range" "$gen" -o "$o" -n 99999999999999999999999 || return 1
	bad_args "'5000' is out of range 0..4095" "$gen" -o "$o" --vlan 5000 || return 1
	bad_args "at most 2 tags" "$gen" -o "$o" --vlan 1 --vlan 2 --vlan 3 || return 1
	bad_args "missing required option -o" "$gen" -n 10 || return 1
	bad_args "--ipv6: '101' is out of range" "$gen" -o "$o" --ipv6 101 || return 1
	bad_args "--sizes: '63' is out of range" "$gen" -o "$o" --sizes 64,63 || return 1
	bad_args "not a comma list" "$gen" -o "$o" --sizes 64,,128 || return 1
	bad_args "not a MAC address" "$gen" -o "$o" --src-mac 02:00:00:00:00 || return 1
	bad_args "exceeds --packets" "$gen" -o "$o" -n 10 -f 11 || return 1
	bad_args "option .--bogus. is unknown" "$gen" -o "$o" --bogus || return 1
	bad_args "option .-n. needs a value" "$gen" -o "$o" -n || return 1
	run "$gen" --help
	want "--help exit 0" test "$rc" -eq 0 || return 1
	want "--help text" grep -q "^Usage: mpe-pcapgen" <<<"$out"
}

# A write that fails on a device leaves the device alone (a regular file would be removed).
t_write_error_device() {
	local dev=$work/full

	want "mknod $dev (a /dev/full)" mknod "$dev" c 1 7 || return 1
	run "$gen" -o "$dev" -n 100000
	want "write error -> exit 2" test "$rc" -eq 2 || return 1
	want "write error -> message" grep -q "write error on $dev" <<<"$err" || return 1
	want "the device is still there" test -c "$dev"
}

t_bad_args_cmp() {
	bad_args "need two captures" "$cmp" "$base" || return 1
	bad_args "need two captures" "$cmp" "$base" "$base" "$base" || return 1
	bad_args "--max-diffs: 'x' is not" "$cmp" --max-diffs x "$base" "$base" || return 1
	bad_args "not a MAC address" "$cmp" --expect-dst-mac 1:2:3 "$base" "$base" || return 1
	run "$cmp" --help
	want "--help exit 0" test "$rc" -eq 0 || return 1
	want "--help text" grep -q "^Usage: mpe-pcapcmp" <<<"$out"
}

t_max_diffs() {
	edit rewrite-mac "$base" "$work/mac.pcap"
	run "$cmp" --max-diffs 3 "$base" "$work/mac.pcap"
	want "exit 1" test "$rc" -eq 1 || return 1
	want "three listed" test "$(grep -c '^  \(missing\|extra\) ' <<<"$out")" -eq 3 || return 1
	want "last line" test "$(last_line)" = "pcapcmp: $((2 * n)) differences"
}

check "pcapgen writes N packets and the summary line" t_gen_count
check "pcapgen is deterministic per seed" t_deterministic
check "pcap is readable by tcpdump, checksums correct" t_tcpdump
check "identical copy compares identical" t_identical
check "--quiet prints only the verdict" t_quiet
check "one packet removed is missing" t_missing
check "one packet added is extra" t_extra
check "same-flow swap is reordered" t_reorder_same_flow
check "different-flow swap is accepted" t_reorder_other_flows
check "ipv6 + QinQ + bidir generation compares identical" t_v6_vlan_bidir
check "rewritten MACs: --ignore-mac and --expect-dst-mac" t_mac
check "truncated, garbage, missing and non-Ethernet captures exit 2" t_bad_captures
check "pcapgen rejects bad arguments" t_bad_args_gen
check "pcapcmp rejects bad arguments" t_bad_args_cmp
check "a write error on a device: reported, the device left alone" t_write_error_device
check "--max-diffs limits the list" t_max_diffs

if [[ $failures -ne 0 ]]; then
	echo "$failures test(s) failed"
	exit 1
fi
echo "all tests passed"
