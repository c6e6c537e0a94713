/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer harness of common/packet/decode.c (and of mpe_pkt_flow_key, the flowhash stage's walk,
 * and mpe_pkt_flow_hash, the distributor's): every input is an Ethernet frame, decoded whole
 * and cut at a few lengths, each time from a heap copy of exactly that length (ASan names any
 * over-read). What decode.h and pkt.h promise is checked after every call; a broken promise
 * aborts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_mbuf_ptype.h>

#include "decode.h"
#include "pkt.h"

#define ETH_HLEN  14
#define VLAN_HLEN 4

/* Header boundaries worth cutting at: Ethernet, tags, IPv4 and IPv6 fixed headers, and the
 * first bytes of a transport header after them. */
static const uint32_t cuts[] = {13, 14, 17, 18, 22, 33, 34, 38, 42, 53, 54, 57, 58, 62, 74};

static void __attribute__((noreturn, format(printf, 3, 4)))
broken(const struct mpe_decoded *d, uint32_t len, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr,
		"fuzz_decode: %u-byte frame (bad %u %s, l2 %u l3 %u l4 at %u len %u, "
		"payload %u+%u, ip %u proto %u ext %u frag %u first %u): ",
		len, d->bad, mpe_decode_bad_name(d->bad), d->l2_len, d->l3_len, d->l4_offset,
		d->l4_len, d->payload_offset, d->payload_len, d->ip_version, d->ip_proto,
		d->ext_count, d->frag, d->is_first_fragment);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define EXPECT(d, len, cond)                                                                       \
	do {                                                                                       \
		if (!(cond))                                                                       \
			broken(d, len, "%s", #cond);                                               \
	} while (0)

static int
has_ports(uint8_t proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP || proto == IPPROTO_UDPLITE ||
	       proto == IPPROTO_SCTP;
}

/* End of the IP datagram by its length field (the IP header is in the frame). */
static uint32_t
ip_end(const uint8_t *p, const struct mpe_decoded *d)
{
	const uint8_t *ip = p + d->l2_len;

	if (d->ip_version == 4)
		return d->l2_len + (uint32_t)(ip[2] << 8 | ip[3]);
	return d->l2_len + 40u + (uint32_t)(ip[4] << 8 | ip[5]);
}

/* What holds after any call, well formed or not: everything reported lies inside the frame. */
static void
check_any(const uint8_t *p, uint32_t len, int rc, const struct mpe_decoded *d)
{
	uint32_t l2_ptype = d->ptype & RTE_PTYPE_L2_MASK;
	char text[160];

	EXPECT(d, len, rc == 0 || rc == -EINVAL);
	EXPECT(d, len, (rc == 0) == (d->bad == MPE_DECODE_OK));
	EXPECT(d, len, d->bad < MPE_DECODE_BAD_MAX && d->bad < mpe_decode_bad_count());
	EXPECT(d, len, strcmp(mpe_decode_bad_name(d->bad), "unknown") != 0);

	if (len < ETH_HLEN) {
		EXPECT(d, len, d->bad == MPE_DECODE_BAD_SHORT_L2 && d->l2_len == 0);
		EXPECT(d, len, d->ptype == 0 && d->ip_version == 0);
		return;
	}
	EXPECT(d, len, d->vlan_count <= MPE_PKT_MAX_VLAN);
	EXPECT(d, len, d->l2_len == ETH_HLEN + VLAN_HLEN * d->vlan_count && d->l2_len <= len);
	EXPECT(d, len, d->vlan_count > 0 || d->vlan_id == 0);
	EXPECT(d, len, d->key.vlan == d->vlan_id && d->vlan_id <= 0x0fff);
	EXPECT(d, len,
	       l2_ptype == (d->vlan_count == 0   ? RTE_PTYPE_L2_ETHER
			    : d->vlan_count == 1 ? RTE_PTYPE_L2_ETHER_VLAN
						 : RTE_PTYPE_L2_ETHER_QINQ));
	EXPECT(d, len, (uint64_t)d->payload_offset + d->payload_len <= len);
	EXPECT(d, len, d->payload_offset == 0 || d->payload_offset >= d->l2_len);

	EXPECT(d, len, d->ip_version == 0 || d->ip_version == 4 || d->ip_version == 6);
	if (d->ip_version == 0) {
		EXPECT(d, len, d->l3_len == 0 && d->l4_offset == 0 && d->l4_len == 0);
		EXPECT(d, len, d->ext_count == 0 && d->frag == 0 && d->is_first_fragment == 0);
		EXPECT(d, len, d->key.family == MPE_FLOW_L2 && d->key.proto == 0);
		EXPECT(d, len, d->key.sport == 0 && d->key.dport == 0);
		EXPECT(d, len, memcmp(d->key.dst, p, 6) == 0 && memcmp(d->key.src, p + 6, 6) == 0);
	} else {
		EXPECT(d, len, d->key.family == d->ip_version);
		EXPECT(d, len,
		       d->ether_type ==
			       (d->ip_version == 4 ? MPE_ETHER_TYPE_IPV4 : MPE_ETHER_TYPE_IPV6));
		EXPECT(d, len, d->l4_offset == d->l2_len + d->l3_len);
		EXPECT(d, len, (uint32_t)d->l4_offset + d->l4_len <= len);
		/* a transport header reported lies inside the datagram, not just the frame */
		EXPECT(d, len, d->l4_len == 0 || d->l4_offset + d->l4_len <= ip_end(p, d));
		EXPECT(d, len, d->ip_version == 6 || d->ext_count == 0);
		EXPECT(d, len, d->ip_version == 4 || d->l3_len >= 40);
		EXPECT(d, len, d->ip_version == 6 || (d->l3_len >= 20 && d->l3_len <= 60));
	}
	EXPECT(d, len, d->ext_count <= MPE_DECODE_MAX_EXT);
	EXPECT(d, len, !d->is_first_fragment || d->frag);
	EXPECT(d, len, d->tcp_flags == 0 || d->ip_proto == IPPROTO_TCP);
	/* fragments hash alike: no ports, whatever the transport header says */
	EXPECT(d, len, !d->frag || (d->key.sport == 0 && d->key.dport == 0));
	/* ports set aside only for a first fragment, whose key has none */
	EXPECT(d, len, d->is_first_fragment || (d->frag_sport == 0 && d->frag_dport == 0));

	/* what the parse stage and the tools do with any result */
	(void)mpe_flow_hash(&d->key);
	EXPECT(d, len, mpe_flow_key_format(&d->key, text, sizeof(text)) > 0);
}

/* What holds when the frame was accepted. */
static void
check_ok(const uint8_t *p, uint32_t len, const struct mpe_decoded *d)
{
	uint32_t l3_ptype = d->ptype & RTE_PTYPE_L3_MASK;
	uint32_t l4_ptype = d->ptype & RTE_PTYPE_L4_MASK;

	if (d->ip_version == 0) {
		EXPECT(d, len, l3_ptype == 0 && l4_ptype == 0);
		EXPECT(d, len, d->payload_offset == d->l2_len && d->payload_len == len - d->l2_len);
		return;
	}
	EXPECT(d, len, d->payload_offset == (uint32_t)d->l4_offset + d->l4_len);
	if (d->ip_version == 4)
		EXPECT(d, len,
		       l3_ptype == (d->l3_len == 20 ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV4_EXT));
	else
		EXPECT(d, len,
		       l3_ptype == (d->ext_count ? RTE_PTYPE_L3_IPV6_EXT : RTE_PTYPE_L3_IPV6));
	if (d->frag) {
		EXPECT(d, len, l4_ptype == RTE_PTYPE_L4_FRAG);
		EXPECT(d, len, d->is_first_fragment || d->l4_len == 0);
		return;
	}
	EXPECT(d, len, d->key.proto == d->ip_proto);
	if (has_ports(d->ip_proto)) {
		EXPECT(d, len, d->l4_len >= 8);
		EXPECT(d, len,
		       memcmp(&d->key.sport, p + d->l4_offset, 2) == 0 &&
			       memcmp(&d->key.dport, p + d->l4_offset + 2, 2) == 0);
	} else {
		EXPECT(d, len, d->key.sport == 0 && d->key.dport == 0);
	}
	switch (d->ip_proto) {
	case IPPROTO_TCP:
		EXPECT(d, len, l4_ptype == RTE_PTYPE_L4_TCP && d->l4_len >= 20 && d->l4_len <= 60);
		EXPECT(d, len, d->tcp_flags == p[d->l4_offset + 13]);
		break;
	case IPPROTO_UDP: EXPECT(d, len, l4_ptype == RTE_PTYPE_L4_UDP && d->l4_len == 8); break;
	case IPPROTO_SCTP: EXPECT(d, len, l4_ptype == RTE_PTYPE_L4_SCTP && d->l4_len == 12); break;
	default:
		if ((d->ip_proto == IPPROTO_ICMP && d->ip_version == 4) ||
		    (d->ip_proto == IPPROTO_ICMPV6 && d->ip_version == 6))
			EXPECT(d, len, l4_ptype == RTE_PTYPE_L4_ICMP && d->l4_len == 8);
		else
			EXPECT(d, len, l4_ptype == RTE_PTYPE_L4_NONFRAG);
	}
}

/* For a well-formed frame both keys are one, IPv6 extension headers too: the distributor and
 * the parse stage must hash a flow alike (parse keeps the distributor's hash of a well-formed
 * IP packet, and a flow must not be split between workers). */
static void
check_same_key(const uint8_t *p, uint32_t len, const struct mpe_decoded *d)
{
	struct mpe_flow_key k;

	EXPECT(d, len, mpe_pkt_flow_key(p, len, &k) == 0);
	EXPECT(d, len, memcmp(&k, &d->key, sizeof(k)) == 0);
}

/* With only the first half of the frame in hand (an exact-size copy, so that a read past it
 * is caught), the decode of the whole frame, or hdr_beyond_head where a header lies past the
 * half: the parse stage's decode of an mbuf chain. */
static void
check_head(const uint8_t *p, uint32_t len, int rc, const struct mpe_decoded *d)
{
	uint32_t cap = len / 2;
	uint8_t *h = malloc(cap ? cap : 1);
	struct mpe_decoded hd;
	int hrc;

	if (h == NULL)
		abort();
	memcpy(h, p, cap);
	hrc = mpe_decode_head(h, cap, len, &hd);
	EXPECT(d, len,
	       (hrc == rc && memcmp(&hd, d, sizeof(hd)) == 0) ||
		       (hrc == -EINVAL && hd.bad == MPE_DECODE_BAD_HDR_BEYOND_HEAD));
	free(h);
}

static void
decode_copy(const uint8_t *data, uint32_t len, struct mpe_decoded *d)
{
	uint8_t *p = malloc(len ? len : 1);
	struct mpe_decoded g;
	struct mpe_flow_key k;
	int rc, krc;

	if (p == NULL)
		abort();
	memcpy(p, data, len);
	rc = mpe_decode(p, len, d);
	/* its short cut for IPv4 TCP and UDP decodes as the general decoder does (both clear
	 * the whole result first, so the bytes compare) */
	EXPECT(d, len, mpe_decode_general(p, len, &g) == rc && memcmp(&g, d, sizeof(g)) == 0);
	/* the flowhash stage's own walk over the same bytes */
	krc = mpe_pkt_flow_key(p, len, &k);
	EXPECT(d, len, krc == 0 || krc == -EINVAL);
	EXPECT(d, len,
	       k.family == MPE_FLOW_L2 || k.family == MPE_FLOW_IPV4 || k.family == MPE_FLOW_IPV6);
	/* the distributor's hash of the frame, short cuts and all, is the hash of that key */
	EXPECT(d, len, mpe_pkt_flow_hash(p, len) == mpe_flow_hash(&k));
	check_any(p, len, rc, d);
	if (rc == 0) {
		check_ok(p, len, d);
		check_same_key(p, len, d);
	}
	check_head(p, len, rc, d);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpe_decoded full, d;
	uint32_t len = size > UINT16_MAX * 2 ? UINT16_MAX * 2 : (uint32_t)size;
	size_t i;

	decode_copy(data, len, &full);
	if (len == 0)
		return 0;
	decode_copy(data, len - 1, &d);
	decode_copy(data, len / 2, &d);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]) && cuts[i] < len; i++)
		decode_copy(data, cuts[i], &d);
	/* just short of where the full frame's transport header and payload end */
	if (full.l4_len > 0)
		decode_copy(data, full.l4_offset + full.l4_len - 1u, &d);
	if (full.payload_len > 0)
		decode_copy(data, full.payload_offset + full.payload_len - 1u, &d);
	return 0;
}
