/* SPDX-License-Identifier: BSD-3-Clause */
/* The trigger packets of the test-only stages (test_trigger.h): the one matcher hostile and
 * fault share. Reads packets only; safe from any worker.
 */
#include <netinet/in.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "test_trigger.h"

const char *
mpe_test_trigger_match(const struct mpe_test_trigger *t, const struct rte_mbuf *m, size_t *len)
{
	const uint32_t l2 = sizeof(struct rte_ether_hdr), cap = rte_pktmbuf_data_len(m);
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct rte_ipv4_hdr *ip;
	const struct rte_udp_hdr *udp;
	uint32_t l3;

	if (cap < l2 + sizeof(*ip) + sizeof(*udp) + t->prefix_len ||
	    ((const struct rte_ether_hdr *)p)->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return NULL;
	ip = (const struct rte_ipv4_hdr *)(p + l2);
	l3 = (uint32_t)(ip->version_ihl & 0x0f) * 4;
	if (ip->next_proto_id != IPPROTO_UDP || l3 < sizeof(*ip) ||
	    cap < l2 + l3 + sizeof(*udp) + t->prefix_len)
		return NULL;
	udp = (const struct rte_udp_hdr *)(p + l2 + l3);
	if (udp->dst_port != rte_cpu_to_be_16(t->port))
		return NULL;
	p += l2 + l3 + sizeof(*udp);
	*len = RTE_MIN(cap - (l2 + l3 + (uint32_t)sizeof(*udp)),
		       (uint32_t)RTE_MAX(rte_be_to_cpu_16(udp->dgram_len), sizeof(*udp)) -
			       (uint32_t)sizeof(*udp));
	if (*len < t->prefix_len)
		return NULL;
	if (memcmp(p, t->prefix, t->prefix_len) != 0)
		return NULL;
	p += t->prefix_len;
	*len -= t->prefix_len;
	while (*len > 0 && (p[*len - 1] == '\n' || p[*len - 1] == '\0'))
		(*len)--;
	return (const char *)p;
}
