/* SPDX-License-Identifier: BSD-3-Clause */
/* What the x86-64 CPU offers that the build's -march does not promise, read once at start
 * (built on x86-64 only; see prefetch_w_x86_64.h). */
#include <cpuid.h>

#include <rte_common.h>

#include "prefetch_w.h"

int mpe_cpu_prefetchw;

RTE_INIT(mpe_cpu_detect)
{
	unsigned int a, b, c, d;

	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		mpe_cpu_prefetchw = (c & bit_PRFCHW) != 0;
}
