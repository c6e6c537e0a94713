#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The generated systemd units (config/systemd/, docs/service.md): systemd-analyze verify
# finds nothing to say on a root that holds the system's units and the commands ours run
# (stand-ins: the build is not installed), and the engine's unit is Type=notify with a watchdog, reloads by SIGHUP and
# stops the primary alone.
# Usage: test_service.sh UNIT...
set -uo pipefail

if [ $# -eq 0 ]; then
	echo "usage: $0 UNIT..." >&2
	exit 2
fi
. "$(dirname "$0")/lib.sh"
root=$work

if ! command -v systemd-analyze > /dev/null; then
	not_ok "systemd-analyze is not installed (Debian package systemd)"
else
	# the system's own units (the targets ours depend on), as the root's
	mkdir -p "$root/lib/systemd"
	cp -r /lib/systemd/system "$root/lib/systemd/"
	for unit in "$@"; do
		name=$(basename "$unit")
		# every command the unit runs, in the root, where the unit says
		for cmd in $(sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\([^ ]*\).*/\1/p' "$unit"); do
			mkdir -p "$root$(dirname "$cmd")"
			printf '#!/bin/sh\n' > "$root$cmd"
			chmod 755 "$root$cmd"
		done
		mkdir -p "$root/etc/systemd/system"
		cp "$unit" "$root/etc/systemd/system/$name"
		out=$(cd "$root/etc/systemd/system" && SYSTEMD_LOG_LEVEL=notice \
			systemd-analyze verify --man=no --root="$root" "$name" 2>&1)
		rc=$?
		if [ "$rc" = 0 ] && [ -z "$out" ]; then
			ok "$name: systemd-analyze verify says nothing"
		else
			not_ok "$name: systemd-analyze verify (exit $rc): $(echo "$out" | head -3)"
		fi
		RUNS=$(sed -n 's/^ExecStart=//p' "$unit")
		case $name in
		mpe@.service)
			grep -qx "Type=notify" "$unit" && grep -q "^WatchdogSec=" "$unit" &&
				grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$unit" &&
				grep -qx "KillMode=mixed" "$unit" &&
				[[ $RUNS == */mpe-primary\ --file-prefix=mpe-%i\ * ]] &&
				ok "$name: Type=notify, a watchdog, reload by SIGHUP, SIGTERM to the primary alone" ||
				not_ok "$name: Type=notify, a watchdog, reload by SIGHUP, SIGTERM to the primary alone"
			;;
		mpe-exporter@.service)
			[[ $RUNS == */mpe-ctl\ -p\ mpe-%i\ exporter\ --listen\ * ]] &&
				ok "$name: runs mpe-ctl's exporter on the engine's prefix" ||
				not_ok "$name: runs mpe-ctl's exporter on the engine's prefix"
			;;
		esac
	done
fi
finish
