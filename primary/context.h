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

#include "placement.h"
#include "shm.h"

struct mpe_record_copy;

struct mpe_primary {
	struct mpe_shared *shm;
	struct rte_mempool *pools[MPE_MAX_POOLS]; /* shm->nb_pools of them (mpe_names_pool) */
	struct rte_ring *rings[MPE_MAX_RINGS];
	int ring_consumer[MPE_MAX_RINGS]; /* worker id, or an I/O lcore's end (MPE_END_IO_K) */
	unsigned int nb_rings;
	int ports_started;
	uint8_t io_yield_idle[MPE_MAX_IO]; /* I/O lcore k shares its CPU with a worker */
	uint8_t io_shares[MPE_MAX_IO][MPE_MAX_WORKERS]; /* worker i runs on I/O lcore k's CPU */
	int pdump; /* rte_pdump_init() done: dpdk-dumpcap may capture */
	uint8_t io_launched[MPE_MAX_IO];
	uint64_t mbufs_held; /* by the ports' devices: mpe_port_mbufs_held() */
	void *io[MPE_MAX_IO]; /* io.c's state, from mpe_io_prepare() to mpe_io_release() */
	struct mpe_placement place; /* the sockets of the pool, rings and flow tables */

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
		/* when the death watcher saw it (0: not seen by it): the death's time, when the
		 * supervision loop takes it a little later */
		uint64_t seen_tsc, seen_ns;
		uint64_t respawn_tsc;	/* when to respawn */
		uint64_t window_tsc;	/* start of the restart window */
		uint32_t window_restarts;
		uint32_t outage_open; /* died, and its next instance has not moved a burst yet */
		/* its last instance's recorder, copied at its death, written out once a standby
		 * runs in its place (the standby waits on the primary's CPU meanwhile) */
		struct mpe_record_copy *evidence;
		uint32_t evidence_sealed;
	} life[MPE_MAX_WORKERS];

	/* process build: children watched through pidfds in one epoll set (launch_process.c) */
	int epfd;
	struct {
		pid_t pid;
		int fd;
	} watch[MPE_MAX_WORKERS + MPE_MAX_STANDBY];
	/* lcore ids the worker processes run as, workers' and standbys': each is held by at most
	 * one process, and free again once its holder's death is recovered (its cache flushed) */
	unsigned int nb_lcore_ids;
	uint32_t lcore_ids[MPE_MAX_WORKERS + MPE_MAX_STANDBY];
	uint8_t lcore_used[MPE_MAX_WORKERS + MPE_MAX_STANDBY];
	/* standby worker processes (standby.c) */
	struct {
		pid_t pid;		/* 0: none */
		uint64_t respawn_tsc;	/* none: start one then (0: not planned) */
		pid_t handed;		/* gave its process to a worker, which still reads the
					 * slot until it says RUNNING there; 0: slot free */
	} standby[MPE_MAX_STANDBY];
};

#endif
