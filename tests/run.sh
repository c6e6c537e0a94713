#!/usr/bin/env bash
# Runs every test suite but the benchmarks, in both builds (worker processes and worker
# threads), on a fresh Debian 12 host: installs what it needs, reserves hugepages, builds
# build-process/ and build-thread/, runs the unit and mp suites of each, and ends with one
# line "N passed, N failed" (N counting tests of both builds). Needs root.
set -uo pipefail
cd "$(dirname "$0")/.."

tools/setup-host.sh || exit 1

passed=0
failed=0
for model in process thread; do
	dir=build-$model
	if [ -f "$dir/build.ninja" ]; then
		meson configure "$dir" -Dworker_model=$model > /dev/null || exit 1
	else
		meson setup "$dir" -Dworker_model=$model > /dev/null || exit 1
	fi
	if ! ninja -C "$dir" > "$dir.ninja.log" 2>&1; then
		cat "$dir.ninja.log"
		echo "build ($model) failed"
		echo "$passed passed, $((failed + 1)) failed"
		exit 1
	fi
	echo "=== $model build"
	meson test -C "$dir" --suite unit --suite mp --num-processes 1 --print-errorlogs
	counts=$(python3 - "$dir/meson-logs/testlog.json" <<'PY'
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
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
