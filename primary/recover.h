/* SPDX-License-Identifier: BSD-3-Clause */
/* recover.c: the repair of a dead worker's shared state (rings, the mbufs in its hands, its
 * lcore's mempool cache). Main lcore only, once the worker is gone. */
#ifndef MPE_RECOVER_H
#define MPE_RECOVER_H

#include <stddef.h>

#include "shm.h"

struct mpe_primary;
struct rte_mempool;

/* Worker @id died in its stages, not by its own fault: what the burst in its hands changed in
 * the books (counters, flow entries, rule hits; its undo log) is put back as it was before
 * the burst. Before the worker is taken offline for RCU: the rule set its log points into is
 * still alive. Returns the entries put back (0: none, or not in its stages), or -errno when
 * the log cannot be trusted or overflowed (nothing put back). */
int mpe_recover_undo(struct mpe_primary *p, unsigned int id);
/* After worker @id died. Returns the mbufs reclaimed from its hands, or -errno:
 * -EDEADLK when the pool's ring is left half done, what is stuck in @stuck (nothing was
 * touched: called again once another dead process's part is finished, it goes on). What is
 * reclaimed is counted under drop reason @why (worker_died, or quarantine). @carry: a
 * replacement takes the worker's place at once (a standby) and the death was not the
 * worker's fault: the burst it held is left in its hand for the replacement (phase CARRY,
 * counted in ctl.carried) instead of reclaimed, wherever it can be finished exactly. */
int mpe_recover_worker(struct mpe_primary *p, unsigned int id, enum mpe_drop why, int carry,
		       char *stuck, size_t size);
/* A burst left for a replacement that did not come (phase CARRY): reclaimed and counted
 * under @why. Returns the packets lost. */
unsigned int mpe_recover_carried_drop(struct mpe_primary *p, unsigned int id,
				      enum mpe_drop why);
/* 1 when a process died inside an operation on @mp's ring, which no one can finish: what
 * was seen goes into @why. Waits up to a quarter of a second when head and tail are apart. */
int mpe_recover_pool_stuck(struct rte_mempool *mp, char *why, size_t size);
/* Empty the input ring of a worker that is down for good; returns the packets dropped. */
unsigned int mpe_recover_drain_input(struct mpe_primary *p, unsigned int id);

#endif
