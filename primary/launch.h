/* SPDX-License-Identifier: BSD-3-Clause */
/* launch_process.c or launch_thread.c, chosen by meson (worker_model): how workers are started,
 * watched and stopped. Main lcore only, except mpe_launch_kill_all() (a signal handler). */
#ifndef MPE_LAUNCH_H
#define MPE_LAUNCH_H

#include <stdint.h>

struct mpe_primary;

extern const char *const mpe_launch_model;
extern const uint32_t mpe_launch_model_id;
/* Before the EAL starts, on its arguments (argv[1 .. argc - 1], checked by
 * mpe_args_check_eal()): what the model's workers need of them. The process build keeps
 * those every worker process is given too; the thread build needs nothing. 0 or -errno. */
int mpe_launch_eal_args(int argc, char **argv);
/* Check what the model needs from the EAL set-up; 0 or -errno with the reason logged. */
int mpe_launch_check(struct mpe_primary *p);
/* Start worker @id; it reports readiness in its slot. */
int mpe_launch_start(struct mpe_primary *p, unsigned int id);
/* Reap workers that ended on their own: logs the cause, marks the slot. Returns how many. */
int mpe_launch_reap(struct mpe_primary *p);
/* 1 while worker @id can still become ready (its process or thread exists). */
int mpe_launch_alive(struct mpe_primary *p, unsigned int id);
/* Ask every worker to stop and wait for it, at most @timeout_ms each; then force. */
void mpe_launch_stop_all(struct mpe_primary *p, unsigned int timeout_ms);
/* Second signal: end every worker now. Async-signal-safe. */
void mpe_launch_kill_all(struct mpe_primary *p);
/* Every supervision period while the engine runs: stalls, recoveries, respawns. */
void mpe_launch_tick(struct mpe_primary *p);
/* Sleep up to @us, or less when a worker process ends (process build: pidfds in an epoll
 * set, so that a death is seen in microseconds; thread build: a sleep). */
void mpe_launch_wait(struct mpe_primary *p, unsigned int us);
/* The engine stops: what mpe_launch_check() started that still runs ends (process build: the
 * death watcher). Whatever the path to the stop. */
void mpe_launch_fini(struct mpe_primary *p);
/* Start the standby worker processes (`standby` in [engine]; the thread build has none). */
int mpe_launch_standby_start(struct mpe_primary *p);
/* 1 when every standby is parked, 0 not yet, -ECHILD when one failed (logged). */
int mpe_launch_standby_ready(struct mpe_primary *p);

#endif
