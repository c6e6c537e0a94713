/* SPDX-License-Identifier: BSD-3-Clause */
/* worker_log_process.c or worker_log_thread.c, chosen by meson: the workers' log lines reach
 * the primary's log prefixed "worker N: ". init and fini run on the main lcore: init before
 * the first worker starts, fini once every worker has stopped. */
#ifndef MPE_WORKER_LOG_H
#define MPE_WORKER_LOG_H

struct mpe_primary;

/* 0 or -errno. */
int mpe_worker_log_init(struct mpe_primary *p);
void mpe_worker_log_fini(void);
/* worker_log_process.c only: a pipe for the stdout and stderr of the worker @id about to be
 * spawned. Returns the worker's (write) end, or -errno; after the spawn, whether it worked or
 * not, mpe_worker_log_spawned() closes the primary's copy of it. */
int mpe_worker_log_pipe(unsigned int id);
void mpe_worker_log_spawned(int wfd);
/* Process build: the pipe of instance @from (a standby: MPE_MAX_WORKERS + its number) is worker
 * @to's from now on: its lines are prefixed so. */
void mpe_worker_log_rename(unsigned int from, unsigned int to);

#endif
