#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prepares a Debian 12 host to build and run mpe: installs the packages, reserves 2 MiB
# hugepages and mounts hugetlbfs. Idempotent; needs root. Never touches a NIC.
# Environment: MPE_HUGEPAGES (2 MiB pages to have reserved, default 1024).
set -euo pipefail

PACKAGES=(build-essential meson ninja-build pkg-config python3 libdpdk-dev dpdk dpdk-dev
	dpdk-doc libpcap-dev libbsd-dev tcpdump tcpreplay iproute2 clang libclang-rt-14-dev
	gnuplot-nox python3-prometheus-client gdb libseccomp-dev libcap-ng-dev tshark
	prometheus prometheus-node-exporter libsystemd-dev help2man man-db debhelper lintian)
PAGES=${MPE_HUGEPAGES:-1024}

if [ "$(id -u)" != 0 ]; then
	echo "setup-host: run as root (it installs packages and reserves hugepages)" >&2
	exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup-host: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# no service starts as its package installs (prometheus and its node exporter are
	# there for their tools, which the tests run themselves): Debian's policy-rc.d, for the
	# install only, unless the host has one of its own
	policy=/usr/sbin/policy-rc.d
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' > "$policy"
		chmod 755 "$policy"
		trap 'rm -f "$policy"' EXIT # also when the install fails
	fi
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
fi

nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ "$(cat "$nr")" -lt "$PAGES" ]; then
	echo "$PAGES" > "$nr"
	if [ "$(cat "$nr")" -lt "$PAGES" ]; then
		echo "setup-host: only $(cat "$nr") of $PAGES hugepages could be reserved" >&2
		exit 1
	fi
fi
if ! grep -q "^[^ ]* /dev/hugepages hugetlbfs" /proc/mounts; then
	mkdir -p /dev/hugepages
	mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages
fi
echo "setup-host: $(cat "$nr") hugepages of 2 MiB, hugetlbfs on /dev/hugepages"
