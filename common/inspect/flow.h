/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow table: one per worker, keyed by the canonical bidirectional 5-tuple (struct mpe_flow_key).
 * One writer: the owning worker, on its own lcore. Other processes (the primary's telemetry)
 * only read the flow array and the stats, never the hash, and accept a torn snapshot.
 * Lives in hugepage memory (memzone "FT_<name>" + an rte_hash named <name>) so a respawned
 * worker re-attaches by name and the primary can read summaries.
 *
 *   +------------------------------+  memzone "FT_<name>", same virtual address everywhere
 *   | header                       |  written once by the creator; read by everybody
 *   +------------------------------+
 *   | owner line: busy, cursor,    |  the owning worker writes; others read
 *   |   struct mpe_flow_stats      |
 *   +------------------------------+
 *   | struct mpe_flow [capacity]   |  indexed by the key position the rte_hash returns;
 *   |                              |  the owning worker writes; others read
 *   +------------------------------+
 *   | cache sets                   |  the owning worker's hint of where recent flows are:
 *   |   [(cache_mask + 1) / 4]     |  (hash, position + 1) in the set of 4 the hash picks
 *   +------------------------------+
 *
 * Multi-process rule (DESIGN fact 2): every rte_hash call here is a *_with_hash variant fed
 * with mpe_flow_hash() computed by the calling process, so no function pointer stored in the
 * shared rte_hash is ever called. The rte_hash is created without locks or per-lcore caches.
 *
 * The cache in front of the rte_hash is 4-way set associative: the flow hash picks a set of
 * four entries (32 bytes), which holds at most one entry per hash, the most recently added
 * first. A flow goes in when the rte_hash has answered for it, taking the place of the entry
 * of the same hash or else of the set's oldest. (Direct-mapped, one flow in nine of 1 000
 * in 8 192 entries would share its entry with another and miss whenever the other came last.)
 * An entry is only a hint: it is believed when the flow it points to is active, has the same
 * hash and the same canonical key, which is exactly when the rte_hash would return that
 * position (an active flow's slot is its key's position). So nothing ever invalidates it:
 * expiry, a reset or a new owner leave entries that fail the check, and the packet goes to
 * the rte_hash.
 */
#ifndef MPE_FLOW_H
#define MPE_FLOW_H

#include <stdint.h>

#include <rte_common.h>

#include "names.h"
#include "pkt.h"
#include "undo.h"

#define MPE_FLOW_NAME_MAX     MPE_NAME_FLOW_MAX
#define MPE_FLOW_CAPACITY_MIN 8 /* one rte_hash bucket */
#define MPE_FLOW_CAPACITY_MAX (1u << 24)
/* Most cache entries (8 bytes each): a 64 KiB cache stays in a core's L2. */
#define MPE_FLOW_CACHE_MAX (1u << 13)
/* Entries in a set of the cache (compared at once; at most the fewest entries: 8) */
#define MPE_FLOW_CACHE_WAYS 4

#define MPE_FLOW_TABLE_MAGIC   0x4d5045464c4f5754ULL /* "MPEFLOWT" */
#define MPE_FLOW_TABLE_VERSION 6

/* Directions of a flow: forward is the direction of its first packet. */
enum mpe_flow_dir {
	MPE_FLOW_DIR_FWD = 0,
	MPE_FLOW_DIR_REV = 1,
};

enum mpe_flow_state {
	MPE_FLOW_FREE = 0, /* slot unused (never used, or expired) */
	MPE_FLOW_ACTIVE,
};

/* One flow. Written by the owning worker only; plain data, no pointers. */
struct mpe_flow {
	/* first line: what every packet of the flow reads or writes */
	uint8_t state;        /* enum mpe_flow_state; set last when a flow is born */
	uint8_t fwd_from_dst; /* 1: the first packet went from key.dst to key.src */
	uint8_t tcp_flags[2]; /* OR of TCP flags seen, per enum mpe_flow_dir */
	uint32_t hash;        /* mpe_flow_hash(key): what the hash table was given */
	uint64_t pkts[2];     /* per enum mpe_flow_dir */
	uint64_t bytes[2];
	uint64_t last_seen; /* TSC of the last packet */
	/* Verdict cache of the acl stage on the same worker: acl_rule[dir] is the classify
	 * result + 1 (0: not known) under rule set generation acl_gen (0: none). */
	uint32_t acl_gen;
	uint32_t acl_rule[2];
	/* second line: written when the flow is born, read by expiry and reports */
	uint64_t first_seen __rte_cache_aligned; /* TSC of the first packet */
	struct mpe_flow_key key; /* canonical: lower endpoint in src */
} __rte_cache_aligned;

/* Counters of one table: the owning worker is the only writer. */
struct mpe_flow_stats {
	uint64_t active;     /* flows in the table now */
	uint64_t inserted;   /* flows created */
	uint64_t expired;    /* flows removed for idleness */
	uint64_t table_full; /* packets that found no flow because the table was full */
	uint64_t lookups;    /* packets looked up */
	uint64_t scanned;    /* slots visited by mpe_flow_expire() */
	uint64_t resets;     /* times mpe_flow_table_recover() had to empty the table */
	uint64_t cache_hits; /* lookups answered by the cache, without the rte_hash */
	uint64_t unhash_miss; /* expiries whose key the hash did not give back at its slot */
};

/* A set of the flow cache (32 bytes): the hashes of its entries, and their positions + 1 (0:
 * empty), the newest first. */
struct mpe_flow_cache_set {
	uint32_t sig[MPE_FLOW_CACHE_WAYS];
	uint32_t pos1[MPE_FLOW_CACHE_WAYS];
};

struct rte_hash;

struct mpe_flow_table {
	/* header: written once by mpe_flow_table_create() */
	uint64_t magic;
	uint32_t version;
	uint32_t flow_size; /* sizeof(struct mpe_flow) in the creator's build */
	uint32_t capacity;
	uint32_t cache_mask; /* cache entries - 1: a power of two, at most MPE_FLOW_CACHE_MAX */
	uint64_t idle_timeout_tsc; /* 0: flows never expire */
	uint64_t sweep_step_tsc;   /* paced expiry: one slot per step, the table twice a timeout */
	struct rte_hash *hash;     /* in hugepage memory; only *_with_hash calls on it */
	struct mpe_flow_cache_set *cache; /* after flows[] */
	const void *self;          /* the creator's address of this table */
	char name[MPE_FLOW_NAME_MAX + 1];

	/* owner line: the owning worker writes, others read */
	volatile uint32_t busy __rte_cache_aligned; /* 1 while the hash is being changed */
	uint32_t cursor;                            /* next slot mpe_flow_expire() visits */
	uint64_t sweep_tsc; /* paced expiry: when the next slot is due (0: not started) */
	struct mpe_flow_stats stats;
	/* the owning worker's undo log (undo.h), set by its flow stage; NULL: none. What a
	 * packet adds to its flow and the per-packet statistics go through it; a flow's birth
	 * does not: a burst run again finds the flow it made. */
	struct mpe_undo *undo;

	struct mpe_flow flows[] __rte_cache_aligned;
};

/* Create table @name (1..MPE_FLOW_NAME_MAX chars) for @capacity flows
 * (MPE_FLOW_CAPACITY_MIN..MPE_FLOW_CAPACITY_MAX; exactly that many fit) on NUMA @socket
 * (or SOCKET_ID_ANY). Flows idle longer than @idle_timeout_tsc TSC cycles are removed by
 * mpe_flow_expire(); 0 disables expiry. Returns NULL and sets rte_errno (EINVAL,
 * ENAMETOOLONG, EEXIST, ENOMEM) on failure. */
struct mpe_flow_table *mpe_flow_table_create(const char *name, uint32_t capacity,
					     uint64_t idle_timeout_tsc, int socket);

/* Find a table made by any process (e.g. a respawned worker re-attaching to its own table).
 * Returns NULL and sets rte_errno: ENOENT (no such table), EINVAL or ENAMETOOLONG (name),
 * EINVAL (a table of another layout). A new owner must call mpe_flow_table_recover() before
 * updating it. */
struct mpe_flow_table *mpe_flow_table_lookup(const char *name);

/* For a new owner after mpe_flow_table_lookup(): if the previous owner died while changing
 * the hash, or the hash and the stats disagree, empty the table (flows are lost, counted in
 * stats.resets). Returns 1 if the table was emptied, 0 if it was kept, -EINVAL. */
int mpe_flow_table_recover(struct mpe_flow_table *t);

/* Destroy; NULL is accepted. No other process may use the table any more. */
void mpe_flow_table_free(struct mpe_flow_table *t);

/* Owner's burst: for each of @n packets (wire keys @keys[i], frame lengths @lens[i], TCP flags
 * @tcp_flags[i] or @tcp_flags NULL) find or create its flow and account the packet in its
 * direction. @out[i] is the flow, or NULL when the table is full (counted in table_full).
 * Returns how many packets got a flow, or -EINVAL. @now is a TSC value. */
int mpe_flow_update_burst(struct mpe_flow_table *t, const struct mpe_flow_key *keys[],
			  const uint32_t lens[], const uint8_t tcp_flags[], uint16_t n,
			  uint64_t now, struct mpe_flow *out[]);

/* The same, and @dirs[i] (if not NULL) = the enum mpe_flow_dir of packet i in its flow
 * (MPE_FLOW_DIR_FWD where @out[i] is NULL: no flow). @hashes (if not NULL) holds
 * mpe_flow_hash(keys[i]), already computed by the caller (the parse stage's flow hash): it
 * must be exactly that. */
int mpe_flow_update_burst_dir(struct mpe_flow_table *t, const struct mpe_flow_key *keys[],
			      const uint32_t lens[], const uint8_t tcp_flags[], uint16_t n,
			      uint64_t now, struct mpe_flow *out[], uint8_t dirs[],
			      const uint32_t hashes[]);

/* Owner only: visit the next min(@budget, capacity) slots after the cursor and remove the
 * flows idle for more than the table's timeout at @now. Returns how many were removed. */
uint32_t mpe_flow_expire(struct mpe_flow_table *t, uint64_t now, uint32_t budget);

/* Owner only, once per burst: mpe_flow_expire() over the slots that fell due since the last
 * call, at a pace that sweeps the whole table twice per idle timeout, and never more than
 * @max slots a call (a table behind its pace catches up no faster, and forgets the rest of
 * its debt). So a flow idle for the timeout is gone within about 1.5 timeouts of traffic,
 * and a busy worker visits a handful of slots a second, not a handful a burst. */
uint32_t mpe_flow_expire_paced(struct mpe_flow_table *t, uint64_t now, uint32_t max);

/* The flow of @key (either direction), or NULL. Owner, or any process while the owner does
 * not change the table. */
struct mpe_flow *mpe_flow_find(const struct mpe_flow_table *t, const struct mpe_flow_key *key);

/* Direction of a packet with wire key @key within its flow @f. */
enum mpe_flow_dir mpe_flow_dir(const struct mpe_flow *f, const struct mpe_flow_key *key);

/* The up to @k active flows with most bytes (both directions), most first, into @top.
 * Returns how many, or -EINVAL. O(capacity log k); any process; approximate while the owner
 * runs. */
int mpe_flow_top(const struct mpe_flow_table *t, uint32_t k, const struct mpe_flow *top[]);

/* Copy of the counters (any process). */
void mpe_flow_table_stats(const struct mpe_flow_table *t, struct mpe_flow_stats *st);

#endif
