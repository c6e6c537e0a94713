#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test suite but the benchmarks on a fresh Debian 12 host: installs what it needs,
# reserves hugepages, builds build-process/ and build-thread/ (worker processes, worker
# threads) and runs the unit, tools and mp suites of each, then builds the two parser fuzzers
# with clang in build-fuzz/ and runs the fuzz suite (a short run of each over its seed corpus).
# Ends with one line "N passed, N failed" (N counting the tests of all three builds). Needs
# root.
set -uo pipefail
cd "$(dirname "$0")/.."

tools/setup-host.sh || exit 1

passed=0
failed=0

# Adds the results of the last meson test run in build directory $1 to the counts.
count_results() {
	local counts
	counts=$(python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
ok = bad = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"] in ("OK", "EXPECTEDFAIL"):
        ok += 1
    else:
        bad += 1
print(ok, bad)
PY
)
	passed=$((passed + ${counts% *}))
	failed=$((failed + ${counts#* }))
}

# Stops with the counts so far when building ($1: directory, $2: label, $3...: targets) fails.
build_or_exit() {
	local dir=$1 label=$2
	shift 2
	if ! ninja -C "$dir" "$@" > "$dir.ninja.log" 2>&1; then
		cat "$dir.ninja.log"
		echo "build ($label) failed"
		echo "$passed passed, $((failed + 1)) failed"
		exit 1
	fi
}

for model in process thread; do
	dir=build-$model
	if [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" -Dworker_model=$model -Ddebug=true -Dtest_stages=true > /dev/null || exit 1
	else
		meson setup "$dir" -Dworker_model=$model -Ddebug=true -Dtest_stages=true > /dev/null || exit 1
	fi
	build_or_exit "$dir" "$model"
	echo "=== $model build"
	meson test -C "$dir" --suite unit --suite tools --suite mp --num-processes 1 --print-errorlogs
	count_results "$dir"
done

# The fuzzers only: clang, libFuzzer, ASan and UBSan; nothing else is built here.
dir=build-fuzz
if [ -f "$dir/build.ninja" ]; then
	meson configure "$dir" -Dfuzzers=true > /dev/null || exit 1
else
	CC=clang meson setup "$dir" -Dfuzzers=true > /dev/null || exit 1
fi
build_or_exit "$dir" fuzz tests/fuzz/fuzz_decode tests/fuzz/fuzz_rules
echo "=== fuzz build"
meson test -C "$dir" --no-rebuild --suite fuzz --num-processes 1 --print-errorlogs
count_results "$dir"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
