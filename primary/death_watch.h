/* SPDX-License-Identifier: BSD-3-Clause */
/* death_watch.c: a worker's death seen when its polling thread dies, before its process has
 * ended (process build). */
#ifndef MPE_DEATH_WATCH_H
#define MPE_DEATH_WATCH_H

#include <stdint.h>
#include <sys/types.h>

struct mpe_primary;

/* Start the watcher thread; returns an eventfd, readable when a death is to be taken, to put
 * in the supervision loop's epoll set, or -errno. */
int mpe_death_watch_start(struct mpe_primary *p);
/* The pid of worker @id whose polling thread died since the last call, 0: none; and when
 * the watcher saw it (@seen_tsc, TSC; @seen_ns, CLOCK_MONOTONIC). */
pid_t mpe_death_watch_take(unsigned int id, uint64_t *seen_tsc, uint64_t *seen_ns);
/* Empty the eventfd (after a wake-up). */
void mpe_death_watch_clear(void);
void mpe_death_watch_stop(void);

#endif
