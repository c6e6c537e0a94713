#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The manual pages besides mpe.ini(5) (test_man.sh): each program's and mpe.rules(5) render
# with man(1) without a warning; a program's page has every option its --help lists (mpe-ctl's:
# every command too);
# mpe.rules(5)'s synopsis is the parser's syntax, its examples pass `mpe-primary --check`, and
# the limits it states are the parser's.
# Usage: test_man_pages.sh INSPECT.INI MPE-PRIMARY MPE-SECONDARY MPE-CTL MPE-CHAOS MPE-PCAPGEN \
#        MPE-PCAPCMP MPE-RINGIO MPE-COSTS -- PAGE...
set -uo pipefail

ini=$1
shift
progs=()
while [[ $# -gt 0 && $1 != -- ]]; do
	progs+=("$1")
	shift
done
shift
if [[ ! -f $ini || ${#progs[@]} -ne 8 || $# -eq 0 ]]; then
	echo "usage: $0 INSPECT.INI PROGRAM... -- PAGE..." >&2
	exit 2
fi
primary=${progs[0]} ctl=${progs[2]}
. "$(dirname "$0")/lib.sh"

if ! command -v man > /dev/null; then
	not_ok "man is not installed (Debian package man-db)"
	finish
fi
declare -A page
for f in "$@"; do
	page[$(basename "$f")]=$f
done
for want in mpe-primary.8 mpe-secondary.8 mpe-ctl.8 mpe-chaos.8 mpe-pcapgen.1 mpe-pcapcmp.1 \
	mpe-ringio.1 mpe-costs.1 mpe.rules.5; do
	f=${page[$want]:-}
	if [ -z "$f" ] || [ ! -s "$f" ]; then
		not_ok "$want was not built (help2man missing? meson -Dman=enabled says)"
		continue
	fi
	if man_renders "$f" "$work/$want.txt"; then
		ok "$want: man -l renders it, without a warning"
	else
		not_ok "$want: man -l: $(head -3 "$work/$want.txt.warn")"
	fi
done

# options: every long option of a --help, in the page
for prog in "${progs[@]}"; do
	name=$(basename "$prog")
	txt=$(ls "$work/$name".[18].txt 2> /dev/null)
	[ -n "$txt" ] || continue
	"$prog" --help > "$work/$name.help" 2>&1
	missing=
	for o in $(grep -oE -- '--[a-z][a-z-]+' "$work/$name.help" | sort -u); do
		grep -qF -- "$o" "$txt" || missing+=" $o"
	done
	n=$(grep -oE -- '--[a-z][a-z-]+' "$work/$name.help" | sort -u | wc -l)
	if [ "$n" -gt 0 ] && [ -z "$missing" ]; then
		ok "$(basename "$txt" .txt): every option of --help ($n)"
	else
		not_ok "$(basename "$txt" .txt): options of --help missing:${missing:- none found in --help}"
	fi
done
if [ -s "$work/mpe-ctl.8.txt" ]; then
	cmds=$(sed -n '/^positional arguments:/,/^$/p' "$work/mpe-ctl.help" |
		awk '/^    [a-z]/ { print $1 }')
	missing=
	for c in $cmds; do
		sed -n '/^COMMANDS/,/^[A-Z]/p' "$work/mpe-ctl.8.txt" |
			grep -qE "^ +mpe-ctl $c( |$)" || missing+=" $c"
	done
	if [ -n "$cmds" ] && [ -z "$missing" ]; then
		ok "mpe-ctl.8: every command in COMMANDS ($(wc -w <<<"$cmds"))"
	else
		not_ok "mpe-ctl.8: commands missing from COMMANDS:${missing:- none found in --help}"
	fi
fi

# mpe.rules(5) against the parser
r=$work/mpe.rules.5.txt
if [ -s "$r" ]; then
	cp "$ini" "$work/inspect.ini"
	sed -n '/^EXAMPLES/,/^SEE ALSO/p' "$r" | sed -n 's/^ *\([@#].*\)/\1/p' > "$work/inspect.rules"
	n=$(grep -c '^@' "$work/inspect.rules")
	if [ "$n" -gt 0 ] && "$primary" --check -c "$work/inspect.ini" > "$work/check" 2>&1; then
		ok "mpe.rules.5: its $n example rules pass mpe-primary --check"
	else
		not_ok "mpe.rules.5: examples ($n rules) refused: $(head -3 "$work/check")"
	fi
	# the parser's syntax, as it states it on a line of too few fields
	echo "@0.0.0.0/0 0.0.0.0/0 drop 1" > "$work/inspect.rules"
	"$primary" --check -c "$work/inspect.ini" > "$work/check" 2>&1
	syntax=$(sed -n "s/.*'\(@src[^']*\)'.*/\1/p" "$work/check" | head -1)
	synopsis=$(sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$r" | grep -m1 '^ *@' | sed 's/^ *//')
	if [ -n "$syntax" ] && [ "$syntax" = "$synopsis" ]; then
		ok "mpe.rules.5: the synopsis is the parser's syntax"
	else
		not_ok "mpe.rules.5: synopsis '$synopsis', parser '$syntax'"
	fi
	echo "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0 drop 999999999" > "$work/inspect.rules"
	"$primary" --check -c "$work/inspect.ini" > "$work/check" 2>&1
	range=$(sed -n 's/.*priority: .* out of range \([0-9]*\)\.\.\([0-9]*\).*/\1 to \2/p' "$work/check")
	if [ -n "$range" ] && tr -s ' \n' ' ' < "$r" | grep -qF "$range"; then
		ok "mpe.rules.5: the priority range is the parser's ($range)"
	else
		not_ok "mpe.rules.5: the parser's priority range '${range:-?}' is not in the page"
	fi
	# a line of 1025 characters refused, of 1024 read
	long=$(printf '#%01023d' 0)
	printf '%s\n' "$long" > "$work/inspect.rules"
	rc1=0; "$primary" --check -c "$work/inspect.ini" > /dev/null 2>&1 || rc1=$?
	printf '%s\n' "${long}x" > "$work/inspect.rules"
	rc2=0; "$primary" --check -c "$work/inspect.ini" > "$work/check" 2>&1 || rc2=$?
	if [ "$rc1" = 0 ] && [ "$rc2" != 0 ] &&
		tr -s ' \n' ' ' < "$r" | grep -qF "lines of at most 1024 characters"; then
		ok "mpe.rules.5: lines of at most 1024 characters, as the parser reads them"
	else
		not_ok "mpe.rules.5: line limit: 1024 read $rc1, 1025 read $rc2 ($(head -1 "$work/check"))"
	fi
fi
finish
