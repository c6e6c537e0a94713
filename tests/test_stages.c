/* Stages as the worker loop runs them: bursts of real mbufs in, the survivors first in their
 * order, the dropped behind them, and the mbuf fields, metadata and counters each stage owns.
 * Table-driven: each case is a burst of frames and the verdict each must get. */
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "decode.h"
#include "pkt.h"
#include "stage.h"
#include "test.h"
#include "test_eal.h"

#define MAX_FRAME 128

static struct rte_mempool *pool;
static int meta_off;

/* A frame, written by hand: Ethernet + IPv4 (IHL @ihl) + TCP, @len bytes in all. */
static uint16_t
ipv4_tcp(uint8_t *f, uint8_t ihl, uint16_t total_len, uint16_t len, uint8_t last_octet)
{
	memset(f, 0, MAX_FRAME);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00", 14);
	f[14] = (uint8_t)(0x40 | ihl);
	f[16] = (uint8_t)(total_len >> 8);
	f[17] = (uint8_t)total_len;
	f[22] = 64;
	f[23] = 6;
	memcpy(f + 26, "\x0a\0\0\x01\x0a\0\0", 7);
	f[33] = last_octet;
	f[34 + 0] = 0x04, f[34 + 1] = 0x00; /* sport 1024 */
	f[34 + 2] = 0x00, f[34 + 3] = 0x50; /* dport 80 */
	f[34 + 12] = 5 << 4;
	return len;
}

enum kind { OK_TCP, SHORT_IPV4, BAD_IHL, LEN_BEYOND, SHORT_TCP, NOT_IP };

static const char *const kind_names[] = {"good", "short_ipv4", "ihl", "total_len", "short_tcp",
					 "l2"};

static struct rte_mbuf *
make(enum kind k, uint8_t id)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;
	uint16_t len = 0;

	if (m == NULL)
		return NULL;
	f = (uint8_t *)rte_pktmbuf_append(m, 60);
	if (f == NULL)
		return NULL;
	switch (k) {
	case OK_TCP: len = ipv4_tcp(f, 5, 40, 60, id); break;
	case SHORT_IPV4: len = ipv4_tcp(f, 5, 40, 20, id); break;
	case BAD_IHL: len = ipv4_tcp(f, 4, 40, 60, id); break;
	case LEN_BEYOND: len = ipv4_tcp(f, 5, 200, 60, id); break;
	case SHORT_TCP: len = ipv4_tcp(f, 5, 30, 60, id); break;
	case NOT_IP:
		len = ipv4_tcp(f, 5, 40, 60, id);
		f[12] = 0x88, f[13] = 0xb5; /* local experimental ether type */
		break;
	}
	rte_pktmbuf_trim(m, (uint16_t)(60 - len));
	mpe_meta_init_burst(&m, 1, meta_off, 0);
	return m;
}

struct parse_case {
	const char *name;
	int pass; /* malformed = pass */
	enum kind kinds[8];
	unsigned int n;
	unsigned int kept;
	unsigned int bad[MPE_DECODE_BAD_MAX]; /* expected count by reason */
};

static const struct parse_case parse_cases[] = {
	{"good frames all go on, in order", 0, {OK_TCP, OK_TCP, NOT_IP, OK_TCP}, 4, 4, {0}},
	{"malformed frames are dropped and counted by reason", 0,
	 {OK_TCP, SHORT_IPV4, BAD_IHL, OK_TCP, LEN_BEYOND, SHORT_TCP, OK_TCP}, 7, 3,
	 {[MPE_DECODE_BAD_SHORT_IPV4] = 1, [MPE_DECODE_BAD_IPV4_IHL] = 1,
	  [MPE_DECODE_BAD_IPV4_TOTAL_LEN] = 1, [MPE_DECODE_BAD_SHORT_TCP] = 1}},
	{"with malformed = pass they go on, counted all the same", 1,
	 {OK_TCP, SHORT_IPV4, BAD_IHL, OK_TCP}, 4, 4,
	 {[MPE_DECODE_BAD_SHORT_IPV4] = 1, [MPE_DECODE_BAD_IPV4_IHL] = 1}},
	{"a burst of nothing but malformed frames", 0, {BAD_IHL, BAD_IHL}, 2, 0,
	 {[MPE_DECODE_BAD_IPV4_IHL] = 2}},
};

static int
is_bad(enum kind k)
{
	return k != OK_TCP && k != NOT_IP;
}

static void
run_parse_cases(void)
{
	const struct mpe_stage_ops *parse = mpe_stage_get((unsigned int)mpe_stage_find("parse", 5));
	size_t c;

	for (c = 0; c < TEST_DIM(parse_cases); c++) {
		const struct parse_case *pc = &parse_cases[c];
		struct mpe_conf conf;
		struct mpe_stage_ctx ctx;
		struct mpe_counters cnt;
		uint64_t malformed[MPE_DECODE_BAD_MAX] = {0};
		struct rte_mbuf *pkts[8], *orig[8];
		unsigned int i, j, r;
		uint16_t kept;

		test_begin("parse: %s", pc->name);
		mpe_config_defaults(&conf);
		conf.malformed_pass = (uint32_t)pc->pass;
		memset(&ctx, 0, sizeof(ctx));
		memset(&cnt, 0, sizeof(cnt));
		ctx.conf = &conf;
		ctx.cnt = &cnt;
		ctx.meta_offset = meta_off;
		ctx.malformed = malformed;
		for (i = 0; i < pc->n; i++)
			orig[i] = pkts[i] = make(pc->kinds[i], (uint8_t)i);
		kept = parse->burst(&ctx, pkts, (uint16_t)pc->n);
		CHECK(kept == pc->kept, "kept %u, expected %u", kept, pc->kept);
		/* survivors first, in their order; then every dropped one, each exactly once */
		for (i = 0, j = 0; i < pc->n; i++)
			if (pc->pass || !is_bad(pc->kinds[i])) {
				CHECK(j < kept && pkts[j] == orig[i], "survivor %u not in place %u", i, j);
				j++;
			}
		for (i = 0; i < pc->n; i++) {
			unsigned int seen = 0;

			for (j = 0; j < pc->n; j++)
				seen += pkts[j] == orig[i];
			CHECK(seen == 1, "packet %u appears %u times after the stage", i, seen);
		}
		for (r = 0; r < MPE_DECODE_BAD_MAX; r++)
			CHECK(malformed[r] == pc->bad[r], "%s: counted %lu, expected %u",
			      mpe_decode_bad_name(r), (unsigned long)malformed[r], pc->bad[r]);
		/* what the stage writes into good frames */
		for (i = 0; i < pc->n; i++) {
			struct rte_mbuf *m = orig[i];
			uint32_t want = mpe_pkt_flow_hash(rte_pktmbuf_mtod(m, void *),
							  rte_pktmbuf_data_len(m));

			if (pc->kinds[i] == OK_TCP)
				CHECK(m->l2_len == 14 && m->l3_len == 20 && m->l4_len == 20 &&
				      (m->packet_type & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_TCP,
				      "%s frame %u: l2 %u l3 %u l4 %u ptype %#x", kind_names[pc->kinds[i]],
				      i, m->l2_len, m->l3_len, m->l4_len, m->packet_type);
			if (!is_bad(pc->kinds[i]))
				CHECK(mpe_meta(m, meta_off)->flow_hash == want,
				      "frame %u: flow hash %#x, expected %#x", i,
				      mpe_meta(m, meta_off)->flow_hash, want);
		}
		rte_pktmbuf_free_bulk(orig, pc->n);
		test_end();
	}
}

/* fwd: the peer of the receiving port, and the MAC rewrite of the output port. */
static void
test_fwd_routes_and_rewrites(void)
{
	const struct mpe_stage_ops *fwd = mpe_stage_get((unsigned int)mpe_stage_find("fwd", 3));
	static const uint8_t peer_mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
	static const uint8_t own_mac[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
	struct mpe_conf conf;
	struct mpe_stage_ctx ctx;
	struct mpe_counters cnt;
	struct rte_mbuf *pkts[3];
	struct rte_ether_hdr *eth;
	uint16_t kept, i;

	mpe_config_defaults(&conf);
	conf.nb_ports = 2;
	conf.ports[0].peer = 1;
	conf.ports[1].peer = 0;
	conf.ports[1].has_dst_mac = 1;
	memcpy(conf.ports[1].dst_mac, peer_mac, 6);
	memset(&ctx, 0, sizeof(ctx));
	memset(&cnt, 0, sizeof(cnt));
	ctx.conf = &conf;
	ctx.cnt = &cnt;
	ctx.meta_offset = meta_off;
	memcpy(ctx.port_mac[1].addr_bytes, own_mac, 6);
	for (i = 0; i < 3; i++)
		pkts[i] = make(OK_TCP, (uint8_t)i);
	mpe_meta(pkts[1], meta_off)->in_port = 1;  /* to port 0: no rewrite */
	mpe_meta(pkts[2], meta_off)->in_port = 7;  /* no such port: left unrouted */
	kept = fwd->burst(&ctx, pkts, 3);
	CHECK(kept == 3, "fwd keeps every packet (%u)", kept);
	CHECK(mpe_meta(pkts[0], meta_off)->out_port == 1, "port 0 goes to its peer 1");
	CHECK(mpe_meta(pkts[1], meta_off)->out_port == 0, "port 1 goes to its peer 0");
	CHECK(mpe_meta(pkts[2], meta_off)->out_port == MPE_PORT_NONE,
	      "an unknown input port is left unrouted (counted no_route where it is sent)");
	eth = rte_pktmbuf_mtod(pkts[0], struct rte_ether_hdr *);
	CHECK(memcmp(&eth->dst_addr, peer_mac, 6) == 0 && memcmp(&eth->src_addr, own_mac, 6) == 0,
	      "out of port 1 (dst_mac set): destination rewritten, source is the port's MAC");
	eth = rte_pktmbuf_mtod(pkts[1], struct rte_ether_hdr *);
	CHECK(memcmp(eth->dst_addr.addr_bytes, "\x02\0\0\0\0\x02", 6) == 0,
	      "out of port 0 (no dst_mac): destination untouched");
	rte_pktmbuf_free_bulk(pkts, 3);
}

int
main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{"fwd: routes to the peer port and rewrites MACs where configured",
		 test_fwd_routes_and_rewrites},
	};
	static const struct rte_mbuf_dynfield desc = {
		.name = MPE_META_NAME,
		.size = sizeof(struct mpe_meta),
		.align = __alignof__(struct mpe_meta),
	};
	int rc;

	(void)argc;
	if (test_eal_init(argv[0], "stages") < 0)
		return 1;
	meta_off = rte_mbuf_dynfield_register(&desc);
	pool = rte_pktmbuf_pool_create("test_stages", 255, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (meta_off < 0 || pool == NULL) {
		printf("not ok - set-up: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	run_parse_cases();
	test_run_cases(cases, TEST_DIM(cases));
	rc = test_summary();
	rte_mempool_free(pool);
	test_eal_fini();
	return rc;
}
