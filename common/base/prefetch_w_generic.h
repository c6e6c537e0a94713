/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe_prefetch_w() where no run-time choice is made (meson picks this file for CPU families
 * other than x86-64): the compiler's write prefetch for the target it builds for. Included by
 * stage.h only, as prefetch_w.h. */
#ifndef MPE_PREFETCH_W_H
#define MPE_PREFETCH_W_H

/* No PREFETCHW to choose at run time. */
#define mpe_cpu_prefetchw 0

static inline void
mpe_prefetch_w(const void *p)
{
	__builtin_prefetch(p, 1, 3);
}

#endif
