/* SPDX-License-Identifier: BSD-3-Clause */
/* struct mpe_primary: the primary process's own state, shared by its modules. It lives in the
 * primary's private memory (shared state is in p->shm) and is written by the main lcore only,
 * except where a field says otherwise; other threads of the primary only read it. */
#ifndef MPE_CONTEXT_H
#define MPE_CONTEXT_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "shm.h"

struct mpe_primary {
	struct mpe_shared *shm;
	struct rte_mempool *pool;
	struct rte_ring *rings[2 * MPE_MAX_WORKERS];
	int ring_consumer[2 * MPE_MAX_WORKERS]; /* worker id, or MPE_END_IO */
	unsigned int nb_rings;
	int ports_started;
	int io_yield_idle; /* the I/O lcore shares its CPU with a worker */
	uint8_t io_shares[MPE_MAX_WORKERS]; /* worker i's lcore runs on the I/O lcore's CPU */
	int pdump; /* rte_pdump_init() done: dpdk-dumpcap may capture */
	int io_launched;
	uint64_t mbufs_held; /* by the ports' devices: mpe_port_mbufs_held() */
	void *io; /* io.c's state, from mpe_io_prepare() to mpe_io_release() */

	/* command line */
	const char *config_path;
	const char *secondary_path;
	int no_spawn;
	unsigned int idle_exit_ms;
	char file_prefix[256]; /* as the EAL took it */

	/* workers */
	pid_t pids[MPE_MAX_WORKERS];
	cpu_set_t cpus[MPE_MAX_WORKERS]; /* where each worker's lcore runs */
	struct {
		uint64_t beat;		/* heartbeat last seen */
		uint64_t beat_tsc;	/* when it last changed */
		uint64_t died_tsc;	/* when the death was noticed (0: alive) */
		uint64_t respawn_tsc;	/* when to respawn */
		uint64_t window_tsc;	/* start of the restart window */
		uint32_t window_restarts;
	} life[MPE_MAX_WORKERS];
};

#endif
