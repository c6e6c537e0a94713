/* The engine's shared state: the layout of memzone "mpe_shared". Types only.
 *
 *   +---------------------------+  memzone "mpe_shared", same virtual address everywhere
 *   | header                    |  magic, layout version, size, self address, build id
 *   |   written once by primary |  before any worker exists; read by every worker
 *   +---------------------------+
 *   | control line              |  primary writes: run state, heartbeat; workers read
 *   +---------------------------+
 *   | struct mpe_conf           |  primary writes once before spawning; read-only after
 *   +---------------------------+
 *   | io stats [io lcore]       |  one writer: the primary's I/O lcore
 *   +---------------------------+
 *   | worker slot 0 .. N-1      |  each: ctl line (primary writes), status line and
 *   |                           |  counter lines (that worker writes, primary reads)
 *   +---------------------------+
 *
 * No pointers into process-private memory and no function pointers live here: the only
 * address is `self`, kept to prove that the mapping is at the same place in every process.
 */
#ifndef MPE_SHM_H
#define MPE_SHM_H

#include <stdint.h>

#include <rte_common.h>

#include "config.h"

#define MPE_SHM_MAGIC 0x4d50455348415245ULL /* "MPESHARE" */
#ifndef MPE_SHM_LAYOUT_VERSION
#define MPE_SHM_LAYOUT_VERSION 1
#endif
#define MPE_BUILD_ID_LEN 64

/* Engine run state, written by the primary only. */
enum mpe_run_state {
	MPE_RUN_INIT = 0, /* objects being created */
	MPE_RUN_ACTIVE,	  /* traffic flows */
	MPE_RUN_DRAIN,	  /* rx stopped; workers keep emptying their input */
	MPE_RUN_STOP,	  /* workers leave their loop */
};

/* Worker state, written by the worker (and by the primary once the worker is gone). */
enum mpe_worker_state {
	MPE_WORKER_NONE = 0, /* not started */
	MPE_WORKER_STARTING, /* spawned, not yet attached */
	MPE_WORKER_READY,    /* attached and verified, about to poll */
	MPE_WORKER_RUNNING,
	MPE_WORKER_EXITED, /* left the loop cleanly */
	MPE_WORKER_FAILED, /* died or refused to start: see the primary's log */
};

/* Drop reasons: every packet that does not leave the engine is counted under one. */
enum mpe_drop {
	MPE_DROP_RING_FULL, /* next ring had no room */
	MPE_DROP_TX_FULL,   /* port transmit queue had no room */
	MPE_DROP_NO_MBUF,   /* no buffer to receive into (from ethdev rx_nombuf) */
	MPE_DROP_VERDICT,   /* a stage decided to drop */
	MPE_DROP_NO_ROUTE,  /* no output port */
	MPE_DROP_SHUTDOWN,  /* still in a ring when shutdown gave up waiting */
	MPE_DROP_MAX,
};

/* Counters of one worker or of the I/O lcore: exactly one writer. */
struct mpe_counters {
	uint64_t rx;	  /* packets taken in (ring dequeue or port rx) */
	uint64_t tx;	  /* packets handed on (ring enqueue or port tx) */
	uint64_t rx_bytes;
	uint64_t bursts;  /* non-empty bursts */
	uint64_t polls;	  /* loop iterations */
	uint64_t cycles;  /* TSC cycles spent on non-empty bursts */
	uint64_t drops[MPE_DROP_MAX];
} __rte_cache_aligned;

/* What a worker publishes about itself; the worker is the only writer while it lives. */
struct mpe_worker_status {
	volatile uint32_t state; /* enum mpe_worker_state */
	int32_t pid;
	uint32_t lcore;
	volatile uint64_t heartbeat; /* loop iterations since start, bumped every poll */
	char error[96];		     /* why it refused to start, when state == FAILED */
} __rte_cache_aligned;

/* What the primary tells one worker. */
struct mpe_worker_ctl {
	volatile uint32_t stop; /* 1: leave the loop at the next burst boundary */
} __rte_cache_aligned;

struct mpe_worker_slot {
	struct mpe_worker_ctl ctl;	 /* primary writes, worker reads */
	struct mpe_worker_status status; /* worker writes, primary reads */
	struct mpe_counters cnt;	 /* worker writes, primary reads */
	struct mpe_counters stage_cnt[MPE_MAX_STAGES]; /* per stage: worker writes */
};

/* Counters of the primary's I/O lcore, its only writer. */
struct mpe_io_stats {
	struct mpe_counters io;			 /* the loop: polls, cycles, drops */
	struct mpe_counters port[MPE_MAX_PORTS]; /* rx = from the port, tx = to the port */
	volatile uint32_t pending; /* packets received but not yet in a ring (backpressure) */
	volatile uint32_t running;
} __rte_cache_aligned;

struct mpe_shared {
	/* header: written once by the primary before any worker starts */
	uint64_t magic;
	uint32_t layout_version;
	uint32_t size;	 /* sizeof(struct mpe_shared) in the primary's build */
	const void *self; /* the primary's address of this memzone */
	char build_id[MPE_BUILD_ID_LEN];
	uint32_t worker_model; /* 0 process, 1 thread */
	int32_t primary_pid;

	/* control: primary writes, everybody reads */
	volatile uint32_t run_state __rte_cache_aligned; /* enum mpe_run_state */
	volatile uint64_t primary_heartbeat;		 /* bumped by the primary's main loop */
	uint64_t tsc_hz;
	uint64_t start_tsc;
	int32_t meta_offset; /* mbuf dynfield offset of struct mpe_meta */

	struct mpe_conf conf __rte_cache_aligned;
	struct mpe_io_stats io;
	struct mpe_worker_slot workers[MPE_MAX_WORKERS];
};

#endif
