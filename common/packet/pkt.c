/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow keys and the symmetric flow hash: header walking over plain bytes.
 * No state; every function may run concurrently anywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_hash_crc.h>

#include "pkt.h"

#define ETH_HLEN 14
#define VLAN_HLEN 4
#define IPV4_MIN_HLEN 20
#define IPV6_HLEN 40
#define IPV4_FRAG_OFF_MASK 0x1fff
#define IPV6_FRAG_OFF_MASK 0xfff8

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline int
has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_SCTP ||
	       proto == IPPROTO_UDPLITE;
}

/* Ports of an L4 header at @l4 with @avail bytes left; -EINVAL when they are cut off. */
static int
read_ports(const uint8_t *l4, uint32_t avail, struct mpe_flow_key *key)
{
	if (!has_ports(key->proto))
		return 0;
	if (avail < 4)
		return -EINVAL;
	memcpy(&key->sport, l4, 2);
	memcpy(&key->dport, l4 + 2, 2);
	return 0;
}

/* Proto and ports of an IPv6 packet whose fixed header ends at @off, by the walk of the
 * extension header chain that decode.c makes: through hop-by-hop, routing, destination
 * options, AH and fragment headers, at most MPE_PKT_MAX_EXT of them, to the upper-layer
 * protocol (ESP and unknown ones included, whose ports are not read). A fragment's proto is
 * its fragment header's next header and its ports 0, the first fragment's too. Bounded by
 * the frame: the decoder's bound, the payload length, only refuses frames it counts as
 * malformed. */
static int
ipv6_upper(const uint8_t *p, uint32_t off, uint32_t len, struct mpe_flow_key *key)
{
	uint8_t nh = key->proto;
	int frag = 0;
	unsigned int n;

	for (n = 0;; n++) {
		const uint8_t *h = p + off;
		uint32_t hlen;

		if (!mpe_pkt_ipv6_is_ext(nh)) {
			if (frag)
				return 0;
			key->proto = nh;
			return read_ports(h, len - off, key);
		}
		if (n == MPE_PKT_MAX_EXT || len - off < MPE_PKT_IPV6_EXT_MIN)
			return -EINVAL;
		hlen = mpe_pkt_ipv6_ext_len(nh, h);
		if (len - off < hlen)
			return -EINVAL;
		off += hlen;
		if (nh == IPPROTO_FRAGMENT) {
			frag = 1;
			key->proto = h[0];
			/* what follows a non-first fragment's header is not a header */
			if (rd16(h + 2) & IPV6_FRAG_OFF_MASK)
				return 0;
		}
		nh = h[0];
	}
}

int
mpe_pkt_flow_key(const void *frame, uint32_t len, struct mpe_flow_key *key)
{
	const uint8_t *p = frame;
	uint32_t off = ETH_HLEN;
	uint16_t type;
	int tags;

	memset(key, 0, sizeof(*key));
	if (len < ETH_HLEN)
		return -EINVAL;
	/* L2 key until an IP header is found: destination, then source MAC. */
	memcpy(key->dst, p, 6);
	memcpy(key->src, p + 6, 6);
	type = rd16(p + 12);

	for (tags = 0; tags < MPE_PKT_MAX_VLAN &&
		       (type == MPE_ETHER_TYPE_VLAN || type == MPE_ETHER_TYPE_QINQ); tags++) {
		if (len < off + VLAN_HLEN)
			return -EINVAL;
		key->vlan = rd16(p + off) & 0x0fff;
		type = rd16(p + off + 2);
		off += VLAN_HLEN;
	}

	if (type == MPE_ETHER_TYPE_IPV4) {
		const uint8_t *ip = p + off;
		uint32_t ihl;

		if (len < off + IPV4_MIN_HLEN)
			return -EINVAL;
		ihl = (uint32_t)(ip[0] & 0x0f) * 4;
		if ((ip[0] >> 4) != 4 || ihl < IPV4_MIN_HLEN || len < off + ihl)
			return -EINVAL;
		memset(key->src, 0, sizeof(key->src));
		memset(key->dst, 0, sizeof(key->dst));
		key->family = MPE_FLOW_IPV4;
		key->proto = ip[9];
		memcpy(key->src, ip + 12, 4);
		memcpy(key->dst, ip + 16, 4);
		/* Only the first fragment carries the ports; keep all fragments on port 0. */
		if (rd16(ip + 6) & (IPV4_FRAG_OFF_MASK | 0x2000))
			return 0;
		return read_ports(ip + ihl, len - off - ihl, key);
	}
	if (type == MPE_ETHER_TYPE_IPV6) {
		const uint8_t *ip = p + off;

		if (len < off + IPV6_HLEN || (ip[0] >> 4) != 6)
			return -EINVAL;
		memset(key->src, 0, sizeof(key->src));
		memset(key->dst, 0, sizeof(key->dst));
		key->family = MPE_FLOW_IPV6;
		key->proto = ip[6];
		memcpy(key->src, ip + 8, 16);
		memcpy(key->dst, ip + 24, 16);
		return ipv6_upper(p, off + IPV6_HLEN, len, key);
	}
	return 0;
}

uint32_t
mpe_flow_hash_canon(const struct mpe_flow_key *canon)
{
	return rte_hash_crc(canon, sizeof(*canon), MPE_FLOW_HASH_SEED);
}


uint32_t
mpe_pkt_flow_hash(const void *frame, uint32_t len)
{
	const uint8_t *p = frame;
	struct mpe_flow_key key;
	uint16_t type;

	if (unlikely(len < ETH_HLEN))
		goto walk;
	/* Two short cuts take the key's parts straight from the frame and give the hash the
	 * walk below would give (test_pkt holds them to it on every frame it has, and
	 * mutations). First, untagged IPv4 with a 20-byte header and a transport header with
	 * ports, not a fragment. */
	type = rd16(p + 12);
	if (likely(type == MPE_ETHER_TYPE_IPV4) && len >= ETH_HLEN + IPV4_MIN_HLEN + 4 &&
	    p[ETH_HLEN] == 0x45 && !(rd16(p + ETH_HLEN + 6) & (IPV4_FRAG_OFF_MASK | 0x2000)) &&
	    has_ports(p[ETH_HLEN + 9])) {
		const uint8_t *ip = p + ETH_HLEN;
		uint32_t sa, da;
		uint16_t sp, dp;

		memcpy(&sa, ip + 12, 4);
		memcpy(&da, ip + 16, 4);
		memcpy(&sp, ip + IPV4_MIN_HLEN, 2);
		memcpy(&dp, ip + IPV4_MIN_HLEN + 2, 2);
		return mpe_flow_hash_parts((uint32_t)MPE_FLOW_IPV4 | (uint32_t)ip[9] << 8, sp, dp,
					   sa, 0, da, 0);
	}
	/* Second, neither IP nor a tag: the key is the MAC pair, each address the first 6 of
	 * its 16 bytes. The walk would write that key by fields and read it back in words that
	 * straddle the 6-byte copies, each read waiting for the stores to reach the cache: on
	 * the I/O lcore that cost more than all the rest of the hash. */
	if (type != MPE_ETHER_TYPE_IPV4 && type != MPE_ETHER_TYPE_IPV6 &&
	    type != MPE_ETHER_TYPE_VLAN && type != MPE_ETHER_TYPE_QINQ) {
		const uint64_t mac = (UINT64_C(1) << 48) - 1;
		uint64_t dst, src;

		memcpy(&dst, p, 8);	/* destination, then 2 bytes of the source */
		memcpy(&src, p + 6, 8); /* source, then the EtherType */
		return mpe_flow_hash_parts(MPE_FLOW_L2, 0, 0, src & mac, 0, dst & mac, 0);
	}
walk:
	(void)mpe_pkt_flow_key(frame, len, &key);
	return mpe_flow_hash(&key);
}

static const char *
proto_name(uint8_t proto, char *tmp, size_t size)
{
	switch (proto) {
	case IPPROTO_TCP:
		return "tcp";
	case IPPROTO_UDP:
		return "udp";
	case IPPROTO_SCTP:
		return "sctp";
	case IPPROTO_ICMP:
		return "icmp";
	case IPPROTO_ICMPV6:
		return "icmp6";
	default:
		snprintf(tmp, size, "proto%u", proto);
		return tmp;
	}
}

int
mpe_flow_key_format(const struct mpe_flow_key *key, char *buf, size_t size)
{
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN], tmp[16];
	int af = key->family == MPE_FLOW_IPV6 ? AF_INET6 : AF_INET;

	if (key->family == MPE_FLOW_L2)
		return snprintf(buf, size,
				"l2 %02x:%02x:%02x:%02x:%02x:%02x > %02x:%02x:%02x:%02x:%02x:%02x",
				key->src[0], key->src[1], key->src[2], key->src[3], key->src[4],
				key->src[5], key->dst[0], key->dst[1], key->dst[2], key->dst[3],
				key->dst[4], key->dst[5]);
	inet_ntop(af, key->src, s, sizeof(s));
	inet_ntop(af, key->dst, d, sizeof(d));
	if (af == AF_INET6)
		return snprintf(buf, size, "%s [%s]:%u > [%s]:%u", proto_name(key->proto, tmp, sizeof(tmp)),
				s, ntohs(key->sport), d, ntohs(key->dport));
	return snprintf(buf, size, "%s %s:%u > %s:%u", proto_name(key->proto, tmp, sizeof(tmp)), s,
			ntohs(key->sport), d, ntohs(key->dport));
}
