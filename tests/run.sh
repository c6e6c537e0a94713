#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Runs every test suite but the benchmarks on a fresh Debian 12 host: installs what it needs,
# reserves hugepages, builds build-process/ and build-thread/ (worker processes, worker
# threads) and runs the unit, tools and mp suites of each, builds the Debian package and checks
# what it installs, then builds the two parser fuzzers with clang in build-fuzz/ and runs the
# fuzz suite (a short run of each over its seed corpus), then builds each worker model again
# with AddressSanitizer and UBSan (build-sanitize-process/, build-sanitize-thread/) and runs
# the same suites but the bench. Ends with one line "N passed, N failed" (N counting the
# tests of all six builds, and a sanitizer report as one failure). Needs root.
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

# The Debian package, built as `dpkg-buildpackage -us -uc -b` builds it, in a copy of the
# tree (the package's build writes into its source and one level above), then unpacked and
# checked by tests/tools/test_install.sh (docs/service.md#the-debian-package).
echo "=== Debian package"
pkg=$(mktemp -d)
mkdir "$pkg/mpe"
git ls-files -co --exclude-standard | tar -cf - -T - | tar -xf - -C "$pkg/mpe"
if (cd "$pkg/mpe" && dpkg-buildpackage -us -uc -b) > build-deb.log 2>&1; then
	tests/tools/test_install.sh deb "$pkg"/mpe_*_*.deb | tee "$pkg/result"
	counts=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$pkg/result")
	passed=$((passed + ${counts%% *}))
	failed=$((failed + ${counts##* }))
else
	tail -30 build-deb.log
	echo "not ok - dpkg-buildpackage -us -uc -b failed (build-deb.log)"
	failed=$((failed + 1))
fi
rm -rf "$pkg"

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

# The engine under AddressSanitizer and UBSan, each worker model (docs/testing.md#sanitizers):
# every undefined behaviour fatal, leaks checked at exit where the sandbox lets the check run,
# the unit, tools and mp suites but the bench (suite bench: a measurement, meaningless here).
# Any report is a failure: each mp test looks for one in its logs (tests/mp/lib.sh), and a
# report in any test's output counts one more here. A worker that a report aborts is recovered
# by the primary like any other death, and a test that allows deaths would not see it. The
# fault signals stay the process's (handle_segv=0 ...): the tests that inject them expect the
# signal, not the sanitizer's report of it.
for model in process thread; do
	dir=build-sanitize-$model
	opts=(-Dworker_model=$model -Ddebug=true -Dtest_stages=true -Db_sanitize=address,undefined
	      -Db_lundef=false -Dc_args=-fno-sanitize-recover=all)
	if [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" "${opts[@]}" > /dev/null || exit 1
	else
		meson setup "$dir" "${opts[@]}" > /dev/null || exit 1
	fi
	build_or_exit "$dir" "sanitize-$model"
	echo "=== $model build, AddressSanitizer and UBSan"
	signals=handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
	ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:$signals \
	LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
		meson test -C "$dir" --suite unit --suite tools --suite mp --no-suite bench \
		--num-processes 1 --timeout-multiplier 3 --print-errorlogs
	count_results "$dir"
	# every test's own output too: a report there that no check caught is a failure
	if grep -qE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" \
		"$dir/meson-logs/testlog.txt"; then
		echo "sanitizer reports in $dir/meson-logs/testlog.txt ($model build):"
		grep -E -A12 "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:" \
			"$dir/meson-logs/testlog.txt" | head -80
		failed=$((failed + 1))
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
