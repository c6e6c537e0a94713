/* SPDX-License-Identifier: BSD-3-Clause */
/* Stages as the worker loop runs them: bursts of real mbufs in, the survivors first in their
 * order, the dropped behind them, and the mbuf fields, metadata and counters each stage owns.
 * Table-driven: each case is a burst of frames and the verdict each must get. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ether.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "decode.h"
#include "flow.h"
#include "names.h"
#include "pkt.h"
#include "ruleset.h"
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
	mpe_meta_init(mpe_meta(m, meta_off), 0);
	return m;
}

/* A stage context on @conf counting into @cnt and, for parse, @malformed (or NULL). */
static void
ctx_init(struct mpe_stage_ctx *ctx, const struct mpe_conf *conf, struct mpe_counters *cnt,
	 uint64_t *malformed)
{
	memset(ctx, 0, sizeof(*ctx));
	memset(cnt, 0, sizeof(*cnt));
	ctx->conf = conf;
	ctx->cnt = cnt;
	ctx->meta_offset = meta_off;
	ctx->malformed = malformed;
	mpe_stage_ports(ctx, conf);
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
		ctx_init(&ctx, &conf, &cnt, malformed);
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

/* Ethernet + IPv6 + an 8-byte hop-by-hop header + UDP: the RX hash walks to the UDP ports. */
static struct rte_mbuf *
make_ipv6_hbh_udp(void)
{
	static const uint8_t hdr[] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x86, 0xdd,
		0x60, 0, 0, 0, 0, 16, 0 /* next: hop-by-hop */, 64,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		17 /* next: UDP */, 0, 1, 4, 0, 0, 0, 0,
		0x30, 0x39, 0x00, 0x35, 0, 8, 0, 0,
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f;

	if (m == NULL)
		return NULL;
	f = (uint8_t *)rte_pktmbuf_append(m, sizeof(hdr));
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(f, hdr, sizeof(hdr));
	mpe_meta_init(mpe_meta(m, meta_off), 0);
	return m;
}

/* parse after a distributor: the hash it made at RX (MPE_META_HASHED) is kept where the
 * decoded key is the one it hashed (well-formed IP, IPv6 extension headers too), and made
 * again from the decoded key everywhere else. The RX hash given here is a marker value, so
 * a packet whose hash was kept is told from one whose hash was made again. */
static void
test_parse_takes_rx_hash(void)
{
	const struct mpe_stage_ops *parse = mpe_stage_get((unsigned int)mpe_stage_find("parse", 5));
	enum { GOOD, L2, MALFORMED, V6_EXT, N };
	static const char *const what[N] = {"IPv4 TCP", "non-IP", "malformed", "IPv6 ext"};
	const uint32_t marker = 0x5a5a0001;
	uint64_t malformed[MPE_DECODE_BAD_MAX] = {0};
	struct rte_mbuf *pkts[N], *orig[N];
	struct mpe_stage_ctx ctx;
	struct mpe_counters cnt;
	struct mpe_conf conf;
	unsigned int i;

	mpe_config_defaults(&conf);
	conf.malformed_pass = 1;
	ctx_init(&ctx, &conf, &cnt, malformed);
	orig[GOOD] = make(OK_TCP, 1);
	orig[L2] = make(NOT_IP, 2);
	orig[MALFORMED] = make(SHORT_TCP, 3);
	orig[V6_EXT] = make_ipv6_hbh_udp();
	for (i = 0; i < N; i++) {
		if (!CHECK(orig[i] != NULL, "no mbuf"))
			goto out;
		pkts[i] = orig[i];
		mpe_meta(orig[i], meta_off)->flow_hash = marker;
		mpe_meta(orig[i], meta_off)->flags = MPE_META_HASHED;
	}
	CHECK(parse->burst(&ctx, pkts, N) == N, "malformed = pass: every frame goes on");
	for (i = 0; i < N; i++) {
		const struct mpe_meta *meta = mpe_meta(orig[i], meta_off);
		uint32_t own = mpe_flow_hash(&mpe_pkt_priv(orig[i])->key);

		if (i == GOOD || i == V6_EXT)
			CHECK(meta->flow_hash == marker && (meta->flags & MPE_META_HASHED),
			      "%s: the RX hash is not kept (%#x)", what[i], meta->flow_hash);
		else
			CHECK(meta->flow_hash == own && !(meta->flags & MPE_META_HASHED),
			      "%s: hash %#x flags %#x, expected the decoded key's %#x, not marked",
			      what[i], meta->flow_hash, meta->flags, own);
	}
	/* the IPv6 key is the decoded one: UDP ports after the extension header */
	CHECK(mpe_pkt_priv(orig[V6_EXT])->key.proto == 17 &&
	      mpe_pkt_priv(orig[V6_EXT])->key.sport == rte_cpu_to_be_16(12345),
	      "IPv6 ext: key proto %u sport %u", mpe_pkt_priv(orig[V6_EXT])->key.proto,
	      rte_be_to_cpu_16(mpe_pkt_priv(orig[V6_EXT])->key.sport));
	/* which is the key the distributor hashes */
	CHECK(mpe_pkt_flow_hash(rte_pktmbuf_mtod(orig[V6_EXT], void *),
				rte_pktmbuf_data_len(orig[V6_EXT])) ==
		      mpe_flow_hash(&mpe_pkt_priv(orig[V6_EXT])->key),
	      "IPv6 ext: the distributor's hash is not the decoded key's");
out:
	for (i = 0; i < N; i++)
		rte_pktmbuf_free(orig[i]);
}

/* ---- frames in chains of segments ---- */

#define BIG_FRAME 3000

/* A @len-byte frame: IPv4 TCP 10.0.0.1:1024 > 10.0.0.2:80, or with @ext_bytes IPv6 with one
 * hop-by-hop header of that size (a multiple of 8) and UDP 1024 > 53. The length fields say
 * @len + @extra bytes. */
static void
big_frame(uint8_t *f, uint16_t ext_bytes, uint32_t len, uint32_t extra)
{
	uint32_t ip_len = len + extra - 14;
	uint8_t *l4;

	memset(f, 0x5a, len);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
	if (ext_bytes == 0) {
		memcpy(f + 12, "\x08\x00\x45\x00", 4);
		f[16] = (uint8_t)(ip_len >> 8), f[17] = (uint8_t)ip_len;
		memcpy(f + 18, "\0\0\0\0\x40\x06\0\0\x0a\0\0\x01\x0a\0\0\x02", 16);
		l4 = f + 34;
		memcpy(l4, "\x04\x00\x00\x50", 4);
		l4[12] = 5 << 4;
		l4[13] = 0x10;
		return;
	}
	memcpy(f + 12, "\x86\xdd\x60\0\0\0", 6);
	f[18] = (uint8_t)((ip_len - 40) >> 8), f[19] = (uint8_t)(ip_len - 40);
	f[20] = 0, f[21] = 64;
	memset(f + 22, 0, 32);
	f[22] = 0x20, f[23] = 0x01, f[37] = 1;
	f[38] = 0x20, f[39] = 0x01, f[53] = 2;
	memset(f + 54, 0, ext_bytes); /* Pad1 options */
	f[54] = 17;
	f[55] = (uint8_t)(ext_bytes / 8 - 1);
	l4 = f + 54 + ext_bytes;
	memcpy(l4, "\x04\x00\x00\x35", 4);
	l4[4] = (uint8_t)((ip_len - 40 - ext_bytes) >> 8);
	l4[5] = (uint8_t)(ip_len - 40 - ext_bytes);
}

/* @f as a chain of segments of the lengths in @segs (0-terminated, adding up to @len). */
static struct rte_mbuf *
chain(const uint8_t *f, uint32_t len, const uint16_t *segs)
{
	struct rte_mbuf *head = NULL, *m;
	uint32_t off = 0;

	for (; *segs != 0; segs++) {
		uint8_t *d;

		m = rte_pktmbuf_alloc(pool);
		d = m != NULL ? (uint8_t *)rte_pktmbuf_append(m, *segs) : NULL;
		if (d == NULL) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(head);
			return NULL;
		}
		memcpy(d, f + off, *segs);
		off += *segs;
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			return NULL;
	}
	if (head == NULL || off != len) {
		rte_pktmbuf_free(head);
		return NULL;
	}
	mpe_meta_init(mpe_meta(head, meta_off), 0);
	return head;
}

struct chain_case {
	const char *name;
	uint16_t ext_bytes; /* 0: IPv4 TCP; else IPv6, hop-by-hop of this size, UDP */
	uint32_t len;
	uint32_t extra; /* bytes the IP length field claims beyond the frame */
	uint16_t segs[4];
	unsigned int bad; /* enum mpe_decode_bad */
};

static const struct chain_case chain_cases[] = {
	{"IPv4 TCP, 3000 bytes in 2048 + 952", 0, BIG_FRAME, 0, {2048, 952}, 0},
	{"IPv4 TCP, 3000 bytes in 1000 + 1000 + 1000", 0, BIG_FRAME, 0, {1000, 1000, 1000}, 0},
	{"IPv4 TCP, 3000 bytes, the TCP header split between the first two segments", 0,
	 BIG_FRAME, 0, {40, 1960, 1000}, 0},
	{"IPv4 TCP, 3000 bytes, IP total length one beyond the chain", 0, BIG_FRAME, 1,
	 {2048, 952}, MPE_DECODE_BAD_IPV4_TOTAL_LEN},
	{"IPv6 hop-by-hop UDP, 3000 bytes, the first segment 60 bytes", 16, BIG_FRAME, 0,
	 {60, 1940, 1000}, 0},
	{"IPv6, 304 bytes of hop-by-hop in a first segment of 1024", 304, BIG_FRAME, 0,
	 {1024, 1976}, 0},
	{"IPv6, 304 bytes of hop-by-hop, the first segment 100 bytes: UDP past the copied head",
	 304, BIG_FRAME, 0, {100, 1900, 1000}, MPE_DECODE_BAD_HDR_BEYOND_HEAD},
};

/* parse and flowhash on chains: lengths checked against the whole chain, headers read where
 * they are, the same key and hash as the frame in one piece. */
static void
run_chain_cases(void)
{
	const struct mpe_stage_ops *parse = mpe_stage_get((unsigned int)mpe_stage_find("parse", 5));
	const struct mpe_stage_ops *fh = mpe_stage_get((unsigned int)mpe_stage_find("flowhash", 8));
	static uint8_t f[BIG_FRAME];
	size_t c;

	for (c = 0; c < TEST_DIM(chain_cases); c++) {
		const struct chain_case *cc = &chain_cases[c];
		uint64_t malformed[MPE_DECODE_BAD_MAX] = {0};
		struct mpe_stage_ctx ctx;
		struct mpe_counters cnt;
		struct mpe_conf conf;
		struct rte_mbuf *m, *pkts[1];
		struct mpe_decoded d;
		unsigned int r;
		uint32_t seen;
		uint16_t kept;

		test_begin("parse: chain: %s", cc->name);
		big_frame(f, cc->ext_bytes, cc->len, cc->extra);
		m = chain(f, cc->len, cc->segs);
		if (!CHECK(m != NULL && m->nb_segs > 1, "no chain")) {
			test_end();
			continue;
		}
		mpe_config_defaults(&conf);
		ctx_init(&ctx, &conf, &cnt, malformed);
		pkts[0] = m;
		fh->burst(&ctx, pkts, 1);
		/* a head too short for the headers hashes as far as it reaches */
		seen = cc->bad == MPE_DECODE_BAD_HDR_BEYOND_HEAD ? MPE_PKT_HEAD_MAX : cc->len;
		CHECK(mpe_meta(m, meta_off)->flow_hash == mpe_pkt_flow_hash(f, seen),
		      "flowhash: %#x, the frame in one piece %#x", mpe_meta(m, meta_off)->flow_hash,
		      mpe_pkt_flow_hash(f, seen));
		kept = parse->burst(&ctx, pkts, 1);
		CHECK(kept == (cc->bad == 0), "kept %u", kept);
		for (r = 1; r < MPE_DECODE_BAD_MAX; r++)
			CHECK(malformed[r] == (r == cc->bad), "%s counted %lu", mpe_decode_bad_name(r),
			      (unsigned long)malformed[r]);
		if (cc->bad == 0 && CHECK(mpe_decode(f, cc->len, &d) == 0, "the frame in one piece")) {
			const struct mpe_pkt_priv *pp = mpe_pkt_priv(m);

			CHECK(memcmp(&pp->key, &d.key, sizeof(d.key)) == 0 &&
				      m->packet_type == d.ptype && m->l3_len == d.l3_len &&
				      m->l4_len == d.l4_len,
			      "ptype %#x l3 %u l4 %u, in one piece %#x %u %u", m->packet_type,
			      m->l3_len, m->l4_len, d.ptype, d.l3_len, d.l4_len);
		}
		rte_pktmbuf_free(m);
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
	ctx_init(&ctx, &conf, &cnt, NULL);
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
	CHECK(ctx.burst_out == MPE_PORT_NONE, "a burst to several ports: no one output port (%u)",
	      ctx.burst_out);
	eth = rte_pktmbuf_mtod(pkts[0], struct rte_ether_hdr *);
	CHECK(memcmp(&eth->dst_addr, peer_mac, 6) == 0 && memcmp(&eth->src_addr, own_mac, 6) == 0,
	      "out of port 1 (dst_mac set): destination rewritten, source is the port's MAC");
	eth = rte_pktmbuf_mtod(pkts[1], struct rte_ether_hdr *);
	CHECK(memcmp(eth->dst_addr.addr_bytes, "\x02\0\0\0\0\x02", 6) == 0,
	      "out of port 0 (no dst_mac): destination untouched");
	rte_pktmbuf_free_bulk(pkts, 3);
}

/* The burst's one input port, when the worker knows it, and the one output port fwd reports,
 * which lets the transmit skip its look at each packet: never claimed for a mixed burst,
 * whatever the stages before said. */
static void
test_fwd_burst_ports(void)
{
#define NONE MPE_PORT_NONE
	static const struct {
		const char *name;
		uint16_t burst_in;  /* what the worker knows */
		uint16_t in[4];	    /* each packet's in_port */
		uint16_t preset;    /* burst_out as the stages before left it */
		uint16_t out[4];    /* each packet's out_port after fwd */
		uint16_t burst_out; /* what fwd says */
	} cases[] = {
		{"from one port queue", 1, {1, 1, 1, 1}, NONE, {0, 0, 0, 0}, 0},
		{"from one port queue, a stage before said another", 1, {1, 1, 1, 1}, 2,
		 {0, 0, 0, 0}, 0},
		{"from a ring, all from one port", NONE, {2, 2, 2, 2}, 2, {1, 1, 1, 1}, 1},
		{"from a ring, the last from another port", NONE, {2, 2, 2, 0}, 1, {1, 1, 1, 2},
		 NONE},
		{"from a ring, one in the middle from another port", NONE, {0, 1, 0, 0}, 2,
		 {2, 0, 2, 2}, NONE},
		{"from a ring, the last from no known port", NONE, {2, 2, 2, 9}, 1,
		 {1, 1, 1, NONE}, NONE},
		{"from a ring, the first from no known port", NONE, {9, 2, 2, 2}, 1,
		 {NONE, 1, 1, 1}, NONE},
		{"from a ring, none from a known port", NONE, {9, 9, 9, 9}, 0,
		 {NONE, NONE, NONE, NONE}, NONE},
	};
#undef NONE
	const struct mpe_stage_ops *fwd = mpe_stage_get((unsigned int)mpe_stage_find("fwd", 3));
	struct mpe_conf conf;
	struct mpe_stage_ctx ctx;
	struct mpe_counters cnt;
	struct rte_mbuf *pkts[4];
	unsigned int c, i;

	mpe_config_defaults(&conf);
	conf.nb_ports = 3;
	conf.ports[0].peer = 2;
	conf.ports[1].peer = 0;
	conf.ports[2].peer = 1;
	ctx_init(&ctx, &conf, &cnt, NULL);
	CHECK(ctx.burst_in == MPE_PORT_NONE && ctx.burst_out == MPE_PORT_NONE,
	      "a new context knows no burst port (%u, %u)", ctx.burst_in, ctx.burst_out);
	for (i = 0; i < 4; i++) {
		pkts[i] = make(OK_TCP, (uint8_t)i);
		if (pkts[i] == NULL) {
			CHECK(0, "no mbuf for the fwd burst test");
			rte_pktmbuf_free_bulk(pkts, i);
			return;
		}
	}
	for (c = 0; c < RTE_DIM(cases); c++) {
		unsigned int wrong = 0;

		for (i = 0; i < 4; i++) {
			mpe_meta_init(mpe_meta(pkts[i], meta_off), cases[c].in[i]);
			mpe_meta(pkts[i], meta_off)->out_port = 5; /* fwd must overwrite it */
		}
		ctx.burst_in = cases[c].burst_in;
		ctx.burst_out = cases[c].preset;
		CHECK(fwd->burst(&ctx, pkts, 4) == 4, "%s: fwd keeps the burst", cases[c].name);
		CHECK(ctx.burst_out == cases[c].burst_out, "%s: says %u, not %u", cases[c].name,
		      ctx.burst_out, cases[c].burst_out);
		for (i = 0; i < 4; i++)
			wrong += mpe_meta(pkts[i], meta_off)->out_port != cases[c].out[i];
		CHECK(wrong == 0, "%s: %u packets routed elsewhere than their input says",
		      cases[c].name, wrong);
	}
	rte_pktmbuf_free_bulk(pkts, 4);
}

/* ---- flow and acl ---- */

/* An OK_TCP frame of flow @id (10.0.0.1:1024 <-> 10.0.0.id:80); @rev: the reply direction. */
static struct rte_mbuf *
tcp_flow(uint8_t id, int rev)
{
	struct rte_mbuf *m = make(OK_TCP, id);
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *), t[4];

	if (rev) {
		memcpy(t, f + 26, 4), memcpy(f + 26, f + 30, 4), memcpy(f + 30, t, 4);
		memcpy(t, f + 34, 2), memcpy(f + 34, f + 36, 2), memcpy(f + 36, t, 2);
	}
	return m;
}

static struct mpe_ruleset *
ruleset(uint32_t gen, const char *text)
{
	char path[] = "/tmp/mpe_test_stages_XXXXXX";
	int fd = mkstemp(path);
	struct mpe_rules *r;
	struct mpe_ruleset *rs;

	if (fd < 0)
		return NULL;
	test_write_all(fd, text, strlen(text));
	close(fd);
	r = mpe_rules_load(path, stdout);
	unlink(path);
	if (r == NULL)
		return NULL;
	rs = mpe_ruleset_create(gen, r, "test", MPE_RULE_ALLOW, 1);
	mpe_rules_free(r);
	return rs;
}

struct inspect_rig {
	struct mpe_shared *shm;
	struct mpe_conf *conf;
	struct mpe_stage_ctx ctx[3]; /* parse, flow, acl, as worker 0 runs them */
	const struct mpe_stage_ops *ops[3];
	struct mpe_counters cnt[3];
	uint64_t malformed[MPE_DECODE_BAD_MAX];
	struct mpe_inspect_counters insp;
};

static int
rig_init(struct inspect_rig *g, struct mpe_shared *shm)
{
	static const char *const names[] = {"parse", "flow", "acl"};
	unsigned int i;

	memset(g, 0, sizeof(*g));
	g->shm = shm;
	g->conf = &shm->conf;
	mpe_config_defaults(g->conf);
	g->conf->nb_workers = 1;
	g->conf->workers[0].nb_stages = 3;
	for (i = 0; i < 3; i++) {
		struct mpe_stage_ctx *c = &g->ctx[i];

		g->conf->workers[0].stages[i] = (uint8_t)mpe_stage_find(names[i], strlen(names[i]));
		g->ops[i] = mpe_stage_get(g->conf->workers[0].stages[i]);
		c->shm = shm;
		c->conf = g->conf;
		c->cnt = &g->cnt[i];
		c->meta_offset = meta_off;
		c->malformed = g->malformed;
		c->insp = &g->insp;
		c->worker_id = 0;
		c->stage_pos = i;
		if (g->ops[i]->init != NULL && g->ops[i]->init(c) < 0)
			return -1;
	}
	return 0;
}

static uint16_t
rig_run(struct inspect_rig *g, struct rte_mbuf **pkts, uint16_t n)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		g->ctx[i].now = rte_rdtsc();
		n = g->ops[i]->burst(&g->ctx[i], pkts, n);
	}
	return n;
}

static void
rig_fini(struct inspect_rig *g)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (g->ops[i]->fini != NULL)
			g->ops[i]->fini(&g->ctx[i]);
}

/* acl after flow on one worker: verdicts per direction, taken from the flow entry once
 * known, and classified again under a new rule set generation. */
static void
test_acl_verdicts_and_cache(void)
{
	static struct mpe_shared shm;
	struct mpe_ruleset *g1, *g2;
	struct mpe_flow_table *t;
	struct inspect_rig g;
	struct rte_mbuf *pkts[3], *orig[3];
	char name[MPE_FLOW_NAME_MAX + 1];
	unsigned int round;
	uint16_t kept;

	snprintf(name, sizeof(name), MPE_NAME_FLOW_FMT, 0u);
	t = mpe_flow_table_create(name, 64, 0, SOCKET_ID_ANY);
	/* generation 1 drops flow 2's forward direction only; generation 2 counts everything */
	g1 = ruleset(1, "@10.0.0.1/32 10.0.0.2/32 1024 : 1024 80 : 80 6/0xff drop 10\n");
	g2 = ruleset(2, "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0 count 5\n");
	CHECK(t != NULL && g1 != NULL && g2 != NULL, "set-up: %s", rte_strerror(rte_errno));
	if (t == NULL || g1 == NULL || g2 == NULL)
		goto out;
	shm.ruleset = g1;
	CHECK(rig_init(&g, &shm) == 0, "stage init");
	for (round = 0; round < 4; round++) {
		const int second_gen = round >= 2;
		const uint64_t *row;

		if (round == 2)
			shm.ruleset = g2;
		orig[0] = pkts[0] = tcp_flow(2, 0); /* flow 2 forward: generation 1 drops it */
		orig[1] = pkts[1] = tcp_flow(2, 1); /* flow 2 reply: no rule */
		orig[2] = pkts[2] = tcp_flow(3, 0); /* flow 3: no rule */
		kept = rig_run(&g, pkts, 3);
		row = mpe_ruleset_row(second_gen ? g2 : g1, 0);
		if (!second_gen) {
			CHECK(kept == 2 && pkts[0] == orig[1] && pkts[1] == orig[2] &&
				      pkts[2] == orig[0],
			      "round %u: kept %u; the drop rule's packet behind the others", round,
			      kept);
			CHECK(row[1] == round + 1 && row[0] == 2 * (round + 1),
			      "round %u: hits rule 0 %lu, default %lu", round, (unsigned long)row[1],
			      (unsigned long)row[0]);
			CHECK(mpe_meta(orig[0], meta_off)->verdict == MPE_RULE_DROP &&
				      mpe_meta(orig[0], meta_off)->rule == 1,
			      "round %u: verdict %u rule %u", round,
			      mpe_meta(orig[0], meta_off)->verdict, mpe_meta(orig[0], meta_off)->rule);
		} else {
			CHECK(kept == 3, "round %u: generation 2 keeps all (%u)", round, kept);
			CHECK(row[1] == 3 * (round - 1), "round %u: generation 2 hits %lu", round,
			      (unsigned long)row[1]);
		}
		/* rounds 0 and 2 classify all three; 1 and 3 find every verdict in the flows */
		CHECK(g.insp.acl_lookups == (round >= 2 ? 6u : 3u) &&
			      g.insp.acl_cached == (round >= 3 ? 6u : round >= 1 ? 3u : 0u),
		      "round %u: classified %lu, from flows %lu", round,
		      (unsigned long)g.insp.acl_lookups, (unsigned long)g.insp.acl_cached);
		rte_pktmbuf_free_bulk(orig, 3);
	}
	CHECK(t->stats.active == 2 && t->stats.lookups == 12, "flows %lu, lookups %lu",
	      (unsigned long)t->stats.active, (unsigned long)t->stats.lookups);
	rig_fini(&g);
out:
	mpe_ruleset_free(g1);
	mpe_ruleset_free(g2);
	mpe_flow_table_free(t);
}

/* A TCP SYN 10.0.0.1:1024 > 10.0.0.2:@dport (2001:db8::1 > 2001:db8::2 with @v6), whole or
 * as a fragment: @frag is the IPv4 flags and offset field, or with @v6 the fragment header's
 * offset and M (0xffff: no fragment header). A non-first fragment carries 16 bytes that would
 * read as the same TCP header if they were taken for one. */
static struct rte_mbuf *
tcp_syn(int v6, uint16_t frag, uint16_t dport)
{
	static const uint8_t eth[] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *f, *l4;
	uint16_t l3 = 14, len;

	if (m == NULL)
		return NULL;
	f = (uint8_t *)rte_pktmbuf_append(m, MAX_FRAME);
	if (f == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(f, 0, MAX_FRAME);
	memcpy(f, eth, sizeof(eth));
	if (!v6) {
		f[12] = 0x08, f[13] = 0x00;
		f[l3] = 0x45;
		f[l3 + 6] = (uint8_t)(frag >> 8), f[l3 + 7] = (uint8_t)frag;
		f[l3 + 8] = 64;
		f[l3 + 9] = 6;
		memcpy(f + l3 + 12, "\x0a\0\0\x01\x0a\0\0\x02", 8);
		l4 = f + l3 + 20;
	} else {
		f[12] = 0x86, f[13] = 0xdd;
		f[l3] = 0x60;
		f[l3 + 6] = frag == 0xffff ? 6 : 44;
		f[l3 + 7] = 64;
		f[l3 + 8] = 0x20, f[l3 + 9] = 0x01, f[l3 + 10] = 0x0d, f[l3 + 11] = 0xb8;
		f[l3 + 23] = 1;
		memcpy(f + l3 + 24, f + l3 + 8, 15);
		f[l3 + 39] = 2;
		l4 = f + l3 + 40;
		if (frag != 0xffff) {
			l4[0] = 6;
			l4[2] = (uint8_t)(frag >> 8), l4[3] = (uint8_t)frag;
			l4[7] = 1; /* identification */
			l4 += 8;
		}
	}
	l4[0] = 0x04, l4[1] = 0x00;
	l4[2] = (uint8_t)(dport >> 8), l4[3] = (uint8_t)dport;
	l4[12] = 5 << 4;
	l4[13] = 0x02;
	len = (uint16_t)(l4 - f + 20);
	if (!v6)
		f[l3 + 2] = 0, f[l3 + 3] = (uint8_t)(len - l3);
	else
		f[l3 + 4] = 0, f[l3 + 5] = (uint8_t)(len - l3 - 40);
	rte_pktmbuf_trim(m, (uint16_t)(MAX_FRAME - len));
	mpe_meta_init(mpe_meta(m, meta_off), 0);
	return m;
}

#define NO_FRAG6 0xffff
#define MF4	 0x2000

struct frag_acl_case {
	const char *name;
	int v6;
	uint16_t frag;
	uint16_t dport;
	int dropped;
	unsigned int malformed; /* enum mpe_decode_bad of a frame parse drops, else 0 */
};

/* One packet a burst, in this order, through parse, flow and acl of one worker: verdicts of
 * earlier packets of the same flow, cached in it, must not decide a first fragment's. */
static const struct frag_acl_case frag_acl_cases[] = {
	{"IPv4 SYN to port 23, whole: dropped", 0, 0, 23, 1, 0},
	{"IPv4 SYN to port 80, whole: allowed", 0, 0, 80, 0, 0},
	{"IPv4 first fragment to port 80: allowed", 0, MF4, 80, 0, 0},
	{"IPv4 first fragment to port 23, same fragments' flow: dropped", 0, MF4, 23, 1, 0},
	{"IPv4 non-first fragment (no ports): allowed", 0, MF4 | 185, 23, 0, 0},
	{"IPv4 first fragment to port 23 after a cached non-first one: dropped", 0, MF4, 23, 1,
	 0},
	{"IPv4 first fragment to port 80 after that: allowed", 0, MF4, 80, 0, 0},
	{"IPv4 TCP fragment at offset 8: malformed", 0, 1, 23, 1, MPE_DECODE_BAD_TCP_FRAG_OFFSET},
	{"IPv6 SYN to port 23, whole: dropped", 1, NO_FRAG6, 23, 1, 0},
	{"IPv6 first fragment to port 80: allowed", 1, 1, 80, 0, 0},
	{"IPv6 first fragment to port 23: dropped", 1, 1, 23, 1, 0},
	{"IPv6 non-first fragment: allowed", 1, 185 << 3, 23, 0, 0},
	{"IPv6 first fragment to port 23 after it: dropped", 1, 0, 23, 1, 0},
	{"IPv6 TCP fragment at offset 8: malformed", 1, 1 << 3 | 1, 23, 1,
	 MPE_DECODE_BAD_TCP_FRAG_OFFSET},
};

/* A rule on the destination port applies to a first fragment as to the whole packet; the
 * other fragments carry no ports and the rule cannot see them (RFC 1858: refusing the first
 * suffices). */
static void
test_acl_first_fragments(void)
{
	static struct mpe_shared shm;
	struct mpe_ruleset *rs;
	struct mpe_flow_table *t;
	struct inspect_rig g;
	char name[MPE_FLOW_NAME_MAX + 1];
	unsigned int i, r;

	snprintf(name, sizeof(name), MPE_NAME_FLOW_FMT, 0u);
	t = mpe_flow_table_create(name, 64, 0, SOCKET_ID_ANY);
	rs = ruleset(1, "@0.0.0.0/0 0.0.0.0/0 0 : 65535 23 : 23 6/0xff drop 100\n"
			"@::/0 ::/0 0 : 65535 23 : 23 6/0xff drop 100\n");
	if (!CHECK(t != NULL && rs != NULL, "set-up: %s", rte_strerror(rte_errno)))
		goto out;
	shm.ruleset = rs;
	if (!CHECK(rig_init(&g, &shm) == 0, "stage init"))
		goto out;
	for (i = 0; i < TEST_DIM(frag_acl_cases); i++) {
		const struct frag_acl_case *c = &frag_acl_cases[i];
		struct rte_mbuf *m = tcp_syn(c->v6, c->frag, c->dport), *pkts[1] = {m};
		uint64_t before[MPE_DECODE_BAD_MAX];
		uint16_t kept;

		if (!CHECK(m != NULL, "no mbuf"))
			break;
		memcpy(before, g.malformed, sizeof(before));
		kept = rig_run(&g, pkts, 1);
		CHECK(kept == !c->dropped, "%s: %s", c->name, kept ? "allowed" : "dropped");
		for (r = 1; r < MPE_DECODE_BAD_MAX; r++)
			CHECK(g.malformed[r] - before[r] == (r == c->malformed),
			      "%s: %s counted %lu times", c->name, mpe_decode_bad_name(r),
			      (unsigned long)(g.malformed[r] - before[r]));
		if (c->malformed == 0)
			CHECK(mpe_meta(m, meta_off)->rule == (c->dropped ? 1u + c->v6 : 0u),
			      "%s: rule %u", c->name, mpe_meta(m, meta_off)->rule);
		rte_pktmbuf_free(m);
	}
	rig_fini(&g);
out:
	mpe_ruleset_free(rs);
	mpe_flow_table_free(t);
}

/* A full flow table: the packets of flows that find no room are counted, and dropped or let
 * through as flow_full says. */
static void
test_flow_table_full(void)
{
	static struct mpe_shared shm;
	struct mpe_flow_table *t;
	struct inspect_rig g;
	struct rte_mbuf *pkts[12];
	char name[MPE_FLOW_NAME_MAX + 1];
	const struct mpe_stage_ops *parse, *flow;
	int pass;
	uint16_t kept, i;

	snprintf(name, sizeof(name), MPE_NAME_FLOW_FMT, 0u);
	for (pass = 0; pass < 2; pass++) {
		t = mpe_flow_table_create(name, MPE_FLOW_CAPACITY_MIN, 0, SOCKET_ID_ANY);
		CHECK(t != NULL, "table: %s", rte_strerror(rte_errno));
		if (t == NULL)
			return;
		shm.ruleset = NULL;
		CHECK(rig_init(&g, &shm) == 0, "stage init");
		g.conf->flow_full_pass = (uint32_t)pass;
		parse = g.ops[0];
		flow = g.ops[1];
		for (i = 0; i < 12; i++)
			pkts[i] = tcp_flow((uint8_t)(10 + i), 0);
		kept = parse->burst(&g.ctx[0], pkts, 12);
		g.ctx[1].now = rte_rdtsc();
		kept = flow->burst(&g.ctx[1], pkts, kept);
		CHECK(g.insp.flow_full == 12 - MPE_FLOW_CAPACITY_MIN,
		      "flow_full %s: %lu packets found no room", pass ? "pass" : "drop",
		      (unsigned long)g.insp.flow_full);
		CHECK(kept == (pass ? 12 : MPE_FLOW_CAPACITY_MIN), "flow_full %s: kept %u",
		      pass ? "pass" : "drop", kept);
		rte_pktmbuf_free_bulk(pkts, 12);
		rig_fini(&g);
		mpe_flow_table_free(t);
	}
}

/* The worker prefetches a queued packet's headers at MPE_PKT_DATA_OFFSET without reading the
 * mbuf, and the parse stage reads them from one line, not the ends of two. */
static void
test_data_offset(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uintptr_t off;

	if (!CHECK(m != NULL, "no mbuf"))
		return;
	off = (uintptr_t)rte_pktmbuf_mtod(m, char *) - (uintptr_t)m;
	CHECK(off == MPE_PKT_DATA_OFFSET && off % RTE_CACHE_LINE_SIZE == 0 &&
		      (uintptr_t)m % RTE_CACHE_LINE_SIZE == 0,
	      "data at offset %zu of an mbuf at %p (want %zu, on a line)", (size_t)off,
	      (void *)m, (size_t)MPE_PKT_DATA_OFFSET);
	CHECK(rte_pktmbuf_priv_size(pool) >= sizeof(struct mpe_pkt_priv),
	      "private area %u bytes", rte_pktmbuf_priv_size(pool));
	rte_pktmbuf_free(m);
}

/* The worker and parse prefetch the mbuf lines they write with PREFETCHW where the CPU has
 * it (the compiler, at -march=corei7, would give a read prefetch): the run-time check must
 * agree with what the kernel reports (the x86 flag "3dnowprefetch"; no such flag, and no
 * check, on other CPU families). */
static void
test_prefetch_w(void)
{
	char *line = NULL;
	size_t cap = 0;
	int kernel = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!CHECK(f != NULL, "no /proc/cpuinfo"))
		return;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		line[strcspn(line, "\n")] = ' '; /* every name of the list between spaces */
		kernel = strstr(line, " 3dnowprefetch ") != NULL;
		break;
	}
	free(line);
	fclose(f);
	CHECK(mpe_cpu_prefetchw == kernel, "PREFETCHW: the engine says %d, the kernel %d",
	      mpe_cpu_prefetchw, kernel);
}

int
main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{"pool: received data starts on a cache line, at MPE_PKT_DATA_OFFSET",
		 test_data_offset},
		{"prefetch for writing: PREFETCHW used exactly where the CPU has it",
		 test_prefetch_w},
		{"parse: keeps the distributor's RX hash only where the decoded key is the one "
		 "it hashed", test_parse_takes_rx_hash},
		{"fwd: routes to the peer port and rewrites MACs where configured",
		 test_fwd_routes_and_rewrites},
		{"fwd: one output port for a burst from one input port, never for a mixed one",
		 test_fwd_burst_ports},
		{"acl after flow: verdicts per direction, from the flow entry once known, "
		 "classified again under a new generation", test_acl_verdicts_and_cache},
		{"flow: a full table counts, and drops or passes as flow_full says",
		 test_flow_table_full},
		{"acl: a first fragment is classified on its own ports, the other fragments on "
		 "none; neither takes a verdict cached in its flow", test_acl_first_fragments},
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
	pool = rte_pktmbuf_pool_create("test_stages", 255, 0, MPE_PKT_PRIV_SIZE,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (meta_off < 0 || pool == NULL) {
		printf("not ok - set-up: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	run_parse_cases();
	run_chain_cases();
	test_run_cases(cases, TEST_DIM(cases));
	rc = test_summary();
	rte_mempool_free(pool);
	test_eal_fini();
	return rc;
}
