/* SPDX-License-Identifier: BSD-3-Clause */
/* supervise.c: the engine from the workers' start to their stop: stop signals, the wait for
 * the workers, the supervising loop, the shutdown, and the way out when the engine can
 * neither go on nor stop in order. Main lcore, and signal handlers. */
#ifndef MPE_SUPERVISE_H
#define MPE_SUPERVISE_H

#include <rte_common.h>

struct mpe_primary;

/* SIGINT and SIGTERM stop the engine (a second one, later than a repeat of the first, ends
 * it at once), SIGHUP reloads the rules, SIGUSR1 writes a dump; SIGPIPE is ignored. Before
 * the EAL starts. */
void mpe_supervise_signals(struct mpe_primary *p);
/* Until every worker is ready: 0, or -ECHILD (one failed or ended), -ETIMEDOUT
 * (ready_timeout_ms; not with --no-spawn, which waits for the operator), -EINTR (a stop
 * signal). */
int mpe_supervise_wait_ready(struct mpe_primary *p);
/* The engine runs: workers' lives, rule reloads, dumps, the stats line, until a stop signal
 * or --idle-exit. */
void mpe_supervise_run(struct mpe_primary *p);
/* Drain what is in flight, stop the workers and the I/O lcore, free what is left in the
 * rings (counted as shutdown drops) and print the summary; safe at any point of start-up
 * (@workers_started: mpe_launch_start() was called). Returns how many workers failed (died,
 * or refused to start). The ports and the shared objects are then the caller's to free. */
unsigned int mpe_supervise_shutdown(struct mpe_primary *p, int workers_started);
/* The engine cannot go on and cannot stop in order (lcores may be stuck for ever): log @why,
 * print the summary, kill the workers, remove the hugepage files and the runtime directory,
 * exit 1 without waiting for any lcore. */
void mpe_supervise_abort(struct mpe_primary *p, const char *why) __rte_noreturn;

#endif
