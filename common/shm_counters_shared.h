/* struct mpe_counters for mpe-bench's false-sharing experiment (meson
 * counter_layout=shared), never for production: no padding, and the workers' counters side
 * by side in struct mpe_shared's wcnt[] (120 bytes each). The fields written on every burst
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
	uint64_t bursts;
	uint64_t polls;
	uint64_t cycles;
	uint64_t wait_cycles;
};

#define MPE_WCNT_SHARED MPE_MAX_WORKERS

#endif
