/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow table of one worker: an rte_hash of canonical keys plus an array of struct mpe_flow
 * indexed by the hash's key position, both in hugepage memory.
 * One writer (the owning worker). Only *_with_hash calls reach the rte_hash (DESIGN fact 2).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_memzone.h>
#include <rte_prefetch.h>

#include "flow.h"
#include "log.h"

RTE_LOG_REGISTER(mpe_logtype_flow, mpe.flow, INFO);

#define MZ_PREFIX "FT_"
#define BULK      RTE_HASH_LOOKUP_BULK_MAX

/* What the rte_hash holds: the canonical key padded with zeros to 48 bytes, a length that
 * rte_hash compares with vector instructions (at 40 bytes each compare calls memcmp). */
struct flow_hkey {
	struct mpe_flow_key k;
	uint8_t zero[48 - sizeof(struct mpe_flow_key)];
};

static inline void
hkey_set(struct flow_hkey *hk, const struct mpe_flow_key *canon)
{
	hk->k = *canon;
	memset(hk->zero, 0, sizeof(hk->zero));
}

static int
mz_name(char *buf, size_t size, const char *name)
{
	size_t len;

	if (name == NULL)
		return -EINVAL;
	len = strnlen(name, MPE_FLOW_NAME_MAX + 1);
	if (len == 0)
		return -EINVAL;
	if (len > MPE_FLOW_NAME_MAX)
		return -ENAMETOOLONG;
	snprintf(buf, size, MZ_PREFIX "%s", name);
	return 0;
}

/* As many cache entries as flows (a power of two), at most MPE_FLOW_CACHE_MAX. */
static uint32_t
cache_entries(uint32_t capacity)
{
	return RTE_MIN(rte_align32pow2(capacity), MPE_FLOW_CACHE_MAX);
}

static size_t
table_size(uint32_t capacity)
{
	return sizeof(struct mpe_flow_table) + (size_t)capacity * sizeof(struct mpe_flow) +
	       (size_t)cache_entries(capacity) / MPE_FLOW_CACHE_WAYS *
		       sizeof(struct mpe_flow_cache_set);
}

struct mpe_flow_table *
mpe_flow_table_create(const char *name, uint32_t capacity, uint64_t idle_timeout_tsc, int socket)
{
	char mzn[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct rte_hash_parameters hp;
	struct mpe_flow_table *t;
	struct rte_hash *h;
	int rc;

	rc = mz_name(mzn, sizeof(mzn), name);
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	if (capacity < MPE_FLOW_CAPACITY_MIN || capacity > MPE_FLOW_CAPACITY_MAX) {
		MPE_LOG(ERR, flow, "table %s: capacity %u out of [%u, %u]", name, capacity,
			MPE_FLOW_CAPACITY_MIN, MPE_FLOW_CAPACITY_MAX);
		rte_errno = EINVAL;
		return NULL;
	}
	mz = rte_memzone_reserve_aligned(mzn, table_size(capacity), socket, 0, RTE_CACHE_LINE_SIZE);
	if (mz == NULL) {
		rc = rte_errno;
		MPE_LOG(ERR, flow, "table %s: cannot reserve %zu bytes: %s", name,
			table_size(capacity), rte_strerror(rc));
		rte_errno = rc;
		return NULL;
	}
	t = mz->addr;
	memset(t, 0, table_size(capacity));

	/* Single writer: no MULTI_WRITER_ADD (its free-slot caches are indexed by lcore id and
	 * make the capacity inexact) and no RW_CONCURRENCY(_LF) (nobody else looks keys up
	 * while the owner writes; and a lock held by a dead owner would hang its successor).
	 * EXT_TABLE: exactly @capacity keys fit, whatever the cuckoo collisions. The hash_func
	 * the table records is never called: every call passes a hash computed locally. */
	memset(&hp, 0, sizeof(hp));
	hp.name = name;
	hp.entries = capacity;
	hp.key_len = sizeof(struct flow_hkey);
	hp.socket_id = socket;
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
	h = rte_hash_create(&hp);
	if (h == NULL) {
		rc = rte_errno ? rte_errno : ENOMEM;
		MPE_LOG(ERR, flow, "table %s: cannot create hash: %s", name, rte_strerror(rc));
		rte_memzone_free(mz);
		rte_errno = rc;
		return NULL;
	}

	t->version = MPE_FLOW_TABLE_VERSION;
	t->flow_size = sizeof(struct mpe_flow);
	t->capacity = capacity;
	t->cache_mask = cache_entries(capacity) - 1;
	t->cache = (struct mpe_flow_cache_set *)&t->flows[capacity];
	t->idle_timeout_tsc = idle_timeout_tsc;
	t->sweep_step_tsc = RTE_MAX(idle_timeout_tsc / 2 / capacity, (uint64_t)1);
	t->hash = h;
	t->self = t;
	snprintf(t->name, sizeof(t->name), "%s", name);
	/* magic last: a table is visible to lookups only once complete */
	__atomic_store_n(&t->magic, MPE_FLOW_TABLE_MAGIC, __ATOMIC_RELEASE);
	return t;
}

struct mpe_flow_table *
mpe_flow_table_lookup(const char *name)
{
	char mzn[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	struct mpe_flow_table *t;
	int rc;

	rc = mz_name(mzn, sizeof(mzn), name);
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	mz = rte_memzone_lookup(mzn);
	if (mz == NULL) {
		rte_errno = ENOENT;
		return NULL;
	}
	t = mz->addr;
	if (mz->len < sizeof(*t) ||
	    __atomic_load_n(&t->magic, __ATOMIC_ACQUIRE) != MPE_FLOW_TABLE_MAGIC ||
	    t->version != MPE_FLOW_TABLE_VERSION || t->flow_size != sizeof(struct mpe_flow) ||
	    t->self != t || mz->len < table_size(t->capacity) ||
	    t->cache != (const struct mpe_flow_cache_set *)&t->flows[t->capacity] ||
	    t->cache_mask != cache_entries(t->capacity) - 1 ||
	    strncmp(t->name, name, sizeof(t->name)) != 0) {
		MPE_LOG(ERR, flow, "table %s: not a flow table of this layout", name);
		rte_errno = EINVAL;
		return NULL;
	}
	/* The hash found by name must be the one the table was made with. */
	if (rte_hash_find_existing(name) != t->hash) {
		MPE_LOG(ERR, flow, "table %s: its hash is missing or replaced", name);
		rte_errno = EINVAL;
		return NULL;
	}
	return t;
}

int
mpe_flow_table_recover(struct mpe_flow_table *t)
{
	int32_t count;
	uint32_t i;

	if (t == NULL)
		return -EINVAL;
	count = rte_hash_count(t->hash);
	if (!t->busy && count >= 0 && (uint64_t)count == t->stats.active)
		return 0;
	MPE_LOG(WARNING, flow,
		"table %s: left inconsistent (busy %u, %d keys, %" PRIu64 " active): emptied",
		t->name, t->busy, count, t->stats.active);
	/* rte_hash_reset calls no stored function pointer (no RCU is attached). */
	rte_hash_reset(t->hash);
	for (i = 0; i < t->capacity; i++)
		t->flows[i].state = MPE_FLOW_FREE;
	t->stats.active = 0;
	t->stats.resets++;
	t->cursor = 0;
	rte_compiler_barrier();
	t->busy = 0;
	return 1;
}

void
mpe_flow_table_free(struct mpe_flow_table *t)
{
	char mzn[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	if (t == NULL)
		return;
	if (mz_name(mzn, sizeof(mzn), t->name) < 0)
		return;
	mz = rte_memzone_lookup(mzn);
	if (mz == NULL || mz->addr != t)
		return;
	t->magic = 0;
	rte_hash_free(t->hash);
	t->hash = NULL;
	rte_memzone_free(mz);
}

enum mpe_flow_dir
mpe_flow_dir(const struct mpe_flow *f, const struct mpe_flow_key *key)
{
	struct mpe_flow_key c;

	return (enum mpe_flow_dir)(mpe_flow_key_canon(key, &c) ^ f->fwd_from_dst);
}

static inline void
flow_init(struct mpe_flow *f, const struct mpe_flow_key *canon, uint32_t hash, uint8_t rev,
	  uint64_t now)
{
	f->key = *canon;
	f->fwd_from_dst = rev;
	f->tcp_flags[0] = 0;
	f->tcp_flags[1] = 0;
	f->hash = hash;
	f->pkts[0] = 0;
	f->pkts[1] = 0;
	f->bytes[0] = 0;
	f->bytes[1] = 0;
	f->first_seen = now;
	f->last_seen = now;
	f->acl_gen = 0;
	/* readers in other processes trust the fields once they see the state */
	__atomic_store_n(&f->state, MPE_FLOW_ACTIVE, __ATOMIC_RELEASE);
}

static inline int
key_equal(const struct mpe_flow_key *a, const struct mpe_flow_key *b)
{
	uint64_t x[5], y[5];

	RTE_BUILD_BUG_ON(sizeof(*a) != sizeof(x));
	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2]) | (x[3] ^ y[3]) | (x[4] ^ y[4])) == 0;
}

/* The hashes, or the positions, of a set's ways in one vector */
typedef uint32_t cache_vec __attribute__((vector_size(sizeof(uint32_t) * MPE_FLOW_CACHE_WAYS)));

/* The set of the cache that holds the entry of hash @sig. */
static inline struct mpe_flow_cache_set *
cache_set(const struct mpe_flow_table *t, uint32_t sig)
{
	return &t->cache[sig & (t->cache_mask / MPE_FLOW_CACHE_WAYS)];
}

/* The position + 1 the set gives for hash @sig, or 0: the ways compared at once, the match's
 * position kept by a mask and gathered by OR (at most one entry per hash; an empty entry
 * adds 0 for a hash of 0). */
static inline uint32_t
cache_get(const struct mpe_flow_table *t, uint32_t sig)
{
	const struct mpe_flow_cache_set *set = cache_set(t, sig);
	cache_vec s, p, want = {0};

	/* four lanes gathered below; a set fits in the fewest entries (8) */
	RTE_BUILD_BUG_ON(MPE_FLOW_CACHE_WAYS != 4 || MPE_FLOW_CACHE_WAYS > MPE_FLOW_CAPACITY_MIN);
	memcpy(&s, set->sig, sizeof(s));
	memcpy(&p, set->pos1, sizeof(p));
	want += sig;
	p &= (cache_vec)(s == want);
	return p[0] | p[1] | p[2] | p[3];
}

/* Puts (@sig, position @p) first in its set, in place of the entry of the same hash if there
 * is one, else of the oldest; the entries before that place move one down. */
static inline void
cache_put(struct mpe_flow_table *t, uint32_t sig, int32_t p)
{
	struct mpe_flow_cache_set *set = cache_set(t, sig);
	unsigned int w;

	for (w = 0; w < MPE_FLOW_CACHE_WAYS - 1; w++)
		if (set->sig[w] == sig)
			break;
	for (; w > 0; w--) {
		set->sig[w] = set->sig[w - 1];
		set->pos1[w] = set->pos1[w - 1];
	}
	set->sig[0] = sig;
	set->pos1[0] = (uint32_t)p + 1;
}

/* The position the cache gives (@pos1: position + 1, 0 for none) if the flow there is the one
 * of (@canon, @sig), else -1. */
static inline int32_t
cache_check(const struct mpe_flow_table *t, uint32_t pos1, const struct mpe_flow_key *canon,
	    uint32_t sig)
{
	const struct mpe_flow *f;
	uint32_t p = pos1 - 1;

	if (p >= t->capacity)
		return -1;
	f = &t->flows[p];
	if (f->state != MPE_FLOW_ACTIVE || f->hash != sig || !key_equal(&f->key, canon))
		return -1;
	return (int32_t)p;
}

/* Up to BULK packets: the cache first, then one bulk lookup of the rest, then an add for
 * each miss in packet order (a flow new in this burst is added by its first packet and found
 * by the add for the others). */
static inline uint32_t
update_chunk(struct mpe_flow_table *t, const struct mpe_flow_key *keys[], const uint32_t lens[],
	     const uint8_t tcp_flags[], uint32_t n, uint64_t now, struct mpe_flow *out[],
	     uint8_t dirs[], const uint32_t hashes[])
{
	struct flow_hkey canon[BULK];
	const void *kp[BULK];
	hash_sig_t sig[BULK], msig[BULK];
	int32_t pos[BULK], mpos[BULK];
	uint32_t ce[BULK];
	uint8_t rev[BULK], miss[BULK], cached[BULK];
	uint32_t i, nm = 0, found = 0, inserted = 0;
	int changing = 0;

	for (i = 0; i < n; i++) {
		memset(canon[i].zero, 0, sizeof(canon[i].zero));
		rev[i] = (uint8_t)mpe_flow_key_canon(keys[i], &canon[i].k);
		sig[i] = hashes != NULL ? hashes[i] : mpe_flow_hash_canon(&canon[i].k);
		ce[i] = cache_get(t, sig[i]);
		/* the flow's counters, and its key for the check */
		if (ce[i] - 1 < t->capacity) {
			const struct mpe_flow *f = &t->flows[ce[i] - 1];

			rte_prefetch0(f);
			rte_prefetch0(&f->first_seen);
		}
	}
	for (i = 0; i < n; i++) {
		pos[i] = cache_check(t, ce[i], &canon[i].k, sig[i]);
		cached[i] = pos[i] >= 0;
		if (pos[i] < 0) {
			kp[nm] = &canon[i];
			msig[nm] = sig[i];
			miss[nm++] = (uint8_t)i;
		}
	}
	if (nm > 0) {
		if (rte_hash_lookup_with_hash_bulk(t->hash, kp, msig, nm, mpos) < 0) {
			for (i = 0; i < nm; i++)
				mpos[i] = -ENOENT;
		}
		for (i = 0; i < nm; i++) {
			pos[miss[i]] = mpos[i];
			if (mpos[i] >= 0 && (uint32_t)mpos[i] < t->capacity)
				rte_prefetch0(&t->flows[mpos[i]]);
		}
	}

	for (i = 0; i < n; i++) {
		struct mpe_flow *f;
		int32_t p = pos[i];
		unsigned int dir;

		if (unlikely(p < 0)) {
			if (!changing) {
				/* a successor finding busy set knows the hash may be torn */
				t->busy = 1;
				rte_compiler_barrier();
				changing = 1;
			}
			p = rte_hash_add_key_with_hash(t->hash, &canon[i], sig[i]);
			if (unlikely(p < 0)) {
				out[i] = NULL; /* -ENOSPC: the table is full */
				/* callers copy the direction of every packet they hand in */
				if (dirs != NULL)
					dirs[i] = MPE_FLOW_DIR_FWD;
				continue;
			}
			f = &t->flows[p];
			if (f->state != MPE_FLOW_ACTIVE) {
				flow_init(f, &canon[i].k, sig[i], rev[i], now);
				inserted++;
			}
		} else {
			f = &t->flows[p];
		}
		/* a hint for the flow's next packets (the latest flow of this hash wins) */
		if (!cached[i])
			cache_put(t, sig[i], p);
		dir = rev[i] ^ f->fwd_from_dst;
		if (dirs != NULL)
			dirs[i] = (uint8_t)dir;
		mpe_undo_add(t->undo, &f->pkts[dir], 1);
		mpe_undo_add(t->undo, &f->bytes[dir], lens[i]);
		if (tcp_flags != NULL)
			f->tcp_flags[dir] |= tcp_flags[i];
		f->last_seen = now;
		out[i] = f;
		found++;
	}
	if (changing) {
		rte_compiler_barrier();
		t->busy = 0;
	}
	mpe_undo_add(t->undo, &t->stats.lookups, n);
	mpe_undo_add(t->undo, &t->stats.cache_hits, n - nm);
	t->stats.inserted += inserted;
	t->stats.active += inserted;
	if (n != found)
		mpe_undo_add(t->undo, &t->stats.table_full, n - found);
	return found;
}

int
mpe_flow_update_burst(struct mpe_flow_table *t, const struct mpe_flow_key *keys[],
		      const uint32_t lens[], const uint8_t tcp_flags[], uint16_t n, uint64_t now,
		      struct mpe_flow *out[])
{
	return mpe_flow_update_burst_dir(t, keys, lens, tcp_flags, n, now, out, NULL, NULL);
}

int
mpe_flow_update_burst_dir(struct mpe_flow_table *t, const struct mpe_flow_key *keys[],
			  const uint32_t lens[], const uint8_t tcp_flags[], uint16_t n,
			  uint64_t now, struct mpe_flow *out[], uint8_t dirs[],
			  const uint32_t hashes[])
{
	uint32_t done = 0, found = 0, c;

	if (unlikely(t == NULL || (n > 0 && (keys == NULL || lens == NULL || out == NULL))))
		return -EINVAL;
	while (done < n) {
		c = RTE_MIN((uint32_t)n - done, (uint32_t)BULK);
		found += update_chunk(t, keys + done, lens + done,
				      tcp_flags != NULL ? tcp_flags + done : NULL, c, now,
				      out + done, dirs != NULL ? dirs + done : NULL,
				      hashes != NULL ? hashes + done : NULL);
		done += c;
	}
	return (int)found;
}

/* Takes the flow at slot @p out of the hash. A slot must not become free while the hash may
 * still lead a lookup to it: the packets found there would be counted in a free slot, and the
 * position would never be given to a new flow. When the slot's key and hash do not delete
 * position @p (the slot's copy of either damaged: a broken invariant, counted), the key is
 * deleted again with the hash computed afresh, and if that misses too, the key the hash holds
 * at @p is looked for among all of its keys (rte_hash_iterate: slow, but it calls no stored
 * function pointer) and deleted. Returns 0 when nothing in the hash leads to @p any more,
 * else -ENOENT: the flow then stays, and a later sweep tries again. */
static int
unhash(struct mpe_flow_table *t, const struct mpe_flow *f, uint32_t p)
{
	struct flow_hkey hk;
	const void *key;
	void *data;
	uint32_t next = 0;
	int32_t r;

	hkey_set(&hk, &f->key);
	r = rte_hash_del_key_with_hash(t->hash, &hk, f->hash);
	if (likely(r == (int32_t)p))
		return 0;
	t->stats.unhash_miss++;
	if (r < 0 && rte_hash_del_key_with_hash(t->hash, &hk, mpe_flow_hash_canon(&hk.k)) ==
			     (int32_t)p)
		return 0;
	while ((r = rte_hash_iterate(t->hash, &key, &data, &next)) >= 0) {
		if (r != (int32_t)p)
			continue;
		memcpy(&hk, key, sizeof(hk));
		r = rte_hash_del_key_with_hash(t->hash, &hk, mpe_flow_hash_canon(&hk.k));
		return r == (int32_t)p ? 0 : -ENOENT;
	}
	return 0; /* no key at @p */
}

uint32_t
mpe_flow_expire(struct mpe_flow_table *t, uint64_t now, uint32_t budget)
{
	uint64_t timeout;
	uint32_t cap, cur, i, expired = 0;
	int changing = 0;

	if (t == NULL || t->idle_timeout_tsc == 0)
		return 0;
	timeout = t->idle_timeout_tsc;
	cap = t->capacity;
	cur = t->cursor;
	if (budget > cap)
		budget = cap;

	for (i = 0; i < budget; i++) {
		struct mpe_flow *f = &t->flows[cur];

		/* signed difference: a last_seen a little ahead of @now (TSC of another
		 * core) is not idle */
		if (f->state == MPE_FLOW_ACTIVE &&
		    (int64_t)(now - f->last_seen) > (int64_t)timeout) {
			if (!changing) {
				t->busy = 1;
				rte_compiler_barrier();
				changing = 1;
			}
			if (likely(unhash(t, f, cur) == 0)) {
				__atomic_store_n(&f->state, MPE_FLOW_FREE, __ATOMIC_RELEASE);
				expired++;
			}
		}
		if (++cur == cap)
			cur = 0;
	}
	if (changing) {
		rte_compiler_barrier();
		t->busy = 0;
	}
	t->cursor = cur;
	t->stats.scanned += budget;
	t->stats.expired += expired;
	t->stats.active -= expired;
	return expired;
}

uint32_t
mpe_flow_expire_paced(struct mpe_flow_table *t, uint64_t now, uint32_t max)
{
	uint32_t due = 0;

	if (t == NULL || t->idle_timeout_tsc == 0)
		return 0;
	if (unlikely(t->sweep_tsc == 0))
		t->sweep_tsc = now;
	/* signed: a @now a little behind the last (TSC of another core) is not due */
	while (due < max && (int64_t)(now - t->sweep_tsc) >= 0) {
		t->sweep_tsc += t->sweep_step_tsc;
		due++;
	}
	if ((int64_t)(now - t->sweep_tsc) > 0)
		t->sweep_tsc = now; /* behind by more than @max: restart the pace from now */
	return due > 0 ? mpe_flow_expire(t, now, due) : 0;
}

struct mpe_flow *
mpe_flow_find(const struct mpe_flow_table *t, const struct mpe_flow_key *key)
{
	struct flow_hkey hk;
	int32_t p;

	if (t == NULL || key == NULL)
		return NULL;
	memset(&hk, 0, sizeof(hk));
	mpe_flow_key_canon(key, &hk.k);
	p = rte_hash_lookup_with_hash(t->hash, &hk, mpe_flow_hash_canon(&hk.k));
	if (p < 0 || (uint32_t)p >= t->capacity)
		return NULL;
	return (struct mpe_flow *)(uintptr_t)&t->flows[p];
}

static inline uint64_t
flow_bytes(const struct mpe_flow *f)
{
	return f->bytes[0] + f->bytes[1];
}

/* Heap order: @a ranks below @b (fewer bytes; on a tie, the later slot). */
static inline int
ranks_below(const struct mpe_flow *a, const struct mpe_flow *b)
{
	uint64_t ba = flow_bytes(a), bb = flow_bytes(b);

	return ba < bb || (ba == bb && a > b);
}

static void
sift_down(const struct mpe_flow *h[], uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		const struct mpe_flow *tmp;

		if (l < n && ranks_below(h[l], h[m]))
			m = l;
		if (r < n && ranks_below(h[r], h[m]))
			m = r;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

static void
sift_up(const struct mpe_flow *h[], uint32_t i)
{
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		const struct mpe_flow *tmp;

		if (!ranks_below(h[i], h[p]))
			return;
		tmp = h[i];
		h[i] = h[p];
		h[p] = tmp;
		i = p;
	}
}

int
mpe_flow_top(const struct mpe_flow_table *t, uint32_t k, const struct mpe_flow *top[])
{
	uint32_t i, m = 0;

	if (t == NULL || (k > 0 && top == NULL))
		return -EINVAL;
	if (k == 0)
		return 0;
	/* min-heap of the k largest seen so far in top[0..m) */
	for (i = 0; i < t->capacity; i++) {
		const struct mpe_flow *f = &t->flows[i];

		if (__atomic_load_n(&f->state, __ATOMIC_ACQUIRE) != MPE_FLOW_ACTIVE)
			continue;
		if (m < k) {
			top[m] = f;
			sift_up(top, m);
			m++;
		} else if (ranks_below(top[0], f)) {
			top[0] = f;
			sift_down(top, m, 0);
		}
	}
	/* heap sort: the smallest goes to the end, so the array ends up most bytes first */
	for (i = m; i > 1; i--) {
		const struct mpe_flow *tmp = top[0];

		top[0] = top[i - 1];
		top[i - 1] = tmp;
		sift_down(top, i - 1, 0);
	}
	return (int)m;
}

void
mpe_flow_table_stats(const struct mpe_flow_table *t, struct mpe_flow_stats *st)
{
	if (t == NULL || st == NULL)
		return;
	*st = t->stats;
}
