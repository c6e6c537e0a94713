/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker's side of the returns to the mbuf pool, and of the fills of its cache from the
 * pool, that survive the death of the process making them (pool.h, pool_put.h): mpe_pool_free,
 * on the hot path, no more work than rte_pktmbuf_free_bulk plus a few stores to the worker's
 * own line of shared memory; mpe_pool_fill, the refill DPDK's get would make inside a receive
 * call. Run by the process owning the put record and the cache, alone; every step is a store
 * made after what it publishes, for the primary to read after a death (shm/pool.c).
 */
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "pool_put.h"

/* A test build stops the worker side between any two steps (tests/unit/test_pool.c). */
#ifdef MPE_POOL_TEST
void mpe_test_pool_step(const char *step);
#define MPE_POOL_STEP(step) mpe_test_pool_step(step)
#else
#define MPE_POOL_STEP(step) \
	do { \
	} while (0)
#endif

static inline void
publish(volatile uint32_t *word, uint32_t value)
{
	__atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/* Enqueue @objs[0..n) to the pool's ring as rte_ring_mp_enqueue_bulk does, with the slots it
 * reserves recorded in @pp as soon as they are (pp->head_set was cleared by the caller). */
static inline void
ring_put(struct mpe_pool_put *pp, struct rte_ring *r, void *const *objs, uint32_t n)
{
	uint32_t head, next, free_entries;

	/* never short: the pool's ring has room for every object of the pool */
	if (__rte_ring_move_prod_head(r, 0, n, RTE_RING_QUEUE_FIXED, &head, &next,
				      &free_entries) == 0)
		return;
	MPE_POOL_STEP("reserved");
	pp->head = head;
	publish(&pp->head_set, 1);
	rte_compiler_barrier(); /* nothing of the enqueue is done before the record */
	MPE_POOL_STEP("head recorded");
	__rte_ring_enqueue_elems(r, head, objs, sizeof(void *), n);
	MPE_POOL_STEP("written");
	__rte_ring_update_tail(&r->prod, head, next, 0, 1);
	MPE_POOL_STEP("tail moved");
}

void
mpe_pool_make_room(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref)
{
	struct rte_mempool_cache *c = ref->cache;

	if (ref->ring == NULL) {
		rte_mempool_cache_flush(c, ref->mp); /* another driver: not recoverable */
		return;
	}
	pp->n = 0;
	pp->len0 = c->len;
	pp->head_set = 0;
	pp->pool = ref->index;
	publish(&pp->state, MPE_PUT_FLUSH);
	ring_put(pp, ref->ring, c->objs, c->len);
	__atomic_store_n(&c->len, 0, __ATOMIC_RELEASE);
	publish(&pp->state, MPE_PUT_NONE);
}

void
mpe_pool_fill(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref)
{
	struct rte_mempool_cache *c = ref->cache;
	struct rte_ring *r = ref->ring;
	uint32_t len = c->len, n, head, next, entries;

	/* up to the cache's size, as DPDK's refill leaves it after a call */
	if (len >= c->size)
		return;
	pp->len0 = len;
	pp->head_set = 0;
	pp->pool = ref->index;
	publish(&pp->state, MPE_PUT_FILL);
	MPE_POOL_STEP("filling");
	n = __rte_ring_move_cons_head(r, 0, c->size - len, RTE_RING_QUEUE_VARIABLE, &head, &next,
				      &entries);
	if (n > 0) {
		MPE_POOL_STEP("taken");
		pp->n = n;
		pp->head = head;
		publish(&pp->head_set, 1);
		rte_compiler_barrier(); /* nothing of the dequeue is done before the record */
		MPE_POOL_STEP("take recorded");
		__rte_ring_dequeue_elems(r, head, &c->objs[len], sizeof(void *), n);
		MPE_POOL_STEP("taken copied");
		__rte_ring_update_tail(&r->cons, head, next, 0, 0);
		MPE_POOL_STEP("take done");
		/* the entries are in place before the cache counts them */
		__atomic_store_n(&c->len, len + n, __ATOMIC_RELEASE);
		MPE_POOL_STEP("fill counted");
	}
	publish(&pp->state, MPE_PUT_NONE);
}

/* objs[0..n) of @pp (recorded, HELD) into the cache, or the ring when they do not fit. */
static inline void
put(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref)
{
	struct rte_mempool_cache *c = ref->cache;
	uint32_t n = pp->n, len;

	if (unlikely(ref->ring == NULL)) {
		/* another pool driver: DPDK's own put, whose interruption is not undone */
		publish(&pp->state, MPE_PUT_OPAQUE);
		rte_mempool_generic_put(ref->mp, pp->objs, n, c);
		return;
	}
	if (c == NULL || n > c->flushthresh) {
		pp->head_set = 0;
		publish(&pp->state, MPE_PUT_RING);
		MPE_POOL_STEP("to the ring");
		ring_put(pp, ref->ring, pp->objs, n);
		return;
	}
	len = c->len;
	if (len + n > c->flushthresh) {
		/* as DPDK does: the whole cache goes to the ring, the new objects stay hot */
		pp->len0 = len;
		pp->head_set = 0;
		publish(&pp->state, MPE_PUT_FLUSH);
		MPE_POOL_STEP("flushing");
		ring_put(pp, ref->ring, c->objs, len);
		__atomic_store_n(&c->len, 0, __ATOMIC_RELEASE);
		MPE_POOL_STEP("flushed");
		len = 0;
	}
	pp->len0 = len;
	publish(&pp->state, MPE_PUT_CACHE);
	MPE_POOL_STEP("to the cache");
	memcpy(&c->objs[len], pp->objs, n * sizeof(void *));
	MPE_POOL_STEP("copied");
	/* the copy is in place before the cache counts it */
	__atomic_store_n(&c->len, len + n, __ATOMIC_RELEASE);
	MPE_POOL_STEP("counted");
}

/* A segment returned as DPDK returns it at refcnt 1: direct, from this pool. */
static inline int
plain(const struct rte_mbuf *s, const struct rte_mempool *mp)
{
	return rte_mbuf_refcnt_read(s) == 1 && RTE_MBUF_DIRECT(s) && s->pool == mp;
}

/* A packet that is not plain (a clone's, shared, attached, another pool's): DPDK frees it. */
static __rte_noinline void
free_opaque(struct mpe_pool_put *pp, struct rte_mbuf *m, volatile uint32_t *from,
	    uint32_t next)
{
	pp->objs[0] = m;
	pp->n = 1;
	publish(&pp->state, MPE_PUT_OPAQUE);
	publish(from, next);
	rte_pktmbuf_free(m);
	publish(&pp->state, MPE_PUT_NONE);
}

void
mpe_pool_free(struct mpe_pool_put *pp, const struct mpe_pool_ref *refs, unsigned int nb_refs,
	      struct rte_mbuf *const *list, volatile uint32_t *from, uint32_t end)
{
	uint32_t i = *from;

	while (i < end) {
		/* a put returns to one pool: the first packet's, and the packets after it of
		 * the same pool */
		const struct mpe_pool_ref *ref =
			likely(nb_refs == 1) ? refs : mpe_pool_ref_of(refs, nb_refs, list[i]->pool);
		uint32_t k = 0, j;

		if (unlikely(ref == NULL)) {
			free_opaque(pp, list[i], from, i + 1);
			i++;
			continue;
		}
		/* whole packets, read only: nothing changes before the put owns them */
		for (j = i; j < end; j++) {
			uint32_t k0 = k;
			struct rte_mbuf *s;

			for (s = list[j]; s != NULL; s = s->next) {
				if (unlikely(k == MPE_POOL_PUT_MAX || !plain(s, ref->mp)))
					break;
				pp->objs[k++] = s;
			}
			if (unlikely(s != NULL)) {
				k = k0;
				break;
			}
		}
		if (unlikely(k == 0)) {
			free_opaque(pp, list[i], from, i + 1);
			i++;
			continue;
		}
		pp->n = k;
		pp->pool = ref->index;
		publish(&pp->state, MPE_PUT_HELD);
		MPE_POOL_STEP("held");
		/* list[i..j) are the put's now */
		publish(from, j);
		MPE_POOL_STEP("handed over");
		mpe_pool_unchain(pp->objs, k);
		MPE_POOL_STEP("unchained");
		put(pp, ref);
		publish(&pp->state, MPE_PUT_NONE);
		MPE_POOL_STEP("done");
		i = j;
	}
}
