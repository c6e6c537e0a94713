/* SPDX-License-Identifier: BSD-3-Clause */
/* Returning mbufs to the pool so that the primary can finish or undo the return after the
 * returning process dies at any instruction: no mbuf is lost, none is handed out twice.
 * DPDK's own put (rte_mempool_do_generic_put) grows the cache's length before it copies the
 * pointers in, and flushes the cache to the pool's ring before it empties it: a process
 * killed between the two leaves stale pointers in its cache, which the recovery's flush would
 * put into the ring a second time. Here every step that changes what the pool holds is a
 * single store, made after what it publishes, and struct mpe_pool_put (in the worker's hand,
 * shared memory, this worker its only writer) says which step the put is at.
 * Here: the record, the process's view of the pool (both sides use it) and the primary's side,
 * run once the worker is dead (pool.c); the worker's side, the puts and fills themselves, is
 * common/worker/pool_put.h.
 */
#ifndef MPE_POOL_H
#define MPE_POOL_H

#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

struct rte_ring;

/* Segments returned in one put: the rest of a burst waits for the next. */
#define MPE_POOL_PUT_MAX 64

enum mpe_pool_put_state {
	MPE_PUT_NONE = 0, /* no put under way; objs[] means nothing */
	MPE_PUT_HELD,	  /* objs[0..n) are this put's, none of them returned yet */
	MPE_PUT_FLUSH,	  /* the cache's objs[0..len0) are going to the ring (head, once
			   * head_set); objs[0..n) wait for the cache */
	MPE_PUT_CACHE,	  /* objs[0..n) are copied to the cache at len0, returned once the
			   * cache's len is len0 + n */
	MPE_PUT_RING,	  /* objs[0..n) are going to the ring (head, once head_set) */
	MPE_PUT_OPAQUE,	  /* objs[0] is being freed by DPDK (a shared or indirect mbuf, a foreign
			   * pool): its fate is unknown to the primary */
	MPE_PUT_FILL,	  /* the cache is being filled from the ring: n entries taken from the
			   * ring at head (once head_set), copied to the cache at len0, and
			   * counted by the cache once its len is len0 + n */
};

struct mpe_pool_put {
	volatile uint32_t state; /* enum mpe_pool_put_state */
	uint32_t n;
	uint32_t len0;
	volatile uint32_t head_set; /* the ring's producer head was moved for this put */
	uint32_t head;		    /* where: the first slot reserved */
	uint32_t pool;		    /* the engine's index of the pool it is for (mpe_names_pool) */
	void *objs[MPE_POOL_PUT_MAX] __rte_cache_aligned;
} __rte_cache_aligned;

/* "held", "into its cache", ...: for logs and dumps. */
const char *mpe_pool_put_state_name(uint32_t state);

/* Where a process returns mbufs: the pool, its ring when it is a classic multi-producer ring
 * (else NULL: returns go through the pool's driver, and a death inside one is not undone),
 * and the process's cache (NULL: none). */
struct mpe_pool_ref {
	struct rte_mempool *mp;
	struct rte_ring *ring;
	struct rte_mempool_cache *cache;
	uint32_t room;	     /* entries one device call may add to the cache or take from it */
	uint32_t fill_below; /* mpe_pool_rx_enter fills a cache shorter than this (0: never) */
	uint32_t index;	     /* the engine's pool index (mpe_names_pool): a put records it */
};

/* Fill @ref for returns to @mp, pool @index of the engine's, from lcore @lcore_id, whose
 * device calls are given at most @burst packets. */
void mpe_pool_ref_init(struct mpe_pool_ref *ref, struct rte_mempool *mp, unsigned int index,
		       unsigned int lcore_id, unsigned int burst);

/* The ref of @refs[0..nb) that @mp is the pool of; NULL: none (a foreign pool). */
static inline const struct mpe_pool_ref *
mpe_pool_ref_of(const struct mpe_pool_ref *refs, unsigned int nb, const struct rte_mempool *mp)
{
	unsigned int k;

	for (k = 0; k < nb; k++)
		if (refs[k].mp == mp)
			return &refs[k];
	return NULL;
}

/* Entries a device call may add to the cache with DPDK's own put (a transmit frees the burst
 * given and earlier ones completed), or take from it with DPDK's get (a receive allocates a
 * burst, or a driver's refill of its ring): the burst, and at least this many. */
#define MPE_POOL_DEV_ROOM 64

/* What one device call of a process whose calls are given @burst packets may add or take. */
static inline uint32_t
mpe_pool_call_room(uint32_t burst)
{
	return RTE_MAX(burst, (uint32_t)MPE_POOL_DEV_ROOM);
}

/* What rte_pktmbuf_prefree_seg does to a segment it returns: a pool holds no chains. Both
 * sides return segments: the worker's puts, the primary's put back. */
static inline void
mpe_pool_unchain(void *const *objs, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = objs[i];

		if (m->next != NULL)
			m->next = NULL;
		if (m->nb_segs != 1)
			m->nb_segs = 1;
	}
}

/* After a death inside a device call that may have returned mbufs (a transmit): keep the
 * entries the cache held when the call began (@len0), write off those it added, which DPDK
 * may have counted before writing, or all of them when the cache is shorter than at the start
 * (the call flushed it after all). Returns the entries written off. */
uint32_t mpe_pool_trust_cache(const struct mpe_pool_ref *ref, uint32_t len0);

/* What mpe_pool_put_finish found and did. */
struct mpe_pool_finish {
	uint32_t state;	    /* the put's state at the death */
	uint32_t completed; /* slots of its ring enqueue filled, or of a fill's dequeue copied,
			     * and published on its behalf */
	uint32_t put_back;  /* its objects returned here, the put never having returned them */
	uint32_t counted;   /* entries a fill had taken from the ring, counted here in its cache */
};

/* After the process owning @pp died: finish or undo the put it left under way, so that every
 * object of it is in the pool exactly once and its cache holds nothing twice; finish a fill
 * of its cache, so that the entries it took from the ring are in the cache. objs[0..n) of a
 * put stay as they were, for mpe_pool_free_except. Waits at most @wait_ms for the ring's other
 * producers (consumers, for a fill). Returns 0; -EINVAL when @pp contradicts the cache (left
 * alone); -EDEADLK when the ring's head was moved but not yet recorded (the process died on
 * the next instruction) or other users of that side kept it apart: the ring stays stuck, and
 * which slots the dead process reserved is unknown. */
int mpe_pool_put_finish(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref,
			unsigned int wait_ms, struct mpe_pool_finish *out);

/* The part of mpe_pool_put_finish that touches the ring's slots only: an enqueue or a fill
 * that reserved slots is finished, and nothing is put back (which could wait, inside DPDK's
 * enqueue, for another dead process's slots). A put's objects that still wait for the pool
 * are left HELD in @pp, for mpe_pool_put_finish. Same returns. */
int mpe_pool_slots_finish(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref,
			  unsigned int wait_ms, struct mpe_pool_finish *out);

/* Free @list[from..end), whole chains, except the packets whose first segment is one of
 * @except[0..nb_except) (a put's objects: already returned). Returns the packets freed. */
uint32_t mpe_pool_free_except(struct rte_mbuf *const *list, uint32_t from, uint32_t end,
			      void *const *except, uint32_t nb_except);

/* With nothing using @mp: count its objects that are in neither its ring nor a cache
 * (@missing: lost, or still held) and the entries of its ring and caches that repeat an
 * object or are none of its objects (@twice: each would be handed out twice). 0, -ENOTSUP
 * (not a classic ring) or -ENOMEM. */
int mpe_pool_audit(struct rte_mempool *mp, unsigned int *missing, unsigned int *twice);

#endif /* MPE_POOL_H */
