/* SPDX-License-Identifier: BSD-3-Clause */
/* Returns to the pool that survive the death of the returning process (the worker's side,
 * common/worker/pool_put.c, built here with MPE_POOL_TEST; the primary's, common/shm/pool.c):
 * every free is cut short after each of its steps in turn, as a SIGKILL there would, and the
 * primary's recovery (mpe_pool_put_finish, then the free of what the hand still holds, then
 * the flush of the dead process's cache) must leave each mbuf in the pool exactly once,
 * unchained; with two pools (an engine with a pool per socket or per port), each in its own.
 * No EAL: the pools, their rings and caches live in ordinary memory, and a mempool driver
 * over a pool's ring serves DPDK's own frees.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "pool.h"
#include "pool_put.h"

#define NB_MBUFS 600
#define RING_SIZE 1024
#define CACHE_SIZE 256

static int failures;

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			failures++; \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} while (0)

/* the death: after @steps_left steps of the worker side, never when 0 */
static jmp_buf death;
static unsigned int steps_left;
static const char *died_at;

void mpe_test_pool_step(const char *step);

void
mpe_test_pool_step(const char *step)
{
	if (steps_left != 0 && --steps_left == 0) {
		died_at = step;
		longjmp(death, 1);
	}
}

static struct rte_mempool *mp;
static struct rte_ring *ring;
/* where the ring's indices start: 0, or close below their wrap (UINT32_MAX - 300: the pool's
 * 600 mbufs then also cross the end of the ring's slots) */
static uint32_t ring_start;
static struct rte_mempool_cache *cache;
static struct rte_mbuf *mbufs;
/* a second pool, for the runs of packets of two pools */
static struct rte_mempool *mp2;
static struct rte_ring *ring2;
static struct rte_mempool_cache *cache2;
static struct rte_mbuf *mbufs2;

/* a mempool driver over `ring`, for what DPDK frees itself (rte_pktmbuf_free) */
static int
ring_enqueue(struct rte_mempool *pool, void *const *objs, unsigned int n)
{
	return rte_ring_mp_enqueue_bulk(pool->pool_data, objs, n, NULL) == n ? 0 : -ENOBUFS;
}

static int
ring_dequeue(struct rte_mempool *pool, void **objs, unsigned int n)
{
	return rte_ring_mc_dequeue_bulk(pool->pool_data, objs, n, NULL) == n ? 0 : -ENOENT;
}

static unsigned int
ring_count(const struct rte_mempool *pool)
{
	return rte_ring_count(pool->pool_data);
}

static int
ring_alloc(struct rte_mempool *pool __rte_unused)
{
	return 0; /* the ring is set up by the test */
}

static void
ring_free(struct rte_mempool *pool __rte_unused)
{
}

static struct rte_mempool_ops test_ops = {
	.name = "test_ring",
	.alloc = ring_alloc,
	.free = ring_free,
	.enqueue = ring_enqueue,
	.dequeue = ring_dequeue,
	.get_count = ring_count,
};

static void
setup_one(int idx, const char *name, struct rte_mempool **p, struct rte_ring **r,
	  struct rte_mempool_cache **c, struct rte_mbuf **m)
{
	*p = calloc(1, sizeof(**p));
	*r = aligned_alloc(RTE_CACHE_LINE_SIZE, rte_ring_get_memsize(RING_SIZE));
	*c = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(**c));
	*m = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(**m) * NB_MBUFS);
	if (idx < 0 || *p == NULL || *r == NULL || *c == NULL || *m == NULL ||
	    rte_ring_init(*r, name, RING_SIZE, 0) != 0) {
		printf("FAIL setup\n");
		exit(1);
	}
	(*p)->pool_data = *r;
	(*p)->ops_index = idx;
	(*p)->size = NB_MBUFS;
	memset(*c, 0, sizeof(**c));
	(*c)->size = CACHE_SIZE;
	(*c)->flushthresh = CACHE_SIZE * 3 / 2; /* as DPDK sets it */
}

static void
setup(void)
{
	int idx = rte_mempool_register_ops(&test_ops);

	setup_one(idx, "test_pool", &mp, &ring, &cache, &mbufs);
	setup_one(idx, "test_pool2", &mp2, &ring2, &cache2, &mbufs2);
}

static void
reset_one(struct rte_mempool *p, struct rte_ring *r, struct rte_mempool_cache *c,
	  struct rte_mbuf *m)
{
	void *objs[NB_MBUFS];
	int i;

	r->prod.head = r->prod.tail = r->cons.head = r->cons.tail = ring_start;
	c->len = 0;
	memset(m, 0, sizeof(*m) * NB_MBUFS);
	for (i = 0; i < NB_MBUFS; i++) {
		m[i].pool = p;
		m[i].nb_segs = 1;
		rte_mbuf_refcnt_set(&m[i], 1);
		objs[i] = &m[i];
	}
	rte_ring_mp_enqueue_bulk(r, objs, NB_MBUFS, NULL);
}

/* Everything back in the ring, unchained, each once; the cache empty. */
static void
reset_pool(void)
{
	reset_one(mp, ring, cache, mbufs);
	reset_one(mp2, ring2, cache2, mbufs2);
}

static struct rte_mbuf *
take_from(struct rte_ring *r)
{
	void *m = NULL;

	if (rte_ring_mc_dequeue(r, &m) != 0) {
		printf("FAIL the test pool ran dry\n");
		exit(1);
	}
	return m;
}

static struct rte_mbuf *
take(void)
{
	return take_from(ring);
}

/* A packet of @segs segments taken from the ring @r, as a driver chains them. */
static struct rte_mbuf *
packet_of(struct rte_ring *r, unsigned int segs)
{
	struct rte_mbuf *head = take_from(r), *m = head;
	unsigned int i;

	for (i = 1; i < segs; i++) {
		m->next = take_from(r);
		m = m->next;
	}
	head->nb_segs = (uint16_t)segs;
	return head;
}

/* Every mbuf of @mb in the ring @r (the cache @c flushed, as recovery does) exactly once,
 * unchained, and nothing else. */
static void
check_one(struct rte_ring *r, struct rte_mempool_cache *c, struct rte_mbuf *mb,
	  const char *what, unsigned int shared)
{
	uint8_t seen[NB_MBUFS] = {0};
	unsigned int twice = 0, missing = 0, chained = 0, foreign = 0, i;
	uint32_t idx;

	if (c->len > 0) {
		rte_ring_mp_enqueue_bulk(r, c->objs, c->len, NULL);
		c->len = 0;
	}
	CHECK(r->prod.head == r->prod.tail, "%s: the ring's enqueue is left open", what);
	for (idx = r->cons.tail; idx != r->prod.tail; idx++) {
		struct rte_mbuf *m = ((void **)&r[1])[idx & r->mask];
		long k = m - mb;

		if (k < 0 || k >= NB_MBUFS) {
			foreign++;
			continue;
		}
		twice += seen[k]++ != 0;
		chained += m->next != NULL || m->nb_segs != 1;
	}
	for (i = 0; i < NB_MBUFS; i++)
		missing += seen[i] == 0;
	CHECK(twice == 0 && foreign == 0, "%s: %u mbufs in the pool twice, %u unknown", what,
	      twice, foreign);
	CHECK(missing == shared, "%s: %u mbufs missing from the pool, %u expected", what,
	      missing, shared);
	CHECK(chained == 0, "%s: %u mbufs in the pool still chained", what, chained);
}

/* Both pools: each of its mbufs in its ring once; @shared missing from the first. */
static void
check_pool(const char *what, unsigned int shared)
{
	char w2[200];

	check_one(ring, cache, mbufs, what, shared);
	snprintf(w2, sizeof(w2), "%s (second pool)", what);
	check_one(ring2, cache2, mbufs2, w2, 0);
}

struct scenario {
	const char *name;
	unsigned int cache_len; /* mbufs in the cache before the free; UINT32_MAX: no cache */
	unsigned int nb_pkts;
	unsigned int segs;	 /* segments per packet */
	unsigned int shared_at;	 /* this packet is shared (refcnt 2), UINT32_MAX: none */
	unsigned int two_pools;	 /* packets 3..5, 9..11, ... are of the second pool */
	const char *must_die_at[8]; /* steps this scenario must pass through */
};

static const struct scenario scenarios[] = {
	{"into the cache", 10, 8, 1, UINT32_MAX, 0,
	 {"held", "handed over", "to the cache", "copied", "counted", "done"}},
	{"flushing a full cache", 380, 8, 1, UINT32_MAX, 0,
	 {"flushing", "reserved", "head recorded", "written", "tail moved", "flushed", "copied"}},
	{"no cache: to the ring", UINT32_MAX, 8, 1, UINT32_MAX, 0,
	 {"to the ring", "reserved", "head recorded", "written", "tail moved", "done"}},
	{"chains over two puts", 330, 30, 3, UINT32_MAX, 0,
	 {"unchained", "flushing", "head recorded", "written", "counted", "done"}},
	{"a shared packet in the burst", 20, 12, 2, 5, 0, {"held", "copied", "done"}},
	{"runs of two pools", 20, 16, 2, UINT32_MAX, 1,
	 {"held", "handed over", "unchained", "copied", "counted", "done"}},
	{"two pools, the first's cache flushed", 382, 12, 1, UINT32_MAX, 1,
	 {"flushing", "head recorded", "written", "flushed", "copied", "done"}},
};

/* Free @s's burst, cut short after @steps steps (0: never); recover as the primary does.
 * Returns whether the free ran to its end. */
static int
run(const struct scenario *s, unsigned int steps, const char **at)
{
	static struct mpe_pool_put pp;
	struct mpe_pool_ref refs[2] = {{.mp = mp, .ring = ring, .cache = cache, .index = 0},
				       {.mp = mp2, .ring = ring2, .cache = cache2, .index = 1}};
	const struct mpe_pool_ref *rp;
	struct rte_mbuf *list[64];
	void *except[MPE_POOL_PUT_MAX];
	volatile uint32_t from = 0;
	volatile int finished = 0;
	volatile uint32_t nx = 0;
	struct mpe_pool_finish fin;
	uint32_t i;
	int rc;
	char what[160];

	reset_pool();
	memset(&pp, 0, sizeof(pp));
	if (s->cache_len == UINT32_MAX)
		refs[0].cache = refs[1].cache = NULL;
	for (i = 0; i < s->nb_pkts; i++)
		list[i] = packet_of(s->two_pools && (i / 3) % 2 == 1 ? ring2 : ring, s->segs);
	for (i = 0; s->cache_len != UINT32_MAX && i < s->cache_len; i++)
		cache->objs[cache->len++] = take();
	if (s->shared_at < s->nb_pkts) {
		struct rte_mbuf *m;

		/* another holder keeps it, as a clone does: every segment twice referenced */
		for (m = list[s->shared_at]; m != NULL; m = m->next)
			rte_mbuf_refcnt_set(m, 2);
	}

	died_at = NULL;
	steps_left = steps;
	if (setjmp(death) == 0) {
		mpe_pool_free(&pp, refs, s->two_pools ? 2 : 1, list, &from, s->nb_pkts);
		finished = 1;
	}
	steps_left = 0;
	*at = died_at;
	snprintf(what, sizeof(what), "%s, death at step %u (%s)", s->name, steps,
		 died_at != NULL ? died_at : "none");

	/* the primary's side: the put under way (to the pool it records), then what the hand
	 * still holds */
	rp = &refs[s->two_pools && pp.pool == 1 ? 1 : 0];
	CHECK(pp.state == MPE_PUT_NONE || pp.pool < (s->two_pools ? 2U : 1U),
	      "%s: the put records pool %u", what, pp.pool);
	if (pp.state != MPE_PUT_NONE) {
		nx = pp.n;
		memcpy(except, pp.objs, sizeof(void *) * pp.n);
	}
	if (steps % 2 == 1) {
		/* as a recovery that finishes the slots first and puts back later: the same */
		struct mpe_pool_finish slots;

		rc = mpe_pool_slots_finish(&pp, rp, 20, &slots);
		CHECK(rc == 0 || rc == -EDEADLK, "%s: slots finish gave %d", what, rc);
		CHECK(rc < 0 || (pp.state != MPE_PUT_FLUSH && pp.state != MPE_PUT_RING),
		      "%s: the ring's part left under way (%u)", what, pp.state);
		if (rc == 0)
			rc = mpe_pool_put_finish(&pp, rp, 20, &fin);
		fin.completed = slots.completed;
	} else {
		rc = mpe_pool_put_finish(&pp, rp, 20, &fin);
	}
	if (died_at != NULL && strcmp(died_at, "reserved") == 0) {
		/* the one step that cannot be undone: the slots are unknown */
		CHECK(rc == -EDEADLK, "%s: finish gave %d, not -EDEADLK", what, rc);
		CHECK(ring->prod.head != ring->prod.tail, "%s: the ring is not left open", what);
		return finished;
	}
	CHECK(rc == 0, "%s: finish failed: %d", what, rc);
	if (died_at != NULL && (strcmp(died_at, "head recorded") == 0 ||
				strcmp(died_at, "written") == 0))
		CHECK(fin.completed > 0, "%s: the enqueue was not finished on its behalf", what);
	if (died_at != NULL && strcmp(died_at, "held") == 0)
		CHECK(fin.put_back > 0 && fin.put_back % s->segs == 0,
		      "%s: %u segments put back, not whole packets", what, fin.put_back);
	CHECK(pp.state == MPE_PUT_NONE, "%s: the put is still under way", what);
	CHECK(from <= s->nb_pkts, "%s: from %u past the end", what, from);
	mpe_pool_free_except(list, from, s->nb_pkts, except, nx);
	if (s->shared_at < s->nb_pkts) {
		/* the other holder lets go: the packet is back once, however the free ended */
		if (rte_mbuf_refcnt_read(list[s->shared_at]) == 2)
			CHECK(from <= s->shared_at, "%s: the shared packet was passed but not freed",
			      what);
		rte_pktmbuf_free(list[s->shared_at]);
	}
	check_pool(what, 0);
	return finished;
}

/* The flush before a device call (mpe_pool_make_room), cut short after each of its steps. */
static void
test_make_room(void)
{
	static struct mpe_pool_put pp;
	/* the engine's pool 1: the record must name it */
	struct mpe_pool_ref ref = {.mp = mp, .ring = ring, .cache = cache, .index = 1};
	struct mpe_pool_finish fin;
	volatile unsigned int steps;
	unsigned int i;
	char what[96];
	int rc;

	for (steps = 1; steps < 100; steps++) {
		volatile int finished = 0;

		reset_pool();
		memset(&pp, 0, sizeof(pp));
		for (i = 0; i < 350; i++)
			cache->objs[cache->len++] = take();
		died_at = NULL;
		steps_left = steps;
		if (setjmp(death) == 0) {
			mpe_pool_make_room(&pp, &ref);
			finished = 1;
		}
		steps_left = 0;
		snprintf(what, sizeof(what), "making room, death at step %u (%s)", steps,
			 died_at != NULL ? died_at : "none");
		CHECK(pp.state == MPE_PUT_NONE || pp.pool == 1, "%s: the flush records pool %u",
		      what, pp.pool);
		rc = mpe_pool_put_finish(&pp, &ref, 20, &fin);
		if (died_at != NULL && strcmp(died_at, "reserved") == 0) {
			CHECK(rc == -EDEADLK, "%s: finish gave %d", what, rc);
			continue;
		}
		CHECK(rc == 0 && fin.put_back == 0, "%s: finish gave %d, %u put back", what, rc,
		      fin.put_back);
		if (finished)
			CHECK(cache->len + MPE_POOL_DEV_ROOM <= cache->flushthresh,
			      "%s: no room made (%u entries)", what, cache->len);
		check_pool(what, 0);
		if (finished)
			break;
	}
	CHECK(steps > 4 && steps < 100, "making room: %u steps", steps);
	printf("%s making room: %u deaths\n", failures ? "not ok" : "ok", steps - 1);
}

/* The fill of the cache before a receive call (mpe_pool_fill), cut short after each of its
 * steps, with the ring holding @avail mbufs (the rest held elsewhere, given back before the
 * pool is checked). */
static void
test_fill(unsigned int avail)
{
	static const char *const must[] = {"filling", "taken", "take recorded", "taken copied",
					   "take done", "fill counted"};
	static struct mpe_pool_put pp;
	/* the engine's pool 1: the record must name it */
	struct mpe_pool_ref ref = {.mp = mp, .ring = ring, .cache = cache,
				   .fill_below = MPE_POOL_DEV_ROOM, .index = 1};
	static void *held[NB_MBUFS];
	const char *seen[16];
	volatile unsigned int nb_held;
	unsigned int nb_seen = 0, k, left;
	struct mpe_pool_finish fin;
	volatile unsigned int steps;
	uint32_t want;
	char what[128];
	int rc;

	for (steps = 1; steps < 100; steps++) {
		volatile int finished = 0;

		reset_pool();
		/* as the last put or fill left it: its reservation recorded, long done */
		memset(&pp, 0, sizeof(pp));
		pp.head_set = 1;
		pp.head = ring->cons.tail - 100;
		pp.n = 77;
		pp.len0 = 3;
		/* no entry past the cache's length is of use: a fill must write what it counts */
		memset(cache->objs, 0, sizeof(cache->objs));
		for (k = 0; k < 10; k++)
			cache->objs[cache->len++] = take();
		for (nb_held = 0; rte_ring_count(ring) > avail; nb_held++)
			held[nb_held] = take();
		left = rte_ring_count(ring);
		want = RTE_MIN(left, CACHE_SIZE - 10U);
		died_at = NULL;
		steps_left = steps;
		if (setjmp(death) == 0) {
			mpe_pool_rx_enter(&pp, &ref);
			finished = 1;
		}
		steps_left = 0;
		snprintf(what, sizeof(what), "filling from a ring of %u, death at step %u (%s)",
			 avail, steps, died_at != NULL ? died_at : "none");
		CHECK(pp.state == MPE_PUT_NONE || pp.pool == 1, "%s: the fill records pool %u",
		      what, pp.pool);
		for (k = 0; died_at != NULL && k < nb_seen && strcmp(seen[k], died_at) != 0; k++)
			;
		if (died_at != NULL && k == nb_seen && nb_seen < RTE_DIM(seen))
			seen[nb_seen++] = died_at;
		rc = mpe_pool_put_finish(&pp, &ref, 20, &fin);
		if (died_at != NULL && strcmp(died_at, "taken") == 0) {
			/* the one step that cannot be finished: the slots are unknown */
			CHECK(rc == -EDEADLK, "%s: finish gave %d, not -EDEADLK", what, rc);
			CHECK(ring->cons.head != ring->cons.tail, "%s: the ring is not left open",
			      what);
			ring->cons.head = ring->cons.tail; /* for the check of the pool */
		} else {
			CHECK(rc == 0 && fin.put_back == 0, "%s: finish gave %d, %u put back", what,
			      rc, fin.put_back);
			CHECK(pp.state == MPE_PUT_NONE, "%s: the fill is still under way", what);
			CHECK(ring->cons.head == ring->cons.tail, "%s: the ring's dequeue is left "
			      "open", what);
			if (died_at != NULL && (strcmp(died_at, "take recorded") == 0 ||
						strcmp(died_at, "taken copied") == 0))
				CHECK(fin.completed == want, "%s: %u of %u taken on its behalf", what,
				      fin.completed, want);
			/* the fill done, or never begun */
			CHECK(cache->len == 10 + want ||
			      (cache->len == 10 && rte_ring_count(ring) == left),
			      "%s: %u in the cache, %u in the ring", what, cache->len,
			      rte_ring_count(ring));
			if (finished)
				CHECK(cache->len == 10 + want, "%s: the cache has %u, not %u", what,
				      cache->len, 10 + want);
		}
		if (nb_held > 0)
			rte_ring_mp_enqueue_bulk(ring, held, nb_held, NULL);
		check_pool(what, 0);
		if (finished)
			break;
	}
	for (k = 0; avail > 0 && k < RTE_DIM(must); k++) {
		unsigned int j;

		for (j = 0; j < nb_seen && strcmp(seen[j], must[k]) != 0; j++)
			;
		CHECK(j < nb_seen, "filling from a ring of %u: never died at \"%s\"", avail,
		      must[k]);
	}
	CHECK(steps < 100, "filling: %u steps", steps);
	printf("%s filling the cache from a ring of %u, indices from %u: %u deaths\n",
	       failures ? "not ok" : "ok", avail, ring_start, steps - 1);
}

/* Another taker, ahead of the fill in the ring, not done yet (a live process, slower). */
struct taker {
	uint32_t head, n;
	void *objs[16];
	int release_after_ms; /* < 0: never */
};

static void *
taker_release(void *arg)
{
	struct taker *tk = arg;

	if (tk->release_after_ms > 0)
		rte_delay_us_sleep((unsigned int)tk->release_after_ms * 1000);
	__rte_ring_dequeue_elems(ring, tk->head, tk->objs, sizeof(void *), tk->n);
	__atomic_store_n(&ring->cons.tail, tk->head + tk->n, __ATOMIC_RELEASE);
	return NULL;
}

/* A fill that dies behind another taker: its recovery waits for that taker, then finishes;
 * or, the taker never done within the wait, gives up (-EDEADLK) and touches nothing. */
static void
test_fill_behind(int release_after_ms)
{
	static struct mpe_pool_put pp;
	struct mpe_pool_ref ref = {.mp = mp, .ring = ring, .cache = cache,
				   .fill_below = MPE_POOL_DEV_ROOM};
	struct taker tk = {.n = 8, .release_after_ms = release_after_ms};
	struct mpe_pool_finish fin;
	volatile unsigned int steps;
	pthread_t th;
	uint32_t want;
	char what[128];
	int rc;

	/* deaths after the record and after the copy: the fill's own tail move would wait for
	 * the taker, which nothing here would ever let go */
	for (steps = 3; steps <= 4; steps++) {
		reset_pool();
		memset(&pp, 0, sizeof(pp));
		memset(cache->objs, 0, sizeof(cache->objs));
		tk.head = ring->cons.head;
		ring->cons.head += tk.n; /* the taker's reservation */
		want = RTE_MIN(rte_ring_count(ring) - tk.n, (uint32_t)CACHE_SIZE);
		died_at = NULL;
		steps_left = steps;
		if (setjmp(death) == 0) {
			mpe_pool_rx_enter(&pp, &ref);
			steps_left = 0;
			CHECK(0, "behind a taker: the fill ran past its tail move");
			return;
		}
		steps_left = 0;
		snprintf(what, sizeof(what), "filling behind a taker released after %d ms, death "
			 "at step %u (%s)", release_after_ms, steps, died_at);
		if (release_after_ms >= 0 && pthread_create(&th, NULL, taker_release, &tk) != 0) {
			printf("FAIL no thread\n");
			exit(1);
		}
		rc = mpe_pool_put_finish(&pp, &ref, 50, &fin);
		if (release_after_ms >= 0) {
			pthread_join(th, NULL);
			CHECK(rc == 0 && fin.completed == want && fin.counted == want &&
			      cache->len == want,
			      "%s: finish gave %d, %u taken, %u counted, cache %u, %u expected", what,
			      rc, fin.completed, fin.counted, cache->len, want);
		} else {
			CHECK(rc == -EDEADLK && cache->len == 0 &&
			      ring->cons.tail == tk.head,
			      "%s: finish gave %d, cache %u, the taker's slots passed: %d", what, rc,
			      cache->len, ring->cons.tail != tk.head);
			tk.release_after_ms = 0;
			taker_release(&tk); /* let go now, for the check of the pool */
			tk.release_after_ms = -1;
			rc = mpe_pool_put_finish(&pp, &ref, 50, &fin);
			CHECK(rc == 0 && fin.counted == want, "%s, then the taker done: finish gave "
			      "%d, %u counted", what, rc, fin.counted);
		}
		rte_ring_mp_enqueue_bulk(ring, tk.objs, tk.n, NULL);
		check_pool(what, 0);
	}
	printf("%s filling behind another taker (%s)\n", failures ? "not ok" : "ok",
	       release_after_ms >= 0 ? "it finishes during the recovery" :
				       "it does not finish in time");
}

/* A cache that can serve a receive call is not filled; one that cannot, is; no fill without a
 * threshold (a cache too small to serve a call: DPDK's get bypasses it). */
static void
test_rx_enter(void)
{
	static struct mpe_pool_put pp;
	struct mpe_pool_ref ref = {.mp = mp, .ring = ring, .cache = cache,
				   .fill_below = MPE_POOL_DEV_ROOM};
	unsigned int k;

	reset_pool();
	for (k = 0; k < MPE_POOL_DEV_ROOM; k++)
		cache->objs[cache->len++] = take();
	mpe_pool_rx_enter(&pp, &ref);
	CHECK(cache->len == MPE_POOL_DEV_ROOM, "a cache of %u filled to %u", MPE_POOL_DEV_ROOM,
	      cache->len);
	cache->len--;
	rte_ring_mp_enqueue(ring, cache->objs[cache->len]);
	mpe_pool_rx_enter(&pp, &ref);
	CHECK(cache->len == CACHE_SIZE, "a cache of %u filled to %u, not %u",
	      MPE_POOL_DEV_ROOM - 1, cache->len, CACHE_SIZE);
	{
		/* what a receive then takes with DPDK's get comes from the cache alone */
		void *objs[MPE_POOL_DEV_ROOM];
		uint32_t head = ring->cons.head;

		CHECK(rte_mempool_generic_get(mp, objs, MPE_POOL_DEV_ROOM, cache) == 0 &&
		      ring->cons.head == head && cache->len == CACHE_SIZE - MPE_POOL_DEV_ROOM,
		      "DPDK's get after a fill went to the ring");
		rte_ring_mp_enqueue_bulk(ring, objs, MPE_POOL_DEV_ROOM, NULL);
	}
	ref.fill_below = 0;
	cache->len = 0;
	reset_pool();
	mpe_pool_rx_enter(&pp, &ref);
	CHECK(cache->len == 0, "no threshold, yet filled to %u", cache->len);
	check_pool("receive entry", 0);
	printf("%s filling only a cache that cannot serve a receive\n",
	       failures ? "not ok" : "ok");
}

/* After a death in a transmit call: what the cache gained in the call is written off. */
static void
test_trust_cache(void)
{
	struct mpe_pool_ref ref = {.mp = mp, .ring = ring, .cache = cache};
	uint32_t off;

	cache->len = 100;
	off = mpe_pool_trust_cache(&ref, 80);
	CHECK(off == 20 && cache->len == 80, "grown by 20: %u written off, %u kept", off,
	      cache->len);
	cache->len = 10;
	off = mpe_pool_trust_cache(&ref, 80);
	CHECK(off == 10 && cache->len == 0, "flushed in the call: %u written off, %u kept", off,
	      cache->len);
	cache->len = 80;
	off = mpe_pool_trust_cache(&ref, 80);
	CHECK(off == 0 && cache->len == 80, "unchanged: %u written off, %u kept", off,
	      cache->len);
	ref.cache = NULL;
	CHECK(mpe_pool_trust_cache(&ref, 80) == 0, "no cache: nothing written off");
	cache->len = 0;
	printf("%s trusting the cache after a transmit\n", failures ? "not ok" : "ok");
}

int
main(void)
{
	unsigned int i, j, steps, pass;

	setup();
	for (pass = 0; pass < 2; pass++) {
	ring_start = pass == 0 ? 0 : UINT32_MAX - 300;
	for (i = 0; i < RTE_DIM(scenarios); i++) {
		const struct scenario *s = &scenarios[i];
		const char *seen[64];
		unsigned int nb_seen = 0, k;
		const char *at;

		/* one death after each step in turn, until the free runs to its end */
		for (steps = 1; steps < 1000 && !run(s, steps, &at); steps++) {
			for (k = 0; k < nb_seen && strcmp(seen[k], at) != 0; k++)
				;
			if (k == nb_seen && nb_seen < RTE_DIM(seen))
				seen[nb_seen++] = at;
		}
		CHECK(steps > 1 && steps < 1000, "%s: %u steps", s->name, steps);
		run(s, 0, &at); /* and no death at all */
		for (j = 0; j < RTE_DIM(s->must_die_at) && s->must_die_at[j] != NULL; j++) {
			for (k = 0; k < nb_seen && strcmp(seen[k], s->must_die_at[j]) != 0; k++)
				;
			CHECK(k < nb_seen, "%s: never died at \"%s\"", s->name, s->must_die_at[j]);
		}
		printf("%s %s, indices from %u: %u deaths, at %u distinct steps\n",
		       failures ? "not ok" : "ok", s->name, ring_start, steps - 1, nb_seen);
	}
	test_make_room();
	test_fill(NB_MBUFS);
	test_fill(100);
	test_fill(0);
	}
	ring_start = 0;
	test_fill_behind(5);
	test_fill_behind(-1);
	test_rx_enter();
	test_trust_cache();
	printf("%s\n", failures ? "FAILED" : "all passed");
	return failures != 0;
}
