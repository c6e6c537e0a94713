/* SPDX-License-Identifier: BSD-3-Clause */
/* The stages that need no inspection state:
 *   fwd      - route to the peer port of the receiving port, optional MAC rewrite
 *   flowhash - symmetric flow hash into the packet's metadata
 *   burn     - spend cycles (measurements, tests)
 * Stages run on one worker at a time; their counters belong to that worker.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "pkt.h"
#include "stage.h"
#include "stages.h"

static uint16_t
flowhash_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	uint8_t buf[MPE_PKT_HEAD_MAX];

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct mpe_meta *meta = mpe_meta(m, ctx->meta_offset);
		const void *head;
		uint32_t cap;

		head = mpe_pkt_head(m, buf, &cap);
		meta->flow_hash = mpe_pkt_flow_hash(head, cap);
		meta->flags |= MPE_META_HASHED;
	}
	return n;
}

void
mpe_stage_ports(struct mpe_stage_ctx *ctx, const struct mpe_conf *conf)
{
	unsigned int i;

	ctx->nb_ports = (uint16_t)conf->nb_ports;
	ctx->rewrite = 0;
	ctx->burst_in = MPE_PORT_NONE;
	ctx->burst_out = MPE_PORT_NONE;
	for (i = 0; i < conf->nb_ports; i++) {
		ctx->port_ids[i] = conf->ports[i].port_id;
		memcpy(ctx->port_mac[i].addr_bytes, conf->ports[i].mac, RTE_ETHER_ADDR_LEN);
		ctx->peer[i] = conf->ports[i].peer;
		ctx->rewrite |= conf->ports[i].has_dst_mac != 0;
	}
}

static uint16_t
fwd_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	const struct mpe_conf *conf = ctx->conf;
	const int off = ctx->meta_offset;
	uint16_t i;

	if (ctx->burst_in < ctx->nb_ports) {
		/* one input port: one output port, and no per-packet look at the input */
		const uint16_t out = ctx->peer[ctx->burst_in];

		for (i = 0; i < n; i++)
			mpe_meta(pkts[i], off)->out_port = out;
		ctx->burst_out = out;
	} else if (n > 0) {
		uint16_t first = 0, differ = 0;

		/* in_port was set at RX from the port polled, whatever the driver put in m->port;
		 * an out-of-range value leaves the packet unrouted (counted no_route) */
		for (i = 0; i < n; i++) {
			struct mpe_meta *meta = mpe_meta(pkts[i], off);
			uint16_t out = likely(meta->in_port < ctx->nb_ports) ?
					       ctx->peer[meta->in_port] : MPE_PORT_NONE;

			meta->out_port = out;
			if (i == 0)
				first = out;
			differ |= out ^ first;
		}
		ctx->burst_out = differ ? MPE_PORT_NONE : first;
	}
	if (likely(!ctx->rewrite))
		return n;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint16_t out = mpe_meta(m, off)->out_port;

		if (out < ctx->nb_ports && conf->ports[out].has_dst_mac &&
		    rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN) {
			struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

			memcpy(&eth->dst_addr, conf->ports[out].dst_mac, RTE_ETHER_ADDR_LEN);
			rte_ether_addr_copy(&ctx->port_mac[out], &eth->src_addr);
		}
	}
	return n;
}

/* Spends a fixed number of cycles on every packet, for measurements and tests that need a
 * worker with real work in its hands (heavier processing, or a crash in mid-burst). */
static uint16_t
burn_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t until = rte_rdtsc() + (uint64_t)ctx->conf->burn_cycles * n;

	(void)pkts;
	while (rte_rdtsc() < until)
		rte_pause();
	return n;
}

const struct mpe_stage_ops mpe_stage_fwd_ops = {
	.burst = fwd_burst,
};

const struct mpe_stage_ops mpe_stage_flowhash_ops = {
	.burst = flowhash_burst,
};

const struct mpe_stage_ops mpe_stage_burn_ops = {
	.burst = burn_burst,
};
