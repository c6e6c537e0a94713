/* SPDX-License-Identifier: BSD-3-Clause */
/* Rule set generations in DPDK memory: made and freed by the primary, read by every worker. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_errno.h>
#include <rte_memzone.h>

#include "ruleset.h"

#define RS_NAME_FMT "mpe_rs_%u"

struct mpe_ruleset *
mpe_ruleset_create(uint32_t generation, const struct mpe_rules *r, const char *file,
		   uint8_t default_action, uint32_t nb_workers)
{
	const struct rte_memzone *mz;
	struct mpe_ruleset *rs;
	struct mpe_acl *acl;
	char name[RTE_MEMZONE_NAMESIZE], acl_name[MPE_ACL_NAME_MAX + 1];
	uint32_t nb = mpe_rules_count(r), stride, i;
	size_t head, size;

	if (nb_workers == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	stride = RTE_ALIGN_CEIL(nb + 1, RTE_CACHE_LINE_SIZE / sizeof(uint64_t));
	head = RTE_ALIGN_CEIL(sizeof(*rs) + (size_t)nb * sizeof(struct mpe_rule),
			      RTE_CACHE_LINE_SIZE);
	size = head + (size_t)nb_workers * stride * sizeof(uint64_t);
	snprintf(name, sizeof(name), RS_NAME_FMT, generation);
	mz = rte_memzone_reserve_aligned(name, size, SOCKET_ID_ANY, 0, RTE_CACHE_LINE_SIZE);
	if (mz == NULL)
		return NULL;
	snprintf(acl_name, sizeof(acl_name), "mpe_acl%u", generation);
	acl = mpe_acl_create(acl_name, r, SOCKET_ID_ANY);
	if (acl == NULL) {
		int err = rte_errno;

		rte_memzone_free(mz);
		rte_errno = err;
		return NULL;
	}
	rs = mz->addr;
	memset(rs, 0, size);
	rs->generation = generation;
	rs->nb_rules = nb;
	rs->nb_workers = nb_workers;
	rs->hits_stride = stride;
	rs->default_action = default_action;
	snprintf(rs->file, sizeof(rs->file), "%s", file);
	rs->acl = *acl;
	free(acl); /* the handle only: the contexts now belong to the rule set */
	rs->hits = (uint64_t *)((char *)rs + head);
	for (i = 0; i < nb; i++) {
		rs->rules[i] = *mpe_rules_get(r, i);
		rs->has_mirror |= rs->rules[i].action == MPE_RULE_MIRROR;
	}
	rs->magic = MPE_RULESET_MAGIC;
	return rs;
}

void
mpe_ruleset_free(struct mpe_ruleset *rs)
{
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;

	if (rs == NULL)
		return;
	snprintf(name, sizeof(name), RS_NAME_FMT, rs->generation);
	mz = rte_memzone_lookup(name);
	rte_acl_free(rs->acl.ctx4);
	rte_acl_free(rs->acl.ctx6);
	rs->magic = 0;
	if (mz != NULL && mz->addr == rs)
		rte_memzone_free(mz);
}

uint64_t
mpe_ruleset_hits(const struct mpe_ruleset *rs, uint32_t idx)
{
	uint64_t sum = 0;
	uint32_t w;

	if (idx > rs->nb_rules)
		return 0;
	for (w = 0; w < rs->nb_workers; w++)
		sum += mpe_ruleset_row(rs, w)[idx];
	return sum;
}

static void
format_addr(const struct mpe_rule *r, const uint8_t *a, char *buf, size_t size)
{
	if (inet_ntop(r->family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
}

int
mpe_rule_format(const struct mpe_rule *r, char *buf, size_t size)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

	format_addr(r, r->src, src, sizeof(src));
	format_addr(r, r->dst, dst, sizeof(dst));
	return snprintf(buf, size, "@%s/%u %s/%u %u : %u %u : %u %u/0x%02x %s %u", src,
			r->src_len, dst, r->dst_len, r->sport_lo, r->sport_hi, r->dport_lo,
			r->dport_hi, r->proto, r->proto_mask, mpe_rule_action_name(r->action),
			r->priority);
}
