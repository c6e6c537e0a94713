/* SPDX-License-Identifier: BSD-3-Clause */
/* Header decoder over plain bytes: each layer checks that what it reads lies inside the frame
 * (L2, L3 headers) or inside the IP datagram (extension and transport headers), and then inside
 * the bytes in hand (@cap: the head of a longer frame), before reading. With every byte in hand
 * the second check never fails. No state; every function may run concurrently anywhere.
 */
#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_common.h>
#include <rte_mbuf_ptype.h>

#include "decode.h"

#define ETH_HLEN           14
#define VLAN_HLEN          4
#define IPV4_MIN_HLEN      20
#define IPV4_MAX_DATAGRAM  65535
#define IPV4_MF            0x2000
#define IPV4_FRAG_OFF_MASK 0x1fff
#define IPV6_HLEN          40
#define IPV6_FRAG_OFF_MASK 0xfff8
/* The fragment offset RFC 1858 refuses for TCP: 8 bytes, which lands on the TCP flags. */
#define TCP_FRAG_OFF_OVERLAP 8
#define TCP_MIN_HLEN       20
#define UDP_HLEN           8
#define ICMP_HLEN          8 /* type, code, checksum and the 4 bytes every message type has */
#define SCTP_HLEN          12

static const char *const bad_names[MPE_DECODE_BAD_MAX] = {
	[MPE_DECODE_OK] = "ok",
	[MPE_DECODE_BAD_SHORT_L2] = "short_l2",
	[MPE_DECODE_BAD_VLAN_DEPTH] = "vlan_depth",
	[MPE_DECODE_BAD_SHORT_IPV4] = "short_ipv4",
	[MPE_DECODE_BAD_IPV4_VERSION] = "ipv4_version",
	[MPE_DECODE_BAD_IPV4_IHL] = "ipv4_ihl",
	[MPE_DECODE_BAD_IPV4_TOTAL_LEN] = "ipv4_total_len",
	[MPE_DECODE_BAD_IPV4_FRAG_OVERSIZE] = "ipv4_frag_oversize",
	[MPE_DECODE_BAD_SHORT_IPV6] = "short_ipv6",
	[MPE_DECODE_BAD_IPV6_VERSION] = "ipv6_version",
	[MPE_DECODE_BAD_IPV6_PAYLOAD_LEN] = "ipv6_payload_len",
	[MPE_DECODE_BAD_IPV6_EXT_SHORT] = "ipv6_ext_short",
	[MPE_DECODE_BAD_IPV6_EXT_CHAIN] = "ipv6_ext_chain",
	[MPE_DECODE_BAD_SHORT_TCP] = "short_tcp",
	[MPE_DECODE_BAD_TCP_DOFF] = "tcp_doff",
	[MPE_DECODE_BAD_SHORT_UDP] = "short_udp",
	[MPE_DECODE_BAD_UDP_LEN] = "udp_len",
	[MPE_DECODE_BAD_SHORT_ICMP] = "short_icmp",
	[MPE_DECODE_BAD_SHORT_SCTP] = "short_sctp",
	[MPE_DECODE_BAD_TCP_FRAG_OFFSET] = "tcp_frag_offset",
	[MPE_DECODE_BAD_HDR_BEYOND_HEAD] = "hdr_beyond_head",
};

const char *
mpe_decode_bad_name(unsigned int reason)
{
	if (reason >= MPE_DECODE_BAD_MAX)
		return "unknown";
	return bad_names[reason];
}

uint32_t
mpe_decode_bad_count(void)
{
	return MPE_DECODE_BAD_MAX;
}

static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Transport header at d->l4_offset, inside an IP datagram ending at @end, of which the bytes
 * up to @cap are in hand. Fills the ports of the key, or of a first fragment frag_sport and
 * frag_dport (see struct mpe_decoded). Returns a reason. */
static unsigned int
decode_l4(const uint8_t *p, uint32_t end, uint32_t cap, struct mpe_decoded *d)
{
	const uint8_t *l4 = p + d->l4_offset;
	uint32_t avail = end - d->l4_offset;
	/* after IPv6 extension headers the transport header may start beyond the head */
	uint32_t have = cap > d->l4_offset ? cap - d->l4_offset : 0;
	uint32_t l4type, ulen, hlen;
	int ports = 1;

	switch (d->ip_proto) {
	case IPPROTO_TCP:
		if (avail < TCP_MIN_HLEN)
			return MPE_DECODE_BAD_SHORT_TCP;
		if (have < TCP_MIN_HLEN)
			return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
		/* l4_len only once the header is known to fit: callers copy it as it is */
		hlen = (uint32_t)(l4[12] >> 4) * 4;
		if (hlen < TCP_MIN_HLEN || hlen > avail)
			return MPE_DECODE_BAD_TCP_DOFF;
		d->l4_len = (uint16_t)hlen;
		d->tcp_flags = l4[13];
		l4type = RTE_PTYPE_L4_TCP;
		break;
	case IPPROTO_UDP:
		if (avail < UDP_HLEN)
			return MPE_DECODE_BAD_SHORT_UDP;
		if (have < UDP_HLEN)
			return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
		d->l4_len = UDP_HLEN;
		/* A first fragment's UDP length counts the whole datagram, not this fragment;
		 * a shorter UDP length than the IP payload leaves trailing bytes out. */
		ulen = rd16(l4 + 4);
		if (ulen < UDP_HLEN || (!d->frag && ulen > avail))
			return MPE_DECODE_BAD_UDP_LEN;
		if (!d->frag)
			end = d->l4_offset + ulen;
		l4type = RTE_PTYPE_L4_UDP;
		break;
	case IPPROTO_UDPLITE:
		/* Decoded for its ports, as mpe_pkt_flow_key() keys it; no ptype of its own. */
		if (avail < UDP_HLEN)
			return MPE_DECODE_BAD_SHORT_UDP;
		if (have < UDP_HLEN)
			return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
		d->l4_len = UDP_HLEN;
		l4type = RTE_PTYPE_L4_NONFRAG;
		break;
	case IPPROTO_SCTP:
		if (avail < SCTP_HLEN)
			return MPE_DECODE_BAD_SHORT_SCTP;
		if (have < SCTP_HLEN)
			return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
		d->l4_len = SCTP_HLEN;
		l4type = RTE_PTYPE_L4_SCTP;
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		/* Only the one that belongs to the IP version; the other is an unknown proto. */
		if ((d->ip_proto == IPPROTO_ICMP) != (d->ip_version == 4))
			goto opaque;
		if (avail >= 2) {
			/* as with the whole frame in hand, or not at all */
			if (have < 2)
				return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
			d->icmp_type = l4[0];
			d->icmp_code = l4[1];
		}
		if (avail < ICMP_HLEN)
			return MPE_DECODE_BAD_SHORT_ICMP;
		if (have < ICMP_HLEN)
			return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
		d->l4_len = ICMP_HLEN;
		l4type = RTE_PTYPE_L4_ICMP;
		ports = 0;
		break;
	default: goto opaque;
	}
	/* A first fragment keeps RTE_PTYPE_L4_FRAG and key ports 0, as every other fragment;
	 * its ports go aside, for the rules that match on them. */
	if (!d->frag) {
		d->ptype |= l4type;
		if (ports) {
			memcpy(&d->key.sport, l4, 2);
			memcpy(&d->key.dport, l4 + 2, 2);
		}
	} else if (ports) {
		memcpy(&d->frag_sport, l4, 2);
		memcpy(&d->frag_dport, l4 + 2, 2);
	}
	d->payload_offset = (uint32_t)d->l4_offset + d->l4_len;
	d->payload_len = end - d->payload_offset;
	return MPE_DECODE_OK;

opaque:
	if (!d->frag)
		d->ptype |= RTE_PTYPE_L4_NONFRAG;
	return MPE_DECODE_OK;
}

static unsigned int
decode_ipv4(const uint8_t *p, uint32_t len, uint32_t cap, struct mpe_decoded *d)
{
	const uint8_t *ip = p + d->l2_len;
	uint32_t avail = len - d->l2_len;
	uint32_t hlen, total, frag_off;
	uint16_t frag;

	if (avail < IPV4_MIN_HLEN)
		return MPE_DECODE_BAD_SHORT_IPV4;
	if (cap - d->l2_len < IPV4_MIN_HLEN)
		return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
	if ((ip[0] >> 4) != 4)
		return MPE_DECODE_BAD_IPV4_VERSION;
	hlen = (uint32_t)(ip[0] & 0x0f) * 4;
	if (hlen < IPV4_MIN_HLEN)
		return MPE_DECODE_BAD_IPV4_IHL;
	if (hlen > avail)
		return MPE_DECODE_BAD_SHORT_IPV4;
	if (hlen > cap - d->l2_len)
		return MPE_DECODE_BAD_HDR_BEYOND_HEAD;

	d->ip_version = 4;
	d->ip_proto = ip[9];
	d->l3_len = (uint16_t)hlen;
	d->l4_offset = (uint16_t)(d->l2_len + hlen);
	d->ptype |= hlen == IPV4_MIN_HLEN ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV4_EXT;
	memset(d->key.src, 0, sizeof(d->key.src));
	memset(d->key.dst, 0, sizeof(d->key.dst));
	d->key.family = MPE_FLOW_IPV4;
	d->key.proto = ip[9];
	memcpy(d->key.src, ip + 12, 4);
	memcpy(d->key.dst, ip + 16, 4);

	/* The frame may be longer (Ethernet padding), never shorter. */
	total = rd16(ip + 2);
	if (total < hlen || total > avail)
		return MPE_DECODE_BAD_IPV4_TOTAL_LEN;
	d->payload_offset = d->l4_offset;
	d->payload_len = total - hlen;

	frag = rd16(ip + 6);
	frag_off = (uint32_t)(frag & IPV4_FRAG_OFF_MASK) * 8;
	if (frag & (IPV4_MF | IPV4_FRAG_OFF_MASK)) {
		d->frag = 1;
		d->is_first_fragment = frag_off == 0;
		d->ptype |= RTE_PTYPE_L4_FRAG;
		if (frag_off + total - hlen > IPV4_MAX_DATAGRAM)
			return MPE_DECODE_BAD_IPV4_FRAG_OVERSIZE;
		if (frag_off == TCP_FRAG_OFF_OVERLAP && d->ip_proto == IPPROTO_TCP)
			return MPE_DECODE_BAD_TCP_FRAG_OFFSET;
		if (frag_off != 0)
			return MPE_DECODE_OK;
	}
	return decode_l4(p, d->l2_len + total, cap, d);
}

/* Extension header chain from the one named by the fixed header, inside the payload ending
 * at @end, reading no byte from @cap on. Stops at the first upper-layer protocol, at ESP, or
 * after a fragment header with a non-zero offset (what follows it is the middle of some other
 * fragment's bytes). */
static unsigned int
walk_ipv6_ext(const uint8_t *p, uint32_t end, uint32_t cap, struct mpe_decoded *d,
	      uint32_t *off)
{
	uint8_t nh = d->ip_proto;
	uint32_t o = *off, hlen;
	unsigned int n;

	for (n = 0;; n++) {
		const uint8_t *h = p + o;

		if (!mpe_pkt_ipv6_is_ext(nh)) { /* ESP included: the rest is opaque */
			d->ip_proto = nh;
			*off = o;
			return MPE_DECODE_OK;
		}
		if (n == MPE_DECODE_MAX_EXT)
			return MPE_DECODE_BAD_IPV6_EXT_CHAIN;
		if (end - o < MPE_PKT_IPV6_EXT_MIN)
			return MPE_DECODE_BAD_IPV6_EXT_SHORT;
		/* only the first 8 bytes of a header are read: the rest may lie beyond the head */
		if (o > cap || cap - o < MPE_PKT_IPV6_EXT_MIN)
			return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
		hlen = mpe_pkt_ipv6_ext_len(nh, h);
		if (end - o < hlen)
			return MPE_DECODE_BAD_IPV6_EXT_SHORT;
		d->ext_count = (uint8_t)(n + 1);
		o += hlen;
		if (nh == IPPROTO_FRAGMENT) {
			uint32_t frag_off = rd16(h + 2) & IPV6_FRAG_OFF_MASK;

			d->frag = 1;
			d->key.proto = h[0];
			if (frag_off != 0) {
				d->is_first_fragment = 0;
				d->ip_proto = h[0];
				*off = o;
				/* as for IPv4, where TCP starts the fragmentable part */
				if (frag_off == TCP_FRAG_OFF_OVERLAP && h[0] == IPPROTO_TCP)
					return MPE_DECODE_BAD_TCP_FRAG_OFFSET;
				return MPE_DECODE_OK;
			}
			d->is_first_fragment = 1;
		}
		nh = h[0];
	}
}

static unsigned int
decode_ipv6(const uint8_t *p, uint32_t len, uint32_t cap, struct mpe_decoded *d)
{
	const uint8_t *ip = p + d->l2_len;
	uint32_t avail = len - d->l2_len;
	uint32_t end, off;
	unsigned int bad;

	if (avail < IPV6_HLEN)
		return MPE_DECODE_BAD_SHORT_IPV6;
	if (cap - d->l2_len < IPV6_HLEN)
		return MPE_DECODE_BAD_HDR_BEYOND_HEAD;
	if ((ip[0] >> 4) != 6)
		return MPE_DECODE_BAD_IPV6_VERSION;

	d->ip_version = 6;
	d->ip_proto = ip[6];
	d->l3_len = IPV6_HLEN;
	d->l4_offset = (uint16_t)(d->l2_len + IPV6_HLEN);
	memset(d->key.src, 0, sizeof(d->key.src));
	memset(d->key.dst, 0, sizeof(d->key.dst));
	d->key.family = MPE_FLOW_IPV6;
	d->key.proto = ip[6];
	memcpy(d->key.src, ip + 8, 16);
	memcpy(d->key.dst, ip + 24, 16);

	if ((uint32_t)rd16(ip + 4) > avail - IPV6_HLEN) {
		d->ptype |= RTE_PTYPE_L3_IPV6;
		return MPE_DECODE_BAD_IPV6_PAYLOAD_LEN;
	}
	end = d->l2_len + IPV6_HLEN + rd16(ip + 4);
	off = d->l4_offset;
	bad = walk_ipv6_ext(p, end, cap, d, &off);
	d->ptype |= d->ext_count ? RTE_PTYPE_L3_IPV6_EXT : RTE_PTYPE_L3_IPV6;
	if (bad != MPE_DECODE_OK)
		return bad;
	if (!d->frag) /* a fragment's key.proto was set by the walk */
		d->key.proto = d->ip_proto;
	d->l3_len = (uint16_t)(off - d->l2_len);
	d->l4_offset = (uint16_t)off;
	d->payload_offset = off;
	d->payload_len = end - off;
	if (d->frag) {
		d->ptype |= RTE_PTYPE_L4_FRAG;
		if (!d->is_first_fragment)
			return MPE_DECODE_OK;
	}
	return decode_l4(p, end, cap, d); /* ESP and the rest: opaque, not an error */
}

/* The walk layer by layer over a frame of @len bytes, the first @cap (<= @len) at @p. */
static int
decode_general(const uint8_t *p, uint32_t cap, uint32_t len, struct mpe_decoded *d)
{
	uint32_t off = ETH_HLEN;
	unsigned int bad;
	uint16_t type;

	memset(d, 0, sizeof(*d));
	if (len < ETH_HLEN) {
		bad = MPE_DECODE_BAD_SHORT_L2;
		goto out;
	}
	if (cap < ETH_HLEN) {
		bad = MPE_DECODE_BAD_HDR_BEYOND_HEAD;
		goto out;
	}
	memcpy(d->key.dst, p, 6);
	memcpy(d->key.src, p + 6, 6);
	type = rd16(p + 12);
	while (type == MPE_ETHER_TYPE_VLAN || type == MPE_ETHER_TYPE_QINQ) {
		if (d->vlan_count == MPE_PKT_MAX_VLAN) {
			bad = MPE_DECODE_BAD_VLAN_DEPTH;
			goto l2_done;
		}
		if (len - off < VLAN_HLEN) {
			bad = MPE_DECODE_BAD_SHORT_L2;
			goto l2_done;
		}
		if (cap - off < VLAN_HLEN) {
			bad = MPE_DECODE_BAD_HDR_BEYOND_HEAD;
			goto l2_done;
		}
		d->vlan_id = rd16(p + off) & 0x0fff;
		type = rd16(p + off + 2);
		d->vlan_count++;
		off += VLAN_HLEN;
	}
	bad = MPE_DECODE_OK;
l2_done:
	d->key.vlan = d->vlan_id;
	d->ether_type = type;
	d->l2_len = (uint16_t)off;
	d->ptype = d->vlan_count == 0   ? RTE_PTYPE_L2_ETHER
		   : d->vlan_count == 1 ? RTE_PTYPE_L2_ETHER_VLAN
					: RTE_PTYPE_L2_ETHER_QINQ;
	if (bad != MPE_DECODE_OK)
		goto out;
	d->payload_offset = off;
	d->payload_len = len - off;
	if (type == MPE_ETHER_TYPE_IPV4)
		bad = decode_ipv4(p, len, cap, d);
	else if (type == MPE_ETHER_TYPE_IPV6)
		bad = decode_ipv6(p, len, cap, d);
out:
	d->bad = (uint8_t)bad;
	return bad == MPE_DECODE_OK ? 0 : -EINVAL;
}

int
mpe_decode_general(const void *frame, uint32_t len, struct mpe_decoded *d)
{
	return decode_general(frame, len, len, d);
}

/* Untagged IPv4 with a 20-byte header, not a fragment, carrying TCP or UDP whose header is
 * well formed, with at least 54 bytes in hand (@cap) of a frame of @len: nearly all traffic.
 * Fills @d exactly as mpe_decode_general() would (test_decode and fuzz_decode hold it to
 * that), with its checks folded into one branch instead of a branch per layer and protocol,
 * whose outcome a mix of TCP and UDP makes hard to predict, and the key written in whole
 * words, which the parse stage copies without waiting for byte stores. Returns 0, or -1 for
 * any other frame. */
static inline int
decode_ipv4_fast(const uint8_t *p, uint32_t cap, uint32_t len, struct mpe_decoded *d)
{
	const uint8_t *ip = p + ETH_HLEN, *l4 = ip + IPV4_MIN_HLEN;
	uint32_t total, avail, ulen, thlen, hlen, tcp, udp, ok;
	uint64_t w0, sa = 0, da = 0;
	uint16_t ports[2];

	if (cap < ETH_HLEN + IPV4_MIN_HLEN + TCP_MIN_HLEN || rd16(p + 12) != MPE_ETHER_TYPE_IPV4 ||
	    ip[0] != 0x45 || (rd16(ip + 6) & (IPV4_MF | IPV4_FRAG_OFF_MASK)) != 0)
		return -1;
	total = rd16(ip + 2);
	avail = total - IPV4_MIN_HLEN; /* only used when total >= IPV4_MIN_HLEN */
	tcp = ip[9] == IPPROTO_TCP;
	udp = ip[9] == IPPROTO_UDP;
	thlen = (uint32_t)(l4[12] >> 4) * 4;
	ulen = rd16(l4 + 4);
	ok = (total >= IPV4_MIN_HLEN) & (total <= len - ETH_HLEN) &
	     ((tcp & (thlen >= TCP_MIN_HLEN) & (thlen <= avail)) |
	      (udp & (ulen >= UDP_HLEN) & (ulen <= avail)));
	if (!ok)
		return -1;
	hlen = tcp ? thlen : UDP_HLEN;

	memset(d, 0, sizeof(*d));
	memcpy(ports, l4, sizeof(ports));
	memcpy(&sa, ip + 12, 4);
	memcpy(&da, ip + 16, 4);
	/* struct mpe_flow_key in words, as mpe_flow_hash() reads it (pkt.h) */
	w0 = (uint64_t)MPE_FLOW_IPV4 | (uint64_t)ip[9] << 8 | (uint64_t)ports[0] << 32 |
	     (uint64_t)ports[1] << 48;
	memcpy(&d->key, &w0, sizeof(w0));
	memcpy(d->key.src, &sa, sizeof(sa));
	memcpy(d->key.dst, &da, sizeof(da));
	d->ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
		   (tcp ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_UDP);
	d->l2_len = ETH_HLEN;
	d->l3_len = IPV4_MIN_HLEN;
	d->l4_offset = ETH_HLEN + IPV4_MIN_HLEN;
	d->l4_len = (uint16_t)hlen;
	d->payload_offset = ETH_HLEN + IPV4_MIN_HLEN + hlen;
	/* TCP: to the end of the datagram; UDP: of its own length */
	d->payload_len = (tcp ? total - IPV4_MIN_HLEN : ulen) - hlen;
	d->ether_type = MPE_ETHER_TYPE_IPV4;
	d->ip_version = 4;
	d->ip_proto = ip[9];
	d->tcp_flags = tcp ? l4[13] : 0;
	return 0;
}

int
mpe_decode_head(const void *head, uint32_t head_len, uint32_t frame_len, struct mpe_decoded *d)
{
	uint32_t cap = RTE_MIN(head_len, frame_len);

	if (decode_ipv4_fast(head, cap, frame_len, d) == 0)
		return 0;
	return decode_general(head, cap, frame_len, d);
}

int
mpe_decode(const void *frame, uint32_t len, struct mpe_decoded *d)
{
	return mpe_decode_head(frame, len, len, d);
}
