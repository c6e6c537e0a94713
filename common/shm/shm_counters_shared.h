/* SPDX-License-Identifier: BSD-3-Clause */
/* struct mpe_counters for mpe-bench's false-sharing experiment (meson
 * counter_layout=shared), never for production: no padding, and the workers' counters side
 * by side in struct mpe_shared's wcnt[] (176 bytes each). The fields written on every burst
 * sit at both ends, so worker k's bursts, polls and cycles share a cache line with worker
 * k+1's rx and tx. Included by shm.h only, as shm_counters.h.
 */
#ifndef MPE_SHM_COUNTERS_H
#define MPE_SHM_COUNTERS_H

struct mpe_counters {
	uint64_t rx;
	uint64_t tx;
	uint64_t rx_bytes;
	uint64_t drops[MPE_DROP_MAX];
	uint64_t wait_cycles; /* written only around waits */
	uint64_t pad[6];      /* keeps the three below at the end of a line, as before */
	uint64_t bursts;
	uint64_t polls;
	uint64_t cycles;
};

/* worker k's bursts, polls and cycles in the line that holds worker k+1's rx and tx */
_Static_assert(sizeof(struct mpe_counters) % 64 == 48, "shared-line layout");

#define MPE_WCNT_SHARED MPE_MAX_WORKERS

#endif
