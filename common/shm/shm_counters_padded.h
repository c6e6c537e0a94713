/* SPDX-License-Identifier: BSD-3-Clause */
/* struct mpe_counters as the product lays it out (meson counter_layout=padded, the default):
 * every writer's counters on cache lines of their own, so that no two cores write one line.
 * Included by shm.h only, as shm_counters.h.
 */
#ifndef MPE_SHM_COUNTERS_H
#define MPE_SHM_COUNTERS_H

struct mpe_counters {
	uint64_t rx;	  /* packets taken in (ring dequeue or port rx) */
	uint64_t tx;	  /* packets handed on (ring enqueue or port tx) */
	uint64_t rx_bytes;
	uint64_t bursts;  /* non-empty bursts */
	uint64_t polls;	  /* loop iterations */
	uint64_t cycles;  /* TSC cycles spent on non-empty bursts */
	uint64_t drops[MPE_DROP_MAX];
	/* TSC cycles of polls that found nothing to do: a worker's input empty, the I/O lcore's
	 * rings into the workers full. Written by the counters' one writer (the worker, the
	 * I/O lcore), read by telemetry and the dump; 0 in per-port and per-stage counters. */
	uint64_t wait_cycles;
} __rte_cache_aligned;

/* workers' counters stay in their slots: struct mpe_shared's wcnt[] is empty */
#define MPE_WCNT_SHARED 0

#endif
