/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-pcapgen: writes a deterministic Ethernet pcap of N packets over F distinct flows.
 * Owns the synthetic traffic format: frame layout, checksums and the "MPEG" payload marker
 * that the engine tests and mpe-pcapcmp rely on.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <netinet/in.h>

#include <pcap/pcap.h>

#include "parse.h"
#include "pkt.h"
#include "version.h"

#define PROG "mpe-pcapgen"

#define EXIT_USAGE 2

#define MAX_PACKETS 1000000000ULL
#define MAX_FLOWS 1000000ULL
#define DEFAULT_PACKETS 10000
#define DEFAULT_FLOWS 100
#define MIN_FRAME 64
#define MAX_FRAME 9000
#define MAX_SIZES 64
#define MAX_VLANS 2

#define ETH_HLEN 14
#define VLAN_HLEN 4
#define IPV4_HLEN 20
#define IPV6_HLEN 40
#define TCP_HLEN 20
#define UDP_HLEN 8
#define MAX_HDRS (ETH_HLEN + MAX_VLANS * VLAN_HLEN + IPV6_HLEN + TCP_HLEN)

#define TCP_FLAG_PSH 0x08
#define TCP_FLAG_ACK 0x10

/* Payload marker: "MPEG", flow id, per-flow sequence, generator packet index (network order). */
#define MARKER_LEN 16
static const uint8_t marker_magic[4] = {'M', 'P', 'E', 'G'};

/* First timestamp (fixed so output is byte-for-byte reproducible); then +1 us per packet. */
#define TS_BASE_SEC 1600000000

struct flow {
	bool v6;
	uint8_t proto;
	uint8_t src[16]; /* forward direction; IPv4 in the first 4 bytes */
	uint8_t dst[16];
	uint16_t sport; /* host order */
	uint16_t dport;
	uint32_t seq;        /* next per-flow sequence number */
	uint32_t tcp_seq[2]; /* next TCP sequence number: [0] forward, [1] reverse */
};

struct config {
	const char *output;
	uint64_t packets;
	uint64_t flows;
	bool flows_set;
	uint64_t ipv6_pct;
	uint64_t udp_pct;
	uint16_t sizes[MAX_SIZES];
	unsigned int nsizes;
	uint16_t vlans[MAX_VLANS];
	unsigned int nvlans;
	bool bidir;
	uint64_t seed;
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	uint64_t malformed; /* malformed frames spread among the good ones */
};

/* splitmix64: small, fast, and good enough for traffic shapes. */
static uint64_t
prng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform-enough value in [0, n) for n < 2^32. */
static uint32_t
prng_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(((prng_next(state) >> 32) * (uint64_t)n) >> 32);
}

/* Every number goes through the engine's bounded parser, which explains a refusal. */
static int
parse_number(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return mpe_parse_uint_arg(PROG, what, s, min, max, out) < 0 ? -1 : 0;
}

static int
parse_mac(const char *what, const char *s, uint8_t mac[6])
{
	if (mpe_parse_mac(s, mac) == 0)
		return 0;
	fprintf(stderr, PROG ": %s: '%s' is not a MAC address (xx:xx:xx:xx:xx:xx)\n", what, s);
	return -1;
}

static int
parse_sizes(const char *s, struct config *cfg)
{
	char buf[16];
	const char *p = s;

	cfg->nsizes = 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		uint64_t v;

		if (cfg->nsizes == MAX_SIZES) {
			fprintf(stderr, PROG ": --sizes: more than %d sizes\n", MAX_SIZES);
			return -1;
		}
		if (n == 0 || n >= sizeof(buf)) {
			fprintf(stderr, PROG ": --sizes: '%s' is not a comma list of frame sizes\n",
				s);
			return -1;
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		if (parse_number("--sizes", buf, MIN_FRAME, MAX_FRAME, &v) < 0)
			return -1;
		cfg->sizes[cfg->nsizes++] = (uint16_t)v;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " -o FILE [options]\n"
		"Write an Ethernet pcap of N packets spread over F distinct flows.\n"
		"\n"
		"  -o, --output FILE    pcap file to write (required; '-' is stdout)\n"
		"  -n, --packets N      number of packets, 1..%llu (default %d)\n"
		"  -f, --flows F        number of flows, 1..N (default min(%d, N))\n"
		"      --ipv6 PCT       percent of flows that are IPv6, 0..100 (default 50)\n"
		"      --udp PCT        percent of flows that are UDP, the rest TCP (default 50)\n"
		"      --sizes LIST     comma list of frame sizes, %d..%d bytes\n"
		"                       (default 64,128,512,1024,1500)\n"
		"      --vlan ID        802.1Q tag 0..4095 on every frame; give twice for QinQ\n"
		"                       (first is the outer 0x88a8 tag, second the inner 0x8100)\n"
		"      --bidir          odd per-flow sequence numbers travel the reverse way\n"
		"      --seed S         PRNG seed (default 1)\n"
		"      --malformed M    also write M malformed frames, spread evenly; the good\n"
		"                       frames are the same as without this option\n"
		"      --src-mac MAC    source MAC (default 02:00:00:00:00:01)\n"
		"      --dst-mac MAC    destination MAC (default 02:00:00:00:00:02)\n"
		"  -h, --help           this text\n"
		"\n"
		"A frame too small for its headers is enlarged to just hold them; the 16-byte\n"
		"payload marker (\"MPEG\", flow id, flow sequence, packet index) is cut to\n"
		"what fits.\n"
		"Exit status: 0 success, 2 usage or I/O error.\n",
		MAX_PACKETS, DEFAULT_PACKETS, DEFAULT_FLOWS, MIN_FRAME, MAX_FRAME);
}

enum {
	OPT_IPV6 = 256,
	OPT_UDP,
	OPT_SIZES,
	OPT_VLAN,
	OPT_BIDIR,
	OPT_SEED,
	OPT_MALFORMED,
	OPT_SRC_MAC,
	OPT_DST_MAC,
};

static const struct option long_opts[] = {
	{"output", required_argument, NULL, 'o'},
	{"packets", required_argument, NULL, 'n'},
	{"flows", required_argument, NULL, 'f'},
	{"ipv6", required_argument, NULL, OPT_IPV6},
	{"udp", required_argument, NULL, OPT_UDP},
	{"sizes", required_argument, NULL, OPT_SIZES},
	{"vlan", required_argument, NULL, OPT_VLAN},
	{"bidir", no_argument, NULL, OPT_BIDIR},
	{"seed", required_argument, NULL, OPT_SEED},
	{"malformed", required_argument, NULL, OPT_MALFORMED},
	{"src-mac", required_argument, NULL, OPT_SRC_MAC},
	{"dst-mac", required_argument, NULL, OPT_DST_MAC},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};


/* Returns 0 to go on, 1 after --help, -1 on a usage error (already reported). */
static int
parse_args(int argc, char **argv, struct config *cfg)
{
	static const uint8_t def_src[6] = {0x02, 0, 0, 0, 0, 0x01};
	static const uint8_t def_dst[6] = {0x02, 0, 0, 0, 0, 0x02};
	uint64_t v;
	int c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->packets = DEFAULT_PACKETS;
	cfg->flows = DEFAULT_FLOWS;
	cfg->ipv6_pct = 50;
	cfg->udp_pct = 50;
	cfg->seed = 1;
	memcpy(cfg->src_mac, def_src, 6);
	memcpy(cfg->dst_mac, def_dst, 6);
	if (parse_sizes("64,128,512,1024,1500", cfg) < 0)
		return -1;

	while ((c = getopt_long(argc, argv, ":o:n:f:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (*optarg == '\0') {
				fprintf(stderr, PROG ": --output: empty file name\n");
				return -1;
			}
			cfg->output = optarg;
			break;
		case 'n':
			if (parse_number("--packets", optarg, 1, MAX_PACKETS,
					 &cfg->packets) < 0)
				return -1;
			break;
		case 'f':
			if (parse_number("--flows", optarg, 1, MAX_FLOWS, &cfg->flows) < 0)
				return -1;
			cfg->flows_set = true;
			break;
		case OPT_IPV6:
			if (parse_number("--ipv6", optarg, 0, 100, &cfg->ipv6_pct) < 0)
				return -1;
			break;
		case OPT_UDP:
			if (parse_number("--udp", optarg, 0, 100, &cfg->udp_pct) < 0)
				return -1;
			break;
		case OPT_SIZES:
			if (parse_sizes(optarg, cfg) < 0)
				return -1;
			break;
		case OPT_VLAN:
			if (cfg->nvlans == MAX_VLANS) {
				fprintf(stderr, PROG ": --vlan: at most %d tags (outer, inner)\n",
					MAX_VLANS);
				return -1;
			}
			if (parse_number("--vlan", optarg, 0, 4095, &v) < 0)
				return -1;
			cfg->vlans[cfg->nvlans++] = (uint16_t)v;
			break;
		case OPT_BIDIR:
			cfg->bidir = true;
			break;
		case OPT_MALFORMED:
			if (parse_number("--malformed", optarg, 0, MAX_PACKETS, &cfg->malformed) < 0)
				return -1;
			break;
		case OPT_SEED:
			if (parse_number("--seed", optarg, 0, UINT64_MAX, &cfg->seed) < 0)
				return -1;
			break;
		case OPT_SRC_MAC:
			if (parse_mac("--src-mac", optarg, cfg->src_mac) < 0)
				return -1;
			break;
		case OPT_DST_MAC:
			if (parse_mac("--dst-mac", optarg, cfg->dst_mac) < 0)
				return -1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			mpe_parse_option_error(PROG, c, argv, long_opts);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (cfg->output == NULL) {
		fprintf(stderr, PROG ": missing required option -o/--output FILE\n");
		return -1;
	}
	if (!cfg->flows_set && cfg->flows > cfg->packets)
		cfg->flows = cfg->packets;
	if (cfg->flows > cfg->packets) {
		fprintf(stderr, PROG ": --flows %" PRIu64 " exceeds --packets %" PRIu64
			": every flow must be able to send\n", cfg->flows, cfg->packets);
		return -1;
	}
	return 0;
}

/* Set of canonical flow keys (open addressing, linear probing) to keep flows distinct. */
struct key_set {
	struct mpe_flow_key *keys;
	uint8_t *used;
	size_t mask;
};

static int
key_set_init(struct key_set *s, uint64_t n)
{
	size_t size = 16;

	while (size < n * 2)
		size <<= 1;
	s->keys = calloc(size, sizeof(*s->keys));
	s->used = calloc(size, 1);
	s->mask = size - 1;
	if (s->keys == NULL || s->used == NULL) {
		free(s->keys);
		free(s->used);
		return -1;
	}
	return 0;
}

/* Adds @key (already canonical); returns false when it was there. */
static bool
key_set_add(struct key_set *s, const struct mpe_flow_key *key)
{
	size_t i = mpe_flow_hash(key) & s->mask;

	while (s->used[i]) {
		if (memcmp(&s->keys[i], key, sizeof(*key)) == 0)
			return false;
		i = (i + 1) & s->mask;
	}
	s->used[i] = 1;
	s->keys[i] = *key;
	return true;
}

static void
key_set_free(struct key_set *s)
{
	free(s->keys);
	free(s->used);
}

/* Exactly round(n * pct / 100) flags set, in PRNG-shuffled positions. */
static void
spread_flags(bool *flags, uint64_t n, uint64_t pct, uint64_t *rng)
{
	uint64_t count = (n * pct + 50) / 100;
	uint64_t i;

	for (i = 0; i < n; i++)
		flags[i] = i < count;
	for (i = n - 1; i > 0; i--) {
		uint32_t j = prng_below(rng, (uint32_t)(i + 1));
		bool t = flags[i];

		flags[i] = flags[j];
		flags[j] = t;
	}
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void
random_endpoints(struct flow *fl, uint64_t *rng)
{
	uint64_t a = prng_next(rng), b = prng_next(rng);

	memset(fl->src, 0, sizeof(fl->src));
	memset(fl->dst, 0, sizeof(fl->dst));
	if (fl->v6) {
		/* Clients in fd00:0:0:1::/64, servers in fd00:0:0:2::/64. */
		fl->src[0] = 0xfd;
		fl->src[7] = 1;
		put32(fl->src + 8, (uint32_t)(a >> 32));
		put32(fl->src + 12, (uint32_t)a);
		fl->dst[0] = 0xfd;
		fl->dst[7] = 2;
		put32(fl->dst + 8, (uint32_t)(b >> 32));
		put32(fl->dst + 12, (uint32_t)b);
	} else {
		/* Clients in 10.0.0.0/9, servers in 10.128.0.0/9; host byte 1..254. */
		fl->src[0] = 10;
		fl->src[1] = (uint8_t)((a >> 8) & 0x7f);
		fl->src[2] = (uint8_t)(a >> 16);
		fl->src[3] = (uint8_t)(1 + (a >> 24) % 254);
		fl->dst[0] = 10;
		fl->dst[1] = (uint8_t)(0x80 | ((b >> 8) & 0x7f));
		fl->dst[2] = (uint8_t)(b >> 16);
		fl->dst[3] = (uint8_t)(1 + (b >> 24) % 254);
	}
	fl->sport = (uint16_t)(1024 + prng_below(rng, 65536 - 1024));
	fl->dport = (uint16_t)(1 + prng_below(rng, 65535));
}

static void
flow_key_of(const struct flow *fl, const struct config *cfg, struct mpe_flow_key *key)
{
	memset(key, 0, sizeof(*key));
	key->family = fl->v6 ? MPE_FLOW_IPV6 : MPE_FLOW_IPV4;
	key->proto = fl->proto;
	key->vlan = cfg->nvlans > 0 ? cfg->vlans[cfg->nvlans - 1] : 0;
	key->sport = htons(fl->sport);
	key->dport = htons(fl->dport);
	memcpy(key->src, fl->src, fl->v6 ? 16 : 4);
	memcpy(key->dst, fl->dst, fl->v6 ? 16 : 4);
}

static int
make_flows(struct flow *flows, const struct config *cfg, uint64_t *rng)
{
	struct key_set set;
	bool *v6 = NULL, *udp = NULL;
	uint64_t i;
	int ret = -1;

	v6 = calloc(cfg->flows, sizeof(*v6));
	udp = calloc(cfg->flows, sizeof(*udp));
	if (v6 == NULL || udp == NULL || key_set_init(&set, cfg->flows) < 0) {
		fprintf(stderr, PROG ": out of memory for %" PRIu64 " flows\n", cfg->flows);
		goto out;
	}
	spread_flags(v6, cfg->flows, cfg->ipv6_pct, rng);
	spread_flags(udp, cfg->flows, cfg->udp_pct, rng);

	for (i = 0; i < cfg->flows; i++) {
		struct flow *fl = &flows[i];
		struct mpe_flow_key key, canon;
		unsigned int tries;

		fl->v6 = v6[i];
		fl->proto = udp[i] ? IPPROTO_UDP : IPPROTO_TCP;
		for (tries = 0;; tries++) {
			if (tries == 1000) {
				fprintf(stderr, PROG ": cannot find a distinct 5-tuple for flow %"
					PRIu64 "\n", i);
				goto out_set;
			}
			random_endpoints(fl, rng);
			flow_key_of(fl, cfg, &key);
			mpe_flow_key_canon(&key, &canon);
			if (key_set_add(&set, &canon))
				break;
		}
		fl->seq = 0;
		fl->tcp_seq[0] = (uint32_t)prng_next(rng);
		fl->tcp_seq[1] = (uint32_t)prng_next(rng);
	}
	ret = 0;
out_set:
	key_set_free(&set);
out:
	free(v6);
	free(udp);
	return ret;
}

/* Ones' complement sum of @len bytes, folded later by csum_fold. */
static uint64_t
csum_add(uint64_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	return sum;
}

static uint16_t
csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Builds packet @index of flow @fl into @frame; returns the frame length. */
static uint32_t
build_frame(uint8_t *frame, const struct config *cfg, struct flow *fl, uint32_t flow_id,
	    uint64_t index, uint16_t size)
{
	uint32_t seq = fl->seq++;
	bool rev = cfg->bidir && (seq & 1);
	const uint8_t *smac = rev ? cfg->dst_mac : cfg->src_mac;
	const uint8_t *dmac = rev ? cfg->src_mac : cfg->dst_mac;
	const uint8_t *sip = rev ? fl->dst : fl->src;
	const uint8_t *dip = rev ? fl->src : fl->dst;
	uint16_t sport = rev ? fl->dport : fl->sport;
	uint16_t dport = rev ? fl->sport : fl->dport;
	uint32_t l2 = ETH_HLEN + cfg->nvlans * VLAN_HLEN;
	uint32_t l3 = fl->v6 ? IPV6_HLEN : IPV4_HLEN;
	uint32_t l4 = fl->proto == IPPROTO_TCP ? TCP_HLEN : UDP_HLEN;
	uint32_t hdrs = l2 + l3 + l4;
	uint32_t len = size > hdrs ? size : hdrs;
	uint32_t plen = len - hdrs;
	uint8_t marker[MARKER_LEN];
	uint8_t *ip = frame + l2, *th = ip + l3, *pl = th + l4;
	uint64_t sum;
	uint32_t i;

	/* Ethernet and optional VLAN tags. */
	memcpy(frame, dmac, 6);
	memcpy(frame + 6, smac, 6);
	if (cfg->nvlans == 1) {
		put16(frame + 12, MPE_ETHER_TYPE_VLAN);
		put16(frame + 14, cfg->vlans[0]);
	} else if (cfg->nvlans == 2) {
		put16(frame + 12, MPE_ETHER_TYPE_QINQ);
		put16(frame + 14, cfg->vlans[0]);
		put16(frame + 16, MPE_ETHER_TYPE_VLAN);
		put16(frame + 18, cfg->vlans[1]);
	}
	put16(ip - 2, fl->v6 ? MPE_ETHER_TYPE_IPV6 : MPE_ETHER_TYPE_IPV4);

	/* Payload: marker first (cut to what fits), then a pattern. */
	memcpy(marker, marker_magic, 4);
	put32(marker + 4, flow_id);
	put32(marker + 8, seq);
	put32(marker + 12, (uint32_t)index);
	memcpy(pl, marker, plen < MARKER_LEN ? plen : MARKER_LEN);
	for (i = MARKER_LEN; i < plen; i++)
		pl[i] = (uint8_t)(i + flow_id);

	/* L3 header and the L4 pseudo-header sum. */
	if (fl->v6) {
		/* the flow label carries the per-flow sequence: no two packets of a flow are
		 * alike, even when the frame is too small for the payload marker */
		put32(ip, 6u << 28 | (seq & 0xfffff));
		put16(ip + 4, (uint16_t)(l4 + plen));
		ip[6] = fl->proto;
		ip[7] = 64;
		memcpy(ip + 8, sip, 16);
		memcpy(ip + 24, dip, 16);
		sum = csum_add(0, ip + 8, 32);
		sum += l4 + plen;
		sum += fl->proto;
	} else {
		ip[0] = 0x45;
		ip[1] = 0;
		put16(ip + 2, (uint16_t)(l3 + l4 + plen));
		put16(ip + 4, (uint16_t)seq); /* IP ID: unique within a flow, as for IPv6 */
		put16(ip + 6, 0x4000); /* DF, offset 0 */
		ip[8] = 64;
		ip[9] = fl->proto;
		put16(ip + 10, 0);
		memcpy(ip + 12, sip, 4);
		memcpy(ip + 16, dip, 4);
		put16(ip + 10, csum_fold(csum_add(0, ip, IPV4_HLEN)));
		sum = csum_add(0, ip + 12, 8);
		sum += l4 + plen;
		sum += fl->proto;
	}

	/* L4 header and checksum over header and payload. */
	put16(th, sport);
	put16(th + 2, dport);
	if (fl->proto == IPPROTO_TCP) {
		put32(th + 4, fl->tcp_seq[rev]);
		put32(th + 8, fl->tcp_seq[!rev]);
		th[12] = 5 << 4;
		th[13] = TCP_FLAG_ACK | TCP_FLAG_PSH;
		put16(th + 14, 65535);
		put16(th + 16, 0);
		put16(th + 18, 0);
		put16(th + 16, csum_fold(csum_add(sum, th, l4 + plen)));
		fl->tcp_seq[rev] += plen;
	} else {
		uint16_t c;

		put16(th + 4, (uint16_t)(l4 + plen));
		put16(th + 6, 0);
		c = csum_fold(csum_add(sum, th, l4 + plen));
		put16(th + 6, c == 0 ? 0xffff : c);
	}
	return len;
}

/* Malformed frames, one kind after the other, from a fixed IPv4/TCP template (10.255.255.1:9
 * -> 10.255.255.2:9) so that they never touch the good frames' random stream. The kinds are
 * what mpe's parse stage calls ipv4_ihl, ipv4_total_len, tcp_doff and short_ipv4. */
#define MALFORMED_KINDS 4

static uint32_t
build_malformed(uint8_t *f, uint64_t k)
{
	static const uint8_t addrs[8] = {10, 255, 255, 1, 10, 255, 255, 2};
	uint8_t *ip = f + ETH_HLEN, *th = ip + IPV4_HLEN;
	uint32_t len = ETH_HLEN + IPV4_HLEN + TCP_HLEN + 6; /* 60 bytes */

	memset(f, 0, len);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
	put16(f + 12, MPE_ETHER_TYPE_IPV4);
	ip[0] = 0x45;
	put16(ip + 2, IPV4_HLEN + TCP_HLEN + 6);
	put16(ip + 4, (uint16_t)k);
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	memcpy(ip + 12, addrs, 8);
	put16(th, 9);
	put16(th + 2, 9);
	th[12] = 5 << 4;
	switch (k % MALFORMED_KINDS) {
	case 0: ip[0] = 0x44; break;			/* IHL 4 */
	case 1: put16(ip + 2, 1500); break;		/* total length beyond the frame */
	case 2: th[12] = 3 << 4; break;			/* TCP data offset 3 */
	default: len = ETH_HLEN + 10; break;		/* IPv4 header cut off */
	}
	return len;
}

static int
generate(const struct config *cfg, const char *out_name)
{
	uint8_t frame[MAX_FRAME + MAX_HDRS];
	struct flow *flows;
	uint64_t rng = cfg->seed;
	uint64_t i, nv6 = 0, nudp = 0, bad = 0;
	pcap_t *pd;
	pcap_dumper_t *dump;
	struct stat st;
	FILE *out;
	int ret = EXIT_USAGE;

	flows = calloc(cfg->flows, sizeof(*flows));
	if (flows == NULL) {
		fprintf(stderr, PROG ": out of memory for %" PRIu64 " flows\n", cfg->flows);
		return EXIT_USAGE;
	}
	if (make_flows(flows, cfg, &rng) < 0)
		goto out_flows;

	pd = pcap_open_dead(DLT_EN10MB, 65535);
	if (pd == NULL) {
		fprintf(stderr, PROG ": pcap_open_dead failed\n");
		goto out_flows;
	}
	dump = pcap_dump_open(pd, cfg->output);
	if (dump == NULL) {
		fprintf(stderr, PROG ": cannot write %s\n", pcap_geterr(pd));
		goto out_pd;
	}
	out = pcap_dump_file(dump);

	for (i = 0; i < cfg->packets; i++) {
		uint32_t f = prng_below(&rng, (uint32_t)cfg->flows);
		uint16_t size = cfg->sizes[prng_below(&rng, cfg->nsizes)];
		struct pcap_pkthdr ph;

		ph.caplen = build_frame(frame, cfg, &flows[f], f, i, size);
		ph.len = ph.caplen;
		ph.ts.tv_sec = (time_t)(TS_BASE_SEC + i / 1000000);
		ph.ts.tv_usec = (suseconds_t)(i % 1000000);
		pcap_dump((u_char *)dump, &ph, frame);
		/* malformed frame k follows good frame (k + 1) * packets / (malformed + 1) - 1 */
		while (bad < cfg->malformed &&
		       i + 1 >= (bad + 1) * cfg->packets / (cfg->malformed + 1)) {
			ph.caplen = ph.len = build_malformed(frame, bad++);
			pcap_dump((u_char *)dump, &ph, frame);
		}
		if (ferror(out)) {
			fprintf(stderr, PROG ": write error on %s after %" PRIu64 " packets: %s\n",
				out_name, i, strerror(errno));
			goto out_dump;
		}
	}
	if (pcap_dump_flush(dump) != 0 || ferror(out)) {
		fprintf(stderr, PROG ": write error on %s: %s\n", out_name, strerror(errno));
		goto out_dump;
	}

	for (i = 0; i < cfg->flows; i++) {
		nv6 += flows[i].v6;
		nudp += flows[i].proto == IPPROTO_UDP;
	}
	/* With the pcap on stdout, the summary goes to stderr. */
	fprintf(strcmp(cfg->output, "-") == 0 ? stderr : stdout,
		"wrote %" PRIu64 " packets, %" PRIu64 " flows (%" PRIu64 " ipv4, %" PRIu64
		" ipv6, %" PRIu64 " tcp, %" PRIu64 " udp) to %s\n",
		cfg->packets, cfg->flows, cfg->flows - nv6, nv6, cfg->flows - nudp, nudp,
		out_name);
	if (bad > 0)
		fprintf(strcmp(cfg->output, "-") == 0 ? stderr : stdout,
			"and %" PRIu64 " malformed frames\n", bad);
	ret = EXIT_SUCCESS;
out_dump:
	pcap_dump_close(dump);
	/* no half-written pcap left behind; but a device (-o /dev/full) is not ours to remove */
	if (ret != EXIT_SUCCESS && strcmp(cfg->output, "-") != 0 &&
	    lstat(cfg->output, &st) == 0 && S_ISREG(st.st_mode))
		remove(cfg->output);
out_pd:
	pcap_close(pd);
out_flows:
	free(flows);
	return ret;
}

int
main(int argc, char **argv)
{
	struct config cfg;
	int r;

	mpe_version_exit(argc, argv, "mpe-pcapgen");
	r = parse_args(argc, argv, &cfg);
	if (r > 0)
		return EXIT_SUCCESS;
	if (r < 0) {
		fprintf(stderr, "Try '" PROG " --help' for more information.\n");
		return EXIT_USAGE;
	}
	return generate(&cfg, strcmp(cfg.output, "-") == 0 ? "stdout" : cfg.output);
}
