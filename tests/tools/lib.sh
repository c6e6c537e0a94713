# SPDX-License-Identifier: BSD-3-Clause
# What the scripts of tests/tools share, sourced once a script has checked its arguments:
# TAP-like lines ("ok - ...", "not ok - ..."), counted; the closing "N passed, N failed",
# whose status is the test's; a scratch directory $work, removed at exit (a script that sets
# its own EXIT trap removes it there too).
passed=0
failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
# check LABEL COMMAND...: ok when COMMAND succeeds
check() {
	local label=$1
	shift
	if "$@"; then ok "$label"; else not_ok "$label"; fi
}
# finish: the counts, then exit with the test's status
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}
# man_renders PAGE TEXT: man(1) renders PAGE (roff, gzipped or not) into TEXT, 250 columns
# wide, with something in it and no warning; the warnings, if any, in TEXT.warn
man_renders() {
	MANWIDTH=250 man --warnings -l "$1" > "$2" 2> "$2.warn"
	[ -s "$2" ] && [ ! -s "$2.warn" ]
}
work=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$work"' EXIT
