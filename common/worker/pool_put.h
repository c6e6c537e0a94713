/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker's side of the pool's recoverable returns (pool.h says why and how): its puts to
 * the cache or the ring, the room it makes before a transmit call and the fill before a
 * receive call. Each runs in the process that owns @pp and the cache, alone; the primary reads
 * @pp only once that process is dead (mpe_pool_put_finish).
 */
#ifndef MPE_POOL_PUT_H
#define MPE_POOL_PUT_H

#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_mempool.h>

#include "pool.h"

struct rte_mbuf;

/* Flush the cache to the pool's ring, recorded in @pp (MPE_PUT_FLUSH): mpe_pool_dev_enter's
 * way of making room. */
void mpe_pool_make_room(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref);

/* Before a transmit call, whose driver frees mbufs through DPDK's own put: DPDK's put
 * counts a new cache entry before it writes it, and flushes the cache before it empties it,
 * so after a death inside the call only the entries the cache held before are sure. Make room
 * (a recoverable flush) so that the call cannot flush, and record the cache's length in
 * @len0, for mpe_pool_trust_cache. */
static inline void
mpe_pool_dev_enter(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref, uint32_t *len0)
{
	const struct rte_mempool_cache *c = ref->cache;

	if (c == NULL)
		return;
	if (unlikely(c->len + ref->room > c->flushthresh))
		mpe_pool_make_room(pp, ref);
	*len0 = c->len;
}

void mpe_pool_fill(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref);

/* Before a receive call, whose driver takes mbufs with DPDK's own get (and before any other
 * allocation through DPDK, a copy): when the cache cannot serve the call, DPDK refills it from
 * the pool's ring, and a death between the move of the ring's consumer head and of its tail
 * leaves the ring stuck for every other user, the slots taken unknown. Fill the cache here
 * instead (a recoverable dequeue, recorded in @pp) when it holds fewer than a call takes at
 * most, so that the call takes from the cache only. */
static inline void
mpe_pool_rx_enter(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref)
{
	if (unlikely(ref->cache != NULL && ref->cache->len < ref->fill_below))
		mpe_pool_fill(pp, ref);
}

/* Free @list[*from .. end), whole chains, through @pp, each mbuf to its pool of
 * @refs[0..nb_refs) (another pool's: through DPDK, MPE_PUT_OPAQUE). *from moves past each group
 * of packets once the put that owns them is recorded in @pp: list[*from .. end) is what the
 * caller still holds, minus any member of a put under way. */
void mpe_pool_free(struct mpe_pool_put *pp, const struct mpe_pool_ref *refs,
		   unsigned int nb_refs, struct rte_mbuf *const *list, volatile uint32_t *from,
		   uint32_t end);

/* mpe_pool_dev_enter for the cache of each pool of @refs[0..nb): a transmit call frees mbufs
 * of any of them. */
static inline void
mpe_pool_dev_enter_all(struct mpe_pool_put *pp, const struct mpe_pool_ref *refs,
		       unsigned int nb, uint32_t *len0)
{
	unsigned int k;

	for (k = 0; k < nb; k++)
		mpe_pool_dev_enter(pp, &refs[k], &len0[k]);
}

#endif /* MPE_POOL_PUT_H */
