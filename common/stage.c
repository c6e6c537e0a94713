/* The stage table and the stages of the core engine:
 *   flowhash - symmetric flow hash into the packet's metadata
 *   fwd      - route to the peer port of the receiving port, optional MAC rewrite
 * Stages run on one worker at a time; their counters belong to that worker.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_pause.h>
#include <rte_mbuf.h>

#include "decode.h"
#include "pkt.h"
#include "stage.h"

static uint16_t
flowhash_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		mpe_meta(m, ctx->meta_offset)->flow_hash =
			mpe_pkt_flow_hash(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m));
	}
	return n;
}

static uint16_t
fwd_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	const struct mpe_conf *conf = ctx->conf;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct mpe_meta *meta = mpe_meta(m, ctx->meta_offset);
		uint16_t out;

		/* in_port was set at RX from the port polled, whatever the driver put in
		 * m->port; an out-of-range value leaves the packet unrouted (counted no_route) */
		if (unlikely(meta->in_port >= conf->nb_ports))
			continue;
		out = conf->ports[meta->in_port].peer;
		meta->out_port = out;
		if (conf->ports[out].has_dst_mac && rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN) {
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

/* Decodes L2 to L4 into the mbuf (packet type, header lengths) and the metadata (symmetric
 * flow hash). A malformed frame is counted by reason and, unless the configuration says
 * malformed = pass, dropped: moved behind the survivors for the worker loop to free. */
static uint16_t
parse_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *dropped[MPE_MAX_BURST];
	const int pass = ctx->conf->malformed_pass;
	uint16_t i, kept = 0, nd = 0;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct mpe_decoded d;
		int rc = mpe_decode(rte_pktmbuf_mtod(m, void *), rte_pktmbuf_data_len(m), &d);

		m->packet_type = d.ptype;
		m->l2_len = d.l2_len;
		m->l3_len = d.l3_len;
		m->l4_len = d.l4_len;
		mpe_meta(m, ctx->meta_offset)->flow_hash = mpe_flow_hash(&d.key);
		if (unlikely(rc < 0)) {
			ctx->malformed[d.bad]++;
			if (!pass) {
				dropped[nd++] = m;
				continue;
			}
		}
		pkts[kept++] = m;
	}
	memcpy(pkts + kept, dropped, nd * sizeof(pkts[0]));
	return kept;
}

static const struct mpe_stage_ops stages[] = {
	{
		.name = "fwd",
		.help = "send to the peer of the receiving port; rewrite MACs if dst_mac is set",
		.burst = fwd_burst,
	},
	{
		.name = "flowhash",
		.help = "compute the symmetric flow hash of each packet",
		.burst = flowhash_burst,
	},
	{
		.name = "parse",
		.help = "decode L2 to L4; count malformed frames by reason and drop them (or pass)",
		.burst = parse_burst,
	},
	{
		.name = "burn",
		.help = "spend burn_cycles TSC cycles on each packet (emulates heavier work)",
		.burst = burn_burst,
	},
};

int
mpe_stage_find(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(stages); i++)
		if (strlen(stages[i].name) == len && strncmp(stages[i].name, name, len) == 0)
			return (int)i;
	return -ENOENT;
}

const struct mpe_stage_ops *
mpe_stage_get(unsigned int idx)
{
	return idx < RTE_DIM(stages) ? &stages[idx] : NULL;
}

unsigned int
mpe_stage_count(void)
{
	return RTE_DIM(stages);
}

const char *
mpe_stage_list(void)
{
	static char list[256];
	size_t off = 0;
	unsigned int i;

	if (list[0] != '\0')
		return list;
	for (i = 0; i < RTE_DIM(stages) && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					stages[i].name);
	return list;
}
