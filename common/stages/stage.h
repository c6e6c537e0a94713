/* SPDX-License-Identifier: BSD-3-Clause */
/* The stage contract: the context a stage works in, its operations, and the per-packet
 * metadata stages read and write. What each stage is called and needs is the catalogue's
 * (config/stage_info.h); the table of their code is process-local (table.c): shared memory
 * names a stage by its id, never by address, because function pointers differ between
 * processes.
 */
#ifndef MPE_STAGE_H
#define MPE_STAGE_H

#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "pkt.h"
/* mpe_prefetch_w(): prefetch a line the caller is about to write, asked for in exclusive
 * state at once rather than read shared and then taken over from the CPU that wrote it last,
 * a second trip. For the CPU family, as meson chose it (prefetch_w_x86_64.h, _generic.h). */
#include "prefetch_w.h"
#include "shm.h"
#include "stage_info.h"

/* Per-packet metadata, kept in an mbuf dynamic field registered by the primary. */
struct mpe_meta {
	uint32_t flow_hash; /* symmetric: both directions of a flow give the same value */
	uint32_t rule;	    /* acl: 0 no rule matched, i + 1 rule i of the rule set in force */
	uint16_t in_port;   /* index into conf.ports[] of the receiving port, set at RX */
	uint16_t out_port;  /* index into conf.ports[], MPE_PORT_NONE until routed */
	uint8_t verdict;    /* enum mpe_rule_action the acl stage applied */
	uint8_t flags;	    /* MPE_META_* */
	uint8_t drop_stage; /* recorder: 1 + the stage of this worker that dropped it, 0: none */
	uint8_t bad;	    /* 1 + enum mpe_decode_bad when the parse stage found it malformed */
};

#define MPE_META_NAME "mpe_meta"

#define MPE_META_PARSED 0x01 /* the parse stage filled struct mpe_pkt_priv */
#define MPE_META_MIRROR 0x02 /* send a copy to the mirror port too */
#define MPE_META_HASHED 0x04 /* flow_hash is mpe_pkt_flow_hash() of the frame as received */
/* drop_stage of a packet of a flow quarantine blocks, dropped before any stage */
#define MPE_META_BLOCKED UINT8_MAX

struct mpe_flow;

/* What the parse stage decoded for the stages after it, in the mbuf's private area (the pool
 * is made with room for it). Valid when meta->flags has MPE_META_PARSED. */
struct mpe_pkt_priv {
	struct mpe_flow_key key; /* as on the wire */
	struct mpe_flow *flow;	 /* flow stage: the packet's entry in this worker's table */
	uint8_t tcp_flags;
	uint8_t dir; /* flow stage: enum mpe_flow_dir of the packet within its flow */
	/* A first fragment's ports, network order, which key leaves 0 (every fragment of a
	 * datagram shares one flow): acl matches on them. 0 for every other packet. */
	uint16_t frag_sport;
	uint16_t frag_dport;
};

/* Whole cache lines, so that a packet's data (after the headroom) starts on a line of its
 * own: the headers of most frames are then one line, not the ends of two. */
#define MPE_PKT_PRIV_SIZE RTE_ALIGN_CEIL(sizeof(struct mpe_pkt_priv), RTE_CACHE_LINE_SIZE)
/* Where a received packet's data starts in an mbuf of the engine's pool (drivers receive at
 * the default headroom): a cache line boundary. */
#define MPE_PKT_DATA_OFFSET (sizeof(struct rte_mbuf) + MPE_PKT_PRIV_SIZE + RTE_PKTMBUF_HEADROOM)

static inline struct mpe_pkt_priv *
mpe_pkt_priv(struct rte_mbuf *m)
{
	return (struct mpe_pkt_priv *)rte_mbuf_to_priv(m);
}

/* Bytes of a chained frame's head that the parse stage and the flow hashes read when its first
 * segment is shorter: every header of Ethernet with two tags, IPv4 with options and TCP with
 * options (142 bytes), and IPv6 with an ordinary extension header chain. */
#define MPE_PKT_HEAD_MAX 256

/* The first bytes of @m in one piece: the first segment when it holds the whole frame (the
 * usual case, one predictable branch) or at least MPE_PKT_HEAD_MAX bytes, else the frame's
 * first MPE_PKT_HEAD_MAX bytes (all of it when shorter) copied into @buf. Sets *@cap to the
 * bytes that the result holds; rte_pktmbuf_pkt_len(@m) is the frame's length. */
static inline const void *
mpe_pkt_head(const struct rte_mbuf *m, uint8_t buf[MPE_PKT_HEAD_MAX], uint32_t *cap)
{
	uint32_t first = rte_pktmbuf_data_len(m);
	const void *p;

	if (likely(first == rte_pktmbuf_pkt_len(m)) || first >= MPE_PKT_HEAD_MAX) {
		*cap = first;
		return rte_pktmbuf_mtod(m, const void *);
	}
	*cap = RTE_MIN(rte_pktmbuf_pkt_len(m), (uint32_t)MPE_PKT_HEAD_MAX);
	p = rte_pktmbuf_read(m, 0, *cap, buf);
	if (unlikely(p == NULL)) /* segment lengths that do not add up to pkt_len */
		*cap = 0;
	return p != NULL ? p : buf;
}

struct mpe_stage_ctx {
	const struct mpe_shared *shm;
	const struct mpe_conf *conf;
	struct mpe_counters *cnt; /* this stage's counters in the worker's slot */
	int meta_offset;
	uint16_t port_ids[MPE_MAX_PORTS]; /* ethdev port id of each configured port */
	struct rte_ether_addr port_mac[MPE_MAX_PORTS];
	uint16_t peer[MPE_MAX_PORTS]; /* configured peer of each configured port */
	uint16_t nb_ports;
	uint8_t rewrite; /* some port has a dst_mac: fwd rewrites the MACs of what it sends */
	uint64_t *malformed; /* the worker's counters by enum mpe_decode_bad (shared memory) */
	struct mpe_inspect_counters *insp; /* the worker's inspection counters */
	unsigned int worker_id;
	unsigned int stage_pos; /* position of this stage in the worker's list */
	uint64_t now; /* TSC at the start of the running burst (reads_time: of this stage's
		       * burst, else at most cycles_sample bursts old) */
	/* Set by the worker before each burst: the port (index into conf.ports[]) every packet
	 * of it was received on (a burst from one port queue), or MPE_PORT_NONE (from a ring:
	 * any mix). */
	uint16_t burst_in;
	/* Set by the worker before each burst to what the stages before said, and by a stage
	 * that routes: the port (index into conf.ports[]) every packet of the burst is routed
	 * to, or MPE_PORT_NONE when that is not known to be one port. */
	uint16_t burst_out;
	void *priv; /* the stage's own state, made by init in the running process */
	/* the worker's undo log, or NULL: every counter the stage moves per burst or per packet
	 * moves through mpe_undo_add() (undo.h) */
	struct mpe_undo *undo;
};

/* A stage: burst takes @n packets, keeps the ones that go on at the front of @pkts in their
 * order, moves the others behind them, and returns how many go on. It never frees a packet:
 * the worker loop frees and counts what a stage dropped, in an order that lets the primary
 * reclaim a dead worker's packets without freeing one twice. A stage that changes any
 * packet's out_port sets ctx->burst_out too (MPE_PORT_NONE when the burst may go to more
 * than one port): a worker that transmits trusts it and then looks at no packet's out_port. */
struct mpe_stage_ops {
	int (*init)(struct mpe_stage_ctx *ctx);
	uint16_t (*burst)(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n);
	void (*fini)(struct mpe_stage_ctx *ctx);
};

#define MPE_STAGE_NONE 0xff

/* Fill @ctx's port tables (ethdev ids, MACs, peers) from @conf. */
void mpe_stage_ports(struct mpe_stage_ctx *ctx, const struct mpe_conf *conf);

/* The code of stage @id (enum mpe_stage_id), or NULL past the end. */
const struct mpe_stage_ops *mpe_stage_get(unsigned int id);

static inline struct mpe_meta *
mpe_meta(struct rte_mbuf *m, int offset)
{
	return RTE_MBUF_DYNFIELD(m, offset, struct mpe_meta *);
}

/* Metadata of a freshly received packet: the receiving port, nothing decided yet (the flow
 * hash is zero until computed: see MPE_META_HASHED). */
static inline void
mpe_meta_init(struct mpe_meta *meta, uint16_t in_port)
{
	/* the whole field at once: two stores where field by field takes three */
	const struct mpe_meta init = {.in_port = in_port, .out_port = MPE_PORT_NONE};

	memcpy(meta, &init, sizeof(init));
}

#endif
