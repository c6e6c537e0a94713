/* SPDX-License-Identifier: BSD-3-Clause */
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
 *   | standby slot 0 .. S-1     |  a parked worker process each: the word it sleeps on
 *   |                           |  (primary writes), its state (the standby writes)
 *   +---------------------------+
 *
 * No pointers into process-private memory and no function pointers live here. The addresses
 * it holds point into DPDK memory, mapped at the same place in every process: `self`, kept
 * to prove that, the rule set in force and the RCU state that says when an old one is free.
 */
#ifndef MPE_SHM_H
#define MPE_SHM_H

#include <pthread.h>
#include <stdint.h>

#include <rte_common.h>

#include "config.h"
#include "decode.h"
#include "names.h"
#include "pool.h"
#include "quarantine_table.h"
#include "undo.h"

#define MPE_SHM_MAGIC 0x4d50455348415245ULL /* "MPESHARE" */
#ifndef MPE_SHM_LAYOUT_VERSION
#define MPE_SHM_LAYOUT_VERSION 22
#endif
#define MPE_BUILD_ID_LEN 64

/* Engine run state, written by the primary only. */
enum mpe_run_state {
	MPE_RUN_INIT = 0, /* objects being created */
	MPE_RUN_ACTIVE,	  /* traffic flows */
	MPE_RUN_DRAIN,	  /* rx stopped; workers keep emptying their input */
	MPE_RUN_STOP,	  /* workers leave their loop */
};

#define MPE_PID_SPAWNING (-1)
#define MPE_CPUSET_BYTES 128 /* CPUs 0..1023 */

/* Worker state, written by the worker (and by the primary once the worker is gone). */
enum mpe_worker_state {
	MPE_WORKER_NONE = 0, /* not started */
	MPE_WORKER_STARTING, /* spawned, not yet attached */
	MPE_WORKER_READY,    /* attached and verified, about to poll */
	MPE_WORKER_RUNNING,
	MPE_WORKER_EXITED,     /* left the loop cleanly */
	MPE_WORKER_FAILED,     /* died or refused to start: see the primary's log */
	MPE_WORKER_RESTARTING, /* died; recovered by the primary, waiting to be respawned */
};

/* Where a worker is in its burst, so that the primary can tell after its death which mbufs
 * it held and which ring operation it left half done (rings are single-producer and
 * single-consumer: the dead worker owned one side of each). */
enum mpe_hand_phase {
	MPE_HAND_IDLE = 0, /* holds nothing (before the first burst) */
	MPE_HAND_DEQ,	   /* dequeuing into pkts[]; cons_mark = input cons.tail before */
	MPE_HAND_PROC,	   /* holds pkts[0..n), untouched; stages work on work[] */
	MPE_HAND_ENQ,	   /* work[] holds all n, survivors first; prod_mark = output
			    * prod.tail before the enqueue of work[0..kept) */
	MPE_HAND_FREE,	   /* freeing what was not sent: work[free_from..n) still held */
	MPE_HAND_DEV,	   /* inside a device call: tx (kept >= 1), work[dev_start..dev_end)
			    * in doubt until the tx counter passes dev_cnt0; rx (kept 0),
			    * pkts[0..n) received once the rx counter passes dev_cnt0 */
	MPE_HAND_TX,	   /* rss: between tx calls; work[0..done) have left, the rest held */
	/* Left by the primary for the replacement of a worker killed from outside: carry
	 * MPE_CARRY_RUN, pkts[0..n) to run through the stages as a new burst (counters put
	 * back as they were before it, see undo.h); MPE_CARRY_SEND, the stages done and
	 * counted, work[0..kept) to send on, work[kept..n) dropped, counted, to free. */
	MPE_HAND_CARRY,
};

enum mpe_carry {
	MPE_CARRY_RUN = 1,
	MPE_CARRY_SEND,
};

struct rte_mbuf;
struct rte_rcu_qsbr;
struct mpe_ruleset;
struct mpe_rec_ring;

/* The burst in a worker's hands, in shared memory; the worker is the only writer. */
struct mpe_worker_hand {
	volatile uint32_t phase; /* enum mpe_hand_phase */
	uint32_t n;
	uint32_t kept;
	/* the input ring (index among the worker's, mpe_names_worker_rings) a dequeue takes
	 * from, or the burst in hand came from; the output ring the survivors go to (ENQ) */
	uint32_t in_ring;
	uint32_t out_ring;
	/* each input ring's consumer tail, but that of in_ring while a dequeue runs */
	uint32_t cons_mark[MPE_MAX_IO];
	uint32_t prod_mark;
	uint32_t done; /* rss: entries of work[] sent or freed so far */
	uint32_t free_from; /* FREE: work[free_from..n) not yet returned to the pool */
	uint32_t dev_start; /* DEV in TX: work[dev_start..dev_end) are in the device call */
	uint32_t dev_end;
	uint32_t stage;	     /* the stage (its place in the worker's list) running; nb_stages: none */
	uint32_t carry;	     /* CARRY: enum mpe_carry */
	/* 1 while a burst carried from a killed predecessor is being finished: it is not
	 * carried again (a burst that hangs or kills its worker gets one rerun, no more) */
	uint32_t rerun;
	/* a worker polling ports: the port (index into conf.ports[]) of the receive call under
	 * way or of the burst in hand; MPE_PORT_NONE for a burst from a ring */
	uint32_t rx_port;
	/* DEV: the counter the call's result is added to (rx for a receive, tx for a transmit)
	 * before the call. The worker counts what a call returned before anything else of its
	 * hand says so: a counter past this mark is a call that returned, and how much. */
	uint64_t dev_cnt0;
	/* ENQ: the tx counter before the enqueue (what it then counts is put right after a death
	 * wherever the enqueue stopped) */
	uint64_t tx0;
	/* A free under way (free_armed): work[*from..free_end) are being returned through `put`
	 * (from: free_from in FREE, done in TX), to be counted under drops[free_why] (none when
	 * MPE_DROP_MAX), which then reads free_count. */
	volatile uint32_t free_armed;
	uint32_t free_end;
	uint32_t free_why;
	uint64_t free_count;
	/* DEV in a transmit: the length of its cache of each pool when the call began (after
	 * the fields written on every burst, which keep their lines) */
	uint32_t cache_len0[MPE_MAX_POOLS];
	struct mpe_pool_put put; /* the return to the pool under way, if any (pool.h) */
	struct rte_mbuf *pkts[MPE_MAX_BURST] __rte_cache_aligned;
	struct rte_mbuf *work[MPE_MAX_BURST] __rte_cache_aligned;
	/* PROC: what the burst changed in the books so far (process build; undo.h) */
	struct mpe_undo undo __rte_cache_aligned;
} __rte_cache_aligned;

/* Drop reasons: every packet that does not leave the engine is counted under one. */
enum mpe_drop {
	MPE_DROP_RING_FULL, /* next ring had no room */
	MPE_DROP_TX_FULL,   /* port transmit queue had no room */
	MPE_DROP_NO_MBUF,   /* no buffer to receive into (from ethdev rx_nombuf) */
	MPE_DROP_VERDICT,   /* a stage decided to drop */
	MPE_DROP_NO_ROUTE,  /* no output port */
	MPE_DROP_SHUTDOWN,  /* still in a ring when shutdown gave up waiting */
	MPE_DROP_WORKER_DIED, /* in the hands of a worker when it died */
	MPE_DROP_WORKER_DOWN, /* bound for a worker that is down for good */
	MPE_DROP_QUARANTINE,  /* in hand at a fault death (quarantine.pcapng), or of a blocked
			       * flow (docs/recorder.md) */
	MPE_DROP_MAX,
};

/* struct mpe_counters: counters of one worker or of the I/O lcore, exactly one writer.
 * Laid out as the counter_layout meson option says (shm_counters_padded.h, the product, or
 * shm_counters_shared.h, mpe-bench's false-sharing variant). */
#include "shm_counters.h"

/* What a worker publishes about itself; the worker is the only writer while it lives. */
struct mpe_worker_status {
	volatile uint32_t state; /* enum mpe_worker_state */
	/* While STARTING: MPE_PID_SPAWNING (the primary spawns the instance) or 0 (it waits for
	 * one started by hand); the instance claims the slot by writing its own pid over it. */
	int32_t pid;
	uint32_t lcore;
	volatile uint64_t heartbeat; /* bumped every poll, and while waiting on a full ring */
	char error[96];		     /* why it refused to start or how it ended */
	/* TSC of this instance's first burst moved, 0: none yet (the end of an outage) */
	volatile uint64_t first_move_tsc;
	/* What its sandbox applied ("seccomp,landlock7,caps,nnp", "off"), before it polls */
	char sandbox[48];
	/* The system call its seccomp filter refused, written by its SIGSYS handler just before
	 * it kills itself; -1: none */
	volatile int32_t blocked_syscall;
	/* The signal it is about to die by, written by its handler (every signal that ends a
	 * process but SIGKILL); 0: none seen */
	volatile int32_t end_signal;
	/* Held by the instance's polling thread while it runs, robust and process-shared: its
	 * death releases it at once, before the kernel has torn the process down, and wakes the
	 * primary's death watcher (primary/death_watch.c) */
	pthread_mutex_t life;
} __rte_cache_aligned;

/* What the inspection stages of one worker counted: the worker is the only writer. */
struct mpe_inspect_counters {
	uint64_t acl_lookups;	/* packets classified by rte_acl */
	uint64_t acl_cached;	/* packets whose verdict came from their flow's entry */
	uint64_t flow_full;	/* packets without a flow entry: the table was full */
	uint64_t mirrored;	/* copies sent to the mirror port (rss: by this worker) */
	uint64_t mirror_drops;	/* copies that could not be made or sent */
} __rte_cache_aligned;

/* What the primary tells one worker, and what it keeps about the worker's life. */
struct mpe_worker_ctl {
	volatile uint32_t stop; /* 1: leave the loop at the next burst boundary */
	volatile uint32_t down; /* 1: not running now; producers must not wait for it */
	/* 1 while down: a standby is taking its place, in microseconds to milliseconds, so a
	 * producer with backpressure waits for room as it would for a live worker */
	volatile uint32_t handed;
	volatile uint32_t dead; /* 1: down for good (restarts exhausted): send it nothing */
	uint32_t yield_idle;	/* 1: its CPU is shared with another polling lcore: give the
				 * CPU away (sched_yield) after a poll that found nothing */
	uint32_t restarts;	/* respawns so far */
	uint64_t last_recover_us; /* from death noticed to the new worker ready */
	/* The lcore id of the instance that serves this worker: whose mempool cache it uses.
	 * The configured one, or a standby's after a takeover (docs/standby.md). */
	uint32_t lcore;
	uint32_t takeovers;	  /* deaths a standby took over from */
	uint64_t died_tsc;	  /* TSC when the primary saw its last instance's death */
	uint64_t died_ns;	  /* the same in CLOCK_MONOTONIC ns (mpe-chaos compares) */
	/* from that death seen to the next instance's first burst; 0 until that burst */
	uint64_t last_outage_us;
	uint64_t lost;		  /* mbufs reclaimed from its hands when it died */
	uint64_t in_doubt;	  /* packets it gave a device call it died in: fate unknown */
	uint64_t carried;	  /* packets in its hands at a kill, left to its replacement */
	uint32_t sandbox_kills;	  /* instances its sandbox killed (SIGSYS) */
	uint32_t fault_deaths;	  /* instances a fault signal killed (docs/recorder.md) */
	int32_t last_signal;	  /* the signal that ended the last instance, 0: none */
	uint64_t quarantined;	  /* packets in its hands at a fault death: quarantine.pcapng */
	struct mpe_rec_ring *rec; /* its flight recorder (DPDK memory); NULL: recorder = off */
	char last_cause[96];	  /* how the last instance ended */
} __rte_cache_aligned;

struct mpe_worker_slot {
	struct mpe_worker_ctl ctl;	 /* primary writes, worker reads */
	struct mpe_worker_status status; /* worker writes, primary reads */
	struct mpe_counters cnt;	 /* worker writes, primary reads */
	struct mpe_counters stage_cnt[MPE_MAX_STAGES]; /* per stage: worker writes */
	/* its flight recorder's writes: rx packets recorded, cycles (sampled as the stages'
	 * are); worker writes */
	struct mpe_counters rec_cnt;
	/* frames the parse stage found malformed, by enum mpe_decode_bad: worker writes */
	uint64_t malformed[MPE_DECODE_BAD_MAX] __rte_cache_aligned;
	struct mpe_inspect_counters insp;
	struct mpe_worker_hand hand; /* worker writes; primary reads after the worker died */
};

/* Counters of the primary's I/O lcore, its only writer. */
struct mpe_io_stats {
	struct mpe_counters io; /* the loop: polls; rx: packets moved to the ports; cycles: of
				 * the polls that received or moved packets; drops */
	uint64_t mirrored;			 /* copies sent to the mirror port */
	uint64_t mirror_drops;			 /* copies that could not be made or sent */
	uint64_t yields_fill; /* CPU given to a worker on it whose input ring filled */
	/* polls that left the ports alone because the workers had no room: every input ring
	 * full (drop mode), or received packets still waiting for one (backpressure). The I/O
	 * lcore writes; telemetry and the dump read (io.wait_cycles: the time they took) */
	uint64_t full_polls;
	struct mpe_counters port[MPE_MAX_PORTS]; /* rx = from the port, tx = to the port */
	volatile uint32_t pending; /* packets received but not yet in a ring (backpressure) */
	volatile uint32_t running;
} __rte_cache_aligned;

/* Standby worker processes (process build, `standby` in [engine]): attached ahead of need,
 * parked on `word`, a futex in this shared memory, until the primary hands one a dead
 * worker's place (docs/standby.md). */
#define MPE_STANDBY_PARKED 0	      /* word: sleep on */
#define MPE_STANDBY_STOP   UINT32_MAX /* word: leave; any other value: take worker word - 1 */

struct mpe_standby_slot {
	/* primary writes */
	volatile uint32_t word;
	uint32_t lcore;	       /* its lcore id (and mempool cache), its own through a takeover */
	uint64_t handed_tsc;   /* TSC when the word was written */
	uint8_t cpus[MPE_CPUSET_BYTES]; /* the worker's CPU set, to move to: a bit per CPU */
	/* the standby writes */
	volatile uint32_t state __rte_cache_aligned; /* enum mpe_worker_state: READY = parked */
	int32_t pid;	 /* claimed over MPE_PID_SPAWNING, as a worker slot */
	uint64_t woke_tsc; /* TSC when it left its sleep */
	char error[96];
	char sandbox[48];
	volatile int32_t blocked_syscall; /* as a worker slot's, while it is parked */
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
	/* the mbuf pools (mpe_names_pool), and the one each port's RX queues take from */
	uint32_t nb_pools;
	uint8_t port_pool[MPE_MAX_PORTS];
	/* The rule set in force (NULL: no acl stage). A worker reads it once per burst and
	 * holds it until its next quiescent report to `qsbr`; the primary frees a replaced
	 * set only when every worker has reported since the swap. */
	struct mpe_ruleset *volatile ruleset;
	struct rte_rcu_qsbr *qsbr; /* thread id = worker id */

	struct mpe_conf conf __rte_cache_aligned;
	struct mpe_io_stats io[MPE_MAX_IO]; /* per I/O lcore (conf.io[]) */
	struct mpe_counters sup; /* the primary's supervisor: drops it accounts for (its own) */
	struct mpe_worker_slot workers[MPE_MAX_WORKERS];
	struct mpe_standby_slot standby[MPE_MAX_STANDBY];
	struct mpe_quarantine quar; /* the primary writes; entry points read (quarantine_table.h) */
	/* counter_layout=shared only (empty otherwise): the workers' counters side by side,
	 * sharing cache lines; workers[i].cnt is then unused */
	struct mpe_counters wcnt[MPE_WCNT_SHARED] __rte_cache_aligned;
};

/* Where worker @i's counters are, in either layout. */
#define MPE_SHM_WORKER_CNT(shm, i) \
	(MPE_WCNT_SHARED ? &(shm)->wcnt[(i)] : &(shm)->workers[(i)].cnt)

#endif
