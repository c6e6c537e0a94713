/* SPDX-License-Identifier: BSD-3-Clause */
/* Packet classification against a rule set with rte_acl: one context per address family.
 * The primary creates the contexts ("<name>_v4", "<name>_v6") in DPDK memory; any process finds
 * them by name (rte_acl keeps no function pointers that another process would call) and
 * classifies concurrently from any number of lcores. A context is immutable once built.
 */
#ifndef MPE_ACL_H
#define MPE_ACL_H

#include <stdint.h>

#include "pkt.h"
#include "rules.h"

/* Longest @name: the context names add "_v4"/"_v6" and must fit RTE_ACL_NAMESIZE. */
#define MPE_ACL_NAME_MAX 28

/* Packets classified per rte_acl_classify call; mpe_acl_classify takes any count. */
#define MPE_ACL_BURST 64

/* The input rte_acl reads, in network order (the order of the packet's headers). */
struct mpe_acl_key4 {
	uint8_t proto;
	uint8_t pad[3];
	uint32_t src;
	uint32_t dst;
	uint16_t sport;
	uint16_t dport;
};

struct mpe_acl_key6 {
	uint8_t proto;
	uint8_t pad[3];
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
};

struct rte_acl_ctx;

/* A handle on the two contexts; plain pointers into DPDK memory, valid in every process. */
struct mpe_acl {
	struct rte_acl_ctx *ctx4;
	struct rte_acl_ctx *ctx6;
};

/* Build the contexts of rule set @r on NUMA @socket. A family without rules gets a context
 * that never matches, so both names always exist. NULL + rte_errno: EINVAL (bad name),
 * ENAMETOOLONG, EEXIST (a context of that name exists), ENOMEM (also when rte_acl cannot fit
 * a rule set of too many different field shapes in its 8 tries), or rte_acl's error. */
struct mpe_acl *mpe_acl_create(const char *name, const struct mpe_rules *r, int socket);

/* Find the contexts that mpe_acl_create(@name) built, from any process.
 * 0, -EINVAL, -ENAMETOOLONG, or -ENOENT when either context is missing. Nothing to free. */
int mpe_acl_lookup(const char *name, struct mpe_acl *out);

/* Free what mpe_acl_create returned, contexts included; only the creator may. NULL is a no-op. */
void mpe_acl_free(struct mpe_acl *a);

/* Classify @n flows: @results[i] = id + 1 of the rule that matches @keys[i] with the highest
 * priority (the lowest id among equal priorities), or 0 when no rule matches or the key is
 * neither IPv4 nor IPv6. One rte_acl_classify call per family per MPE_ACL_BURST keys. */
void mpe_acl_classify(const struct mpe_acl *a, const struct mpe_flow_key *const keys[], uint32_t n,
		      uint32_t results[]);

#endif
