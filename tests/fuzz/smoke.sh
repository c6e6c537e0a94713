#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CI smoke run of one fuzzer (meson suite fuzz): runs it for SECONDS over a copy of its seed
# corpus in a temporary directory (the source tree is never written), with its dictionary.
# Fails when the fuzzer reports anything (crash, sanitizer report, leak, slow input, broken
# invariant), on a seed or on a mutation; the input that did it is left in ARTIFACT_DIR.
# Usage: smoke.sh FUZZER CORPUS_DIR DICT ARTIFACT_DIR SECONDS
set -euo pipefail

fuzzer=$1 corpus=$2 dict=$3 artifacts=$4 seconds=$5
name=$(basename "$fuzzer")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpe-$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
cp "$corpus"/* "$tmp/corpus/"
seeds=$(ls "$tmp/corpus" | wc -l)
if [ "$seeds" = 0 ]; then
	echo "$name: no seeds in $corpus" >&2
	exit 1
fi

# -timeout: an input taking 10 s is a hang; -rss_limit_mb: bounded memory on a shared machine
rc=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -max_len=4096 \
	-dict="$dict" -artifact_prefix="$artifacts/$name-" -print_final_stats=1 \
	"$tmp/corpus" > "$tmp/log" 2>&1 || rc=$?
grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)|^stat::number_of_executed_units|^stat::peak_rss_mb' \
	"$tmp/log" || true
if [ "$rc" != 0 ]; then
	cat "$tmp/log"
	echo "$name: fuzzer exited with status $rc; the input is in $artifacts/$name-*" >&2
	exit 1
fi
echo "$name: $seeds seeds, no finding in $seconds s"
