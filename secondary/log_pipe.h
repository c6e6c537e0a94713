/* SPDX-License-Identifier: BSD-3-Clause */
/* A spawned worker's log stream: into the primary's pipe, or after the primary's death into
 * the descriptor the primary left for that (see log_pipe.c). */
#ifndef MPE_LOG_PIPE_H
#define MPE_LOG_PIPE_H

/* The descriptor a spawned worker finds the primary's stderr on, given with --log-fd. */
#define MPE_LOG_FALLBACK_FD 3

/* From now on, rte_log messages of worker @id go through the pipe on stdout, or prefixed to
 * @fd once the pipe is broken. 0 or -errno. */
int mpe_log_pipe_init(unsigned int id, int fd);

/* A standby took worker @id's place: its lines are that worker's from now on. */
void mpe_log_pipe_id(unsigned int id);

#endif
