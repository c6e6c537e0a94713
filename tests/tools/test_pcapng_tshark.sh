#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The pcapng writer (common/base/pcapng.c) as Wireshark's tools read it: a file written, then
# appended to, by `test_pcapng --write FILE`, which prints what each packet must show
# (frame.len, frame.cap_len, frame.time_epoch, frame.comment, the bytes in hex, tab-separated).
# tshark and capinfos are required: without them the test fails, it does not skip.
# Usage: test_pcapng_tshark.sh PATH/TO/test_pcapng   (TAP-like "ok"/"not ok")
set -euo pipefail

if [[ $# -ne 1 || ! -x $1 ]]; then
	echo "usage: $0 PATH/TO/test_pcapng (executable)" >&2
	exit 2
fi
writer=$1
for tool in tshark capinfos; do
	if ! command -v "$tool" >/dev/null; then
		echo "not ok - $tool is not installed (tools/setup-host.sh installs it)"
		exit 1
	fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/test_pcapng_tshark.XXXXXX")
trap 'rm -rf "$work"' EXIT
file=$work/comments.pcapng
"$writer" --write "$file" >"$work/want"
count=$(wc -l <"$work/want")

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

# same WHAT WANT GOT: the two files are equal, or the difference on stderr.
same() {
	if ! diff -u "$2" "$3" >"$work/diff"; then
		echo "  # $1 differs (- wanted, + got):" >&2
		head -n 20 "$work/diff" | cut -c 1-160 | sed 's/^/  # /' >&2
		return 1
	fi
}

# tshark ARGS...: tshark on the file, its output in $work/out; fails on any exit status or
# message other than its warning about running as root.
ts() {
	local rc=0

	tshark -r "$file" "$@" >"$work/out" 2>"$work/err" || rc=$?
	grep -v '^Running as user "root"' "$work/err" >"$work/err.rest" || true
	if [[ $rc -ne 0 || -s $work/err.rest ]]; then
		echo "  # tshark $* -> exit $rc: $(head -n 3 "$work/err.rest" | tr '\n' '|')" >&2
		return 1
	fi
}

t_capinfos() {
	local rc=0

	capinfos "$file" >"$work/capinfos" 2>&1 || rc=$?
	if [[ $rc -ne 0 ]] || grep -qiE "error|cut short|damaged|corrupt" "$work/capinfos"; then
		echo "  # capinfos -> exit $rc: $(head -n 5 "$work/capinfos" | tr '\n' '|')" >&2
		return 1
	fi
	grep -qE "^Number of packets: +$count$" "$work/capinfos" &&
		grep -qE "^Capture application: +mpe$" "$work/capinfos" &&
		grep -qE "^ +Name = net_ring0$" "$work/capinfos" &&
		grep -qE "^ +Capture length = 128$" "$work/capinfos" &&
		grep -qE "^ +Time precision = nanoseconds \(9\)$" "$work/capinfos"
}

t_read() {
	ts && test "$(wc -l <"$work/out")" -eq "$count"
}

t_comments() {
	ts -T fields -e frame.comment && cut -f 4 "$work/want" >"$work/w" &&
		same frame.comment "$work/w" "$work/out"
}

t_lengths() {
	ts -T fields -e frame.len -e frame.cap_len && cut -f 1,2 "$work/want" >"$work/w" &&
		same "frame.len, frame.cap_len" "$work/w" "$work/out"
}

t_times() {
	ts -T fields -e frame.time_epoch && cut -f 3 "$work/want" >"$work/w" &&
		same frame.time_epoch "$work/w" "$work/out"
}

# -x prints each frame as a hex dump ("0000  93 b2 ...  ascii"), a blank line after each.
t_bytes() {
	ts -x || return 1
	awk '/^[0-9a-f][0-9a-f][0-9a-f][0-9a-f]  / { hex = hex substr($0, 7, 47); next }
	     /^$/ { gsub(/ /, "", hex); print hex; hex = ""; next }
	     { print "unexpected line: " $0; exit 1 }' "$work/out" >"$work/got"
	cut -f 5 "$work/want" >"$work/w"
	same "bytes (tshark -x)" "$work/w" "$work/got"
}

check "capinfos reads $count packets, no error; application, interface, precision" t_capinfos
check "tshark reads the file without an error" t_read
check "frame.comment: every comment, cut to 1024 bytes, UTF-8 intact" t_comments
check "frame.len and frame.cap_len, cut to the snaplen 128" t_lengths
check "frame.time_epoch to the nanosecond" t_times
check "the bytes of every frame" t_bytes

if [[ $failures -ne 0 ]]; then
	echo "$failures test(s) failed"
	exit 1
fi
echo "all tests passed"
