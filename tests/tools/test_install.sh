#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What an installation holds, checked in a fresh directory: `meson install --destdir` of a
# build directory, or the Debian package unpacked with `dpkg -x` (then also lintian).
#   - every program, in PREFIX/bin, runs and says the same version;
#   - its manual page, mpe.ini(5) and mpe.rules(5), each rendering without a warning;
#   - the example configurations in SYSCONFDIR/mpe, each passing the installed
#     `mpe-primary --check`;
#   - the systemd units, whose commands and documentation are in the tree, verified by
#     test_service.sh;
#   - mpe-ctl's bash completion, registering itself; the documentation.
# Usage: test_install.sh meson BUILD_DIR | test_install.sh deb PACKAGE.deb
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
PROGRAMS=(mpe-primary mpe-secondary mpe-ctl mpe-chaos mpe-pcapgen mpe-pcapcmp mpe-ringio mpe-costs)
CONFIGS=(default.ini pipeline.ini rss.ini distributor.ini inspect.ini)

root=$work/root
case ${1:-}:$# in
meson:2)
	opt() { meson introspect "$2" --buildoptions |
		python3 -c 'import json, sys; print({o["name"]: o["value"] for o in json.load(sys.stdin)}[sys.argv[1]])' "$1"; }
	prefix=$(opt prefix "$2")
	etc=$(opt sysconfdir "$2"); [[ $etc == /* ]] || etc=$prefix/$etc
	if meson install -C "$2" --destdir "$root" --no-rebuild > "$work/install.log" 2>&1; then
		ok "meson install --destdir into a fresh directory"
	else
		not_ok "meson install --destdir: $(tail -3 "$work/install.log")"
		finish
	fi
	;;
deb:2)
	prefix=/usr etc=/etc
	if dpkg -x "$2" "$root" 2> "$work/dpkg.err"; then
		ok "dpkg -x $(basename "$2") into a fresh directory"
	else
		not_ok "dpkg -x: $(head -3 "$work/dpkg.err")"
		finish
	fi
	if ! command -v lintian > /dev/null; then
		not_ok "lintian is not installed (Debian package lintian)"
	elif lintian --fail-on error,warning "$2" > "$work/lintian" 2>&1; then
		ok "lintian: no error, no warning ($(grep -c '^[A-Z]: ' "$work/lintian") remarks)"
	else
		not_ok "lintian: $(grep '^[A-Z]: ' "$work/lintian" | head -5 | tr '\n' ' ')"
	fi
	;;
*)
	echo "usage: $0 meson BUILD_DIR | $0 deb PACKAGE.deb" >&2
	exit 2
	;;
esac
bin=$root$prefix/bin
share=$root$prefix/share

# programs
versions=
for p in "${PROGRAMS[@]}"; do
	if [ -x "$bin/$p" ] && v=$("$bin/$p" --version 2>&1) && [[ $v == "$p "* ]]; then
		versions+="$(cut -d' ' -f2 <<<"$v")"$'\n'
	else
		not_ok "$p: not installed, or its --version failed: ${v:-}"
	fi
done
n=$(grep -c . <<<"$versions")
check "every program installed, all of one version ($(sort -u <<<"$versions" | xargs), $n programs)" \
	[ "$n" = ${#PROGRAMS[@]} -a "$(sort -u <<<"$versions" | grep -c .)" = 1 ]

# manual pages
pages=()
for p in "${PROGRAMS[@]}"; do
	f=$(ls "$share"/man/man[18]/"$p".[18]* 2> /dev/null | head -1)
	[ -n "$f" ] && pages+=("$f") || not_ok "$p: no manual page"
done
for p in mpe.ini.5 mpe.rules.5; do
	f=$(ls "$share/man/man5/$p"* 2> /dev/null | head -1)
	[ -n "$f" ] && pages+=("$f") || not_ok "$p: not installed"
done
bad=
for f in "${pages[@]}"; do
	man_renders "$f" "$work/page" || bad+=" $(basename "$f")"
done
check "${#pages[@]} manual pages, each rendering without a warning${bad:+ (not:$bad)}" \
	[ ${#pages[@]} = $((${#PROGRAMS[@]} + 2)) -a -z "$bad" ]

# configurations
for c in "${CONFIGS[@]}"; do
	out=$("$bin/mpe-primary" --check -c "$root$etc/mpe/$c" 2>&1)
	check "$etc/mpe/$c: mpe-primary --check:$(sed -n 's/.*: OK:/ OK:/p' <<<"$out")" \
		grep -q ": OK:" <<<"$out"
done
check "$etc/mpe/inspect.rules, the rules inspect.ini names" test -s "$root$etc/mpe/inspect.rules"

# units
units=$(ls "$root"/lib/systemd/system/mpe*@.service "$root$prefix"/lib/systemd/system/mpe*@.service 2> /dev/null)
check "the units: $(xargs -n1 basename <<<"$units" | xargs)" [ "$(grep -c . <<<"$units")" = 2 ]
for u in $units; do
	for path in $(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p; s/^Documentation=.*file:\/\/\([^ ]*\).*/\1/p' "$u"); do
		check "$(basename "$u"): $path is in the tree" test -e "$root$path"
	done
done
if bash "$here/test_service.sh" $units > "$work/service" 2>&1; then
	ok "the installed units pass test_service.sh ($(tail -1 "$work/service"))"
else
	not_ok "the installed units fail test_service.sh: $(grep '^not ok' "$work/service" | head -3)"
fi

# completion and documentation
comp=$share/bash-completion/completions/mpe-ctl
check "bash completion for mpe-ctl registers itself" \
	bash -c 'source "$1" && complete -p mpe-ctl | grep -q _mpe_ctl' _ "$comp"
check "the documentation: README and docs/ in $prefix/share/doc/mpe" \
	bash -c 'ls "$1"/README.md* "$1"/service.md "$1"/configuration.md* > /dev/null' _ "$share/doc/mpe"
finish
