/* SPDX-License-Identifier: BSD-3-Clause */
/* Flow keys and the symmetric flow hash.
 * Pure functions over packet bytes: no state, safe from any lcore, thread or process.
 * Both directions of a flow give the same canonical key, and so the same hash.
 */
#ifndef MPE_PKT_H
#define MPE_PKT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_hash_crc.h>

#define MPE_ETHER_TYPE_IPV4 0x0800
#define MPE_ETHER_TYPE_IPV6 0x86dd
#define MPE_ETHER_TYPE_VLAN 0x8100
#define MPE_ETHER_TYPE_QINQ 0x88a8

/* Up to two VLAN tags (802.1ad outer, 802.1Q inner) are skipped. */
#define MPE_PKT_MAX_VLAN 2

/* IPv6 extension headers walked before giving up: the parse stage's decoder and
 * mpe_pkt_flow_key() stop at the same one, so that both find the same key. */
#define MPE_PKT_MAX_EXT 8

/* IPv6 extension headers the two walks step over: hop-by-hop, routing, destination
 * options, AH and fragment. ESP, No Next Header and the rest end them. */
#define MPE_PKT_IPV6_EXT_MIN 8 /* every one is at least 8 bytes */

static inline int
mpe_pkt_ipv6_is_ext(uint8_t nh)
{
	return nh == IPPROTO_HOPOPTS || nh == IPPROTO_ROUTING || nh == IPPROTO_DSTOPTS ||
	       nh == IPPROTO_AH || nh == IPPROTO_FRAGMENT;
}

/* Length of extension header @h of type @nh (mpe_pkt_ipv6_is_ext()), from its first two
 * bytes: in 8-byte units beyond the first, AH in 4-byte units beyond the first two. */
static inline uint32_t
mpe_pkt_ipv6_ext_len(uint8_t nh, const uint8_t *h)
{
	if (nh == IPPROTO_FRAGMENT)
		return MPE_PKT_IPV6_EXT_MIN;
	if (nh == IPPROTO_AH)
		return ((uint32_t)h[1] + 2) * 4;
	return ((uint32_t)h[1] + 1) * 8;
}

enum mpe_flow_family {
	MPE_FLOW_L2 = 0, /* not IP: key is the pair of MAC addresses */
	MPE_FLOW_IPV4 = 4,
	MPE_FLOW_IPV6 = 6,
};

/* A flow as seen on the wire, in one direction. Addresses and ports in network order. */
struct mpe_flow_key {
	uint8_t family; /* enum mpe_flow_family */
	uint8_t proto;  /* IP protocol; 0 for L2 */
	uint16_t vlan;  /* innermost VLAN id, 0 if untagged */
	uint16_t sport;
	uint16_t dport;
	uint8_t src[16]; /* IPv4 in the first 4 bytes; MAC in the first 6 for L2 */
	uint8_t dst[16];
};

/* Fill @key from an Ethernet frame of @len bytes: for every frame the parse stage's decoder
 * finds well formed, the key it finds (test_decode and fuzz_decode hold the two to that), so
 * that the distributor sends each packet to the worker whose flow table holds its flow.
 * IPv6 extension headers are walked as the decoder walks them, up to MPE_PKT_MAX_EXT; the
 * key's proto is the upper-layer protocol, or for a fragment the fragment header's next
 * header. Every fragment (the first too, so that all of a datagram stays together) and
 * protocols without ports get port 0.
 * Returns 0, or -EINVAL when the frame is too short for the headers it announces
 * (then @key holds what could be read and the caller decides what to do).
 */
int mpe_pkt_flow_key(const void *frame, uint32_t len, struct mpe_flow_key *key);

#define MPE_FLOW_HASH_SEED 0x6d5a6d5a

/* mpe_flow_hash() builds the key's words in registers, in this layout, little-endian. */
_Static_assert(sizeof(struct mpe_flow_key) == 40 &&
		       offsetof(struct mpe_flow_key, sport) == 4 &&
		       offsetof(struct mpe_flow_key, src) == 8 &&
		       offsetof(struct mpe_flow_key, dst) == 24,
	       "struct mpe_flow_key: the layout mpe_flow_hash() reads");
#if RTE_BYTE_ORDER != RTE_LITTLE_ENDIAN
#error "mpe_flow_hash() composes little-endian words"
#endif

/* CRC32-C of the five words of a canonical key in memory order: rte_hash_crc() of it. */
static inline uint32_t
mpe_flow_hash_words(uint64_t w0, uint64_t w1, uint64_t w2, uint64_t w3, uint64_t w4)
{
	uint32_t h = rte_hash_crc_8byte(w0, MPE_FLOW_HASH_SEED);

	h = rte_hash_crc_8byte(w1, h);
	h = rte_hash_crc_8byte(w2, h);
	h = rte_hash_crc_8byte(w3, h);
	return rte_hash_crc_8byte(w4, h);
}

/* Address bytes 8 at a time, as a number that orders like the bytes do (memcmp order). */
static inline uint64_t
mpe_pkt_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_64(v);
}

/* Canonical form: the endpoint (address, then port) that compares lower goes first, so
 * both directions map to one. Returns 1 when @key's endpoints were swapped, i.e. the
 * packet runs from the canonical key's dst to its src; 0 otherwise. Inline and without
 * memcmp: every inspected packet comes here. */
static inline int
mpe_flow_key_canon(const struct mpe_flow_key *key, struct mpe_flow_key *canon)
{
	uint64_t s0 = mpe_pkt_be64(key->src), d0 = mpe_pkt_be64(key->dst);
	uint64_t s1 = mpe_pkt_be64(key->src + 8), d1 = mpe_pkt_be64(key->dst + 8);
	int swap;

	if (s0 != d0)
		swap = s0 > d0;
	else if (s1 != d1)
		swap = s1 > d1;
	else
		swap = rte_be_to_cpu_16(key->sport) > rte_be_to_cpu_16(key->dport);
	*canon = *key;
	if (swap) {
		memcpy(canon->src, key->dst, sizeof(canon->src));
		memcpy(canon->dst, key->src, sizeof(canon->dst));
		canon->sport = key->dport;
		canon->dport = key->sport;
	}
	return swap;
}

/* 32-bit hash of a key already in canonical form. */
uint32_t mpe_flow_hash_canon(const struct mpe_flow_key *canon);

/* An address of @key as two words in memory order, read 4 bytes at a time: a key just
 * written field by field (4-byte IPv4 addresses into zeroed arrays) is read back without
 * waiting for those small stores to reach the cache, which 8-byte reads across them must. */
static inline void
mpe_flow_key_addr(const uint8_t *a, uint64_t *w0, uint64_t *w1)
{
	uint32_t q[4];

	memcpy(q, a, sizeof(q));
	*w0 = (uint64_t)q[0] | (uint64_t)q[1] << 32;
	*w1 = (uint64_t)q[2] | (uint64_t)q[3] << 32;
}

/* The symmetric hash of a key given by its parts: @fpv = family | proto << 8 | vlan << 16,
 * ports and the two addresses as words in memory order (see mpe_flow_key_addr). */
static inline uint32_t
mpe_flow_hash_parts(uint32_t fpv, uint16_t sp, uint16_t dp, uint64_t s0, uint64_t s1,
		    uint64_t d0, uint64_t d1)
{
	int swap;

	/* Branches, not selects: where directions are predictable (as on mpe-bench's capture)
	 * they cost half of a branch-free compare-and-select, and where they are as good as
	 * random about the same (measured on that capture, half of its keys reversed). */
	if (s0 != d0)
		swap = rte_be_to_cpu_64(s0) > rte_be_to_cpu_64(d0);
	else if (s1 != d1)
		swap = rte_be_to_cpu_64(s1) > rte_be_to_cpu_64(d1);
	else
		swap = rte_be_to_cpu_16(sp) > rte_be_to_cpu_16(dp);
	if (swap) {
		uint64_t t0 = s0, t1 = s1;
		uint16_t tp = sp;

		s0 = d0, s1 = d1, d0 = t0, d1 = t1;
		sp = dp, dp = tp;
	}
	/* the first 8 bytes of struct mpe_flow_key, as a little-endian word */
	return mpe_flow_hash_words((uint64_t)fpv | (uint64_t)sp << 32 | (uint64_t)dp << 48, s0,
				   s1, d0, d1);
}

/* 32-bit hash of the canonical key: equal for both directions of a flow. The same value as
 * mpe_flow_hash_canon() of mpe_flow_key_canon()'s key, made in registers: the key is read
 * once, by fields, and the canonical form is never written. */
static inline uint32_t
mpe_flow_hash(const struct mpe_flow_key *key)
{
	uint64_t s0, s1, d0, d1;

	mpe_flow_key_addr(key->src, &s0, &s1);
	mpe_flow_key_addr(key->dst, &d0, &d1);
	return mpe_flow_hash_parts((uint32_t)key->family | (uint32_t)key->proto << 8 |
					   (uint32_t)key->vlan << 16,
				   key->sport, key->dport, s0, s1, d0, d1);
}

/* Key and hash of a frame in one call; a frame whose headers cannot be read hashes as
 * far as it could be parsed (so equal bad frames still land together). */
uint32_t mpe_pkt_flow_hash(const void *frame, uint32_t len);

/* Human form "tcp 10.0.0.1:1024 > 10.0.0.2:80", for logs and tool reports. */
int mpe_flow_key_format(const struct mpe_flow_key *key, char *buf, size_t size);

#endif
