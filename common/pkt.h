/* Flow keys and the symmetric flow hash.
 * Pure functions over packet bytes: no state, safe from any lcore, thread or process.
 * Both directions of a flow give the same canonical key, and so the same hash.
 */
#ifndef MPE_PKT_H
#define MPE_PKT_H

#include <stddef.h>
#include <stdint.h>

#define MPE_ETHER_TYPE_IPV4 0x0800
#define MPE_ETHER_TYPE_IPV6 0x86dd
#define MPE_ETHER_TYPE_VLAN 0x8100
#define MPE_ETHER_TYPE_QINQ 0x88a8

/* Up to two VLAN tags (802.1ad outer, 802.1Q inner) are skipped. */
#define MPE_PKT_MAX_VLAN 2

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

/* Fill @key from an Ethernet frame of @len bytes.
 * Returns 0, or -EINVAL when the frame is too short for the headers it announces
 * (then @key holds what could be read and the caller decides what to do).
 * Every IPv4 fragment (the first too, so that all of a datagram stays together) and
 * protocols without ports get port 0.
 */
int mpe_pkt_flow_key(const void *frame, uint32_t len, struct mpe_flow_key *key);

/* Canonical form: the endpoint that compares lower goes first. Both directions map to one. */
void mpe_flow_key_canon(const struct mpe_flow_key *key, struct mpe_flow_key *canon);

/* 32-bit hash of the canonical key: equal for both directions of a flow. */
uint32_t mpe_flow_hash(const struct mpe_flow_key *key);

/* Key and hash of a frame in one call; a frame whose headers cannot be read hashes as
 * far as it could be parsed (so equal bad frames still land together). */
uint32_t mpe_pkt_flow_hash(const void *frame, uint32_t len);

/* Human form "tcp 10.0.0.1:1024 > 10.0.0.2:80", for logs and tool reports. */
int mpe_flow_key_format(const struct mpe_flow_key *key, char *buf, size_t size);

#endif
