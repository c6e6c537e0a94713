/* SPDX-License-Identifier: BSD-3-Clause */
/* Full header decoder for the parse stage: Ethernet, VLAN tags, IPv4, IPv6 and its extension
 * header chain, TCP, UDP, ICMP, ICMPv6, SCTP. Pure function over plain bytes (no mbuf, no EAL):
 * no state, safe from any lcore, thread or process; never reads past the length it is given.
 */
#ifndef MPE_DECODE_H
#define MPE_DECODE_H

#include <stdint.h>

#include "pkt.h"

/* IPv6 extension headers walked before giving up (MPE_DECODE_BAD_IPV6_EXT_CHAIN). */
#define MPE_DECODE_MAX_EXT MPE_PKT_MAX_EXT

/* Why a frame is malformed. Values index counter arrays of MPE_DECODE_BAD_MAX entries. */
enum mpe_decode_bad {
	MPE_DECODE_OK = 0,
	MPE_DECODE_BAD_SHORT_L2,           /* Ethernet header or a VLAN tag cut off */
	MPE_DECODE_BAD_VLAN_DEPTH,         /* a third VLAN tag */
	MPE_DECODE_BAD_SHORT_IPV4,         /* fixed header or options cut off by the frame */
	MPE_DECODE_BAD_IPV4_VERSION,       /* ether type IPv4, version not 4 */
	MPE_DECODE_BAD_IPV4_IHL,           /* IHL below 5 */
	MPE_DECODE_BAD_IPV4_TOTAL_LEN,     /* total length below IHL or beyond the frame */
	MPE_DECODE_BAD_IPV4_FRAG_OVERSIZE, /* fragment offset + payload beyond 65535 */
	MPE_DECODE_BAD_SHORT_IPV6,         /* fixed header cut off by the frame */
	MPE_DECODE_BAD_IPV6_VERSION,       /* ether type IPv6, version not 6 */
	MPE_DECODE_BAD_IPV6_PAYLOAD_LEN,   /* payload length beyond the frame */
	MPE_DECODE_BAD_IPV6_EXT_SHORT,     /* an extension header beyond the payload length */
	MPE_DECODE_BAD_IPV6_EXT_CHAIN,     /* more than MPE_DECODE_MAX_EXT extension headers */
	MPE_DECODE_BAD_SHORT_TCP,          /* IP payload shorter than 20 bytes */
	MPE_DECODE_BAD_TCP_DOFF,           /* data offset below 5 or beyond the IP payload */
	MPE_DECODE_BAD_SHORT_UDP,          /* IP payload shorter than 8 bytes (UDP, UDP-Lite) */
	MPE_DECODE_BAD_UDP_LEN,            /* UDP length below 8 or beyond the IP payload */
	MPE_DECODE_BAD_SHORT_ICMP,         /* IP payload shorter than 8 bytes (ICMP, ICMPv6) */
	MPE_DECODE_BAD_SHORT_SCTP,         /* IP payload shorter than the 12-byte common header */
	MPE_DECODE_BAD_TCP_FRAG_OFFSET,    /* TCP fragment at offset 8: overlaps the first
					    * fragment's flags (RFC 1858, RFC 3128) */
	MPE_DECODE_BAD_HDR_BEYOND_HEAD,    /* a header to read lies inside the frame, past the
					    * bytes in hand (mpe_decode_head) */
	MPE_DECODE_BAD_MAX,
};

/* What mpe_decode() found. Offsets are from the start of the frame; lengths in bytes. */
struct mpe_decoded {
	/* Direction as on the wire, as mpe_pkt_flow_key() fills it: every fragment (the first
	 * too) has ports 0 so that all of a datagram hashes alike and stays in one flow on one
	 * worker; non-IP frames get the MACs. key.proto is ip_proto, except for IPv6
	 * fragments: the fragment header's next header, the same in every fragment. */
	struct mpe_flow_key key;
	/* A first fragment's transport ports (TCP, UDP, UDP-Lite, SCTP), network order, which
	 * its key leaves 0: what rules on ports must match it on (the rest of the datagram
	 * carries none). 0 for every other frame. */
	uint16_t frag_sport;
	uint16_t frag_dport;
	uint32_t ptype;            /* RTE_PTYPE_L2_* | RTE_PTYPE_L3_* | RTE_PTYPE_L4_*, for mbufs */
	uint32_t payload_offset;   /* after the last decoded header */
	uint32_t payload_len;      /* up to the end of the IP datagram (or UDP length); Ethernet
				    * padding beyond it is not payload. Non-IP: rest of the frame */
	uint16_t l2_len;           /* Ethernet header and VLAN tags */
	uint16_t l3_len;           /* IP header with IPv4 options or IPv6 extension headers */
	uint16_t l4_offset;        /* l2_len + l3_len; 0 when there is no IP header */
	uint16_t l4_len;           /* transport header with TCP options; 0 when not decoded */
	uint16_t ether_type;       /* after the tags, host order */
	uint16_t vlan_id;          /* innermost tag, 0 when untagged */
	uint8_t vlan_count;        /* 0, 1 or 2 */
	uint8_t ip_version;        /* 4, 6, or 0 when not IP */
	uint8_t ip_proto;          /* upper-layer protocol after IPv6 extension headers (50 for ESP,
				    * whose payload is opaque) */
	uint8_t ext_count;         /* IPv6 extension headers walked */
	uint8_t frag;              /* IPv4 MF or offset != 0; IPv6 fragment header present */
	uint8_t is_first_fragment; /* frag with offset 0: the transport header is decoded */
	uint8_t tcp_flags;         /* byte 13 of the TCP header (FIN 0x01 ... CWR 0x80) */
	uint8_t icmp_type;
	uint8_t icmp_code;
	uint8_t bad; /* enum mpe_decode_bad; MPE_DECODE_OK when mpe_decode() returned 0 */
};

/* Decode the Ethernet frame of @len bytes at @frame into @d.
 * Returns 0 when every header present is well formed, or -EINVAL with d->bad set to the first
 * problem found and @d holding what was decoded before it. Accepted as well formed: non-IP
 * ether types (L2 only), Ethernet padding after the IP datagram, non-first fragments (the
 * transport header is not looked for), unknown upper-layer protocols and ESP (not decoded).
 * Refused, against the fragment attacks of RFC 1858 and RFC 3128: a first fragment too short
 * for its whole transport header (short_tcp, tcp_doff, short_udp, ...: the ports, and TCP's
 * flags, must be in the first fragment) and a TCP fragment at offset 8 (tcp_frag_offset).
 * Not handled: IPv6 jumbograms (payload length 0 with a Jumbo option).
 */
int mpe_decode(const void *frame, uint32_t len, struct mpe_decoded *d);

/* mpe_decode() of a frame of @frame_len bytes of which only the first @head_len are at @head
 * (the first segment of an mbuf chain, or a copy of its first bytes): the lengths in the
 * headers are checked against @frame_len, and a header that would have to be read past
 * @head_len is MPE_DECODE_BAD_HDR_BEYOND_HEAD. With @head_len = @frame_len, mpe_decode(). */
int mpe_decode_head(const void *head, uint32_t head_len, uint32_t frame_len,
		    struct mpe_decoded *d);

/* mpe_decode() without its short cut for untagged IPv4 TCP and UDP: the same result for every
 * frame, by the walk layer by layer. For tests, which hold the two to each other. */
int mpe_decode_general(const void *frame, uint32_t len, struct mpe_decoded *d);

/* Short name of a reason ("ok", "short_l2", ...); "unknown" beyond MPE_DECODE_BAD_MAX. */
const char *mpe_decode_bad_name(unsigned int reason);

/* Number of reasons, "ok" included: the size of a per-reason counter array. */
uint32_t mpe_decode_bad_count(void);

#endif
