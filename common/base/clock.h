/* SPDX-License-Identifier: BSD-3-Clause */
/* Time in nanoseconds, off the fast path (a system call; the fast path counts TSC cycles). */
#ifndef MPE_CLOCK_H
#define MPE_CLOCK_H

#include <stdint.h>
#include <time.h>

/* @clock's time in nanoseconds: CLOCK_MONOTONIC for intervals and for times other processes
 * compare (mpe-chaos, Python's time.monotonic_ns()), CLOCK_REALTIME for times printed or
 * written to files. Async-signal-safe. */
static inline uint64_t
mpe_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

#endif
