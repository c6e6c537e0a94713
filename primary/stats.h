/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading the engine's counters from shared memory: totals and the final summary.
 * Readers only: counters are read without locks, each from its single writer. */
#ifndef MPE_STATS_H
#define MPE_STATS_H

#include <stdio.h>

#include "shm.h"

struct mpe_totals {
	uint64_t in;  /* packets the engine received from ports */
	uint64_t out; /* packets it transmitted */
	uint64_t dropped;
	uint64_t drops[MPE_DROP_MAX];
	uint64_t in_doubt; /* given to a device call a worker died in: neither out nor dropped */
};

/* The I/O lcores' @nb stats @io[] added up into @sum (running: how many run). */
void mpe_io_sum(const struct mpe_io_stats *io, unsigned int nb, struct mpe_io_stats *sum);
void mpe_stats_totals(const struct mpe_shared *shm, struct mpe_totals *t);
const char *mpe_stats_drop_name(unsigned int reason);
void mpe_stats_summary(const struct mpe_shared *shm, FILE *out);
const char *mpe_stats_state_name(uint32_t state);
/* One line: "in N out N dropped N | w0 running rx N tx N | w1 ...", into @buf. */
void mpe_stats_line(const struct mpe_shared *shm, char *buf, size_t size);

#endif
