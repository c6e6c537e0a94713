/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/packet/pkt.c: flow keys read from hand-built frames, and the symmetric hash.
 * Every frame handed to the code under test is a heap copy of exactly its length, so that
 * valgrind or ASan catch any read past the end. No EAL.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "pkt.h"
#include "test.h"

#define FRAME_MAX 256

static const uint8_t MAC_DST[6] = {0x02, 0, 0, 0, 0, 0x02};
static const uint8_t MAC_SRC[6] = {0x02, 0, 0, 0, 0, 0x01};

/* What to put on the wire. Ports in host order; addresses as bytes. */
struct spec {
	uint16_t ether_type; /* after the tags; 0: from family */
	int family;	     /* 4, 6, or 0 for a non-IP payload */
	uint8_t proto;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	int ntags;
	uint16_t tag_tpid[3];
	uint16_t tag_tci[3];
	int ihl;	  /* IPv4 header length in words; 0: 5 */
	uint16_t frag;	  /* IPv4 flags + fragment offset field */
	int ip_version;	  /* 0: from family; else written as is */
};

struct frame {
	uint8_t b[FRAME_MAX];
	uint32_t len;
	uint32_t l3, l4; /* offsets */
};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t
l4_len(uint8_t proto)
{
	return proto == IPPROTO_TCP ? 20 : 8; /* UDP, ICMP, anything else: 8 bytes */
}

static void
build(struct frame *f, const struct spec *s)
{
	uint32_t off = 12, l4len;
	uint8_t *ip, *l4;
	int i;

	memset(f, 0, sizeof(*f));
	memcpy(f->b, MAC_DST, 6);
	memcpy(f->b + 6, MAC_SRC, 6);
	for (i = 0; i < s->ntags; i++) {
		put16(f->b + off, s->tag_tpid[i]);
		put16(f->b + off + 2, s->tag_tci[i]);
		off += 4;
	}
	put16(f->b + off, s->ether_type ? s->ether_type :
			  s->family == 4 ? MPE_ETHER_TYPE_IPV4 :
			  s->family == 6 ? MPE_ETHER_TYPE_IPV6 : 0x0806);
	off += 2;
	f->l3 = off;
	ip = f->b + off;
	l4len = l4_len(s->proto);
	if (s->family == 4) {
		int ihl = s->ihl ? s->ihl : 5;
		uint32_t hlen = (uint32_t)(ihl > 5 ? ihl : 5) * 4;

		ip[0] = (uint8_t)((s->ip_version ? s->ip_version : 4) << 4 | (ihl & 0x0f));
		put16(ip + 2, (uint16_t)(hlen + l4len));
		put16(ip + 4, 0x1234);
		put16(ip + 6, s->frag);
		ip[8] = 64;
		ip[9] = s->proto;
		memcpy(ip + 12, s->src, 4);
		memcpy(ip + 16, s->dst, 4);
		/* options: NOPs, and bytes that would read as ports at the wrong offset */
		for (i = 20; i < (int)hlen; i++)
			ip[i] = i == 20 ? 0x01 : 0xee;
		off += hlen;
	} else if (s->family == 6) {
		ip[0] = (uint8_t)((s->ip_version ? s->ip_version : 6) << 4);
		put16(ip + 4, (uint16_t)l4len);
		ip[6] = s->proto;
		ip[7] = 64;
		memcpy(ip + 8, s->src, 16);
		memcpy(ip + 24, s->dst, 16);
		off += 40;
	} else {
		/* ARP request body, 28 bytes */
		put16(ip, 1);
		put16(ip + 2, 0x0800);
		ip[4] = 6;
		ip[5] = 4;
		put16(ip + 6, 1);
		f->l4 = off + 28;
		f->len = off + 28;
		return;
	}
	f->l4 = off;
	l4 = f->b + off;
	if (s->proto == IPPROTO_ICMP || s->proto == IPPROTO_ICMPV6) {
		l4[0] = 8; /* echo request: id and seq where ports would be */
		put16(l4 + 4, 0xabcd);
		put16(l4 + 6, 7);
	} else {
		put16(l4, s->sport);
		put16(l4 + 2, s->dport);
		if (s->proto == IPPROTO_TCP)
			l4[12] = 5 << 4;
		else
			put16(l4 + 4, (uint16_t)l4len);
	}
	f->len = off + l4len;
}

/* Heap copy of the first @len bytes: exact size, so over-reads are caught by the tools. */
static uint8_t *
heap_copy(const struct frame *f, uint32_t len)
{
	uint8_t *p = malloc(len);

	if (p == NULL && len > 0) {
		perror("malloc");
		exit(2);
	}
	if (len > 0)
		memcpy(p, f->b, len);
	return p;
}

static int
key_of(const struct frame *f, uint32_t len, struct mpe_flow_key *key)
{
	uint8_t *p = heap_copy(f, len);
	int rc = mpe_pkt_flow_key(p, len, key);

	free(p);
	return rc;
}

static uint32_t
hash_of(const struct frame *f)
{
	uint8_t *p = heap_copy(f, f->len);
	uint32_t h = mpe_pkt_flow_hash(p, f->len);

	free(p);
	return h;
}

static void
ip4(uint8_t *a, uint8_t x, uint8_t y, uint8_t z, uint8_t w)
{
	memset(a, 0, 16);
	a[0] = x;
	a[1] = y;
	a[2] = z;
	a[3] = w;
}

static void
ip6(uint8_t *a, uint16_t last)
{
	static const uint8_t prefix[] = {0x20, 0x01, 0x0d, 0xb8}; /* 2001:db8::/32 */

	memset(a, 0, 16);
	memcpy(a, prefix, sizeof(prefix));
	put16(a + 14, last);
}

static void
spec_v4(struct spec *s, uint8_t proto, uint16_t sport, uint16_t dport)
{
	memset(s, 0, sizeof(*s));
	s->family = 4;
	s->proto = proto;
	ip4(s->src, 10, 0, 0, 1);
	ip4(s->dst, 10, 0, 0, 2);
	s->sport = sport;
	s->dport = dport;
}

static void
spec_v6(struct spec *s, uint8_t proto, uint16_t sport, uint16_t dport)
{
	memset(s, 0, sizeof(*s));
	s->family = 6;
	s->proto = proto;
	ip6(s->src, 1);
	ip6(s->dst, 2);
	s->sport = sport;
	s->dport = dport;
}

static void
spec_vlan(struct spec *s, uint16_t tpid, uint16_t tci)
{
	s->tag_tpid[s->ntags] = tpid;
	s->tag_tci[s->ntags] = tci;
	s->ntags++;
}

/* The key @s must give: IP families carry addresses and ports, L2 the two MACs. */
static void
check_key(const struct mpe_flow_key *k, const struct spec *s, uint16_t vlan, int with_ports)
{
	uint8_t zero[16] = {0};

	CHECK(k->family == (s->family ? s->family : MPE_FLOW_L2), "family %u", k->family);
	CHECK(k->vlan == vlan, "vlan %u, expected %u", k->vlan, vlan);
	if (s->family == 0) {
		CHECK(k->proto == 0, "proto %u for L2", k->proto);
		CHECK(memcmp(k->src, MAC_SRC, 6) == 0, "L2 src is not the source MAC");
		CHECK(memcmp(k->dst, MAC_DST, 6) == 0, "L2 dst is not the destination MAC");
		CHECK(memcmp(k->src + 6, zero, 10) == 0 && memcmp(k->dst + 6, zero, 10) == 0,
		      "L2 key bytes after the MAC not zero");
		CHECK(k->sport == 0 && k->dport == 0, "L2 ports %u %u", k->sport, k->dport);
		return;
	}
	CHECK(k->proto == s->proto, "proto %u, expected %u", k->proto, s->proto);
	CHECK(memcmp(k->src, s->src, 16) == 0, "src address differs");
	CHECK(memcmp(k->dst, s->dst, 16) == 0, "dst address differs");
	if (with_ports) {
		CHECK(ntohs(k->sport) == s->sport, "sport %u, expected %u", ntohs(k->sport),
		      s->sport);
		CHECK(ntohs(k->dport) == s->dport, "dport %u, expected %u", ntohs(k->dport),
		      s->dport);
	} else {
		CHECK(k->sport == 0 && k->dport == 0, "ports %u %u, expected 0 0", ntohs(k->sport),
		      ntohs(k->dport));
	}
}

/* ---- well-formed frames ---- */

static void
expect_ok(const struct spec *s, uint16_t vlan, int with_ports)
{
	struct mpe_flow_key k;
	struct frame f;
	int rc;

	build(&f, s);
	rc = key_of(&f, f.len, &k);
	CHECK(rc == 0, "rc %d", rc);
	check_key(&k, s, vlan, with_ports);
}

static void
test_ipv4_tcp(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_TCP, 1024, 80);
	expect_ok(&s, 0, 1);
}

static void
test_ipv4_udp(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_UDP, 5353, 53);
	expect_ok(&s, 0, 1);
}

static void
test_ipv6_tcp(void)
{
	struct spec s;

	spec_v6(&s, IPPROTO_TCP, 40000, 443);
	expect_ok(&s, 0, 1);
}

static void
test_ipv6_udp(void)
{
	struct spec s;

	spec_v6(&s, IPPROTO_UDP, 5353, 53);
	expect_ok(&s, 0, 1);
}

static void
test_vlan_8021q(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_UDP, 1000, 2000);
	spec_vlan(&s, MPE_ETHER_TYPE_VLAN, 5 << 13 | 1 << 12 | 100); /* PCP and DEI masked off */
	expect_ok(&s, 100, 1);
}

static void
test_qinq_inner_vlan(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_TCP, 1000, 2000);
	spec_vlan(&s, MPE_ETHER_TYPE_QINQ, 200);
	spec_vlan(&s, MPE_ETHER_TYPE_VLAN, 300);
	expect_ok(&s, 300, 1);
	spec_v6(&s, IPPROTO_UDP, 1000, 2000);
	spec_vlan(&s, MPE_ETHER_TYPE_QINQ, 0xfff);
	spec_vlan(&s, MPE_ETHER_TYPE_VLAN, 1);
	expect_ok(&s, 1, 1);
}

/* A third tag is not skipped: the frame is keyed as L2 with the second tag's id. */
static void
test_three_tags_is_l2(void)
{
	struct spec s;
	struct frame f;
	struct mpe_flow_key k;
	int rc;

	spec_v4(&s, IPPROTO_TCP, 1, 2);
	spec_vlan(&s, MPE_ETHER_TYPE_QINQ, 10);
	spec_vlan(&s, MPE_ETHER_TYPE_VLAN, 20);
	spec_vlan(&s, MPE_ETHER_TYPE_VLAN, 30);
	build(&f, &s);
	rc = key_of(&f, f.len, &k);
	CHECK(rc == 0, "rc %d", rc);
	s.family = 0;
	check_key(&k, &s, 20, 0);
}

static void
test_ipv4_options_ihl6(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_TCP, 1234, 4321);
	s.ihl = 6;
	expect_ok(&s, 0, 1);
	s.ihl = 15;
	expect_ok(&s, 0, 1);
}

static void
test_ipv4_non_first_fragment_has_no_ports(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_UDP, 1111, 2222); /* bytes where ports would be are not zero */
	s.frag = 0x2000 | 185;		      /* MF, offset 1480 */
	expect_ok(&s, 0, 0);
	s.frag = 185; /* last fragment */
	expect_ok(&s, 0, 0);
}

/* The fragment offset alone decides, not the DF bit. */
static void
test_ipv4_dont_fragment_keeps_ports(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_TCP, 1111, 2222);
	s.frag = 0x4000; /* DF */
	expect_ok(&s, 0, 1);
}

/* Every fragment of a datagram must hash alike, or they reach different workers. */
static void
test_ipv4_fragments_of_one_datagram_hash_alike(void)
{
	struct spec s;
	struct frame first, later;

	spec_v4(&s, IPPROTO_UDP, 1111, 2222);
	s.frag = 0x2000; /* MF, offset 0: the first fragment carries the UDP header */
	build(&first, &s);
	s.frag = 185;
	s.sport = 0x4142; /* payload bytes of a later fragment */
	s.dport = 0x4344;
	build(&later, &s);
	CHECK(hash_of(&first) == hash_of(&later), "first %08x, later %08x", hash_of(&first),
	      hash_of(&later));
}

static void
test_non_first_fragment_without_l4_bytes(void)
{
	/* A non-first fragment with no payload at all still has a key (no ports needed). */
	struct spec s;
	struct frame f;
	struct mpe_flow_key k;
	int rc;

	spec_v4(&s, IPPROTO_TCP, 1, 2);
	s.frag = 100;
	build(&f, &s);
	rc = key_of(&f, f.l4, &k);
	CHECK(rc == 0, "rc %d", rc);
	check_key(&k, &s, 0, 0);
}

static void
test_icmp_has_no_ports(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_ICMP, 0, 0);
	expect_ok(&s, 0, 0);
	spec_v6(&s, IPPROTO_ICMPV6, 0, 0);
	expect_ok(&s, 0, 0);
}

static void
test_non_ip_is_l2(void)
{
	struct spec s;

	memset(&s, 0, sizeof(s));
	expect_ok(&s, 0, 0); /* ARP */
	spec_vlan(&s, MPE_ETHER_TYPE_VLAN, 42);
	expect_ok(&s, 42, 0);
}

static void
test_wrong_ip_version_is_einval(void)
{
	struct mpe_flow_key k;
	struct frame f;
	struct spec s;

	spec_v4(&s, IPPROTO_TCP, 1, 2);
	s.ip_version = 6;
	build(&f, &s);
	CHECK(key_of(&f, f.len, &k) == -EINVAL, "IPv4 ethertype with version 6 accepted");
	spec_v6(&s, IPPROTO_TCP, 1, 2);
	s.ip_version = 4;
	build(&f, &s);
	CHECK(key_of(&f, f.len, &k) == -EINVAL, "IPv6 ethertype with version 4 accepted");
}

/* ---- truncated frames ---- */

enum base {
	B_V4_TCP,
	B_V4_UDP,
	B_V6_TCP,
	B_V6_UDP,
	B_V4_VLAN,
	B_V6_QINQ,
	B_V4_IHL6,
	B_V4_ICMP,
	B_ARP,
	B_ARP_VLAN,
	B_COUNT,
};

static const char *const base_names[B_COUNT] = {
	"IPv4 TCP", "IPv4 UDP", "IPv6 TCP", "IPv6 UDP", "802.1Q IPv4 UDP", "QinQ IPv6 TCP",
	"IPv4 IHL 6 TCP", "IPv4 ICMP", "ARP", "802.1Q ARP",
};

static void
base_spec(enum base b, struct spec *s)
{
	switch (b) {
	case B_V4_TCP: spec_v4(s, IPPROTO_TCP, 1024, 80); break;
	case B_V4_UDP: spec_v4(s, IPPROTO_UDP, 1024, 53); break;
	case B_V6_TCP: spec_v6(s, IPPROTO_TCP, 1024, 80); break;
	case B_V6_UDP: spec_v6(s, IPPROTO_UDP, 1024, 53); break;
	case B_V4_VLAN:
		spec_v4(s, IPPROTO_UDP, 7, 9);
		spec_vlan(s, MPE_ETHER_TYPE_VLAN, 10);
		break;
	case B_V6_QINQ:
		spec_v6(s, IPPROTO_TCP, 7, 9);
		spec_vlan(s, MPE_ETHER_TYPE_QINQ, 10);
		spec_vlan(s, MPE_ETHER_TYPE_VLAN, 11);
		break;
	case B_V4_IHL6:
		spec_v4(s, IPPROTO_TCP, 7, 9);
		s->ihl = 6;
		break;
	case B_V4_ICMP: spec_v4(s, IPPROTO_ICMP, 0, 0); break;
	case B_ARP: memset(s, 0, sizeof(*s)); break;
	case B_ARP_VLAN:
		memset(s, 0, sizeof(*s));
		spec_vlan(s, MPE_ETHER_TYPE_VLAN, 10);
		break;
	case B_COUNT: break;
	}
}

/* Bytes the key needs: up to the ports for TCP/UDP, the IP header for ICMP, the Ethernet
 * header and tags for non-IP. */
static uint32_t
needed(const struct frame *f, const struct spec *s)
{
	if (s->family == 0)
		return 14 + 4 * (uint32_t)s->ntags;
	if (s->proto == IPPROTO_TCP || s->proto == IPPROTO_UDP)
		return f->l4 + 4;
	return f->l4;
}

/* Every length from 0 to the full frame: -EINVAL below what the headers need, the full
 * key from there on. */
static void
run_truncation_sweeps(void)
{
	int b;

	for (b = 0; b < B_COUNT; b++) {
		struct mpe_flow_key full, k;
		struct frame f;
		struct spec s;
		uint32_t len, need;
		int rc;

		test_begin("truncation: %s cut at every length", base_names[b]);
		base_spec((enum base)b, &s);
		build(&f, &s);
		need = needed(&f, &s);
		rc = key_of(&f, f.len, &full);
		CHECK(rc == 0, "full frame: rc %d", rc);
		for (len = 0; len <= f.len; len++) {
			rc = key_of(&f, len, &k);
			if (len < need)
				CHECK(rc == -EINVAL, "%u of %u bytes (need %u): rc %d", len,
				      f.len, need, rc);
			else if (CHECK(rc == 0, "%u of %u bytes (need %u): rc %d", len,
				       f.len, need, rc))
				CHECK(memcmp(&k, &full, sizeof(k)) == 0, "%u bytes: key differs",
				      len);
		}
		test_end();
	}
}

#define FULL (-1)	/* keep the whole frame */
#define KEEP_IHL (-1)

struct trunc_case {
	const char *name;
	enum base base;
	int len;	 /* bytes kept, or FULL */
	int ihl;	 /* IPv4 IHL written over the built one, or KEEP_IHL */
	int keeps_addrs; /* key must still hold the IP addresses */
};

static const struct trunc_case trunc_cases[] = {
	{"shorter than Ethernet header", B_V4_TCP, 13, KEEP_IHL, 0},
	{"empty frame", B_V4_TCP, 0, KEEP_IHL, 0},
	{"802.1Q tag cut", B_V4_VLAN, 16, KEEP_IHL, 0},
	{"QinQ inner tag cut", B_V6_QINQ, 20, KEEP_IHL, 0},
	{"IPv4 header cut", B_V4_TCP, 14 + 19, KEEP_IHL, 0},
	{"IPv4 IHL 4 (below 5)", B_V4_TCP, FULL, 4, 0},
	{"IPv4 IHL 0", B_V4_TCP, FULL, 0, 0},
	{"IPv4 IHL 15 beyond the frame", B_V4_TCP, FULL, 15, 0},
	{"IPv4 options cut", B_V4_IHL6, 14 + 22, KEEP_IHL, 0},
	{"IPv6 header cut", B_V6_UDP, 14 + 39, KEEP_IHL, 0},
	{"IPv4 TCP ports cut", B_V4_TCP, 14 + 20 + 3, KEEP_IHL, 1},
	{"IPv4 UDP ports cut after source port", B_V4_UDP, 14 + 20 + 2, KEEP_IHL, 1},
	{"IPv4 UDP no L4 byte", B_V4_UDP, 14 + 20, KEEP_IHL, 1},
	{"IPv6 TCP ports cut", B_V6_TCP, 14 + 40 + 3, KEEP_IHL, 1},
	{"IPv4 IHL 6 ports cut", B_V4_IHL6, 14 + 24 + 3, KEEP_IHL, 1},
};

static void
run_trunc_cases(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(trunc_cases); i++) {
		const struct trunc_case *c = &trunc_cases[i];
		struct mpe_flow_key k;
		struct frame f;
		struct spec s;
		uint32_t len;
		int rc;

		test_begin("truncated: %s is -EINVAL", c->name);
		base_spec(c->base, &s);
		build(&f, &s);
		if (c->ihl != KEEP_IHL) /* after building, so the frame keeps its real length */
			f.b[f.l3] = (uint8_t)(0x40 | (c->ihl & 0x0f));
		len = c->len == FULL ? f.len : (uint32_t)c->len;
		rc = key_of(&f, len, &k);
		CHECK(rc == -EINVAL, "%u of %u bytes: rc %d", len, f.len, rc);
		if (c->keeps_addrs) {
			CHECK(k.family == s.family && k.proto == s.proto, "family %u proto %u",
			      k.family, k.proto);
			CHECK(memcmp(k.src, s.src, 16) == 0 && memcmp(k.dst, s.dst, 16) == 0,
			      "addresses not kept");
		}
		test_end();
	}
}

/* Equal bad frames hash alike, so they land on one worker. */
static void
test_equal_bad_frames_hash_alike(void)
{
	struct spec s;
	struct frame f;
	uint8_t *a, *b;

	spec_v4(&s, IPPROTO_TCP, 1, 2);
	build(&f, &s);
	a = heap_copy(&f, 14 + 20 + 2);
	b = heap_copy(&f, 14 + 20 + 2);
	CHECK(mpe_pkt_flow_hash(a, 14 + 20 + 2) == mpe_pkt_flow_hash(b, 14 + 20 + 2),
	      "two copies of one truncated frame hash differently");
	free(a);
	free(b);
}

/* ---- symmetry and spread ---- */

static uint64_t rng_state;

static uint64_t
rng(void)
{
	/* splitmix64: deterministic for a given seed */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
random_spec(struct spec *s, int family, unsigned int i)
{
	int j;

	memset(s, 0, sizeof(*s));
	s->family = family;
	s->proto = (rng() & 1) ? IPPROTO_TCP : IPPROTO_UDP;
	for (j = 0; j < (family == 4 ? 4 : 16); j++) {
		s->src[j] = (uint8_t)rng();
		s->dst[j] = (uint8_t)rng();
	}
	s->sport = (uint16_t)rng();
	s->dport = (uint16_t)rng();
	if (i % 16 == 0) /* same host at both ends: only the ports order the endpoints */
		memcpy(s->dst, s->src, 16);
	if (i % 32 == 0) /* same port at both ends: only the addresses do */
		s->dport = s->sport;
	if (i % 8 == 1)
		spec_vlan(s, MPE_ETHER_TYPE_VLAN, (uint16_t)(rng() & 0xfff));
}

static void
reverse_spec(const struct spec *s, struct spec *r)
{
	*r = *s;
	memcpy(r->src, s->dst, 16);
	memcpy(r->dst, s->src, 16);
	r->sport = s->dport;
	r->dport = s->sport;
}

static void
check_symmetry(int family)
{
	unsigned int i, bad_canon = 0, bad_hash = 0, bad_frame_hash = 0, bad_key = 0;
	unsigned int bad_words = 0, bad_rev = 0;

	rng_state = 0x5eed0000u + (uint64_t)family;
	for (i = 0; i < 10000; i++) {
		struct mpe_flow_key kf, kr, cf, cr;
		struct frame ff, fr;
		struct spec s, r;

		random_spec(&s, family, i);
		reverse_spec(&s, &r);
		build(&ff, &s);
		build(&fr, &r);
		if (key_of(&ff, ff.len, &kf) != 0 || key_of(&fr, fr.len, &kr) != 0) {
			bad_key++;
			continue;
		}
		mpe_flow_key_canon(&kf, &cf);
		mpe_flow_key_canon(&kr, &cr);
		bad_canon += memcmp(&cf, &cr, sizeof(cf)) != 0;
		bad_hash += mpe_flow_hash(&kf) != mpe_flow_hash(&kr);
		/* the hash made in registers is the CRC of the canonical key in memory */
		bad_words += mpe_flow_hash(&kf) != rte_hash_crc(&cf, sizeof(cf), MPE_FLOW_HASH_SEED) ||
			     mpe_flow_hash(&kr) != mpe_flow_hash_canon(&cr);
		/* and the swap it decides is the canonical form's */
		bad_rev += mpe_flow_key_canon(&kf, &cf) == mpe_flow_key_canon(&kr, &cr) &&
			   memcmp(&kf, &kr, sizeof(kf)) != 0;
		bad_frame_hash += hash_of(&ff) != hash_of(&fr);
	}
	CHECK(bad_key == 0, "%u frames without a key", bad_key);
	CHECK(bad_canon == 0, "%u of 10000 flows: canonical keys of the two directions differ",
	      bad_canon);
	CHECK(bad_hash == 0, "%u of 10000 flows: mpe_flow_hash differs by direction", bad_hash);
	CHECK(bad_words == 0, "%u of 10000 flows: mpe_flow_hash is not the CRC of the canonical key",
	      bad_words);
	CHECK(bad_rev == 0, "%u of 10000 flows: both directions say swapped, or neither", bad_rev);
	CHECK(bad_frame_hash == 0, "%u of 10000 flows: mpe_pkt_flow_hash differs by direction",
	      bad_frame_hash);
}

/* mpe_pkt_flow_hash() takes short cuts for untagged IPv4 with ports and for untagged
 * non-IP frames; it must give what the key walk gives, on any bytes: random flows of both
 * families and non-IP frames between random MACs, tagged or not, TCP, UDP, SCTP, ICMP,
 * fragments, options, each also with random header bytes changed and cut at random
 * lengths. */
static void
test_frame_hash_is_key_hash(void)
{
	static const uint8_t protos[] = {IPPROTO_TCP, IPPROTO_UDP, IPPROTO_SCTP, IPPROTO_ICMP,
					 IPPROTO_UDPLITE, 47};
	unsigned int i, r, differ = 0, fast = 0, fast_l2 = 0, total = 0;

	rng_state = 0x0fa57ULL;
	for (i = 0; i < 5000; i++) {
		struct frame f;
		struct spec s;

		random_spec(&s, i % 5 == 4 ? 0 : i % 3 == 2 ? 6 : 4, i);
		s.proto = protos[rng() % sizeof(protos)];
		if (i % 7 == 3)
			s.frag = (uint16_t)(rng() & 0x3fff);
		if (i % 11 == 5)
			s.ihl = 6 + (int)(rng() % 10);
		build(&f, &s);
		if (s.family == 0) {
			/* MACs that order either way, sometimes equal (then neither end leads) */
			for (r = 0; r < 12; r++)
				f.b[r] = (uint8_t)rng();
			if (i % 4 == 0)
				memcpy(f.b, f.b + 6, 6);
		}
		for (r = 0; r < 8; r++) {
			struct frame g = f;
			struct mpe_flow_key k;
			uint32_t len = g.len, j;
			uint8_t *p;

			for (j = 0; r > 0 && j < r % 3 + 1; j++)
				g.b[rng() % RTE_MIN(len, 42u)] = (uint8_t)rng();
			if (r % 4 == 3)
				len = (uint32_t)(rng() % (len + 1));
			p = heap_copy(&g, len);
			(void)mpe_pkt_flow_key(p, len, &k);
			if (mpe_pkt_flow_hash(p, len) != mpe_flow_hash(&k) && differ++ < 5)
				CHECK(0, "flow %u, variant %u (%u bytes): frame hash is not the key's",
				      i, r, len);
			fast += len >= 38 && k.family == MPE_FLOW_IPV4 && k.vlan == 0 &&
				(k.sport | k.dport) != 0;
			if (len >= 14) {
				uint16_t t = (uint16_t)(p[12] << 8 | p[13]);

				fast_l2 += t != MPE_ETHER_TYPE_IPV4 && t != MPE_ETHER_TYPE_IPV6 &&
					   t != MPE_ETHER_TYPE_VLAN && t != MPE_ETHER_TYPE_QINQ;
			}
			total++;
			free(p);
		}
	}
	CHECK(differ == 0, "%u of %u frames: mpe_pkt_flow_hash differs from the key's hash",
	      differ, total);
	CHECK(fast > total / 10 && fast < total, "%u of %u frames in the IPv4 short cut's reach",
	      fast, total);
	CHECK(fast_l2 > total / 10 && fast_l2 < total,
	      "%u of %u frames in the non-IP short cut's reach", fast_l2, total);
}

static void
test_symmetry_ipv4(void)
{
	check_symmetry(4);
}

static void
test_symmetry_ipv6(void)
{
	check_symmetry(6);
}

/* Non-IP frames are keyed by the MAC pair: both directions hash alike too. */
static void
test_symmetry_l2(void)
{
	struct mpe_flow_key a, b;
	struct frame f;
	struct spec s;

	memset(&s, 0, sizeof(s));
	build(&f, &s);
	CHECK(key_of(&f, f.len, &a) == 0, "no key");
	memcpy(f.b, MAC_SRC, 6); /* swap the MAC addresses */
	memcpy(f.b + 6, MAC_DST, 6);
	CHECK(key_of(&f, f.len, &b) == 0, "no key");
	CHECK(memcmp(a.src, b.dst, 6) == 0 && memcmp(a.dst, b.src, 6) == 0, "MACs not swapped");
	CHECK(mpe_flow_hash(&a) == mpe_flow_hash(&b), "L2 directions hash differently");
}

/* The canonical key is one of the two directions, and canonicalising is idempotent. */
static void
test_canon_is_one_direction(void)
{
	struct mpe_flow_key k, c, cc;
	struct frame f;
	struct spec s;

	spec_v4(&s, IPPROTO_TCP, 80, 1024);
	ip4(s.src, 10, 0, 0, 9);
	build(&f, &s);
	CHECK(key_of(&f, f.len, &k) == 0, "no key");
	mpe_flow_key_canon(&k, &c);
	CHECK(memcmp(c.src, s.dst, 16) == 0 && ntohs(c.sport) == 1024 &&
		      memcmp(c.dst, s.src, 16) == 0 && ntohs(c.dport) == 80,
	      "lower endpoint (10.0.0.2:1024) not first");
	mpe_flow_key_canon(&c, &cc);
	CHECK(memcmp(&c, &cc, sizeof(c)) == 0, "canon of canon differs");
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

#define NFLOWS 10000

/* Distinct flows: random 10/8 sources, 192.168/16 destinations, a unique source port. */
static void
distinct_flows(uint32_t *hashes, int family)
{
	unsigned int i;

	rng_state = 0xf10f0000u + (uint64_t)family;
	for (i = 0; i < NFLOWS; i++) {
		struct mpe_flow_key k;
		struct spec s;

		memset(&s, 0, sizeof(s));
		s.family = family;
		s.proto = IPPROTO_UDP;
		if (family == 4) {
			ip4(s.src, 10, (uint8_t)rng(), (uint8_t)rng(), (uint8_t)rng());
			ip4(s.dst, 192, 168, (uint8_t)rng(), (uint8_t)rng());
		} else {
			ip6(s.src, (uint16_t)rng());
			ip6(s.dst, (uint16_t)rng());
			s.src[4] = 0x10;
			s.dst[4] = 0x20;
		}
		s.sport = (uint16_t)(i + 1);
		s.dport = (uint16_t)rng();
		{
			struct frame f;

			build(&f, &s);
			if (key_of(&f, f.len, &k) != 0)
				CHECK(0, "flow %u: no key", i);
		}
		hashes[i] = mpe_flow_hash(&k);
	}
}

static void
check_distinct(int family)
{
	static uint32_t h[NFLOWS];
	unsigned int i, same = 0;

	distinct_flows(h, family);
	qsort(h, NFLOWS, sizeof(h[0]), cmp_u32);
	for (i = 1; i < NFLOWS; i++)
		same += h[i] == h[i - 1];
	CHECK(same * 100 < NFLOWS, "%u of %u distinct flows share a hash", same, NFLOWS);
}

static void
test_distinct_flows_distinct_hashes(void)
{
	check_distinct(4);
	check_distinct(6);
}

/* As the distributor spreads: a 256-entry table indexed by hash & 255, entry i -> i % n. */
static void
check_spread(int family)
{
	static uint32_t h[NFLOWS];
	static const unsigned int ns[] = {2, 3, 4};
	unsigned int t, i;

	distinct_flows(h, family);
	for (t = 0; t < TEST_DIM(ns); t++) {
		unsigned int n = ns[t], count[4] = {0};
		double even = (double)NFLOWS / n;

		for (i = 0; i < NFLOWS; i++)
			count[(h[i] & 255) % n]++;
		for (i = 0; i < n; i++)
			CHECK(count[i] > even * 0.8 && count[i] < even * 1.2,
			      "IPv%d, %u buckets: bucket %u has %u flows, even is %.0f", family,
			      n, i, count[i], even);
	}
}

static void
test_hash_spread_over_buckets(void)
{
	check_spread(4);
	check_spread(6);
}

/* ---- formatting ---- */

static void
check_format(const struct spec *s, const char *expect)
{
	struct mpe_flow_key k;
	struct frame f;
	char buf[128];
	int n;

	build(&f, s);
	if (!CHECK(key_of(&f, f.len, &k) == 0, "no key for \"%s\"", expect))
		return;
	n = mpe_flow_key_format(&k, buf, sizeof(buf));
	CHECK(strcmp(buf, expect) == 0, "\"%s\", expected \"%s\"", buf, expect);
	CHECK(n == (int)strlen(expect), "returned %d, expected %zu", n, strlen(expect));
}

static void
test_format_ipv4(void)
{
	struct spec s;

	spec_v4(&s, IPPROTO_TCP, 1024, 80);
	check_format(&s, "tcp 10.0.0.1:1024 > 10.0.0.2:80");
	spec_v4(&s, 47, 0, 0); /* GRE: no ports */
	check_format(&s, "proto47 10.0.0.1:0 > 10.0.0.2:0");
}

static void
test_format_ipv6(void)
{
	struct spec s;

	spec_v6(&s, IPPROTO_UDP, 5353, 53);
	check_format(&s, "udp [2001:db8::1]:5353 > [2001:db8::2]:53");
}

static void
test_format_l2(void)
{
	struct spec s;

	memset(&s, 0, sizeof(s));
	check_format(&s, "l2 02:00:00:00:00:01 > 02:00:00:00:00:02");
}

static void
test_format_small_buffer_truncates(void)
{
	struct mpe_flow_key k;
	struct frame f;
	struct spec s;
	char buf[8];
	int n;

	spec_v4(&s, IPPROTO_TCP, 1024, 80);
	build(&f, &s);
	CHECK(key_of(&f, f.len, &k) == 0, "no key");
	memset(buf, 'x', sizeof(buf));
	n = mpe_flow_key_format(&k, buf, sizeof(buf));
	CHECK(n == (int)strlen("tcp 10.0.0.1:1024 > 10.0.0.2:80"), "returned %d", n);
	CHECK(memcmp(buf, "tcp 10.", 8) == 0, "buffer \"%.8s\" not truncated and terminated",
	      buf);
}

int
main(void)
{
	static const struct test_case cases[] = {
		{"flow hash of a frame = hash of its key, short cut or not, on mutated frames",
		 test_frame_hash_is_key_hash},
		{"flow key: IPv4 TCP", test_ipv4_tcp},
		{"flow key: IPv4 UDP", test_ipv4_udp},
		{"flow key: IPv6 TCP", test_ipv6_tcp},
		{"flow key: IPv6 UDP", test_ipv6_udp},
		{"flow key: 802.1Q tag gives the VLAN id", test_vlan_8021q},
		{"flow key: QinQ (0x88a8 then 0x8100) gives the inner VLAN id",
		 test_qinq_inner_vlan},
		{"flow key: a third tag is not skipped (L2 key)", test_three_tags_is_l2},
		{"flow key: IPv4 with options (IHL 6 and 15) reads ports after them",
		 test_ipv4_options_ihl6},
		{"flow key: IPv4 non-first fragment has ports 0",
		 test_ipv4_non_first_fragment_has_no_ports},
		{"flow key: IPv4 DF bit alone keeps the ports",
		 test_ipv4_dont_fragment_keeps_ports},
		{"flow key: non-first fragment without L4 bytes is fine",
		 test_non_first_fragment_without_l4_bytes},
		{"flow hash: fragments of one datagram hash alike",
		 test_ipv4_fragments_of_one_datagram_hash_alike},
		{"flow key: ICMP and ICMPv6 have ports 0", test_icmp_has_no_ports},
		{"flow key: non-IP frame is keyed by MACs (family L2)", test_non_ip_is_l2},
		{"flow key: IP version not matching the ethertype is -EINVAL",
		 test_wrong_ip_version_is_einval},
		{"flow hash: equal truncated frames hash alike", test_equal_bad_frames_hash_alike},
		{"flow hash: IPv4 both directions hash alike (10000 random flows)",
		 test_symmetry_ipv4},
		{"flow hash: IPv6 both directions hash alike (10000 random flows)",
		 test_symmetry_ipv6},
		{"flow hash: non-IP frames, both directions hash alike", test_symmetry_l2},
		{"flow key: canonical key puts the lower endpoint first",
		 test_canon_is_one_direction},
		{"flow hash: under 1% collisions over 10000 distinct flows",
		 test_distinct_flows_distinct_hashes},
		{"flow hash: spread over 2, 3 and 4 workers within 20% of even",
		 test_hash_spread_over_buckets},
		{"format: IPv4", test_format_ipv4},
		{"format: IPv6", test_format_ipv6},
		{"format: L2", test_format_l2},
		{"format: small buffer truncates like snprintf",
		 test_format_small_buffer_truncates},
	};

	test_run_cases(cases, TEST_DIM(cases));
	run_truncation_sweeps();
	run_trunc_cases();
	return test_summary();
}
