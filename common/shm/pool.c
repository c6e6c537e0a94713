/* SPDX-License-Identifier: BSD-3-Clause */
/* The mbuf pool as both sides see it (mpe_pool_ref_init), and the primary's side of the
 * recoverable returns (pool.h): run by the supervisor once the worker is gone, alone on that
 * worker's put record and cache; mpe_pool_audit with nothing using the pool. The worker's side
 * is common/worker/pool_put.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "clock.h"
#include "pool.h"

const char *
mpe_pool_put_state_name(uint32_t state)
{
	static const char *const names[] = {
		[MPE_PUT_NONE] = "none",
		[MPE_PUT_HELD] = "held",
		[MPE_PUT_FLUSH] = "flushing its cache",
		[MPE_PUT_CACHE] = "into its cache",
		[MPE_PUT_RING] = "into the ring",
		[MPE_PUT_OPAQUE] = "DPDK's free",
		[MPE_PUT_FILL] = "filling its cache",
	};

	return state < RTE_DIM(names) ? names[state] : "?";
}

void
mpe_pool_ref_init(struct mpe_pool_ref *ref, struct rte_mempool *mp, unsigned int index,
		  unsigned int lcore_id, unsigned int burst)
{
	const struct rte_mempool_ops *ops = rte_mempool_get_ops(mp->ops_index);
	struct rte_ring *r = mp->pool_data;

	ref->mp = mp;
	ref->index = index;
	ref->ring = NULL;
	/* the driver that keeps the objects in a classic multi-producer rte_ring */
	if (strcmp(ops->name, "ring_mp_mc") == 0 && r != NULL &&
	    r->prod.sync_type == RTE_RING_SYNC_MT)
		ref->ring = r;
	ref->cache = rte_mempool_default_cache(mp, lcore_id);
	ref->room = mpe_pool_call_room(burst);
	/* a cache of at most what one call takes cannot be filled ahead of the call */
	ref->fill_below = 0;
	if (ref->ring != NULL && ref->cache != NULL && ref->cache->size > ref->room)
		ref->fill_below = ref->room;
}

uint32_t
mpe_pool_trust_cache(const struct mpe_pool_ref *ref, uint32_t len0)
{
	struct rte_mempool_cache *c = ref->cache;
	uint32_t off;

	if (c == NULL)
		return 0;
	off = c->len >= len0 ? c->len - len0 : c->len;
	c->len -= off;
	return off;
}

enum { RING_UNTOUCHED, RING_DONE };

/* The dead process's enqueue of @objs[0..n) to the ring (@take: its dequeue of n entries into
 * @objs): done (by it, or here on its behalf), never begun, or -EDEADLK when that cannot be
 * told within @wait_ms. */
static int
ring_finish(const struct mpe_pool_put *pp, struct rte_ring *r, void **objs, uint32_t n,
	    int take, unsigned int wait_ms, struct mpe_pool_finish *out)
{
	struct rte_ring_headtail *ht = take ? &r->cons : &r->prod;
	const uint64_t end = mpe_clock_ns(CLOCK_MONOTONIC) + (uint64_t)wait_ms * 1000000;
	unsigned int spins = 0;

	for (;; rte_pause()) {
		if (!pp->head_set) {
			/* a slot reserved by the dead process would keep the tail short of the
			 * head for ever: head and tail seen equal (head read first) say none was */
			uint32_t head = __atomic_load_n(&ht->head, __ATOMIC_ACQUIRE);

			if (__atomic_load_n(&ht->tail, __ATOMIC_ACQUIRE) == head)
				return RING_UNTOUCHED;
		} else {
			uint32_t tail = __atomic_load_n(&ht->tail, __ATOMIC_ACQUIRE);

			/* the tail passes the slots only once their copy is made and the dead
			 * process has moved it */
			if ((int32_t)(tail - pp->head) > 0)
				return RING_DONE;
			if (tail == pp->head) {
				/* every earlier user of this side is done: finish as the dead one
				 * would have (a copy it made already is made again, the same) */
				if (take)
					__rte_ring_dequeue_elems(r, pp->head, objs, sizeof(void *), n);
				else
					__rte_ring_enqueue_elems(r, pp->head, objs, sizeof(void *), n);
				__atomic_store_n(&ht->tail, pp->head + n, __ATOMIC_RELEASE);
				out->completed = n;
				return RING_DONE;
			}
		}
		if ((++spins & 1023) == 0 && mpe_clock_ns(CLOCK_MONOTONIC) >= end)
			return -EDEADLK;
	}
}

/* Objects no process holds any more, straight into the ring (or through the driver). */
static void
put_back(const struct mpe_pool_ref *ref, void *const *objs, uint32_t n)
{
	mpe_pool_unchain(objs, n);
	if (ref->ring != NULL)
		rte_ring_mp_enqueue_bulk(ref->ring, objs, n, NULL);
	else
		rte_mempool_generic_put(ref->mp, (void **)(uintptr_t)objs, n, NULL);
}

int
mpe_pool_slots_finish(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref,
		      unsigned int wait_ms, struct mpe_pool_finish *out)
{
	struct rte_mempool_cache *c = ref->cache;
	uint32_t state = __atomic_load_n(&pp->state, __ATOMIC_ACQUIRE);
	int rc;

	*out = (struct mpe_pool_finish){.state = state};

	switch (state) {
	case MPE_PUT_FLUSH:
		if (c == NULL || ref->ring == NULL || pp->len0 > RTE_DIM(c->objs))
			return -EINVAL;
		rc = ring_finish(pp, ref->ring, c->objs, pp->len0, 0, wait_ms, out);
		if (rc < 0)
			return rc;
		/* in the ring now: out of the cache, unless the put had emptied it already */
		if (rc == RING_DONE && c->len == pp->len0)
			c->len = 0;
		/* the put's own objects (none for room made before a device call) still wait */
		pp->state = pp->n > 0 ? MPE_PUT_HELD : MPE_PUT_NONE;
		break;
	case MPE_PUT_RING:
		if (ref->ring == NULL)
			return -EINVAL;
		rc = ring_finish(pp, ref->ring, pp->objs, RTE_MIN(pp->n, (uint32_t)MPE_POOL_PUT_MAX),
				 0, wait_ms, out);
		if (rc < 0)
			return rc;
		pp->state = rc == RING_DONE ? MPE_PUT_NONE : MPE_PUT_HELD;
		break;
	case MPE_PUT_FILL:
		if (c == NULL || ref->ring == NULL || pp->len0 > RTE_DIM(c->objs) ||
		    (pp->head_set && pp->n > RTE_DIM(c->objs) - pp->len0))
			return -EINVAL;
		if (!(pp->head_set && c->len == pp->len0 + pp->n)) { /* else counted: done */
			if (c->len != pp->len0)
				return -EINVAL;
			rc = ring_finish(pp, ref->ring, &c->objs[pp->len0], pp->n, 1, wait_ms,
					 out);
			if (rc < 0)
				return rc;
			/* taken from the ring and copied: the cache counts them, as the fill
			 * would */
			if (rc == RING_DONE) {
				c->len = pp->len0 + pp->n;
				out->counted = pp->n;
			}
		}
		pp->state = MPE_PUT_NONE;
		break;
	default: /* no operation on the ring under way */
		break;
	}
	return 0;
}

int
mpe_pool_put_finish(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref,
		    unsigned int wait_ms, struct mpe_pool_finish *out)
{
	struct rte_mempool_cache *c = ref->cache;
	uint32_t n;
	int rc;

	rc = mpe_pool_slots_finish(pp, ref, wait_ms, out);
	if (rc < 0)
		return rc;
	n = RTE_MIN(pp->n, (uint32_t)MPE_POOL_PUT_MAX);
	switch (pp->state) {
	case MPE_PUT_HELD:
		break;
	case MPE_PUT_CACHE:
		if (c == NULL)
			return -EINVAL;
		if (c->len == pp->len0 + n)
			n = 0; /* counted by the cache: returned */
		else if (c->len != pp->len0)
			return -EINVAL;
		break;
	default: /* NONE; OPAQUE: DPDK's free, which is not undone */
		n = 0;
		break;
	}
	if (n > 0)
		put_back(ref, pp->objs, n);
	out->put_back = n;
	pp->state = MPE_PUT_NONE;
	return 0;
}

uint32_t
mpe_pool_free_except(struct rte_mbuf *const *list, uint32_t from, uint32_t end,
		     void *const *except, uint32_t nb_except)
{
	uint32_t i, x, freed = 0;

	for (i = from; i < end; i++) {
		for (x = 0; x < nb_except && except[x] != list[i]; x++)
			;
		if (x < nb_except)
			continue;
		rte_pktmbuf_free(list[i]);
		freed++;
	}
	return freed;
}

struct objs {
	void **v;
	uint32_t n, size;
};

static void
collect(struct rte_mempool *mp __rte_unused, void *arg, void *obj, unsigned int idx __rte_unused)
{
	struct objs *o = arg;

	if (o->n < o->size)
		o->v[o->n++] = obj;
}

static int
cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

static void
tally(const struct objs *o, uint8_t *seen, void *obj, unsigned int *twice)
{
	void **at = bsearch(&obj, o->v, o->n, sizeof(void *), cmp_ptr);

	if (at == NULL || seen[at - o->v]++ != 0)
		(*twice)++; /* not one of the pool's, or counted already */
}

int
mpe_pool_audit(struct rte_mempool *mp, unsigned int *missing, unsigned int *twice)
{
	struct mpe_pool_ref ref;
	struct objs o = {.size = mp->size};
	uint8_t *seen;
	uint32_t i, idx;
	unsigned int lcore;

	mpe_pool_ref_init(&ref, mp, 0, 0, 0);
	if (ref.ring == NULL)
		return -ENOTSUP;
	o.v = calloc(o.size, sizeof(void *));
	seen = calloc(o.size, 1);
	if (o.v == NULL || seen == NULL) {
		free(o.v);
		free(seen);
		return -ENOMEM;
	}
	rte_mempool_obj_iter(mp, collect, &o);
	qsort(o.v, o.n, sizeof(void *), cmp_ptr);
	*twice = 0;
	for (idx = ref.ring->cons.tail; idx != ref.ring->prod.tail; idx++)
		tally(&o, seen, ((void **)&ref.ring[1])[idx & ref.ring->mask], twice);
	for (lcore = 0; mp->cache_size != 0 && lcore < RTE_MAX_LCORE; lcore++) {
		const struct rte_mempool_cache *c = &mp->local_cache[lcore];

		for (i = 0; i < RTE_MIN(c->len, (uint32_t)RTE_DIM(c->objs)); i++)
			tally(&o, seen, c->objs[i], twice);
	}
	*missing = 0;
	for (i = 0; i < o.n; i++)
		*missing += seen[i] == 0;
	free(o.v);
	free(seen);
	return 0;
}
