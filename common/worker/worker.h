/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker loop, shared by the process and the thread build.
 * A worker owns its slot's status and counter lines and its rings' consumer (input) and
 * producer (output) ends; it reads the control line and the configuration.
 */
#ifndef MPE_WORKER_H
#define MPE_WORKER_H

#include <signal.h>
#include <sys/types.h>

#include <rte_ring.h>

#include "shm.h"
#include "stage.h"

struct mpe_worker {
	struct mpe_shared *shm;
	struct mpe_worker_slot *slot;
	struct mpe_counters *cnt; /* this worker's counters (where counter_layout puts them) */
	unsigned int id;
	uint16_t burst;
	uint8_t backpressure;
	uint8_t ports_in; /* 1: polls the ports (rss; a pipeline's first worker with rx =
			   * workers), 0: takes packets from a ring */
	uint8_t yield_idle; /* the CPU is shared with another poller: yield when idle */
	uint8_t ahead_data; /* a stage reads the headers: prefetch them with the next burst */
	uint8_t needs_time; /* a stage reads ctx->now: an untimed burst reads the TSC once */
	uint8_t timed;	    /* this burst is timed (one non-empty burst in cycles_sample) */
	uint16_t sample;    /* cycles_sample */
	uint16_t countdown; /* non-empty bursts before the next timed one */
	uint16_t span;	    /* untimed non-empty bursts since the last timed one */
	uint64_t now;	    /* TSC at this poll's start if timed, else the last one read */
	struct rte_ring *in;  /* the input ring polled now: ins[in_idx] */
	struct rte_ring *out; /* where its survivors go: outs[out_of[in_idx]]; NULL: transmits */
	uint8_t nb_in;	      /* input rings: one per I/O lcore that receives, or the stage
			       * before it (mpe_names_worker_rings) */
	uint8_t nb_out;
	uint8_t in_idx;
	uint8_t out_of[MPE_MAX_IO];
	struct rte_ring *ins[MPE_MAX_IO];
	struct rte_ring *outs[MPE_MAX_IO];
	uint16_t queue;	   /* transmitting: the TX queue this worker owns on every port */
	uint16_t rx_queue; /* ports_in: the RX queue this worker polls on every port */
	uint8_t mirror;	/* transmitting: a mirror port is configured */
	uint8_t nb_pools;
	uint8_t rx_pool[MPE_MAX_PORTS]; /* ports_in: the pool each port receives into */
	struct mpe_pool_ref pool_refs[MPE_MAX_POOLS]; /* where this worker returns mbufs */
	uint16_t nb_rx_ports;
	uint16_t rx_ports[MPE_MAX_PORTS]; /* ports_in: configured indices of ports polled */
	uint8_t nb_stages;
	const struct mpe_stage_ops *ops[MPE_MAX_STAGES];
	struct mpe_stage_ctx sctx[MPE_MAX_STAGES];
	uint64_t primary_check_tsc; /* next time to look at the primary's heartbeat */
	uint64_t primary_beat_seen;
	uint8_t primary_gone;
	const volatile uint32_t *next_down; /* pipeline: the next worker's ctl.down */
	const volatile uint32_t *next_dead; /* and its ctl.dead */
	const volatile uint32_t *next_handed; /* and its ctl.handed */
	uint64_t signal_tsc; /* when a stop signal was first seen, 0: none seen */
	uint8_t moved;	     /* this instance has moved a burst (status.first_move_tsc) */
	struct mpe_rec_ring *rec; /* its flight recorder, NULL: recorder = off */
	/* its hand's undo log: process build, where a killed worker's burst is carried to its
	 * replacement; NULL in the thread build (undo.h) */
	struct mpe_undo *undo;
};

/* Find this worker's rings and set up its stages. Returns 0 or -errno; on failure
 * @err holds the reason, for the slot and the log. */
int mpe_worker_init(struct mpe_worker *w, struct mpe_shared *shm, unsigned int id, char *err,
		    size_t err_size);

/* Set from a signal handler of a worker process (the signal number). The worker leaves its
 * loop when the primary does not start a stop of its own within MPE_WORKER_SIGNAL_GRACE_MS
 * (a stop signal sent to the whole process group or cgroup reaches the primary too, which
 * then drains in order); while the engine drains it goes on until the primary stops it. */
extern volatile sig_atomic_t mpe_worker_stop_requested;
#define MPE_WORKER_SIGNAL_GRACE_MS 200

/* 1 when the worker left its loop on a signal while the engine ran: not a stop the primary
 * asked for, which the primary treats as a death (recovery, respawn). */
int mpe_worker_left_on_signal(const struct mpe_worker *w);

/* "SIGTERM", "SIGINT": the stop signals a worker process handles. */
static inline const char *
mpe_worker_signal_name(int sig)
{
	return sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "a signal";
}

/* The loop: returns when told to stop or when the primary is gone. lcore_function_t. */
int mpe_worker_main(void *arg);

void mpe_worker_fini(struct mpe_worker *w);

/* 1 when @pid no longer runs: gone, or a zombie its parent has not reaped. */
int mpe_worker_process_gone(pid_t pid);

#endif
