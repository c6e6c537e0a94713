/* SPDX-License-Identifier: BSD-3-Clause */
/* The inspection stages, over the packet decoder and the structures of common/inspect/:
 *   parse - decode L2 to L4; count (and drop) malformed frames
 *   flow  - account each packet to its flow in the worker's flow table
 *   acl   - classify with rte_acl against the rule set in force; apply the rule's action
 * Stages run on one worker at a time; their counters and flow table belong to that worker.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "decode.h"
#include "flow.h"
#include "names.h"
#include "pkt.h"
#include "ruleset.h"
#include "stage.h"
#include "stages.h"

/* The lines parse reads and writes: in the ring shapes another core wrote them last, and
 * each first touch would be a miss of its own. */
static inline void
prefetch_packet(struct rte_mbuf *m)
{
	rte_prefetch0(rte_pktmbuf_mtod(m, const void *));
	mpe_prefetch_w(m); /* packet type */
	mpe_prefetch_w(RTE_PTR_ADD(m, RTE_CACHE_LINE_SIZE)); /* header lengths, metadata */
	mpe_prefetch_w(mpe_pkt_priv(m));
}

/* Packets decoded before their results are written: those writes read what the decoder
 * stored, and by then the stores are in the cache instead of still on their way to it. */
#define PARSE_CHUNK 32

/* Decodes L2 to L4 into the mbuf (packet type, header lengths) and the metadata (symmetric
 * flow hash). A malformed frame is counted by reason and, unless the configuration says
 * malformed = pass, dropped: moved behind the survivors for the worker loop to free. A chain
 * of segments is checked against its whole length, its headers read from its first segment
 * or from a copy of its head. */
static uint16_t
parse_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *dropped[MPE_MAX_BURST];
	struct mpe_decoded dec[PARSE_CHUNK];
	uint8_t buf[MPE_PKT_HEAD_MAX]; /* a decode keeps offsets only: one copy at a time */
	int rcs[PARSE_CHUNK];
	const int pass = ctx->conf->malformed_pass;
	uint16_t i, j, c, kept = 0, nd = 0;

	/* the whole burst at once: the misses overlap instead of following each other */
	for (i = 0; i < n; i++)
		prefetch_packet(pkts[i]);
	for (i = 0; i < n; i += c) {
		c = RTE_MIN((uint16_t)(n - i), (uint16_t)PARSE_CHUNK);
		for (j = 0; j < c; j++) {
			const void *head;
			uint32_t cap;

			head = mpe_pkt_head(pkts[i + j], buf, &cap);
			rcs[j] = mpe_decode_head(head, cap, rte_pktmbuf_pkt_len(pkts[i + j]),
						 &dec[j]);
		}
		for (j = 0; j < c; j++) {
			struct rte_mbuf *m = pkts[i + j];
			struct mpe_meta *meta = mpe_meta(m, ctx->meta_offset);
			struct mpe_pkt_priv *pp = mpe_pkt_priv(m);
			const struct mpe_decoded *d = &dec[j];

			m->packet_type = d->ptype;
			m->l2_len = d->l2_len;
			m->l3_len = d->l3_len;
			m->l4_len = d->l4_len;
			/* IPv6 extension headers may add up to more than the mbuf's 9-bit field
			 * holds: leave L3 and L4 undescribed in the mbuf rather than describe
			 * them wrongly */
			if (unlikely(d->l3_len > RTE_LEN2MASK(RTE_MBUF_L3_LEN_BITS, uint16_t))) {
				m->packet_type = d->ptype & (RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK);
				m->l3_len = 0;
				m->l4_len = 0;
			}
			/* A well-formed IP packet has the key that mpe_pkt_flow_key() reads, IPv6
			 * extension headers too (test_decode holds them to it), so a hash of it
			 * made at RX by the distributor is this one. (Not for other frames: their
			 * key is the MAC addresses, which a stage before this one may have
			 * rewritten.) */
			if (!(meta->flags & MPE_META_HASHED) || rcs[j] != 0 || d->ip_version == 0) {
				meta->flow_hash = mpe_flow_hash(&d->key);
				meta->flags &= (uint8_t)~MPE_META_HASHED;
			}
			meta->flags |= MPE_META_PARSED;
			pp->key = d->key;
			pp->tcp_flags = d->tcp_flags;
			pp->frag_sport = d->frag_sport;
			pp->frag_dport = d->frag_dport;
			pp->flow = NULL;
			if (unlikely(rcs[j] < 0)) {
				mpe_undo_add(ctx->undo, &ctx->malformed[d->bad], 1);
				meta->bad = (uint8_t)(d->bad + 1); /* the recorder's reason */
				if (!pass) {
					dropped[nd++] = m;
					continue;
				}
			}
			pkts[kept++] = m;
		}
	}
	memcpy(pkts + kept, dropped, nd * sizeof(pkts[0]));
	return kept;
}

/* Moves the packets marked in @drop behind the others, keeping both groups in order.
 * Returns how many go on. */
static inline uint16_t
partition(struct rte_mbuf **pkts, uint16_t n, const uint8_t *drop)
{
	struct rte_mbuf *dropped[MPE_MAX_BURST];
	uint16_t i, kept = 0, nd = 0;

	for (i = 0; i < n; i++) {
		if (unlikely(drop[i]))
			dropped[nd++] = pkts[i];
		else
			pkts[kept++] = pkts[i];
	}
	memcpy(pkts + kept, dropped, nd * sizeof(pkts[0]));
	return kept;
}

/* Most slots of the flow table visited for expiry in one burst (see
 * mpe_flow_expire_paced: the pace is set by the table's size and idle timeout). */
#define FLOW_EXPIRE_MAX 8

static struct mpe_flow_table *
worker_flow_table(unsigned int worker)
{
	char name[MPE_FLOW_NAME_MAX + 1];

	snprintf(name, sizeof(name), MPE_NAME_FLOW_FMT, worker);
	return mpe_flow_table_lookup(name);
}

/* The table was made by the primary; a respawned worker finds it as its predecessor left
 * it, and empties it if that one died while changing the hash. */
static int
flow_init(struct mpe_stage_ctx *ctx)
{
	struct mpe_flow_table *t = worker_flow_table(ctx->worker_id);

	if (t == NULL)
		return -rte_errno;
	mpe_flow_table_recover(t);
	t->undo = ctx->undo;
	ctx->priv = t;
	return 0;
}

/* Accounts each parsed IP packet to its flow (packets and bytes per direction, TCP flags,
 * last seen), creating flows as needed, then expires a bounded slice of the table. A packet
 * of a new flow that finds the table full is counted, and dropped unless flow_full = pass. */
static uint16_t
flow_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct mpe_flow_table *t = ctx->priv;
	const struct mpe_flow_key *keys[MPE_MAX_BURST];
	struct mpe_flow *out[MPE_MAX_BURST];
	uint32_t lens[MPE_MAX_BURST], hashes[MPE_MAX_BURST];
	uint8_t flags[MPE_MAX_BURST], drop[MPE_MAX_BURST], dirs[MPE_MAX_BURST];
	uint16_t idx[MPE_MAX_BURST], i, m = 0, full = 0;
	uint64_t now = ctx->now;

	for (i = 0; i < n; i++) {
		struct mpe_pkt_priv *pp = mpe_pkt_priv(pkts[i]);
		const struct mpe_meta *meta = mpe_meta(pkts[i], ctx->meta_offset);

		drop[i] = 0;
		pp->flow = NULL;
		if (!(meta->flags & MPE_META_PARSED) || pp->key.family == MPE_FLOW_L2)
			continue;
		hashes[m] = meta->flow_hash; /* parse: mpe_flow_hash() of this very key */
		keys[m] = &pp->key;
		lens[m] = rte_pktmbuf_pkt_len(pkts[i]);
		flags[m] = pp->tcp_flags;
		idx[m++] = i;
	}
	if (m > 0 &&
	    mpe_flow_update_burst_dir(t, keys, lens, flags, m, now, out, dirs, hashes) != m) {
		for (i = 0; i < m; i++)
			if (out[i] == NULL) {
				full++;
				drop[idx[i]] = !ctx->conf->flow_full_pass;
			}
		mpe_undo_add(ctx->undo, &ctx->insp->flow_full, full);
	}
	for (i = 0; i < m; i++) {
		struct mpe_pkt_priv *pp = mpe_pkt_priv(pkts[idx[i]]);

		pp->flow = out[i];
		pp->dir = dirs[i];
	}
	mpe_flow_expire_paced(t, now, FLOW_EXPIRE_MAX);
	if (likely(full == 0 || ctx->conf->flow_full_pass))
		return n;
	return partition(pkts, n, drop);
}

struct acl_priv {
	/* this worker's flow table when its flow stage runs before acl: the flow entries
	 * then cache verdicts per direction, and a known flow needs no classification */
	struct mpe_flow_table *own;
};

static int
acl_init(struct mpe_stage_ctx *ctx)
{
	const struct mpe_worker_conf *wc = &ctx->conf->workers[ctx->worker_id];
	struct acl_priv *ap = calloc(1, sizeof(*ap));
	unsigned int i;

	if (ap == NULL)
		return -ENOMEM;
	for (i = 0; i < ctx->stage_pos; i++)
		if (wc->stages[i] == MPE_STAGE_FLOW)
			ap->own = worker_flow_table(ctx->worker_id);
	ctx->priv = ap;
	return 0;
}

static void
acl_fini(struct mpe_stage_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

/* Classifies each parsed packet against the rule set in force (read once per burst; the
 * worker reports quiescent between bursts, so the set stays alive until then), counts the
 * hit of the matching rule (or of the default action) in this worker's row, and applies
 * the action: drop, or go on (allow, count), also marked for the mirror port (mirror).
 * With a flow table on this worker, a flow direction already classified under the same
 * generation takes its verdict from the flow entry instead of rte_acl. A first fragment is
 * classified on its own ports, which its flow's key (ports 0, shared by the whole datagram)
 * does not hold: its verdict is neither taken from the flow nor kept in it, where the later
 * fragments, which carry no ports, would find it. */
static uint16_t
acl_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	const struct mpe_ruleset *rs = __atomic_load_n(&ctx->shm->ruleset, __ATOMIC_ACQUIRE);
	const struct acl_priv *ap = ctx->priv;
	const struct mpe_flow_key *keys[MPE_MAX_BURST];
	struct mpe_flow_key frag_keys[MPE_MAX_BURST];
	uint32_t res[MPE_MAX_BURST], found[MPE_MAX_BURST];
	uint16_t idx[MPE_MAX_BURST], i, m = 0, nf = 0, ndrop = 0, cached = 0;
	uint8_t drop[MPE_MAX_BURST], own_ports[MPE_MAX_BURST];
	uint64_t *row;
	uint32_t gen;

	if (unlikely(rs == NULL))
		return n;
	row = mpe_ruleset_row(rs, ctx->worker_id);
	gen = rs->generation;
	for (i = 0; i < n; i++) {
		struct mpe_pkt_priv *pp = mpe_pkt_priv(pkts[i]);
		const struct mpe_flow *f;

		res[i] = 0;
		if (unlikely(!(mpe_meta(pkts[i], ctx->meta_offset)->flags & MPE_META_PARSED)))
			continue; /* nothing to classify on: the default action */
		if (unlikely((pp->frag_sport | pp->frag_dport) != 0)) {
			frag_keys[nf] = pp->key;
			frag_keys[nf].sport = pp->frag_sport;
			frag_keys[nf].dport = pp->frag_dport;
			keys[m] = &frag_keys[nf++];
			own_ports[m] = 1;
			idx[m++] = i;
			continue;
		}
		f = ap->own != NULL ? pp->flow : NULL;
		if (f != NULL && f->acl_gen == gen && f->acl_rule[pp->dir] != 0) {
			res[i] = f->acl_rule[pp->dir] - 1;
			cached++;
			continue;
		}
		keys[m] = &pp->key;
		own_ports[m] = 0;
		idx[m++] = i;
	}
	if (m > 0) {
		mpe_acl_classify(&rs->acl, keys, m, found);
		for (i = 0; i < m; i++) {
			struct mpe_pkt_priv *pp = mpe_pkt_priv(pkts[idx[i]]);
			struct mpe_flow *f = ap->own != NULL && !own_ports[i] ? pp->flow : NULL;

			res[idx[i]] = found[i];
			if (f != NULL) {
				if (f->acl_gen != gen) {
					f->acl_rule[0] = 0;
					f->acl_rule[1] = 0;
					f->acl_gen = gen;
				}
				f->acl_rule[pp->dir] = found[i] + 1;
			}
		}
	}
	mpe_undo_add(ctx->undo, &ctx->insp->acl_lookups, m);
	mpe_undo_add(ctx->undo, &ctx->insp->acl_cached, cached);
	for (i = 0; i < n; i++) {
		struct mpe_meta *meta = mpe_meta(pkts[i], ctx->meta_offset);
		uint32_t r = res[i];
		uint8_t action = r != 0 ? rs->rules[r - 1].action : rs->default_action;

		mpe_undo_add(ctx->undo, &row[r], 1);
		meta->rule = r;
		meta->verdict = action;
		drop[i] = action == MPE_RULE_DROP;
		ndrop += drop[i];
		if (action == MPE_RULE_MIRROR)
			meta->flags |= MPE_META_MIRROR;
	}
	return ndrop == 0 ? n : partition(pkts, n, drop);
}

const struct mpe_stage_ops mpe_stage_parse_ops = {
	.burst = parse_burst,
};

const struct mpe_stage_ops mpe_stage_flow_ops = {
	.init = flow_init,
	.burst = flow_burst,
};

const struct mpe_stage_ops mpe_stage_acl_ops = {
	.init = acl_init,
	.burst = acl_burst,
	.fini = acl_fini,
};
