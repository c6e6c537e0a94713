/* Returns to the mbuf pool, and fills of a cache from it, that survive the death of the
 * process making them (see pool.h). Worker side: mpe_pool_free, on the hot path, no more work
 * than rte_pktmbuf_free_bulk plus a few stores to the worker's own line of shared memory;
 * mpe_pool_fill, the refill DPDK's get would make inside a receive call. Primary side:
 * mpe_pool_put_finish and mpe_pool_free_except, run by the supervisor once the worker is gone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "pool.h"

/* A test build stops the worker side between any two steps (tests/unit/test_pool.c). */
#ifdef MPE_POOL_TEST
void mpe_test_pool_step(const char *step);
#define MPE_POOL_STEP(step) mpe_test_pool_step(step)
#else
#define MPE_POOL_STEP(step) \
	do { \
	} while (0)
#endif

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

static inline void
publish(volatile uint32_t *word, uint32_t value)
{
	__atomic_store_n(word, value, __ATOMIC_RELEASE);
}

void
mpe_pool_ref_init(struct mpe_pool_ref *ref, struct rte_mempool *mp, unsigned int lcore_id,
		  unsigned int burst)
{
	const struct rte_mempool_ops *ops = rte_mempool_get_ops(mp->ops_index);
	struct rte_ring *r = mp->pool_data;

	ref->mp = mp;
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

/* What rte_pktmbuf_prefree_seg does to a segment it returns: a pool holds no chains. */
static inline void
unchain(void *const *objs, uint32_t n)
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
mpe_pool_free(struct mpe_pool_put *pp, const struct mpe_pool_ref *ref,
	      struct rte_mbuf *const *list, volatile uint32_t *from, uint32_t end)
{
	uint32_t i = *from;

	while (i < end) {
		uint32_t k = 0, j;

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
		publish(&pp->state, MPE_PUT_HELD);
		MPE_POOL_STEP("held");
		/* list[i..j) are the put's now */
		publish(from, j);
		MPE_POOL_STEP("handed over");
		unchain(pp->objs, k);
		MPE_POOL_STEP("unchained");
		put(pp, ref);
		publish(&pp->state, MPE_PUT_NONE);
		MPE_POOL_STEP("done");
		i = j;
	}
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
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
	const uint64_t end = now_ns() + (uint64_t)wait_ms * 1000000;
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
		if ((++spins & 1023) == 0 && now_ns() >= end)
			return -EDEADLK;
	}
}

/* Objects no process holds any more, straight into the ring (or through the driver). */
static void
put_back(const struct mpe_pool_ref *ref, void *const *objs, uint32_t n)
{
	unchain(objs, n);
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

	mpe_pool_ref_init(&ref, mp, 0, 0);
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
