/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/packet/decode.c: hand-built frames of every protocol the decoder knows, one
 * malformed frame per reason, and every valid frame cut at every length. Every frame is decoded
 * twice: as a heap copy of exactly its length (valgrind or ASan name an over-read) and copied
 * against an inaccessible page (an over-read faults in a plain run). No EAL.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_mbuf_ptype.h>

#include "decode.h"
#include "pkt.h"
#include "test.h"

#define FRAME_MAX 512
#define EXT_MAX   12

static const uint8_t MAC_DST[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t MAC_SRC[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t V4_SRC[4] = {10, 0, 0, 1};
static const uint8_t V4_DST[4] = {10, 0, 0, 2};
static const uint8_t V6_SRC[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t V6_DST[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

/* What to put on the wire. Ports in host order. */
struct spec {
	int ntags;
	uint16_t tpid[3], tci[3];
	uint16_t ether_type; /* after the tags; 0: from family (0x0806, ARP, for family 0) */
	int family;          /* 4, 6, or 0 for non-IP */
	uint8_t proto;       /* upper-layer protocol */
	int ihl;             /* IPv4 header words; 0: 5. Options are NOPs */
	uint16_t frag4;      /* IPv4 flags and fragment offset field */
	int n_ext;           /* IPv6 extension headers, in order */
	uint8_t ext[EXT_MAX];
	uint8_t ext_len[EXT_MAX]; /* their length byte (not for the fragment header) */
	uint16_t frag6;           /* fragment header: offset in 8-byte units << 3 | M */
	uint16_t sport, dport;
	int doff; /* TCP data offset words; 0: 5. Options are NOPs */
	uint8_t tcp_flags;
	uint16_t udp_len; /* 0: 8 + payload */
	uint32_t payload; /* bytes after the transport header (or after L3 if none) */
	uint32_t pad;     /* Ethernet padding after the IP datagram */
};

/* What was built, by construction. */
struct frame {
	uint8_t b[FRAME_MAX];
	uint32_t len;
	uint32_t l2_len, l3_len, l4_off, l4_len, payload_off, payload_len, ip_end;
};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int
non_first_fragment(const struct spec *s)
{
	int i;

	if (s->family == 4)
		return (s->frag4 & 0x1fff) != 0;
	for (i = 0; i < s->n_ext; i++)
		if (s->ext[i] == 44)
			return (s->frag6 & 0xfff8) != 0;
	return 0;
}

/* One IPv6 extension header of type @t at @h, followed by @nh; returns its size. */
static uint32_t
put_ext(uint8_t *h, uint8_t t, uint8_t len, uint8_t nh, uint16_t frag6)
{
	uint32_t size;

	h[0] = nh;
	if (t == 44) {
		put16(h + 2, frag6);
		put16(h + 4, 0xbeef); /* identification */
		put16(h + 6, 0x0001);
		return 8;
	}
	h[1] = len;
	size = t == 51 ? ((uint32_t)len + 2) * 4 : ((uint32_t)len + 1) * 8;
	/* options: Pad1 (zero bytes) are valid; an AH body is opaque anyway */
	return size;
}

static void
build(struct frame *f, const struct spec *s)
{
	uint32_t off = 12, l3, i;
	uint8_t *l4;

	memset(f, 0, sizeof(*f));
	memcpy(f->b, MAC_DST, 6);
	memcpy(f->b + 6, MAC_SRC, 6);
	for (i = 0; i < (uint32_t)s->ntags; i++) {
		put16(f->b + off, s->tpid[i]);
		put16(f->b + off + 2, s->tci[i]);
		off += 4;
	}
	put16(f->b + off, s->ether_type    ? s->ether_type
			  : s->family == 4 ? MPE_ETHER_TYPE_IPV4
			  : s->family == 6 ? MPE_ETHER_TYPE_IPV6
					   : 0x0806);
	off += 2;
	f->l2_len = off;
	l3 = off;
	if (s->family == 0) {
		put16(f->b + off, 1); /* ARP request body, 28 bytes */
		put16(f->b + off + 2, 0x0800);
		f->payload_off = off;
		f->payload_len = 28;
		f->ip_end = off + 28;
		f->len = f->ip_end + s->pad;
		return;
	}
	if (s->family == 4) {
		uint32_t hlen = (uint32_t)(s->ihl ? s->ihl : 5) * 4;

		f->b[l3] = (uint8_t)(0x40 | hlen / 4);
		put16(f->b + l3 + 4, 0x1234);
		put16(f->b + l3 + 6, s->frag4);
		f->b[l3 + 8] = 64;
		f->b[l3 + 9] = s->proto;
		memcpy(f->b + l3 + 12, V4_SRC, 4);
		memcpy(f->b + l3 + 16, V4_DST, 4);
		memset(f->b + l3 + 20, 0x01, hlen - 20);
		off += hlen;
	} else {
		f->b[l3] = 0x60;
		f->b[l3 + 6] = s->n_ext ? s->ext[0] : s->proto;
		f->b[l3 + 7] = 64;
		memcpy(f->b + l3 + 8, V6_SRC, 16);
		memcpy(f->b + l3 + 24, V6_DST, 16);
		off += 40;
		for (i = 0; i < (uint32_t)s->n_ext; i++) {
			uint8_t nh = i + 1 < (uint32_t)s->n_ext ? s->ext[i + 1] : s->proto;

			off += put_ext(f->b + off, s->ext[i], s->ext_len[i], nh, s->frag6);
		}
	}
	f->l3_len = off - l3;
	f->l4_off = off;
	l4 = f->b + off;
	if (!non_first_fragment(s)) {
		switch (s->proto) {
		case IPPROTO_TCP:
			f->l4_len = (uint32_t)(s->doff ? s->doff : 5) * 4;
			put16(l4, s->sport);
			put16(l4 + 2, s->dport);
			l4[12] = (uint8_t)(f->l4_len / 4 << 4);
			l4[13] = s->tcp_flags;
			memset(l4 + 20, 0x01, f->l4_len - 20);
			break;
		case IPPROTO_UDP:
		case IPPROTO_UDPLITE:
			f->l4_len = 8;
			put16(l4, s->sport);
			put16(l4 + 2, s->dport);
			put16(l4 + 4, s->udp_len ? s->udp_len : (uint16_t)(8 + s->payload));
			break;
		case IPPROTO_SCTP:
			f->l4_len = 12;
			put16(l4, s->sport);
			put16(l4 + 2, s->dport);
			break;
		case IPPROTO_ICMP:
		case IPPROTO_ICMPV6:
			f->l4_len = 8;
			l4[0] = s->proto == IPPROTO_ICMP ? 8 : 128; /* echo request */
			l4[1] = 0;
			put16(l4 + 4, 0xabcd);
			break;
		default: break;
		}
	}
	f->payload_off = off + f->l4_len;
	f->payload_len = s->payload;
	/* payload bytes that would read as ports or lengths if decoded by mistake */
	memset(f->b + f->payload_off, 0xab, s->payload);
	f->ip_end = f->payload_off + s->payload;
	if (s->family == 4)
		put16(f->b + l3 + 2, (uint16_t)(f->ip_end - l3));
	else
		put16(f->b + l3 + 4, (uint16_t)(f->ip_end - l3 - 40));
	f->len = f->ip_end + s->pad;
}

/* Heap copy of the first @len bytes: exact size, so over-reads are caught by the tools. */
static uint8_t *
heap_copy(const struct frame *f, uint32_t len)
{
	uint8_t *p = malloc(len ? len : 1);

	if (p == NULL) {
		perror("malloc");
		exit(2);
	}
	memcpy(p, f->b, len);
	return p;
}

static uint8_t *guard_end; /* end of a writable page followed by an inaccessible one */

/* So that an over-read faults without valgrind too. Returns 0 or -errno. */
static int
guard_init(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *base;

	if (page < FRAME_MAX)
		return -EINVAL;
	base = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (base == MAP_FAILED)
		return -errno;
	if (mprotect(base + page, (size_t)page, PROT_NONE) != 0)
		return -errno;
	guard_end = base + page;
	return 0;
}

static int same_decode(const struct mpe_decoded *a, const struct mpe_decoded *b);

/* Decodes the first @len bytes twice: copied against the guard page (an over-read faults)
 * and as an exact-size heap copy (valgrind names the over-read); both must agree, and agree
 * with the general decoder (mpe_decode() takes a short cut for most IPv4). */
static int
decode(const struct frame *f, uint32_t len, struct mpe_decoded *d)
{
	uint8_t *p = heap_copy(f, len);
	uint8_t *g = guard_end - len;
	struct mpe_decoded dg, dw;
	int rc, rcg, rcw;

	memcpy(g, f->b, len);
	rcg = mpe_decode(g, len, &dg);
	rc = mpe_decode(p, len, d);
	rcw = mpe_decode_general(p, len, &dw);
	free(p);
	CHECK(rc == rcg && same_decode(d, &dg), "%u bytes: heap and guard page copies differ", len);
	CHECK(rc == rcw && same_decode(d, &dw), "%u bytes: mpe_decode and mpe_decode_general differ",
	      len);
	return rc;
}

/* ---- well-formed frames ---- */

#define L2  RTE_PTYPE_L2_ETHER
#define L2V RTE_PTYPE_L2_ETHER_VLAN
#define L2Q RTE_PTYPE_L2_ETHER_QINQ
#define V4  RTE_PTYPE_L3_IPV4
#define V4X RTE_PTYPE_L3_IPV4_EXT
#define V6  RTE_PTYPE_L3_IPV6
#define V6X RTE_PTYPE_L3_IPV6_EXT

struct ok_case {
	const char *name;
	struct spec s;
	/* expected, written out rather than taken from the builder */
	uint32_t ptype;
	uint16_t l2_len, l3_len, l4_len;
	uint8_t ip_proto;
	uint8_t key_proto; /* 0: same as ip_proto */
	uint8_t frag, first;
	int ports; /* key carries the spec's ports */
	int frag_ports; /* frag_sport and frag_dport carry them (a first fragment) */
	uint8_t ext_count;
	uint8_t icmp_type;
	uint16_t vlan_id;
};

#define TCP4 .family = 4, .proto = IPPROTO_TCP, .sport = 1024, .dport = 80
#define UDP4 .family = 4, .proto = IPPROTO_UDP, .sport = 5353, .dport = 53
#define TCP6 .family = 6, .proto = IPPROTO_TCP, .sport = 40000, .dport = 443
#define UDP6 .family = 6, .proto = IPPROTO_UDP, .sport = 5353, .dport = 53

static const struct ok_case ok_cases[] = {
	{.name = "IPv4 TCP",
	 .s = {TCP4, .tcp_flags = 0x12, .payload = 10},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_TCP,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1},
	{.name = "IPv4 TCP with options (data offset 8)",
	 .s = {TCP4, .doff = 8, .tcp_flags = 0x02},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_TCP,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 32,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1},
	{.name = "IPv4 UDP",
	 .s = {UDP4, .payload = 30},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_UDP,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .ports = 1},
	{.name = "IPv4 ICMP",
	 .s = {.family = 4, .proto = IPPROTO_ICMP, .payload = 56},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_ICMP,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_ICMP,
	 .icmp_type = 8},
	{.name = "IPv4 SCTP",
	 .s = {.family = 4, .proto = IPPROTO_SCTP, .sport = 2905, .dport = 2905, .payload = 16},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_SCTP,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 12,
	 .ip_proto = IPPROTO_SCTP,
	 .ports = 1},
	{.name = "IPv4 UDP-Lite (ports, no ptype of its own)",
	 .s = {.family = 4, .proto = IPPROTO_UDPLITE, .sport = 7, .dport = 9, .udp_len = 8},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_NONFRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDPLITE,
	 .ports = 1},
	{.name = "IPv4 GRE (not decoded, not an error)",
	 .s = {.family = 4, .proto = 47, .payload = 24},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_NONFRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 0,
	 .ip_proto = 47},
	{.name = "IPv4 options (IHL 6) TCP",
	 .s = {TCP4, .ihl = 6},
	 .ptype = L2 | V4X | RTE_PTYPE_L4_TCP,
	 .l2_len = 14,
	 .l3_len = 24,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1},
	{.name = "IPv4 options (IHL 15) UDP",
	 .s = {UDP4, .ihl = 15},
	 .ptype = L2 | V4X | RTE_PTYPE_L4_UDP,
	 .l2_len = 14,
	 .l3_len = 60,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .ports = 1},
	{.name = "IPv4 first fragment (MF) TCP: L4 decoded, key ports 0, its ports aside, "
		 "ptype FRAG",
	 .s = {TCP4, .frag4 = 0x2000, .payload = 8},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .frag = 1,
	 .first = 1,
	 .frag_ports = 1},
	{.name = "IPv4 first fragment UDP whose length counts the whole datagram",
	 .s = {UDP4, .frag4 = 0x2000, .payload = 32, .udp_len = 1480},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .frag = 1,
	 .first = 1,
	 .frag_ports = 1},
	{.name = "IPv4 first fragment ICMP: no ports to set aside",
	 .s = {.family = 4, .proto = IPPROTO_ICMP, .frag4 = 0x2000, .payload = 16},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_ICMP,
	 .frag = 1,
	 .first = 1,
	 .icmp_type = 8},
	{.name = "IPv4 UDP fragment at offset 8: only TCP's is refused",
	 .s = {UDP4, .frag4 = 1, .payload = 16},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 0,
	 .ip_proto = IPPROTO_UDP,
	 .frag = 1},
	{.name = "IPv4 TCP fragment at offset 16",
	 .s = {TCP4, .frag4 = 0x2000 | 2, .payload = 16},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 0,
	 .ip_proto = IPPROTO_TCP,
	 .frag = 1},
	{.name = "IPv4 middle fragment (MF, offset 1480): no L4",
	 .s = {UDP4, .frag4 = 0x2000 | 185, .payload = 40},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 0,
	 .ip_proto = IPPROTO_UDP,
	 .frag = 1},
	{.name = "IPv4 last fragment (offset only): no L4",
	 .s = {TCP4, .frag4 = 370, .payload = 3},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 0,
	 .ip_proto = IPPROTO_TCP,
	 .frag = 1},
	{.name = "IPv4 non-first fragment with no payload",
	 .s = {TCP4, .frag4 = 370},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 0,
	 .ip_proto = IPPROTO_TCP,
	 .frag = 1},
	{.name = "IPv4 DF alone is not a fragment",
	 .s = {TCP4, .frag4 = 0x4000},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_TCP,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1},
	{.name = "IPv4 UDP, 4 bytes, Ethernet padding to 60",
	 .s = {UDP4, .payload = 4, .pad = 14},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_UDP,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .ports = 1},
	{.name = "IPv4 TCP SYN, no payload, Ethernet padding",
	 .s = {TCP4, .tcp_flags = 0x02, .pad = 6},
	 .ptype = L2 | V4 | RTE_PTYPE_L4_TCP,
	 .l2_len = 14,
	 .l3_len = 20,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1},
	{.name = "IPv6 TCP",
	 .s = {TCP6, .tcp_flags = 0x10, .payload = 100},
	 .ptype = L2 | V6 | RTE_PTYPE_L4_TCP,
	 .l2_len = 14,
	 .l3_len = 40,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1},
	{.name = "IPv6 UDP",
	 .s = {UDP6, .payload = 12},
	 .ptype = L2 | V6 | RTE_PTYPE_L4_UDP,
	 .l2_len = 14,
	 .l3_len = 40,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .ports = 1},
	{.name = "IPv6 ICMPv6",
	 .s = {.family = 6, .proto = IPPROTO_ICMPV6, .payload = 8},
	 .ptype = L2 | V6 | RTE_PTYPE_L4_ICMP,
	 .l2_len = 14,
	 .l3_len = 40,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_ICMPV6,
	 .icmp_type = 128},
	{.name = "IPv6 SCTP",
	 .s = {.family = 6, .proto = IPPROTO_SCTP, .sport = 36412, .dport = 36412},
	 .ptype = L2 | V6 | RTE_PTYPE_L4_SCTP,
	 .l2_len = 14,
	 .l3_len = 40,
	 .l4_len = 12,
	 .ip_proto = IPPROTO_SCTP,
	 .ports = 1},
	{.name = "IPv6 no next header (59)",
	 .s = {.family = 6, .proto = 59},
	 .ptype = L2 | V6 | RTE_PTYPE_L4_NONFRAG,
	 .l2_len = 14,
	 .l3_len = 40,
	 .l4_len = 0,
	 .ip_proto = 59},
	{.name = "IPv6 hop-by-hop + destination options + routing, TCP",
	 .s = {TCP6, .n_ext = 3, .ext = {0, 60, 43}, .ext_len = {0, 1, 2}, .payload = 5},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_TCP,
	 .l2_len = 14,
	 .l3_len = 40 + 8 + 16 + 24,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1,
	 .ext_count = 3},
	{.name = "IPv6 hop-by-hop, UDP",
	 .s = {UDP6, .n_ext = 1, .ext = {0}},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_UDP,
	 .l2_len = 14,
	 .l3_len = 48,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .ports = 1,
	 .ext_count = 1},
	{.name = "IPv6 AH (length in 4-byte units + 2), TCP",
	 .s = {TCP6, .n_ext = 1, .ext = {51}, .ext_len = {4}},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_TCP,
	 .l2_len = 14,
	 .l3_len = 40 + 24,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1,
	 .ext_count = 1},
	{.name = "IPv6 destination options then ESP: walk stops, payload opaque",
	 .s = {.family = 6, .proto = 50, .n_ext = 1, .ext = {60}, .payload = 64},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_NONFRAG,
	 .l2_len = 14,
	 .l3_len = 48,
	 .l4_len = 0,
	 .ip_proto = 50,
	 .ext_count = 1},
	{.name = "IPv6 eight extension headers (the bound) are fine",
	 .s = {UDP6, .n_ext = 8, .ext = {0, 60, 60, 60, 60, 60, 60, 60}},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_UDP,
	 .l2_len = 14,
	 .l3_len = 40 + 64,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .ports = 1,
	 .ext_count = 8},
	{.name = "IPv6 first fragment (fragment header first), UDP",
	 .s = {UDP6, .n_ext = 1, .ext = {44}, .frag6 = 0x0001, .payload = 16, .udp_len = 3000},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 48,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .frag = 1,
	 .first = 1,
	 .frag_ports = 1,
	 .ext_count = 1},
	{.name = "IPv6 first fragment, destination options after the fragment header, TCP",
	 .s = {TCP6, .n_ext = 2, .ext = {44, 60}, .frag6 = 0x0001},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 56,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .key_proto = 60,
	 .frag = 1,
	 .first = 1,
	 .frag_ports = 1,
	 .ext_count = 2},
	{.name = "IPv6 first fragment, TCP right after the fragment header",
	 .s = {TCP6, .n_ext = 1, .ext = {44}, .frag6 = 0x0001, .payload = 8},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 48,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .frag = 1,
	 .first = 1,
	 .frag_ports = 1,
	 .ext_count = 1},
	{.name = "IPv6 non-first fragment: no L4, proto from the fragment header",
	 .s = {UDP6, .n_ext = 1, .ext = {44}, .frag6 = 185 << 3 | 1, .payload = 24},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 48,
	 .l4_len = 0,
	 .ip_proto = IPPROTO_UDP,
	 .frag = 1,
	 .ext_count = 1},
	{.name = "IPv6 hop-by-hop then non-first last fragment",
	 .s = {TCP6, .n_ext = 2, .ext = {0, 44}, .frag6 = 370 << 3, .payload = 7},
	 .ptype = L2 | V6X | RTE_PTYPE_L4_FRAG,
	 .l2_len = 14,
	 .l3_len = 56,
	 .l4_len = 0,
	 .ip_proto = IPPROTO_TCP,
	 .frag = 1,
	 .ext_count = 2},
	{.name = "802.1Q IPv4 UDP (PCP and DEI masked off)",
	 .s = {UDP4, .ntags = 1, .tpid = {0x8100}, .tci = {5 << 13 | 1 << 12 | 100}},
	 .ptype = L2V | V4 | RTE_PTYPE_L4_UDP,
	 .l2_len = 18,
	 .l3_len = 20,
	 .l4_len = 8,
	 .ip_proto = IPPROTO_UDP,
	 .ports = 1,
	 .vlan_id = 100},
	{.name = "QinQ (0x88a8, 0x8100) IPv6 TCP: inner VLAN id",
	 .s = {TCP6, .ntags = 2, .tpid = {0x88a8, 0x8100}, .tci = {200, 300}},
	 .ptype = L2Q | V6 | RTE_PTYPE_L4_TCP,
	 .l2_len = 22,
	 .l3_len = 40,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1,
	 .vlan_id = 300},
	{.name = "double 802.1Q (0x8100, 0x8100) IPv4 TCP",
	 .s = {TCP4, .ntags = 2, .tpid = {0x8100, 0x8100}, .tci = {7, 0xfff}},
	 .ptype = L2Q | V4 | RTE_PTYPE_L4_TCP,
	 .l2_len = 22,
	 .l3_len = 20,
	 .l4_len = 20,
	 .ip_proto = IPPROTO_TCP,
	 .ports = 1,
	 .vlan_id = 0xfff},
	{.name = "non-IP (ARP): L2 only",
	 .s = {.family = 0},
	 .ptype = L2,
	 .l2_len = 14,
	 .l3_len = 0,
	 .l4_len = 0},
	{.name = "non-IP (ARP) padded",
	 .s = {.family = 0, .pad = 18},
	 .ptype = L2,
	 .l2_len = 14,
	 .l3_len = 0,
	 .l4_len = 0},
	{.name = "802.1Q non-IP (LLDP)",
	 .s = {.ntags = 1, .tpid = {0x8100}, .tci = {42}, .ether_type = 0x88cc},
	 .ptype = L2V,
	 .l2_len = 18,
	 .l3_len = 0,
	 .l4_len = 0,
	 .vlan_id = 42},
};

static void
check_ok(const struct ok_case *c, const struct frame *f, const struct mpe_decoded *d)
{
	const struct spec *s = &c->s;
	uint8_t key_proto = c->key_proto ? c->key_proto : c->ip_proto;
	uint8_t zero[16] = {0};

	CHECK(d->bad == MPE_DECODE_OK, "bad %u (%s)", d->bad, mpe_decode_bad_name(d->bad));
	CHECK(d->ptype == c->ptype, "ptype 0x%x, expected 0x%x", d->ptype, c->ptype);
	CHECK(d->l2_len == c->l2_len && d->l2_len == f->l2_len, "l2_len %u, expected %u", d->l2_len,
	      c->l2_len);
	CHECK(d->l3_len == c->l3_len && d->l3_len == f->l3_len, "l3_len %u, expected %u", d->l3_len,
	      c->l3_len);
	CHECK(d->l4_len == c->l4_len && d->l4_len == f->l4_len, "l4_len %u, expected %u", d->l4_len,
	      c->l4_len);
	CHECK(d->l4_offset == (s->family ? f->l4_off : 0), "l4_offset %u, expected %u",
	      d->l4_offset, f->l4_off);
	CHECK(d->payload_offset == f->payload_off, "payload_offset %u, expected %u",
	      d->payload_offset, f->payload_off);
	/* non-IP: no length field, the payload runs to the end of the frame */
	CHECK(d->payload_len == (s->family ? f->payload_len : f->len - f->l2_len),
	      "payload_len %u, expected %u", d->payload_len,
	      s->family ? f->payload_len : f->len - f->l2_len);
	CHECK(d->vlan_count == s->ntags, "vlan_count %u", d->vlan_count);
	CHECK(d->vlan_id == c->vlan_id && d->key.vlan == c->vlan_id, "vlan %u/%u, expected %u",
	      d->vlan_id, d->key.vlan, c->vlan_id);
	CHECK(d->ether_type == (s->ether_type    ? s->ether_type
				: s->family == 4 ? 0x0800
				: s->family == 6 ? 0x86dd
						 : 0x0806),
	      "ether_type 0x%04x", d->ether_type);
	CHECK(d->ip_version == s->family, "ip_version %u", d->ip_version);
	CHECK(d->ip_proto == c->ip_proto, "ip_proto %u, expected %u", d->ip_proto, c->ip_proto);
	CHECK(d->frag == c->frag, "frag %u, expected %u", d->frag, c->frag);
	CHECK(d->is_first_fragment == c->first, "first %u, expected %u", d->is_first_fragment,
	      c->first);
	CHECK(d->ext_count == c->ext_count, "ext_count %u, expected %u", d->ext_count,
	      c->ext_count);
	CHECK(d->tcp_flags == (c->ip_proto == IPPROTO_TCP && c->l4_len ? s->tcp_flags : 0),
	      "tcp_flags 0x%02x", d->tcp_flags);
	CHECK(d->icmp_type == c->icmp_type && d->icmp_code == 0, "icmp %u/%u", d->icmp_type,
	      d->icmp_code);

	CHECK(d->key.family == (s->family ? s->family : MPE_FLOW_L2), "key family %u",
	      d->key.family);
	if (s->family == 0) {
		CHECK(d->key.proto == 0, "L2 key proto %u", d->key.proto);
		CHECK(memcmp(d->key.src, MAC_SRC, 6) == 0 && memcmp(d->key.dst, MAC_DST, 6) == 0,
		      "L2 key is not the MAC pair");
		CHECK(memcmp(d->key.src + 6, zero, 10) == 0 &&
			      memcmp(d->key.dst + 6, zero, 10) == 0,
		      "L2 key bytes after the MACs not zero");
	} else if (s->family == 4) {
		CHECK(memcmp(d->key.src, V4_SRC, 4) == 0 && memcmp(d->key.dst, V4_DST, 4) == 0,
		      "IPv4 addresses differ");
		CHECK(memcmp(d->key.src + 4, zero, 12) == 0 &&
			      memcmp(d->key.dst + 4, zero, 12) == 0,
		      "key bytes after the IPv4 addresses not zero");
	} else {
		CHECK(memcmp(d->key.src, V6_SRC, 16) == 0 && memcmp(d->key.dst, V6_DST, 16) == 0,
		      "IPv6 addresses differ");
	}
	CHECK(d->key.proto == (s->family ? key_proto : 0), "key proto %u, expected %u",
	      d->key.proto, key_proto);
	if (c->ports)
		CHECK(ntohs(d->key.sport) == s->sport && ntohs(d->key.dport) == s->dport,
		      "ports %u > %u, expected %u > %u", ntohs(d->key.sport), ntohs(d->key.dport),
		      s->sport, s->dport);
	else
		CHECK(d->key.sport == 0 && d->key.dport == 0, "ports %u > %u, expected 0",
		      ntohs(d->key.sport), ntohs(d->key.dport));
	if (c->frag_ports)
		CHECK(ntohs(d->frag_sport) == s->sport && ntohs(d->frag_dport) == s->dport,
		      "first fragment's ports %u > %u, expected %u > %u", ntohs(d->frag_sport),
		      ntohs(d->frag_dport), s->sport, s->dport);
	else
		CHECK(d->frag_sport == 0 && d->frag_dport == 0,
		      "first fragment's ports %u > %u, expected 0", ntohs(d->frag_sport),
		      ntohs(d->frag_dport));
}

static void
run_ok_cases(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(ok_cases); i++) {
		const struct ok_case *c = &ok_cases[i];
		struct mpe_decoded d;
		struct frame f;
		int rc;

		test_begin("decode: %s", c->name);
		build(&f, &c->s);
		rc = decode(&f, f.len, &d);
		if (CHECK(rc == 0, "rc %d, bad %s", rc, mpe_decode_bad_name(d.bad)))
			check_ok(c, &f, &d);
		test_end();
	}
}

/* The key is the one mpe_pkt_flow_key() gives (the distributor's), IPv6 extension headers and
 * fragments too. */
static void
test_key_matches_pkt_flow_key(void)
{
	unsigned int i, compared = 0;

	for (i = 0; i < TEST_DIM(ok_cases); i++) {
		const struct ok_case *c = &ok_cases[i];
		struct mpe_flow_key k;
		struct mpe_decoded d;
		struct frame f;
		uint8_t *p;

		build(&f, &c->s);
		p = heap_copy(&f, f.len);
		if (CHECK(mpe_decode(p, f.len, &d) == 0 && mpe_pkt_flow_key(p, f.len, &k) == 0,
			  "%s: not decoded", c->name)) {
			CHECK(memcmp(&k, &d.key, sizeof(k)) == 0, "%s: keys differ", c->name);
			CHECK(mpe_flow_hash(&k) == mpe_flow_hash(&d.key), "%s: hashes differ",
			      c->name);
			compared++;
		}
		free(p);
	}
	CHECK(compared > 40, "only %u frames compared", compared);
}

/* @f's reply: addresses and, where the transport header was built, ports swapped. */
static void
reverse(struct frame *f, const struct spec *s)
{
	uint32_t a = f->l2_len + (s->family == 4 ? 12 : 8), n = s->family == 4 ? 4 : 16;
	uint8_t t[16];

	memcpy(t, f->b + a, n);
	memcpy(f->b + a, f->b + a + n, n);
	memcpy(f->b + a + n, t, n);
	if (f->l4_len >= 4) {
		memcpy(t, f->b + f->l4_off, 2);
		memcpy(f->b + f->l4_off, f->b + f->l4_off + 2, 2);
		memcpy(f->b + f->l4_off + 2, t, 2);
	}
}

/* One direction of a connection with IPv6 extension headers, the other without: one flow
 * for the parse stage, so one hash for the distributor, which must not split it between two
 * workers. */
static void
test_ext_headers_one_direction_hash_alike(void)
{
	static const struct {
		const char *name;
		struct spec with, without;
	} cases[] = {
		{"hop-by-hop, TCP", {TCP6, .n_ext = 1, .ext = {0}}, {TCP6}},
		{"hop-by-hop and destination options, UDP",
		 {UDP6, .n_ext = 2, .ext = {0, 60}, .ext_len = {1, 0}}, {UDP6}},
		{"routing header, TCP", {TCP6, .n_ext = 1, .ext = {43}, .ext_len = {2}}, {TCP6}},
		{"AH, UDP", {UDP6, .n_ext = 1, .ext = {51}, .ext_len = {4}}, {UDP6}},
	};
	unsigned int i;

	for (i = 0; i < TEST_DIM(cases); i++) {
		struct mpe_decoded da, db;
		struct frame a, b;
		uint8_t *pa, *pb;

		build(&a, &cases[i].with);
		build(&b, &cases[i].without);
		reverse(&b, &cases[i].without);
		pa = heap_copy(&a, a.len);
		pb = heap_copy(&b, b.len);
		if (CHECK(mpe_decode(pa, a.len, &da) == 0 && mpe_decode(pb, b.len, &db) == 0,
			  "%s: not decoded", cases[i].name)) {
			CHECK(mpe_flow_hash(&da.key) == mpe_flow_hash(&db.key),
			      "%s: the decoded keys hash apart", cases[i].name);
			CHECK(mpe_pkt_flow_hash(pa, a.len) == mpe_pkt_flow_hash(pb, b.len),
			      "%s: the distributor hashes the directions apart", cases[i].name);
			CHECK(mpe_pkt_flow_hash(pa, a.len) == mpe_flow_hash(&da.key),
			      "%s: the distributor's hash is not the decoded key's", cases[i].name);
		}
		free(pa);
		free(pb);
	}
}

/* The mutation tests' pseudo-random numbers: a linear congruential step of @seed. */
static uint32_t
next_rand(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed;
}

/* @len, or one time in four a random length up to it: a mutated frame also cut short. */
static uint32_t
random_cut(uint32_t *seed, uint32_t len)
{
	uint32_t r = next_rand(seed);

	return (r >> 20) % 4 == 0 ? (r >> 4) % (len + 1) : len;
}

/* The parse stage keeps the distributor's hash of mpe_pkt_flow_key() for a well-formed IP
 * packet. That holds for any bytes, not just the table's frames: every frame of the table,
 * changed at random header bytes and cut at random lengths, either falls outside that rule or
 * has the same key both ways. */
static void
test_key_matches_pkt_flow_key_mutated(void)
{
	unsigned int i, r, applies = 0, outside = 0, differ = 0;
	uint32_t seed = 0x6d706531;

	for (i = 0; i < TEST_DIM(ok_cases); i++) {
		struct frame f;

		build(&f, &ok_cases[i].s);
		for (r = 0; r < 400; r++) {
			struct frame g = f;
			struct mpe_flow_key k;
			struct mpe_decoded d;
			unsigned int j, flips;
			uint32_t len = g.len;
			uint8_t *p;

			flips = 1 + (next_rand(&seed) >> 16) % 3;
			for (j = 0; j < flips; j++) {
				uint32_t x = next_rand(&seed);

				g.b[(x >> 8) % RTE_MIN(len, 96u)] = (uint8_t)(x >> 24);
			}
			len = random_cut(&seed, len);
			p = heap_copy(&g, len);
			if (mpe_decode(p, len, &d) != 0 || d.ip_version == 0) {
				outside++;
			} else {
				applies++;
				if (mpe_pkt_flow_key(p, len, &k) != 0 ||
				    memcmp(&k, &d.key, sizeof(k)) != 0 ||
				    mpe_pkt_flow_hash(p, len) != mpe_flow_hash(&d.key)) {
					if (differ++ < 5)
						CHECK(0, "%s, mutation %u (%u bytes): keys differ",
						      ok_cases[i].name, r, len);
				}
			}
			free(p);
		}
	}
	CHECK(differ == 0, "%u mutated frames where the keys differ", differ);
	/* both sides of the rule are exercised, not just one */
	CHECK(applies > 1000 && outside > 1000, "%u frames the rule applies to, %u outside it",
	      applies, outside);
}

/* Whether mpe_decode() may have taken its short cut for this result: untagged IPv4 with a
 * 20-byte header, not a fragment, TCP or UDP, at least 54 bytes, well formed. */
static int
short_cut_kind(const struct mpe_decoded *d, int rc, uint32_t len)
{
	return rc == 0 && d->ether_type == MPE_ETHER_TYPE_IPV4 && d->vlan_count == 0 &&
	       d->l3_len == 20 && !d->frag &&
	       (d->ip_proto == IPPROTO_TCP || d->ip_proto == IPPROTO_UDP) && len >= 54;
}

/* mpe_decode()'s short cut gives what the general decoder gives, for any bytes: every frame
 * of the table changed where the short cut decides (IPv4 total length, UDP length, TCP data
 * offset, each around the bounds; any header byte) and cut at random lengths. */
static void
test_short_cut_matches_general_mutated(void)
{
	unsigned int i, r, taken = 0, near = 0, differ = 0;
	uint32_t seed = 0x73686f72;

	for (i = 0; i < TEST_DIM(ok_cases); i++) {
		struct frame f;

		build(&f, &ok_cases[i].s);
		for (r = 0; r < 600; r++) {
			struct frame g = f;
			struct mpe_decoded a, b;
			uint32_t len = g.len, l4 = g.l2_len + 20, x = next_rand(&seed);
			uint32_t v = (x >> 16) % 8;
			int ra, rb;
			uint8_t *p;

			switch ((x >> 8) % 5) {
			case 0: /* IPv4 total length around the frame's IP bytes */
				put16(g.b + g.l2_len + 2, (uint16_t)(len - g.l2_len + v - 4));
				break;
			case 1: /* UDP length around the datagram's payload */
				put16(g.b + l4 + 4, (uint16_t)(g.ip_end - l4 + v - 4));
				break;
			case 2: /* TCP data offset, any */
				g.b[l4 + 12] = (uint8_t)((x >> 20) << 4 | (g.b[l4 + 12] & 0x0f));
				break;
			case 3: /* any header byte, any value */
				g.b[(x >> 12) % RTE_MIN(len, 64u)] = (uint8_t)(x >> 24);
				break;
			default:
				break;
			}
			len = random_cut(&seed, len);
			p = heap_copy(&g, len);
			ra = mpe_decode(p, len, &a);
			rb = mpe_decode_general(p, len, &b);
			free(p);
			if (short_cut_kind(&b, rb, len))
				taken++;
			else if (b.ether_type == MPE_ETHER_TYPE_IPV4 && b.vlan_count == 0)
				near++;
			if (ra != rb || !same_decode(&a, &b)) {
				if (differ++ < 5)
					CHECK(0, "%s, mutation %u (%u bytes): %s against %s",
					      ok_cases[i].name, r, len, mpe_decode_bad_name(a.bad),
					      mpe_decode_bad_name(b.bad));
			}
		}
	}
	CHECK(differ == 0, "%u mutated frames decoded otherwise by the short cut", differ);
	/* the short cut's frames and untagged IPv4 it must leave alone are both exercised */
	CHECK(taken > 1000 && near > 1000, "%u frames of the short cut's kind, %u other IPv4",
	      taken, near);
}

/* Both IPv4 fragments of one datagram, and both IPv6 ones, give one key. */
static void
test_fragments_share_a_key(void)
{
	struct spec a = {UDP4, .frag4 = 0x2000, .payload = 32, .udp_len = 100};
	struct spec b = {UDP4, .frag4 = 5, .payload = 60};
	struct spec c = {TCP6, .n_ext = 2, .ext = {44, 60}, .frag6 = 0x0001};
	struct spec e = {TCP6, .n_ext = 2, .ext = {44, 60}, .frag6 = 3 << 3};
	struct mpe_decoded da, db;
	struct frame f;

	build(&f, &a);
	CHECK(decode(&f, f.len, &da) == 0, "first IPv4 fragment");
	build(&f, &b);
	CHECK(decode(&f, f.len, &db) == 0, "second IPv4 fragment");
	CHECK(memcmp(&da.key, &db.key, sizeof(da.key)) == 0, "IPv4 fragment keys differ");
	build(&f, &c);
	CHECK(decode(&f, f.len, &da) == 0, "first IPv6 fragment");
	build(&f, &e);
	CHECK(decode(&f, f.len, &db) == 0, "second IPv6 fragment");
	/* the second's walk stops at the fragment header: it names 60, and so does the first's
	 * key, though the first decodes through to TCP */
	CHECK(da.ip_proto == IPPROTO_TCP && db.ip_proto == 60, "ip_proto %u %u", da.ip_proto,
	      db.ip_proto);
	CHECK(memcmp(&da.key, &db.key, sizeof(da.key)) == 0, "IPv6 fragment keys differ");
}

/* ---- malformed frames: one reason each ---- */

enum anchor { A_NONE, A_ETH, A_L3, A_L4, A_EXT }; /* A_NONE: no patch, no cut */

/* Bytes written over the built frame: {anchor, offset from it, width, value}. */
struct patch {
	int anchor; /* enum anchor */
	int off;
	int width; /* 0: no patch; 1 or 2 bytes */
	uint16_t val;
};

struct bad_case {
	const char *name;
	struct spec s;
	struct patch p[2];
	int cut_anchor; /* A_NONE: whole frame; else keep bytes up to anchor + cut_off */
	int cut_off;
	int head; /* bytes in hand of the frame (mpe_decode_head); 0: all of them */
	unsigned int reason;
};

static const struct bad_case bad_cases[] = {
	{.name = "frame shorter than Ethernet",
	 .reason = MPE_DECODE_BAD_SHORT_L2,
	 .s = {TCP4},
	 .cut_anchor = A_ETH,
	 .cut_off = 13},
	{.name = "empty frame",
	 .reason = MPE_DECODE_BAD_SHORT_L2,
	 .s = {TCP4},
	 .cut_anchor = A_ETH,
	 .cut_off = 0},
	{.name = "802.1Q tag cut",
	 .reason = MPE_DECODE_BAD_SHORT_L2,
	 .s = {TCP4, .ntags = 1, .tpid = {0x8100}},
	 .cut_anchor = A_ETH,
	 .cut_off = 16},
	{.name = "QinQ inner tag cut",
	 .reason = MPE_DECODE_BAD_SHORT_L2,
	 .s = {TCP4, .ntags = 2, .tpid = {0x88a8, 0x8100}},
	 .cut_anchor = A_ETH,
	 .cut_off = 21},
	{.name = "three VLAN tags",
	 .reason = MPE_DECODE_BAD_VLAN_DEPTH,
	 .s = {TCP4, .ntags = 3, .tpid = {0x88a8, 0x8100, 0x8100}}},
	{.name = "IPv4 fixed header cut",
	 .reason = MPE_DECODE_BAD_SHORT_IPV4,
	 .s = {TCP4},
	 .cut_anchor = A_L3,
	 .cut_off = 19},
	{.name = "IPv4 options cut by the frame",
	 .reason = MPE_DECODE_BAD_SHORT_IPV4,
	 .s = {TCP4, .ihl = 6},
	 .cut_anchor = A_L3,
	 .cut_off = 22},
	{.name = "IPv4 ether type, version 6",
	 .reason = MPE_DECODE_BAD_IPV4_VERSION,
	 .s = {TCP4},
	 .p = {{A_L3, 0, 1, 0x65}}},
	{.name = "IPv4 IHL 4",
	 .reason = MPE_DECODE_BAD_IPV4_IHL,
	 .s = {TCP4},
	 .p = {{A_L3, 0, 1, 0x44}}},
	{.name = "IPv4 IHL 0",
	 .reason = MPE_DECODE_BAD_IPV4_IHL,
	 .s = {TCP4},
	 .p = {{A_L3, 0, 1, 0x40}}},
	{.name = "IPv4 total length below IHL",
	 .reason = MPE_DECODE_BAD_IPV4_TOTAL_LEN,
	 .s = {TCP4},
	 .p = {{A_L3, 2, 2, 19}}},
	{.name = "IPv4 total length one beyond the frame",
	 .reason = MPE_DECODE_BAD_IPV4_TOTAL_LEN,
	 .s = {TCP4},
	 .p = {{A_L3, 2, 2, 41}}},
	{.name = "IPv4 TCP frame cut inside the TCP header",
	 .reason = MPE_DECODE_BAD_IPV4_TOTAL_LEN,
	 .s = {TCP4},
	 .cut_anchor = A_L4,
	 .cut_off = 10},
	{.name = "IPv4 fragment reaching past 65535",
	 .reason = MPE_DECODE_BAD_IPV4_FRAG_OVERSIZE,
	 .s = {UDP4, .frag4 = 0x1fff, .payload = 20}},
	{.name = "IPv6 fixed header cut",
	 .reason = MPE_DECODE_BAD_SHORT_IPV6,
	 .s = {UDP6},
	 .cut_anchor = A_L3,
	 .cut_off = 39},
	{.name = "IPv6 ether type, version 4",
	 .reason = MPE_DECODE_BAD_IPV6_VERSION,
	 .s = {UDP6},
	 .p = {{A_L3, 0, 1, 0x45}}},
	{.name = "IPv6 payload length one beyond the frame",
	 .reason = MPE_DECODE_BAD_IPV6_PAYLOAD_LEN,
	 .s = {UDP6, .payload = 4},
	 .p = {{A_L3, 4, 2, 13}}},
	{.name = "IPv6 hop-by-hop length beyond the payload",
	 .reason = MPE_DECODE_BAD_IPV6_EXT_SHORT,
	 .s = {UDP6, .n_ext = 1, .ext = {0}},
	 .p = {{A_EXT, 1, 1, 2}}},
	{.name = "IPv6 payload shorter than an extension header",
	 .reason = MPE_DECODE_BAD_IPV6_EXT_SHORT,
	 .s = {UDP6, .n_ext = 2, .ext = {0, 60}, .pad = 40},
	 .p = {{A_L3, 4, 2, 12}}},
	{.name = "IPv6 payload ending where the next extension header should start",
	 .reason = MPE_DECODE_BAD_IPV6_EXT_SHORT,
	 .s = {.family = 6, .proto = 60, .n_ext = 1, .ext = {0}}},
	{.name = "IPv6 AH length beyond the payload",
	 .reason = MPE_DECODE_BAD_IPV6_EXT_SHORT,
	 .s = {TCP6, .n_ext = 1, .ext = {51}, .ext_len = {4}},
	 .p = {{A_EXT, 1, 1, 20}}},
	{.name = "IPv6 nine extension headers",
	 .reason = MPE_DECODE_BAD_IPV6_EXT_CHAIN,
	 .s = {UDP6, .n_ext = 9, .ext = {0, 60, 60, 60, 60, 60, 60, 60, 60}}},
	{.name = "IPv6 TCP, payload length 19 (rest is padding)",
	 .reason = MPE_DECODE_BAD_SHORT_TCP,
	 .s = {TCP6},
	 .p = {{A_L3, 4, 2, 19}}},
	{.name = "IPv4 TCP, total length 20 + 19",
	 .reason = MPE_DECODE_BAD_SHORT_TCP,
	 .s = {TCP4},
	 .p = {{A_L3, 2, 2, 39}}},
	{.name = "IPv4 first fragment too small for TCP",
	 .reason = MPE_DECODE_BAD_SHORT_TCP,
	 .s = {TCP4, .frag4 = 0x2000},
	 .p = {{A_L3, 2, 2, 36}}},
	{.name = "IPv4 first fragment with the TCP ports only (RFC 1858 tiny fragment)",
	 .reason = MPE_DECODE_BAD_SHORT_TCP,
	 .s = {TCP4, .frag4 = 0x2000},
	 .p = {{A_L3, 2, 2, 24}}},
	{.name = "IPv4 first fragment whose TCP options run into the next fragment",
	 .reason = MPE_DECODE_BAD_TCP_DOFF,
	 .s = {TCP4, .frag4 = 0x2000, .doff = 8},
	 .p = {{A_L3, 2, 2, 20 + 24}}},
	{.name = "IPv4 first fragment with half the UDP header",
	 .reason = MPE_DECODE_BAD_SHORT_UDP,
	 .s = {UDP4, .frag4 = 0x2000, .udp_len = 1000},
	 .p = {{A_L3, 2, 2, 24}}},
	{.name = "IPv6 first fragment with the TCP ports only",
	 .reason = MPE_DECODE_BAD_SHORT_TCP,
	 .s = {TCP6, .n_ext = 1, .ext = {44}, .frag6 = 0x0001},
	 .p = {{A_L3, 4, 2, 8 + 4}}},
	{.name = "IPv4 TCP fragment at offset 8 (RFC 1858 overlap of the flags)",
	 .reason = MPE_DECODE_BAD_TCP_FRAG_OFFSET,
	 .s = {TCP4, .frag4 = 0x2000 | 1, .payload = 16}},
	{.name = "IPv4 last TCP fragment at offset 8",
	 .reason = MPE_DECODE_BAD_TCP_FRAG_OFFSET,
	 .s = {TCP4, .frag4 = 1, .payload = 8}},
	{.name = "IPv6 TCP fragment at offset 8",
	 .reason = MPE_DECODE_BAD_TCP_FRAG_OFFSET,
	 .s = {TCP6, .n_ext = 2, .ext = {0, 44}, .frag6 = 1 << 3 | 1, .payload = 16}},
	{.name = "802.1Q tag past the head in hand",
	 .reason = MPE_DECODE_BAD_HDR_BEYOND_HEAD,
	 .s = {TCP4, .ntags = 1, .tpid = {0x8100}},
	 .head = 16},
	{.name = "IPv4 options past the head in hand",
	 .reason = MPE_DECODE_BAD_HDR_BEYOND_HEAD,
	 .s = {TCP4, .ihl = 15},
	 .head = 14 + 40},
	{.name = "IPv6 extension header past the head in hand",
	 .reason = MPE_DECODE_BAD_HDR_BEYOND_HEAD,
	 .s = {UDP6, .n_ext = 2, .ext = {0, 60}, .ext_len = {8}},
	 .head = 14 + 40 + 72 + 4},
	{.name = "IPv6 TCP header after extension headers past the head in hand",
	 .reason = MPE_DECODE_BAD_HDR_BEYOND_HEAD,
	 .s = {TCP6, .n_ext = 2, .ext = {0, 60}, .ext_len = {8, 8}},
	 .head = 14 + 40 + 144 + 19},
	{.name = "ICMPv6 of 4 bytes with 1 of them in hand (no type read, as with all in hand)",
	 .reason = MPE_DECODE_BAD_HDR_BEYOND_HEAD,
	 .s = {.family = 6, .proto = IPPROTO_ICMPV6},
	 .p = {{A_L3, 4, 2, 4}},
	 .head = 14 + 40 + 1},
	{.name = "TCP data offset 4",
	 .reason = MPE_DECODE_BAD_TCP_DOFF,
	 .s = {TCP4},
	 .p = {{A_L4, 12, 1, 4 << 4}}},
	{.name = "TCP data offset 6 beyond the IP payload",
	 .reason = MPE_DECODE_BAD_TCP_DOFF,
	 .s = {TCP4, .pad = 40},
	 .p = {{A_L4, 12, 1, 6 << 4}}},
	{.name = "IPv4 UDP, total length 20 + 7",
	 .reason = MPE_DECODE_BAD_SHORT_UDP,
	 .s = {UDP4},
	 .p = {{A_L3, 2, 2, 27}}},
	{.name = "IPv6 UDP-Lite, payload length 7",
	 .reason = MPE_DECODE_BAD_SHORT_UDP,
	 .s = {.family = 6, .proto = IPPROTO_UDPLITE},
	 .p = {{A_L3, 4, 2, 7}}},
	{.name = "UDP length 7",
	 .reason = MPE_DECODE_BAD_UDP_LEN,
	 .s = {UDP4},
	 .p = {{A_L4, 4, 2, 7}}},
	{.name = "UDP length one beyond the IP payload",
	 .reason = MPE_DECODE_BAD_UDP_LEN,
	 .s = {UDP6, .payload = 10, .pad = 20},
	 .p = {{A_L4, 4, 2, 19}}},
	{.name = "IPv4 ICMP, total length 20 + 7",
	 .reason = MPE_DECODE_BAD_SHORT_ICMP,
	 .s = {.family = 4, .proto = IPPROTO_ICMP},
	 .p = {{A_L3, 2, 2, 27}}},
	{.name = "ICMPv6, payload length 4",
	 .reason = MPE_DECODE_BAD_SHORT_ICMP,
	 .s = {.family = 6, .proto = IPPROTO_ICMPV6},
	 .p = {{A_L3, 4, 2, 4}}},
	{.name = "IPv4 SCTP, total length 20 + 11",
	 .reason = MPE_DECODE_BAD_SHORT_SCTP,
	 .s = {.family = 4, .proto = IPPROTO_SCTP},
	 .p = {{A_L3, 2, 2, 31}}},
	{.name = "IPv6 SCTP after hop-by-hop, payload length 8 + 11",
	 .reason = MPE_DECODE_BAD_SHORT_SCTP,
	 .s = {.family = 6, .proto = IPPROTO_SCTP, .n_ext = 1, .ext = {0}},
	 .p = {{A_L3, 4, 2, 19}}},
};

static uint32_t
anchor_off(const struct frame *f, int anchor)
{
	switch (anchor) {
	case A_L3: return f->l2_len;
	case A_L4: return f->l4_off;
	case A_EXT: return f->l2_len + 40;
	default: return 0;
	}
}

static void
run_bad_cases(void)
{
	unsigned int seen[MPE_DECODE_BAD_MAX] = {0};
	unsigned int r;
	size_t i;
	int j;

	for (i = 0; i < TEST_DIM(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct mpe_decoded d;
		struct frame f;
		uint32_t len;
		int rc;

		test_begin("malformed: %s is %s", c->name, mpe_decode_bad_name(c->reason));
		build(&f, &c->s);
		for (j = 0; j < 2; j++) {
			uint8_t *at = f.b + anchor_off(&f, c->p[j].anchor) + c->p[j].off;

			if (c->p[j].width == 1)
				*at = (uint8_t)c->p[j].val;
			else if (c->p[j].width == 2)
				put16(at, c->p[j].val);
		}
		len = c->cut_anchor == A_NONE
			      ? f.len
			      : anchor_off(&f, c->cut_anchor) + (uint32_t)c->cut_off;
		CHECK(len <= f.len, "case cuts beyond the frame");
		if (c->head != 0) {
			uint8_t *g = guard_end - c->head;

			memcpy(g, f.b, (size_t)c->head);
			rc = mpe_decode_head(g, (uint32_t)c->head, len, &d);
		} else {
			rc = decode(&f, len, &d);
		}
		CHECK(rc == -EINVAL, "%u bytes: rc %d", len, rc);
		CHECK(d.bad == c->reason, "bad %u (%s), expected %u (%s)", d.bad,
		      mpe_decode_bad_name(d.bad), c->reason, mpe_decode_bad_name(c->reason));
		if (rc == -EINVAL && d.bad == c->reason && c->reason < MPE_DECODE_BAD_MAX)
			seen[c->reason]++; /* a reason counts once a case gets it as expected */
		test_end();
	}
	test_begin("malformed: every reason has a case");
	for (r = 1; r < MPE_DECODE_BAD_MAX; r++)
		CHECK(seen[r] > 0, "no case for reason %u (%s)", r, mpe_decode_bad_name(r));
	test_end();
}

/* What a bad frame still tells: the addresses of an IPv4 packet whose TCP header is bad, the
 * VLAN and MACs of a frame with three tags. */
static void
test_bad_frames_keep_what_was_decoded(void)
{
	struct spec s = {TCP4, .ntags = 1, .tpid = {0x8100}, .tci = {9}};
	struct spec t = {TCP4, .ntags = 3, .tpid = {0x88a8, 0x8100, 0x8100}, .tci = {1, 2, 3}};
	struct mpe_decoded d;
	struct frame f;

	build(&f, &s);
	f.b[f.l4_off + 12] = 3 << 4;
	CHECK(decode(&f, f.len, &d) == -EINVAL, "bad data offset accepted");
	CHECK(d.bad == MPE_DECODE_BAD_TCP_DOFF, "bad %s", mpe_decode_bad_name(d.bad));
	CHECK(d.ip_version == 4 && d.ip_proto == IPPROTO_TCP && d.l2_len == 18 && d.l3_len == 20 &&
		      d.l4_offset == 38,
	      "version %u proto %u l2 %u l3 %u l4 at %u", d.ip_version, d.ip_proto, d.l2_len,
	      d.l3_len, d.l4_offset);
	CHECK(d.key.family == MPE_FLOW_IPV4 && memcmp(d.key.src, V4_SRC, 4) == 0 &&
		      d.key.vlan == 9 && d.key.sport == 0,
	      "key not kept");
	CHECK(d.ptype == (L2V | V4), "ptype 0x%x", d.ptype);
	CHECK(d.l4_len == 0, "l4_len %u for a refused TCP header", d.l4_len);

	build(&f, &t);
	CHECK(decode(&f, f.len, &d) == -EINVAL, "three tags accepted");
	CHECK(d.vlan_count == 2 && d.vlan_id == 2 && d.key.vlan == 2 && d.l2_len == 22 &&
		      d.ether_type == 0x8100,
	      "count %u id %u l2 %u type 0x%x", d.vlan_count, d.vlan_id, d.l2_len, d.ether_type);
	CHECK(d.key.family == MPE_FLOW_L2 && memcmp(d.key.src, MAC_SRC, 6) == 0,
	      "MAC key not kept");
}

/* A TCP data offset that runs past the datagram, where the frame ends too: no transport header
 * is reported, so that no length handed on (the parse stage's mbuf l4_len) reaches beyond the
 * frame. Found by tests/fuzz/fuzz_decode. */
static void
test_bad_tcp_doff_reports_no_l4(void)
{
	struct spec s = {TCP4};
	struct mpe_decoded d;
	struct frame f;

	build(&f, &s);
	f.b[f.l4_off + 12] = 6 << 4; /* 24 bytes, 20 left */
	CHECK(decode(&f, f.len, &d) == -EINVAL, "data offset 6 accepted");
	CHECK(d.bad == MPE_DECODE_BAD_TCP_DOFF, "bad %s", mpe_decode_bad_name(d.bad));
	CHECK(d.l4_offset == 34 && d.l4_len == 0, "l4 at %u, %u bytes in a %u-byte frame",
	      d.l4_offset, d.l4_len, f.len);
	CHECK(d.tcp_flags == 0, "flags 0x%02x of a refused header", d.tcp_flags);
}

/* A chain that never ends (every header names another destination options header) stops at
 * the bound; one that runs off the payload first is cut short instead. */
static void
test_ext_chain_loop(void)
{
	struct spec s = {.family = 6, .proto = 60, .n_ext = EXT_MAX};
	struct mpe_decoded d;
	struct frame f;
	int i;

	for (i = 0; i < EXT_MAX; i++)
		s.ext[i] = 60;
	build(&f, &s);
	CHECK(decode(&f, f.len, &d) == -EINVAL, "12 destination options accepted");
	CHECK(d.bad == MPE_DECODE_BAD_IPV6_EXT_CHAIN, "bad %s", mpe_decode_bad_name(d.bad));
	CHECK(d.ext_count == MPE_DECODE_MAX_EXT, "walked %u headers", d.ext_count);

	/* the last header names itself again, with the payload ending there */
	s.n_ext = 3;
	build(&f, &s);
	CHECK(decode(&f, f.len, &d) == -EINVAL, "chain running off the payload accepted");
	CHECK(d.bad == MPE_DECODE_BAD_IPV6_EXT_SHORT, "bad %s", mpe_decode_bad_name(d.bad));
	CHECK(d.ext_count == 3, "walked %u headers", d.ext_count);
}

static void
test_bad_names(void)
{
	unsigned int r, q;

	CHECK(mpe_decode_bad_count() == MPE_DECODE_BAD_MAX, "count %u", mpe_decode_bad_count());
	CHECK(strcmp(mpe_decode_bad_name(MPE_DECODE_OK), "ok") == 0, "name of ok");
	CHECK(strcmp(mpe_decode_bad_name(MPE_DECODE_BAD_MAX), "unknown") == 0, "name of max");
	CHECK(strcmp(mpe_decode_bad_name(~0u), "unknown") == 0, "name of ~0");
	CHECK(strcmp(mpe_decode_bad_name(MPE_DECODE_BAD_TCP_DOFF), "tcp_doff") == 0,
	      "tcp_doff named %s", mpe_decode_bad_name(MPE_DECODE_BAD_TCP_DOFF));
	for (r = 0; r < MPE_DECODE_BAD_MAX; r++) {
		const char *n = mpe_decode_bad_name(r);

		if (!CHECK(n != NULL && n[0] != '\0' && strcmp(n, "unknown") != 0,
			   "reason %u has no name", r))
			continue;
		CHECK(strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(n),
		      "name \"%s\" is not a short identifier", n);
		for (q = 0; q < r; q++)
			CHECK(strcmp(n, mpe_decode_bad_name(q)) != 0, "reasons %u and %u: \"%s\"",
			      q, r, n);
	}
}

/* mpe_decode_head: every valid frame with only its first @cap bytes in hand, copied against
 * the guard page so that a read past them faults. Below a threshold no further than the end
 * of its headers it is hdr_beyond_head; from it on, the decode of the whole frame. */
static void
run_head_sweeps(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(ok_cases); i++) {
		const struct ok_case *c = &ok_cases[i];
		struct mpe_decoded full, d;
		uint32_t cap, threshold = 0;
		struct frame f;
		int rc, seen_ok = 0;

		test_begin("head: %s with every length of head in hand", c->name);
		build(&f, &c->s);
		CHECK(decode(&f, f.len, &full) == 0, "full frame refused");
		for (cap = 0; cap <= f.len; cap++) {
			uint8_t *g = guard_end - cap;

			memcpy(g, f.b, cap);
			rc = mpe_decode_head(g, cap, f.len, &d);
			if (rc == 0) {
				if (!seen_ok)
					threshold = cap;
				seen_ok = 1;
				CHECK(same_decode(&d, &full), "%u of %u bytes: decode differs", cap,
				      f.len);
				continue;
			}
			CHECK(!seen_ok, "%u bytes refused after %u were enough", cap, threshold);
			CHECK(rc == -EINVAL && d.bad == MPE_DECODE_BAD_HDR_BEYOND_HEAD,
			      "%u of %u bytes: rc %d, %s", cap, f.len, rc, mpe_decode_bad_name(d.bad));
		}
		CHECK(seen_ok && threshold <= (c->s.family ? f.l4_off + f.l4_len : f.l2_len),
		      "enough from %u bytes on, headers end at %u", threshold, f.l4_off + f.l4_len);
		/* more bytes said to be in hand than the frame has: only the frame's are read */
		memcpy(guard_end - f.len, f.b, f.len);
		CHECK(mpe_decode_head(guard_end - f.len, f.len + 100, f.len, &d) == 0 &&
			      same_decode(&d, &full),
		      "head longer than the frame");
		test_end();
	}
}

/* A frame's lengths are checked against the whole frame, not the head in hand: a 3000-byte
 * datagram with 100 bytes of it in hand is well formed, and one announcing more than the
 * frame holds is not, whatever the head. */
static void
test_head_checks_lengths_against_frame(void)
{
	/* the frames are longer than FRAME_MAX: only their heads are built, and the lengths
	 * written into them say what the whole frame holds */
	struct spec s = {TCP4, .payload = 10};
	struct spec u = {UDP6, .n_ext = 1, .ext = {0}, .payload = 10};
	struct mpe_decoded d;
	struct frame f;
	int rc;

	build(&f, &s);
	put16(f.b + 14 + 2, 2986);
	rc = mpe_decode_head(f.b, 100, 3000, &d);
	CHECK(rc == 0, "IPv4 3000-byte frame: %s", mpe_decode_bad_name(d.bad));
	CHECK(d.payload_len == 2986 - 40 && d.l4_len == 20 && d.key.dport == htons(80),
	      "payload %u l4 %u dport %u", d.payload_len, d.l4_len, ntohs(d.key.dport));
	rc = mpe_decode_head(f.b, 100, 2999, &d);
	CHECK(rc == -EINVAL && d.bad == MPE_DECODE_BAD_IPV4_TOTAL_LEN,
	      "IPv4 datagram past a 2999-byte frame: %s", mpe_decode_bad_name(d.bad));
	build(&f, &u);
	put16(f.b + 14 + 4, 8 + 8 + 2900);
	put16(f.b + 14 + 40 + 8 + 4, 8 + 2900);
	rc = mpe_decode_head(f.b, 120, 14 + 40 + 8 + 8 + 2900, &d);
	CHECK(rc == 0, "IPv6 hop-by-hop UDP frame: %s", mpe_decode_bad_name(d.bad));
	CHECK(d.payload_len == 2900 && d.key.sport == htons(5353), "payload %u sport %u",
	      d.payload_len, ntohs(d.key.sport));
	rc = mpe_decode_head(f.b, 120, 14 + 40 + 8 + 8 + 2899, &d);
	CHECK(rc == -EINVAL && d.bad == MPE_DECODE_BAD_IPV6_PAYLOAD_LEN,
	      "IPv6 payload past the frame: %s", mpe_decode_bad_name(d.bad));
}

/* ---- every valid frame cut at every length ---- */

static int
same_decode(const struct mpe_decoded *a, const struct mpe_decoded *b)
{
	return memcmp(&a->key, &b->key, sizeof(a->key)) == 0 && a->frag_sport == b->frag_sport &&
	       a->frag_dport == b->frag_dport && a->ptype == b->ptype &&
	       a->payload_offset == b->payload_offset && a->payload_len == b->payload_len &&
	       a->l2_len == b->l2_len && a->l3_len == b->l3_len && a->l4_offset == b->l4_offset &&
	       a->l4_len == b->l4_len && a->ether_type == b->ether_type &&
	       a->vlan_id == b->vlan_id && a->vlan_count == b->vlan_count &&
	       a->ip_version == b->ip_version && a->ip_proto == b->ip_proto &&
	       a->ext_count == b->ext_count && a->frag == b->frag &&
	       a->is_first_fragment == b->is_first_fragment && a->tcp_flags == b->tcp_flags &&
	       a->icmp_type == b->icmp_type && a->icmp_code == b->icmp_code && a->bad == b->bad;
}

/* Success exactly from the end of the IP datagram (where every header fits) on, with the
 * decode of the whole frame; below it an error with a known reason. */
static void
run_truncation_sweeps(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(ok_cases); i++) {
		const struct ok_case *c = &ok_cases[i];
		struct mpe_decoded full, d;
		struct frame f;
		uint32_t len, need, headers;
		int rc;

		test_begin("truncation: %s cut at every length", c->name);
		build(&f, &c->s);
		need = c->s.family ? f.ip_end : f.l2_len;
		headers = c->s.family ? f.l4_off + f.l4_len : f.l2_len;
		CHECK(headers <= need, "headers end %u after %u", headers, need);
		rc = decode(&f, f.len, &full);
		CHECK(rc == 0, "full frame: rc %d", rc);
		for (len = 0; len <= f.len; len++) {
			rc = decode(&f, len, &d);
			if (!CHECK(rc == 0 || rc == -EINVAL, "%u bytes: rc %d", len, rc))
				continue;
			if (len < need) {
				CHECK(rc == -EINVAL, "%u of %u bytes (need %u): accepted", len,
				      f.len, need);
				CHECK(d.bad > MPE_DECODE_OK && d.bad < MPE_DECODE_BAD_MAX,
				      "%u bytes: reason %u", len, d.bad);
			} else if (CHECK(rc == 0, "%u of %u bytes (need %u): %s", len, f.len, need,
					 mpe_decode_bad_name(d.bad))) {
				/* non-IP payload runs to the end of the frame */
				if (c->s.family == 0)
					full.payload_len = len - full.payload_offset;
				CHECK(same_decode(&d, &full), "%u bytes: decode differs", len);
			}
		}
		test_end();
	}
}

int
main(void)
{
	static const struct test_case cases[] = {
		{"decode: key equals mpe_pkt_flow_key's, IPv6 extension headers too",
		 test_key_matches_pkt_flow_key},
		{"decode: key equals mpe_pkt_flow_key's for any well-formed IP frame (mutated "
		 "frames)", test_key_matches_pkt_flow_key_mutated},
		{"decode: a direction with IPv6 extension headers hashes as the other without",
		 test_ext_headers_one_direction_hash_alike},
		{"decode: fragments of one datagram share a key", test_fragments_share_a_key},
		{"decode: the short cut for IPv4 TCP and UDP decodes as the general decoder "
		 "(mutated frames)", test_short_cut_matches_general_mutated},
		{"malformed: what was decoded before the problem is kept",
		 test_bad_frames_keep_what_was_decoded},
		{"malformed: endless extension header chain stops at the bound",
		 test_ext_chain_loop},
		{"malformed: a TCP data offset past the frame reports no transport header",
		 test_bad_tcp_doff_reports_no_l4},
		{"reason names: distinct short identifiers, unknown beyond the max",
		 test_bad_names},
		{"head: lengths are checked against the whole frame, not the head in hand",
		 test_head_checks_lengths_against_frame},
	};

	if (guard_init() != 0) {
		perror("guard page");
		return 2;
	}
	run_ok_cases();
	test_run_cases(cases, TEST_DIM(cases));
	run_bad_cases();
	run_truncation_sweeps();
	run_head_sweeps();
	return test_summary();
}
