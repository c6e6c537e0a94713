/* SPDX-License-Identifier: BSD-3-Clause */
/* EAL for unit tests that need DPDK memory (mempools, rte_hash, rte_acl) but no hugepages,
 * no devices and no files left behind. One per test binary. */
#ifndef MPE_TEST_EAL_H
#define MPE_TEST_EAL_H

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "runtime.h"

static char test_eal_rundir[PATH_MAX];

/* 0, or -1 after printing why. --in-memory is refused with --no-huge (it implies legacy
 * memory); --no-shconf keeps the run from writing a config file instead. */
static inline int
test_eal_init(const char *prog, const char *name)
{
	char prefix[96];
	char *argv[] = {(char *)(uintptr_t)prog, "--no-huge", "--no-pci", "-m", "128",
			"--no-shconf", "--no-telemetry", "--log-level=lib.eal:error", prefix,
			"--lcores=0@0"};

	snprintf(prefix, sizeof(prefix), "--file-prefix=mpe_test_%s_%d", name, (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv) < 0) {
		printf("not ok - EAL init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	snprintf(test_eal_rundir, sizeof(test_eal_rundir), "%s", rte_eal_get_runtime_dir());
	return 0;
}

/* The EAL leaves its (empty) runtime directory behind: remove it. */
static inline void
test_eal_fini(void)
{
	rte_eal_cleanup();
	mpe_runtime_remove_dir(test_eal_rundir);
}

#endif
