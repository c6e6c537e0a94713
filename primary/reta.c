/* SPDX-License-Identifier: BSD-3-Clause */
/* RSS redirection tables over the queues the workers poll (reta.h). */
#include <string.h>

#include "reta.h"

uint16_t
mpe_reta_polled(const struct mpe_conf *conf, uint16_t rx_queues, uint16_t *polled)
{
	uint16_t nb = 0, q;
	unsigned int i;

	for (q = 0; q < rx_queues && q < MPE_MAX_QUEUES; q++)
		for (i = 0; i < conf->nb_workers; i++)
			if (conf->workers[i].queue == q) {
				polled[nb++] = q;
				break;
			}
	return nb;
}

void
mpe_reta_fill(struct rte_eth_rss_reta_entry64 *reta, uint16_t size, const uint16_t *polled,
	      uint16_t nb)
{
	uint16_t i;

	for (i = 0; i < size; i++) {
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask |= 1ULL << (i % RTE_ETH_RETA_GROUP_SIZE);
		*mpe_reta_entry(reta, i) = polled[i % nb];
	}
}

unsigned int
mpe_reta_stray(struct rte_eth_rss_reta_entry64 *reta, uint16_t size, const uint16_t *polled,
	       uint16_t nb, uint16_t rx_queues, unsigned int *per_queue)
{
	unsigned int stray = 0;
	uint16_t i, j, q;

	memset(per_queue, 0, rx_queues * sizeof(*per_queue));
	for (i = 0; i < size; i++) {
		q = *mpe_reta_entry(reta, i);
		for (j = 0; j < nb && polled[j] != q; j++)
			;
		if (q < rx_queues)
			per_queue[q]++;
		if (j == nb)
			stray++;
	}
	return stray;
}
