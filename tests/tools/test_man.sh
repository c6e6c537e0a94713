#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mpe.ini(5) and mpe-primary --help-config agree: the page renders with man(1) without a
# warning, has a section for each section of the file, and each key of the table in its
# section, with its default.
# Usage: test_man.sh PATH/TO/mpe-primary PATH/TO/mpe.ini.5
set -uo pipefail

if [[ $# -ne 2 || ! -x $1 || ! -f $2 ]]; then
	echo "usage: $0 PATH/TO/mpe-primary PATH/TO/mpe.ini.5" >&2
	exit 2
fi
. "$(dirname "$0")/lib.sh"

"$1" --help-config > "$work/table.md" 2> "$work/err" || not_ok "--help-config fails"
if ! command -v man > /dev/null; then
	not_ok "man is not installed (Debian package man-db)"
else
	if man_renders "$2" "$work/page.txt"; then
		ok "man -l renders it, without a warning"
	else
		not_ok "man -l: $(head -3 "$work/page.txt.warn")"
	fi
	if python3 - "$work/table.md" "$work/page.txt" <<'PY'; then
import re, sys
rows = [[c.strip() for c in ln.strip().strip("|").split("|")]
        for ln in open(sys.argv[1]).read().splitlines()[2:]]
page = open(sys.argv[2]).read()
# the page's sections, by their titles
parts = re.split(r"^SECTION (\[[^\]]+\])\s*$", page, flags=re.M)
blocks = dict(zip(parts[1::2], parts[2::2]))
bad = []
for sec, key, values, default, meaning in rows:
    b = blocks.get(sec, "")
    m = re.search(r"^\s+%s(\s|$)(.*\n){0,2}" % re.escape(key), b, re.M)
    if not m or ("; default %s." % default) not in m.group(0).replace("\n", " ").replace("  ", " "):
        bad.append("%s %s" % (sec, key))
secs = []
for r in rows:
    if r[0] not in secs:
        secs.append(r[0])
if list(blocks) != secs:
    bad.append("sections %s, want %s" % (list(blocks), secs))
for b in bad[:5]:
    print("#   not in the page as the table has it: %s" % b)
sys.exit(1 if bad else 0)
PY
		ok "every key of --help-config ($(($(wc -l < "$work/table.md") - 2))), in its section, with its default"
	else
		not_ok "the page and --help-config differ"
	fi
fi
finish
