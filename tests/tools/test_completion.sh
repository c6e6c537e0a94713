#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mpe-ctl's bash completion, as bash calls it (COMP_WORDS, COMP_CWORD): every command of
# mpe-ctl --help and nothing else, a command's own options, the file prefixes of the engines
# whose telemetry socket is in the runtime directory, files where a command takes one.
# Usage: test_completion.sh COMPLETION MPE-CTL
set -uo pipefail

if [[ $# -ne 2 || ! -f $1 || ! -x $2 ]]; then
	echo "usage: $0 COMPLETION MPE-CTL" >&2
	exit 2
fi
. "$(dirname "$0")/lib.sh"
want() { # LABEL EXPECTED GOT
	if [ "$2" = "$3" ]; then ok "$1: $3"; else not_ok "$1: got '$3', want '$2'"; fi
}
# shellcheck source=/dev/null
source "$1"
ctl=$2
complete -p mpe-ctl > /dev/null 2>&1 && ok "complete -F registered for mpe-ctl" ||
	not_ok "nothing registered for mpe-ctl"
words() { # WORD...: what completing the last word offers, sorted, on one line
	COMP_WORDS=("$ctl" "$@")
	COMP_CWORD=$#
	_mpe_ctl
	printf '%s\n' "${COMPREPLY[@]}" | sort | xargs
}

cmds=$("$ctl" --help | sed -n '/^positional arguments:/,/^$/p' | awk '/^    [a-z]/ { print $1 }' |
	sort | xargs)
[ -n "$cmds" ] || not_ok "mpe-ctl --help lists no command"
want "every command of --help" "$cmds" "$(words "")"
want "after an option and its value" "workers" "$(words -p x --json wor)"
want "a command's own options" "--help --openmetrics" "$(words metrics --)"
want "the top-level options" "--file-prefix --help --json --version" "$(words --)"
mkdir -p "$work/run/dpdk/edge" "$work/run/dpdk/core" "$work/run/dpdk/stale"
for p in edge core; do
	python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).bind(sys.argv[1])' \
		"$work/run/dpdk/$p/dpdk_telemetry.v2"
done
touch "$work/run/dpdk/stale/dpdk_telemetry.v2"
want "-p: engines with a telemetry socket" "core edge" "$(RUNTIME_DIRECTORY=$work/run words -p "")"
mkdir "$work/f" && touch "$work/f/a.rules" "$work/f/b.rules"
want "reload FILE: files" "$work/f/a.rules $work/f/b.rules" "$(words reload "$work/f/")"
want "record WORKER FILE: files" "$work/f/a.rules" "$(words record 0 "$work/f/a")"
want "record WORKER: no file" "" "$(words record "$work/f/a")"
want "quarantine: clear" "clear" "$(words quarantine c)"
finish
