/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe_prefetch_w() on x86-64 (meson picks this file by the host's CPU family). Included by
 * stage.h only, as prefetch_w.h.
 *
 * __builtin_prefetch(p, 1, 3) (as DPDK 22.11's experimental rte_prefetch0_write()) gives
 * PREFETCHW only when the compiler targets it, and Debian's libdpdk flags (-march=corei7) do
 * not: there it is a read prefetch. So the instruction is chosen at run time, from CPUID
 * (cpu_x86_64.c). */
#ifndef MPE_PREFETCH_W_H
#define MPE_PREFETCH_W_H

#include <rte_branch_prediction.h>

/* Whether the CPU has PREFETCHW (CPUID 0x80000001, ECX bit 8), set once at start. */
extern int mpe_cpu_prefetchw;

static inline void
mpe_prefetch_w(const void *p)
{
	if (likely(mpe_cpu_prefetchw)) {
		asm volatile("prefetchw %0" : : "m"(*(const volatile char *)p));
		return;
	}
	__builtin_prefetch(p, 1, 3);
}

#endif
