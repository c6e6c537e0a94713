#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every source file of the tree opens with its SPDX licence line (on its second line after a
# #! line), and LICENSE holds the licence's text.
# Usage: test_spdx.sh SOURCE_ROOT
set -uo pipefail

if [[ $# -ne 1 || ! -d $1 ]]; then
	echo "usage: $0 SOURCE_ROOT" >&2
	exit 2
fi
cd "$1" || exit 2
passed=0
failed=0

if grep -q "BSD 3-Clause License" LICENSE 2> /dev/null; then
	echo "ok - LICENSE holds the BSD-3-Clause text"
	passed=$((passed + 1))
else
	echo "not ok - LICENSE missing or not BSD-3-Clause"
	failed=$((failed + 1))
fi

missing=0
checked=0
while IFS= read -r -d '' f; do
	checked=$((checked + 1))
	if ! head -n 2 "$f" | grep -q "SPDX-License-Identifier: BSD-3-Clause"; then
		echo "# no SPDX line: $f"
		missing=$((missing + 1))
	fi
done < <(find common primary secondary tools tests .ci meson.build meson_options.txt \
	-path tests/fuzz/corpus -prune -o -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.sh' -o -name '*.py' -o -name meson.build \
	-o -name meson_options.txt -o -path 'tools/mpe-*' -o -path tools/gen-docs \
	-o -path .ci/run \) -print0)
if [[ $checked -gt 100 && $missing -eq 0 ]]; then
	echo "ok - $checked source files open with their SPDX line"
	passed=$((passed + 1))
else
	echo "not ok - $missing of $checked source files without an SPDX line"
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
