/* SPDX-License-Identifier: BSD-3-Clause */
/* Shape rss with the workers on queues of their choice: an RSS redirection table that
 * spreads over the RX queues the workers poll and no other, and the check of the table a
 * device gives back. The ethdev calls are the primary's (primary/port.c); nothing here needs
 * the EAL. */
#ifndef MPE_RETA_H
#define MPE_RETA_H

#include <stdint.h>

#include <rte_ethdev.h>

#include "config.h"

/* The queues below @rx_queues that a worker of @conf polls, in increasing order, into
 * @polled (MPE_MAX_QUEUES entries); returns how many. */
uint16_t mpe_reta_polled(const struct mpe_conf *conf, uint16_t rx_queues, uint16_t *polled);

/* Groups of RTE_ETH_RETA_GROUP_SIZE entries a table of @size entries takes. */
static inline unsigned int
mpe_reta_groups(uint16_t size)
{
	return (size + RTE_ETH_RETA_GROUP_SIZE - 1u) / RTE_ETH_RETA_GROUP_SIZE;
}

/* Entry @i of a table of groups. */
static inline uint16_t *
mpe_reta_entry(struct rte_eth_rss_reta_entry64 *reta, uint16_t i)
{
	return &reta[i / RTE_ETH_RETA_GROUP_SIZE].reta[i % RTE_ETH_RETA_GROUP_SIZE];
}

/* Sets the @size entries of @reta (mpe_reta_groups(@size) groups, zeroed) to the @nb (>= 1)
 * queues of @polled in turn, each entry's mask bit set. */
void mpe_reta_fill(struct rte_eth_rss_reta_entry64 *reta, uint16_t size, const uint16_t *polled,
		   uint16_t nb);

/* Reads a table the device gave back: @per_queue[q] (@rx_queues counters, zeroed here) gets
 * the entries pointing at queue q. Returns the entries pointing at a queue not in @polled
 * (any queue no worker polls, or none of the device's). */
unsigned int mpe_reta_stray(struct rte_eth_rss_reta_entry64 *reta, uint16_t size,
			    const uint16_t *polled, uint16_t nb, uint16_t rx_queues,
			    unsigned int *per_queue);

#endif
