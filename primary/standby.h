/* SPDX-License-Identifier: BSD-3-Clause */
/* Process build: standby worker processes (standby.c, docs/standby.md), and what they share
 * with launch_process.c: spawning a secondary, and the lcore ids worker processes run as.
 * Main lcore only, except mpe_standby_kill() (a signal handler). */
#ifndef MPE_STANDBY_H
#define MPE_STANDBY_H

#include <sched.h>
#include <stdint.h>
#include <sys/types.h>

struct mpe_primary;

/* launch_process.c */

/* Spawn mpe-secondary as lcore @lcore on @cpus, with "-- @role @n --spawned", its output into
 * the primary's log prefixed by @log_id (worker_log.h), its end watched (mpe_launch_wait).
 * 0 or -errno, with the reason in @err. */
int mpe_launch_spawn(struct mpe_primary *p, const char *role, unsigned int n,
		     unsigned int lcore, const cpu_set_t *cpus, unsigned int log_id, pid_t *pid,
		     char *err, size_t err_size);
/* An lcore id for a new worker process: @prefer if free, else the first free one; -ENOSPC. */
int mpe_launch_lcore_take(struct mpe_primary *p, uint32_t prefer);
/* Its holder's death is recovered (its mempool cache flushed): @lcore may serve again. */
void mpe_launch_lcore_free(struct mpe_primary *p, uint32_t lcore);
/* Add @lcore to the ids worker processes may run as. */
void mpe_launch_lcore_add(struct mpe_primary *p, uint32_t lcore);

/* standby.c */

/* Choose the standbys' lcore ids (ids no worker, no lcore of the primary uses). 0 or
 * -errno, logged. */
int mpe_standby_check(struct mpe_primary *p);
/* 1 when a standby is parked, ready to take a place. */
int mpe_standby_parked(const struct mpe_primary *p);
/* Worker @id died and is recovered: a parked standby takes its place. 1 done, 0 none
 * parked (the caller respawns as before). */
int mpe_standby_take(struct mpe_primary *p, unsigned int id);
/* @pid ended with @status: 1 when it was a standby (handled), 0 when it was not. */
int mpe_standby_reaped(struct mpe_primary *p, pid_t pid, int status);
/* Every supervision period: start the standbys planned (the pool's refill). */
void mpe_standby_tick(struct mpe_primary *p);
/* Tell every standby to leave; returns how many processes are left to end. */
unsigned int mpe_standby_stop(struct mpe_primary *p);
/* End every standby process now (SIGKILL); with @wait, reap them. */
void mpe_standby_kill(struct mpe_primary *p, int wait);

#endif
