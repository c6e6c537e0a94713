/* SPDX-License-Identifier: BSD-3-Clause */
/* The undo log of the burst in a worker's stages (process build): before a counter that the
 * burst moves is written, its address and old value are logged, so that after the worker is
 * killed in its stages the primary can put every counter back as it was before the burst and
 * hand the burst, untouched by the books, to the replacement, which runs it again
 * (docs/recovery.md#a-burst-carried-to-the-replacement). The worker is the log's only writer
 * and the primary reads it only once the worker is gone: compiler barriers, no fence. A log
 * that fills up says so (n past MPE_UNDO_MAX): that burst cannot be undone, and is counted
 * lost as before.
 */
#ifndef MPE_UNDO_H
#define MPE_UNDO_H

#include <stdint.h>

#include <rte_atomic.h>
#include <rte_branch_prediction.h>
#include <rte_common.h>

#include "config.h"

/* Entries one burst can need: per packet the flow entry's packets and bytes, the rule hit,
 * a malformed or quarantine count; per stage and per burst a few counters. */
#define MPE_UNDO_MAX (4 * MPE_MAX_BURST + 256)

struct mpe_undo_entry {
	uint64_t *at; /* a counter in DPDK memory (same address in every process) */
	uint64_t old; /* its value before this write (in reverse order: before the burst) */
};

struct mpe_undo {
	/* entries logged since the burst entered its stages; past MPE_UNDO_MAX: overflowed */
	volatile uint32_t n;
	uint32_t reserved;
	struct mpe_undo_entry e[MPE_UNDO_MAX];
};

/* *@at += @d, logged first when @u is not NULL. A death after the entry is counted and
 * before the store puts back the value the counter still has: harmless. */
static __rte_always_inline void
mpe_undo_add(struct mpe_undo *u, uint64_t *at, uint64_t d)
{
	const uint64_t old = *at;

	if (u != NULL) {
		const uint32_t k = u->n;

		if (likely(k < MPE_UNDO_MAX)) {
			u->e[k].at = at;
			u->e[k].old = old;
			rte_compiler_barrier();
			u->n = k + 1;
		} else {
			u->n = MPE_UNDO_MAX + 1;
		}
		rte_compiler_barrier();
	}
	*at = old + d;
}

/* A new burst enters the stages: nothing of it to undo yet. */
static __rte_always_inline void
mpe_undo_reset(struct mpe_undo *u)
{
	if (u != NULL)
		u->n = 0;
}

#endif
